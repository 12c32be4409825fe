//===- forge-port/Propose.cpp - `forge-port propose` ----------------------===//
///
/// \file
/// Shows what the built-in expert rules would change in one kernel, as the
/// SEARCH/REPLACE blocks `forge-port optimize` validates, or applies them
/// one after the other (each rule sees the earlier rules' edits) and writes
/// the result to -o, stdout or a diff. Nothing is compiled or run, and the
/// input file is never written (docs/propose.md).
///
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "ExpertRule.h"
#include "forge/Agent/ExpertProposer.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Agent/Prompt.h"
#include "forge/Arch/GpuModel.h"
#include "forge/Arch/TargetInfo.h"
#include "forge/Frontend/KernelIndex.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Patch/UnifiedDiff.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Json.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace forge;

namespace {
cl::SubCommand ProposeSub("propose", "show or apply the expert rules' proposals for a kernel");
cl::OptionCategory ProposeCategory("forge-port propose options");
cl::opt<std::string> File(cl::Positional, cl::desc("<file.cu>"), cl::cat(ProposeCategory),
                          cl::sub(ProposeSub));
cl::opt<std::string> KernelName("kernel",
                                cl::desc("The kernel (qualified name, or a unique name); "
                                         "default: the spec's kernel"),
                                cl::cat(ProposeCategory), cl::sub(ProposeSub));
cl::opt<std::string> To("to", cl::desc("Target architecture the code is read for"),
                        cl::value_desc("arch"), cl::init("sm_90"), cl::cat(ProposeCategory),
                        cl::sub(ProposeSub));
cl::opt<std::string> RuleGlobs("rules",
                               cl::desc("Comma-separated globs of expert rules ('-' excludes)"),
                               cl::init("*"), cl::cat(ProposeCategory), cl::sub(ProposeSub));
cl::opt<bool> ListRules("list-rules", cl::desc("List the expert rules and exit"),
                        cl::cat(ProposeCategory), cl::sub(ProposeSub));
cl::opt<std::string> SpecPath("spec",
                              cl::desc("Launch spec: block size, grid expressions, tunables"),
                              cl::value_desc("spec.json"), cl::cat(ProposeCategory),
                              cl::sub(ProposeSub));
cl::opt<std::string> BlockOpt("block", cl::desc("Block dimensions when there is no spec"),
                              cl::value_desc("N[,Y[,Z]]"), cl::cat(ProposeCategory),
                              cl::sub(ProposeSub));
enum class Format { Text, Json };
cl::opt<Format> OutputFormat(
    "format", cl::desc("How proposals are printed"),
    cl::values(clEnumValN(Format::Text, "text", "comment lines and edit blocks (default)"),
               clEnumValN(Format::Json, "json", "a JSON array of proposals")),
    cl::init(Format::Text), cl::cat(ProposeCategory), cl::sub(ProposeSub));
cl::opt<bool> Apply("apply",
                    cl::desc("Apply the proposals in table order and print the new source"),
                    cl::cat(ProposeCategory), cl::sub(ProposeSub));
cl::opt<std::string> Output("o", cl::desc("With --apply: write the new source here"),
                            cl::value_desc("file"), cl::cat(ProposeCategory),
                            cl::sub(ProposeSub));
cl::opt<bool> Diff("diff", cl::desc("With --apply: print a unified diff instead"),
                   cl::cat(ProposeCategory), cl::sub(ProposeSub));
cl::opt<std::string> BuildPath("p", cl::desc("Build directory with compile_commands.json"),
                               cl::value_desc("build-dir"), cl::cat(ProposeCategory),
                               cl::sub(ProposeSub));
cl::opt<std::string> CudaPathOpt("cuda-path", cl::desc("CUDA toolkit to parse against"),
                                 cl::cat(ProposeCategory), cl::sub(ProposeSub));
} // namespace

/// "256", "16,16" or "8,8,4".
static Expected<std::array<int64_t, 3>> parseBlock(StringRef Text) {
  std::array<int64_t, 3> B{{1, 1, 1}};
  SmallVector<StringRef, 3> Parts;
  Text.split(Parts, ',');
  if (Parts.size() > 3)
    return makeUsageError("--block: expected N[,Y[,Z]], got '{0}'", Text);
  int64_t Threads = 1;
  for (size_t I = 0; I < Parts.size(); ++I) {
    if (Parts[I].trim().getAsInteger(10, B[I]) || B[I] <= 0)
      return makeUsageError("--block: expected positive integers N[,Y[,Z]], got '{0}'", Text);
    Threads *= B[I];
  }
  if (Threads > 1024)
    return makeUsageError("--block: {0} threads per block; CUDA allows at most 1024", Threads);
  return B;
}

static bool sameKernel(StringRef A, StringRef B) {
  auto Last = [](StringRef S) { return S.rsplit("::").second.empty() ? S : S.rsplit("::").second; };
  return A == B || Last(A) == Last(B);
}

