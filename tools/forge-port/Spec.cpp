//===- forge-port/Spec.cpp - `forge-port spec` ----------------------------===//
///
/// \file
/// Drafts a launch spec (JSON, docs/spec-format.md) for one kernel of a file
/// from its signature and a launch site, for the user to edit.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "SharedOptions.h"
#include "forge/Frontend/KernelIndex.h"
#include "forge/Measure/SpecDraft.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace forge;
using namespace forge::tool;

namespace {
cl::OptionCategory SpecCategory("forge-port spec options");
cl::opt<std::string> File(cl::Positional, cl::desc("<file.cu>"), cl::Required,
                          cl::cat(SpecCategory), cl::sub(specCommand()));
cl::opt<std::string> KernelName("kernel", cl::desc("The kernel (name or qualified name)"),
                                cl::Required, cl::cat(SpecCategory), cl::sub(specCommand()));
cl::opt<int64_t> ProblemSize("size", cl::desc("The value of the size N in the draft"),
                             cl::init(1 << 24), cl::cat(SpecCategory), cl::sub(specCommand()));
cl::opt<std::string> Arch("arch", cl::desc("Device target to read the file for"),
                          cl::value_desc("sm_XX"), cl::cat(SpecCategory), cl::sub(specCommand()));
} // namespace

int forge::tool::runSpec(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port spec: draft a launch spec (JSON) for one kernel\n"))
    return ExitUsage;
  auto Target = optionalTarget(Arch);
  if (!Target)
    return reportError(Target.takeError());
  auto Opts = frontend::makeParseOptions(File, BuildPath, *Target, Inv.ExtraArgs);
  if (!Opts)
    return reportError(Opts.takeError());
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0);
  frontend::ParseDiagnostics Diags(&errs());
  auto Index = frontend::buildKernelIndex(TC, *Opts, File, Diags);
  if (!Index)
    return reportError(Index.takeError());
  measure::DraftOptions DO;
  DO.ProblemSize = ProblemSize;
  auto Spec = measure::draftLaunchSpec(*Index, KernelName, DO);
  if (!Spec)
    return reportError(Spec.takeError());
  outs() << Spec->dump(2) << "\n";
  if (Index->Errors) {
    WithColor::warning(errs(), "forge-port")
        << File << " has " << Index->Errors
        << " parse error(s); the draft is from what could be recovered\n";
    return ExitFailure;
  }
  return ExitOK;
}
