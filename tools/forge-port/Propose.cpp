//===- forge-port/Propose.cpp - `forge-port propose` ----------------------===//
///
/// \file
/// Options, one call of the propose driver (Agent/ProposeSession.h) and
/// rendering (Report/ProposeReport.h). See docs/propose.md.
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "ExpertRule.h"
#include "SharedOptions.h"
#include "forge/Agent/ProposeSession.h"
#include "forge/Patch/UnifiedDiff.h"
#include "forge/Report/ProposeReport.h"
#include "forge/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace forge;
using namespace forge::tool;

namespace {
cl::OptionCategory Cat("forge-port propose options");
cl::opt<std::string> File(cl::Positional, cl::desc("<file.cu>"), cl::cat(Cat),
                          cl::sub(proposeCommand()));
cl::opt<std::string> KernelName("kernel",
                                cl::desc("The kernel (qualified name, or a unique name); "
                                         "default: the spec's kernel"),
                                cl::cat(Cat), cl::sub(proposeCommand()));
cl::opt<std::string> RuleGlobs("rules",
                               cl::desc("Comma-separated globs of expert rules ('-' excludes)"),
                               cl::init("*"), cl::cat(Cat), cl::sub(proposeCommand()));
cl::opt<bool> ListRules("list-rules", cl::desc("List the expert rules and exit"), cl::cat(Cat),
                        cl::sub(proposeCommand()));
cl::opt<std::string> SpecPath("spec",
                              cl::desc("Launch spec: block size, grid expressions, tunables"),
                              cl::value_desc("spec.json"), cl::cat(Cat),
                              cl::sub(proposeCommand()));
cl::opt<std::string> BlockOpt("block", cl::desc("Block dimensions when there is no spec"),
                              cl::value_desc("N[,Y[,Z]]"), cl::cat(Cat),
                              cl::sub(proposeCommand()));
enum class Format { Text, Json };
cl::opt<Format> OutputFormat(
    "format", cl::desc("How proposals are printed"),
    cl::values(clEnumValN(Format::Text, "text", "comment lines and edit blocks (default)"),
               clEnumValN(Format::Json, "json", "a JSON array of proposals")),
    cl::init(Format::Text), cl::cat(Cat), cl::sub(proposeCommand()));
cl::opt<bool> Apply("apply",
                    cl::desc("Apply the proposals in table order and print the new source"),
                    cl::cat(Cat), cl::sub(proposeCommand()));
} // namespace

int forge::tool::runPropose(const Invocation &Inv) {
  if (!parseOptions(Inv, "forge-port propose: show or apply what the built-in expert rules "
                         "would change in one kernel\n"))
    return ExitUsage;
  if (ListRules) {
    for (const passes::RuleInfo &R : passes::allExpertRules())
      outs() << formatv("{0,-24} {1}\n", R.Name, R.Summary);
    return ExitOK;
  }
  if (File.empty())
    return reportError(makeUsageError("no input file; usage: forge-port propose <file.cu> "
                                      "--kernel NAME [options]"));
  if (!OutputPath.empty() && Diff)
    return reportError(makeUsageError("-o and --diff exclude each other"));
  if (Error E = checkKernelFile(File, Inv.ExtraArgs))
    return reportError(std::move(E));
  agent::ProposeOptions O;
  O.Output = cantFail(outputChoice());
  // Writing a result means applying.
  O.Apply = Apply || O.Output.writes();
  if (O.Apply && OutputFormat == Format::Json && OutputPath.empty())
    return reportError(makeUsageError(
        "--apply with --format=json needs -o: the new source and the JSON both go to stdout"));
  auto Target = targetOption(/*Required=*/false);
  if (!Target)
    return reportError(Target.takeError());
  O.Target = *Target ? *Target : &cantFail(arch::lookupTarget("sm_90"));
  auto Rules = passes::selectExpertRules(RuleGlobs);
  if (!Rules)
    return reportError(Rules.takeError());
  if (!SpecPath.empty()) {
    auto S = measure::readLaunchSpec(SpecPath);
    if (!S)
      return reportError(S.takeError());
    O.Spec = std::move(*S);
  }
  if (!BlockOpt.empty()) {
    auto B = parseBlockDims(BlockOpt);
    if (!B)
      return reportError(B.takeError());
    O.Block = *B;
  }
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0, CudaPath);
  O.File = File;
  O.Kernel = KernelName;
  O.Rules = *Rules;
  O.AssumeNoAlias = AssumeNoAlias;
  O.SpecPath = SpecPath;
  O.BuildDir = BuildPath;
  O.ExtraArgs = Inv.ExtraArgs;
  O.Toolchain = &TC;
  O.ParseDiagOS = &errs();
  auto R = agent::ProposeSession(O).run();
  if (!R)
    return reportError(R.takeError());
  report::renderProposeNotes(errs(), *R);
  if (O.Apply && R->empty())
    return ExitFailure;
  std::vector<const agent::Proposal *> Shown;
  for (const agent::Proposal &P : R->Proposals)
    Shown.push_back(&P);
  for (const agent::ApplyStep &S : R->Steps)
    if (S.Applied)
      Shown.push_back(&*S.Applied);
  if (OutputFormat == Format::Json) {
    Json A = Json::array();
    for (const agent::Proposal *P : Shown)
      A.push_back(report::proposalJson(*P));
    outs() << A.dump(2) << "\n";
  } else if (!O.Apply) {
    for (size_t I = 0; I < Shown.size(); ++I) {
      outs() << (I ? "\n" : "");
      report::renderProposalText(outs(), *Shown[I]);
    }
  }
  if (O.Output.K == OutputChoice::Kind::Diff)
    outs() << patch::unifiedDiff(R->Original, R->Source, "a/" + File, "b/" + File);
  else if (O.Apply && O.Output.K != OutputChoice::Kind::File)
    outs() << R->Source;
  return R->empty() ? ExitFailure : ExitOK;
}