/// Block size, tunables and geometry from the spec.
static Error fillFromSpec(agent::ProposalRequest &Req, const measure::LaunchSpec &Spec) {
  auto Env = Spec.environment();
  if (!Env)
    return Env.takeError();
  auto G = Spec.geometry(*Env);
  if (!G)
    return makeError("{0}: the launch geometry at the default tunables: {1}", SpecPath,
                     toString(G.takeError()));
  Req.Block = G->Block;
  Req.BlockThreads = G->Block[0] * G->Block[1] * G->Block[2];
  for (const measure::Tunable &T : Spec.Tunables)
    Req.Tunables[T.Name] = T.defaultValue();
  static const char *const Dims[] = {"x", "y", "z"};
  for (size_t I = 0; I < Spec.Grid.size() && I < 3; ++I)
    Req.Geometry[std::string("grid.") + Dims[I]] = Spec.Grid[I].text();
  for (size_t I = 0; I < Spec.Block.size() && I < 3; ++I)
    Req.Geometry[std::string("block.") + Dims[I]] = Spec.Block[I].text();
  return Error::success();
}

/// The block of the kernel's first launch in the file with constant
/// dimensions, if any.
static void fillFromLaunch(agent::ProposalRequest &Req, const frontend::Toolchain &TC,
                           const frontend::ParseOptions &PO) {
  frontend::ParseDiagnostics Quiet(nullptr);
  auto Index = frontend::buildKernelIndex(TC, PO, File, Quiet);
  if (!Index) {
    consumeError(Index.takeError());
    return;
  }
  for (const frontend::LaunchSiteInfo &L : Index->LaunchSites) {
    if (!L.Active || !sameKernel(L.Kernel, Req.Kernel))
      continue;
    if (L.Block.Dim3)
      Req.Block = *L.Block.Dim3;
    else if (L.Block.Value)
      Req.Block = std::array<int64_t, 3>{{*L.Block.Value, 1, 1}};
    else
      continue;
    Req.BlockThreads = (*Req.Block)[0] * (*Req.Block)[1] * (*Req.Block)[2];
    return;
  }
}

static std::string specLine(const std::string &Field, const std::string &Expr) {
  return "spec: " + Field + " -> " + Expr;
}

static std::vector<std::string> specLines(const agent::SpecChange &S) {
  std::vector<std::string> Out;
  for (const auto &[Field, Expr] : S.Geometry)
    Out.push_back(specLine(Field, Expr));
  for (const auto &[Name, Values] : S.NewTunables) {
    std::vector<std::string> V;
    for (int64_t X : Values)
      V.push_back(std::to_string(X));
    Out.push_back("spec: new tunable " + Name + " in {" + join(V, ", ") + "}");
  }
  if (!S.Justification.empty())
    Out.push_back("spec: why: " + S.Justification);
  return Out;
}

static void printText(raw_ostream &OS, const agent::Proposal &P) {
  OS << "# " << P.Origin << ": " << P.Summary << "\n";
  SmallVector<StringRef, 8> Lines;
  StringRef(P.Rationale).split(Lines, '\n');
  for (StringRef L : Lines)
    if (!L.trim().empty())
      OS << "# " << L.rtrim() << "\n";
  if (P.Spec)
    for (const std::string &L : specLines(*P.Spec))
      OS << "# " << L << "\n";
  OS << P.Edits;
}

static Json proposalJson(const agent::Proposal &P) {
  Json J = {{"origin", P.Origin},
            {"rule", StringRef(P.Origin).drop_front(StringRef("expert:").size()).str()},
            {"summary", P.Summary},
            {"rationale", P.Rationale},
            {"edits", P.Edits}};
  if (P.Spec) {
    Json Tunables = Json::object();
    for (const auto &[Name, Values] : P.Spec->NewTunables)
      Tunables[Name] = Values;
    J["spec"] = {{"geometry", P.Spec->Geometry},
                 {"new_tunables", Tunables},
                 {"justification", P.Spec->Justification}};
  } else {
    J["spec"] = nullptr;
  }
  return J;
}

static void noteSkips(const agent::ExpertProposer &P) {
  for (const agent::RuleSkip &S : P.skipped())
    WithColor::note(errs(), "forge-port") << S.Rule << ": not applicable: " << S.Reason << "\n";
}

