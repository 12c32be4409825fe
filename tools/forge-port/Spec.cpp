//===- forge-port/Spec.cpp - `forge-port spec` ----------------------------===//
///
/// \file
/// Drafts a launch spec (JSON, docs/spec-format.md) for one kernel of a file
/// from its signature, its model (the sizes, counts and grid its guards and
/// indices imply) and a launch site, for the user to check: every guess is
/// listed in the draft's "notes". With --check spec.json it runs the kernel
/// once under that spec on this machine's GPU, under compute-sanitizer, and
/// reports the accesses that left the spec's buffers (Measure/SpecCheck.h).
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "SharedOptions.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Measure/SpecCheck.h"
#include "forge/Measure/SpecDraft.h"
#include "forge/Report/SpecCheckReport.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace forge;
using namespace forge::tool;

namespace {
cl::OptionCategory SpecCategory("forge-port spec options");
cl::opt<std::string> File(cl::Positional, cl::desc("<file.cu>"), cl::Required,
                          cl::cat(SpecCategory), cl::sub(specCommand()));
cl::opt<std::string> KernelName("kernel",
                                cl::desc("The kernel (name or qualified name); with --check, "
                                         "the spec's"),
                                cl::cat(SpecCategory), cl::sub(specCommand()));
cl::opt<int64_t> ProblemSize("size", cl::desc("The value of the size N in the draft"),
                             cl::init(1 << 24), cl::cat(SpecCategory), cl::sub(specCommand()));
cl::opt<std::string> Arch("arch", cl::desc("Device target to read the file for"),
                          cl::value_desc("sm_XX"), cl::cat(SpecCategory), cl::sub(specCommand()));
cl::opt<std::string> CheckSpec("check",
                              cl::desc("Run the kernel once under this spec on the GPU, under "
                                       "compute-sanitizer, and report every access outside "
                                       "its buffers"),
                              cl::value_desc("spec.json"), cl::cat(SpecCategory),
                              cl::sub(specCommand()));
cl::opt<std::string> Sanitizer("sanitizer",
                               cl::desc("compute-sanitizer to run --check under (default: the "
                                        "CUDA toolkit's)"),
                               cl::value_desc("path"), cl::cat(SpecCategory),
                               cl::sub(specCommand()));

int runCheck(const Invocation &Inv) {
  if (Error E = frontend::checkCudaInput(File))
    return reportError(std::move(E));
  if (Error E = checkKernelFile(File, Inv.ExtraArgs))
    return reportError(std::move(E));
  auto Spec = measure::readLaunchSpec(CheckSpec);
  if (!Spec)
    return reportError(Spec.takeError());
  if (!KernelName.empty() && KernelName != Spec->Kernel)
    return reportError(makeUsageError("--kernel '{0}' is not the spec's kernel '{1}'",
                                      KernelName, Spec->Kernel));
  measure::SpecCheckOptions O;
  O.File = File;
  O.Spec = &*Spec;
  O.WorkerPath = WorkerPath;
  O.ToolDir = executableDir(Inv.Argv0);
  O.Sanitizer = Sanitizer;
  O.CudaPath = CudaPath;
  O.NvccFlags = Inv.ExtraArgs;
  O.JobDir = JobDir;
  errs() << "forge-port: running " << Spec->Kernel << " once under " << CheckSpec
         << " with compute-sanitizer memcheck\n";
  auto R = measure::checkSpec(O);
  if (!R)
    return reportError(R.takeError());
  report::renderSpecCheck(outs(), *R, *Spec);
  return R->clean() ? ExitOK : ExitFailure;
}
} // namespace

int forge::tool::runSpec(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port spec: draft a launch spec (JSON) for one kernel\n"))
    return ExitUsage;
  if (!CheckSpec.empty())
    return runCheck(Inv);
  if (KernelName.empty())
    return reportError(makeUsageError("--kernel NAME is required: the kernel to draft a spec for"));
  auto Target = optionalTarget(Arch);
  if (!Target)
    return reportError(Target.takeError());
  if (Error E = checkKernelFile(File, Inv.ExtraArgs))
    return reportError(std::move(E));
  auto Opts = frontend::makeParseOptions(File, BuildPath, *Target, Inv.ExtraArgs);
  if (!Opts)
    return reportError(Opts.takeError());
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0);
  frontend::ParseDiagnostics Diags(&errs());
  measure::DraftOptions DO;
  DO.ProblemSize = ProblemSize;
  auto R = measure::draftSpecForFile(TC, *Opts, File, KernelName, DO, Diags);
  if (!R)
    return reportError(R.takeError());
  outs() << R->Spec.dump(2) << "\n";
  if (R->ParseErrors) {
    WithColor::warning(errs(), "forge-port")
        << File << " has " << R->ParseErrors
        << " parse error(s); the draft is from what could be recovered\n";
    return ExitFailure;
  }
  return ExitOK;
}
