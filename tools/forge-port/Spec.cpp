//===- forge-port/Spec.cpp - `forge-port spec` ----------------------------===//
///
/// \file
/// Drafts a launch spec (JSON, docs/spec-format.md) for one kernel of a file
/// from its signature, its model (the sizes, counts and grid its guards and
/// indices imply) and a launch site, for the user to check: every guess is
/// listed in the draft's "notes".
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "SharedOptions.h"
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