/// Source with the proposal's blocks applied.
static Expected<std::string> applyProposal(const agent::Proposal &P, StringRef Source) {
  return agent::applyEditText(P.Edits, File, Source, P.Origin);
}

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
  if (!Output.empty() && Diff)
    return reportError(makeUsageError("-o and --diff exclude each other"));
  // Writing a result means applying.
  bool Applying = Apply || !Output.empty() || Diff;
  if (Applying && OutputFormat == Format::Json && Output.empty())
    return reportError(makeUsageError(
        "--apply with --format=json needs -o: the new source and the JSON both go to stdout"));
  if (!SpecPath.empty() && !BlockOpt.empty())
    return reportError(makeUsageError("--spec and --block exclude each other"));
  auto Target = arch::lookupTarget(To);
  if (!Target)
    return reportError(Target.takeError());
  auto Selected = passes::selectExpertRules(RuleGlobs);
  if (!Selected)
    return reportError(Selected.takeError());

  std::optional<measure::LaunchSpec> Spec;
  if (!SpecPath.empty()) {
    auto S = measure::readLaunchSpec(SpecPath);
    if (!S)
      return reportError(S.takeError());
    Spec = std::move(*S);
  }
  std::string Kernel = KernelName;
  if (Kernel.empty() && Spec)
    Kernel = Spec->Kernel;
  if (Kernel.empty())
    return reportError(makeUsageError("--kernel is required (or a --spec that names the kernel)"));
  if (Spec && !sameKernel(Spec->Kernel, Kernel))
    return reportError(makeUsageError("the spec {0} is for kernel '{1}', not '{2}'", SpecPath,
                                      Spec->Kernel, Kernel));

  if (Error E = frontend::checkCudaInput(File))
    return reportError(std::move(E));
  auto Source = readFile(File);
  if (!Source)
    return reportError(Source.takeError());
  if (!Output.empty() && Output != "-") {
    bool Same = false;
    if (!sys::fs::equivalent(File, Output, Same) && Same)
      return reportError(makeUsageError(
          "-o names the input file; 'propose' never rewrites its input, write elsewhere"));
  }
  auto PO = tool::makeParseOptions(File, BuildPath, Target->Name, Inv.ExtraArgs);
  if (!PO)
    return reportError(PO.takeError());
  frontend::Toolchain TC = frontend::Toolchain::detect(Inv.Argv0, CudaPathOpt);

  agent::ProposalRequest Req;
  Req.File = File;
  Req.Source = *Source;
  Req.Kernel = Kernel;
  Req.Target = &*Target;
  Req.TargetFacts = agent::targetFacts(*Target);
  // The SM count of the target's reference GPU (H200 for sm_90), else an
  // H200's 132: there is no GPU to ask here.
  const arch::GpuModel *Gpu = arch::referenceGpuFor(*Target);
  Req.SmCount = Gpu ? unsigned(Gpu->SMs) : 132;
  if (Spec) {
    if (Error E = fillFromSpec(Req, *Spec))
      return reportError(std::move(E));
  } else if (!BlockOpt.empty()) {
    auto B = parseBlock(BlockOpt);
    if (!B)
      return reportError(B.takeError());
    Req.Block = *B;
    Req.BlockThreads = (*B)[0] * (*B)[1] * (*B)[2];
  } else {
    fillFromLaunch(Req, TC, *PO);
  }

  if (!Applying) {
    agent::ExpertProposer P(TC, *PO, *Selected);
    P.setParseDiagnostics(&errs());
    auto Proposals = P.propose(Req);
    if (!Proposals)
      return reportError(Proposals.takeError());
    noteSkips(P);
    if (OutputFormat == Format::Json) {
      Json A = Json::array();
      for (const agent::Proposal &X : *Proposals)
        A.push_back(proposalJson(X));
      outs() << A.dump(2) << "\n";
    } else {
      for (size_t I = 0; I < Proposals->size(); ++I) {
        if (I)
          outs() << "\n";
        printText(outs(), (*Proposals)[I]);
      }
    }
    return Proposals->empty() ? ExitFailure : ExitOK;
  }

  // One rule at a time, each on the result of the previous ones.
  std::string Current = *Source;
  std::vector<agent::Proposal> Applied;
  for (size_t I = 0; I < Selected->size(); ++I) {
    agent::ExpertProposer P(TC, *PO, {(*Selected)[I]});
    P.setParseDiagnostics(I == 0 ? &errs() : nullptr);
    Req.Source = Current;
    auto Proposals = P.propose(Req);
    if (!Proposals)
      return reportError(Proposals.takeError());
    noteSkips(P);
    if (Proposals->empty())
      continue;
    agent::Proposal &Pr = Proposals->front();
    auto Next = applyProposal(Pr, Current);
    if (!Next)
      return reportError(makeError("{0}: {1}", Pr.Origin, toString(Next.takeError())));
    Current = std::move(*Next);
    WithColor::note(errs(), "forge-port") << "applied " << Pr.Origin << ": " << Pr.Summary << "\n";
    if (Pr.Spec) {
      for (const std::string &L : specLines(*Pr.Spec))
        WithColor::note(errs(), "forge-port") << (*Selected)[I]->Name << ": " << L << "\n";
      // Later rules see the spec as this proposal leaves it.
      for (const auto &[Field, Expr] : Pr.Spec->Geometry)
        Req.Geometry[Field] = Expr;
      for (const auto &[Name, Values] : Pr.Spec->NewTunables)
        if (!Values.empty())
          Req.Tunables[Name] = Values.front();
    }
    Applied.push_back(std::move(Pr));
  }
  if (Applied.empty())
    return ExitFailure;
  if (OutputFormat == Format::Json) {
    Json A = Json::array();
    for (const agent::Proposal &X : Applied)
      A.push_back(proposalJson(X));
    outs() << A.dump(2) << "\n";
  }
  if (Diff) {
    outs() << patch::unifiedDiff(*Source, Current, "a/" + File, "b/" + File);
  } else if (!Output.empty()) {
    if (Error E = writeFileAtomically(Output, Current))
      return reportError(std::move(E));
  } else {
    outs() << Current;
  }
  return ExitOK;
}
