//===- Agent/ExpertProposer.cpp - Expert rules as a Proposer -------------===//
#include "forge/Agent/ExpertProposer.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/KernelIndex.h"
#include "forge/Frontend/KernelLookup.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Tune/WriteBack.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <cstring>
#include <deque>

using namespace clang;
using namespace llvm;

namespace forge::agent {

ExpertRule::~ExpertRule() = default;

namespace {
/// Values of the spec's tunables written into Req.Source where it spells
/// them (Tune/WriteBack), as edits against Req.Source. The source is
/// indexed from a private copy (it may differ from the file on disk), with
/// the user's directory on the include path.
Expected<std::vector<SourceEdit>> writeBackValues(const frontend::Toolchain &TC,
                                                 frontend::ParseOptions PO,
                                                 const agent::ProposalRequest &Req,
                                                 const std::map<std::string, int64_t> &Values) {
  SmallString<128> Dir;
  if (std::error_code EC = sys::fs::createUniqueDirectory("forge-writeback", Dir))
    return makeError("cannot create a directory for the write-back: {0}", EC.message());
  scope_exit Cleanup([&] { sys::fs::remove_directories(Dir); });
  SmallString<256> Path(Dir);
  sys::path::append(Path, sys::path::filename(Req.File));
  if (Error E = writeFileAtomically(Path, Req.Source))
    return std::move(E);
  SmallString<256> SrcDir(Req.File);
  sys::fs::make_absolute(SrcDir);
  sys::path::remove_filename(SrcDir);
  PO.ExtraArgs.push_back("-I" + SrcDir.str().str());
  // Errors name the user's file, not the copy.
  auto Named = [&](Error E) {
    std::string M = toString(std::move(E));
    for (size_t At; (At = M.find(Path.str())) != std::string::npos;)
      M.replace(At, Path.size(), Req.File);
    return makeError("{0}", M);
  };
  frontend::ParseDiagnostics Quiet(nullptr);
  auto Index = frontend::buildKernelIndex(TC, PO, Path, Quiet);
  if (!Index)
    return Named(Index.takeError());
  std::vector<std::string> Names;
  for (const auto &[Name, Value] : Values)
    Names.push_back(Name);
  auto Bindings = tune::bindTunables(*Index, Req.Kernel, Names);
  if (!Bindings)
    return Named(Bindings.takeError());
  auto Patches = tune::writeBackEdits(*Index, *Bindings, Values);
  if (!Patches)
    return Named(Patches.takeError());
  std::vector<SourceEdit> Out;
  for (const patch::Edit &E : Patches->editsFor(patch::PatchSet::normalizePath(Index->File)))
    Out.push_back({E.Replacement.getOffset(), E.Replacement.getLength(),
                   E.Replacement.getReplacementText().str()});
  return Out;
}

/// Whether a proposal's blocks apply to Source (a rule bug otherwise).
Error checkApplies(const agent::Proposal &P, StringRef File, StringRef Source) {
  if (P.launchOnly())
    return Error::success();
  auto Text = agent::applyEditText(P.Edits, File, Source, P.Origin);
  return Text ? Error::success() : Text.takeError();
}

/// One edit of Source that makes Target: the span between their common
/// prefix and suffix.
SourceEdit differenceOf(StringRef Source, StringRef Target) {
  size_t Pre = 0, N = std::min(Source.size(), Target.size());
  while (Pre < N && Source[Pre] == Target[Pre])
    ++Pre;
  size_t Suf = 0;
  while (Suf < N - Pre && Source[Source.size() - 1 - Suf] == Target[Target.size() - 1 - Suf])
    ++Suf;
  return {unsigned(Pre), unsigned(Source.size() - Pre - Suf),
          Target.substr(Pre, Target.size() - Pre - Suf).str()};
}
} // namespace

ExpertProposer::ExpertProposer(const frontend::Toolchain &TC, frontend::ParseOptions Parse,
                               std::vector<const RuleInfo *> Rules)
    : TC(TC), Parse(std::move(Parse)), Rules(std::move(Rules)) {}

Expected<std::vector<agent::Proposal>>
ExpertProposer::propose(const agent::ProposalRequest &Req) {
  Skipped.clear();
  LastParseErrors = 0;
  frontend::ParseOptions PO = Parse;
  if (Req.Target)
    PO.Target = Req.Target;
  const arch::TargetInfo *Target = &PO.target();

  // Rules already tried in an earlier round are not asked again on the
  // kernel they saw. They are asked again when the kernel has changed since
  // (another proposal was kept in that round or later: a rule that was
  // slower on the run-time-radius convolution may pay on its specialised
  // copy), and when they lost only to a faster proposal (their gain may add
  // to the winner's). A rule whose own proposal was kept is not asked again.
  unsigned LastKept = 0;
  for (const agent::Attempt &A : Req.History)
    if (A.Verdict == agent::Verdict::Accepted)
      LastKept = std::max(LastKept, A.Round);
  std::vector<const RuleInfo *> Ask;
  for (const RuleInfo *R : Rules) {
    std::string Origin = std::string("expert:") + R->Name;
    const agent::Attempt *Tried = nullptr;
    bool Kept = false;
    // Its proposals composed with those of the rules it enables count as
    // its own ("expert:plane-loop+stencil-z-march").
    for (const agent::Attempt &A : Req.History)
      if (A.Origin == Origin || StringRef(A.Origin).starts_with(Origin + "+")) {
        Tried = &A;
        Kept |= A.Verdict == agent::Verdict::Accepted;
      }
    if (Tried && !Kept &&
        (Tried->Verdict == agent::Verdict::Superseded || LastKept >= Tried->Round))
      Tried = nullptr;
    if (Tried) {
      Skipped.push_back({R->Name, "tried in round " + std::to_string(Tried->Round) + ": " +
                                      (Tried->Verdict ? agent::verdictName(*Tried->Verdict).str()
                                                      : "no verdict")});
      continue;
    }
    Ask.push_back(R);
  }
  std::vector<agent::Proposal> Out;
  if (Ask.empty())
    return Out;

  frontend::ParseRequest PR;
  PR.File = Req.File;
  PR.S = frontend::Side::Device;
  PR.Contents = Req.Source;
  frontend::ParseDiagnostics Diags(DiagOS);
  Error Failure = Error::success();
  Error E = frontend::parseCuda(
      TC, PO, PR, Diags,
      [&](ASTContext &Ctx, CompilerInstance &CI, const frontend::PreprocessorFacts &) {
        auto Kernel = frontend::findKernel(Ctx, Req.Kernel, Req.File);
        if (!Kernel) {
          Failure = Kernel.takeError();
          return;
        }
        const SourceManager &SM = Ctx.getSourceManager();
        if (!SM.isWrittenInMainFile(SM.getExpansionLoc((*Kernel)->getLocation()))) {
          PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc((*Kernel)->getLocation()));
          Failure = makeError("kernel '{0}' is defined in {1}, not in {2}; propose on that file",
                              Req.Kernel, P.isValid() ? P.getFilename() : "a header",
                              Req.File);
          return;
        }
        RuleInput In{Ctx, CI, **Kernel, Req.File, Req.Source, *Target, Req,
                     [&](const std::map<std::string, int64_t> &Values) {
                       return writeBackValues(TC, PO, Req, Values);
                     }};
        for (const RuleInfo *R : Ask) {
          std::unique_ptr<ExpertRule> Rule = R->Create();
          RuleOutcome O = Rule->propose(In);
          if (O.Proposals.empty()) {
            Skipped.push_back({R->Name, O.NotApplicable.empty() ? std::string("no proposal")
                                                                : O.NotApplicable});
            continue;
          }
          for (agent::Proposal &P : O.Proposals) {
            P.Origin = std::string("expert:") + R->Name;
            P.Trusted = true;
            // A block that does not apply is the rule's bug; say so rather
            // than hand the loop an edit that fails at once.
            if (Error AE = checkApplies(P, Req.File, Req.Source)) {
              Skipped.push_back({R->Name, "internal error: the proposed edit does not apply: " +
                                              toString(std::move(AE))});
              continue;
            }
            Out.push_back(std::move(P));
          }
        }
      });
  LastParseErrors = Diags.errors();
  if (E) {
    consumeError(std::move(Failure));
    return std::move(E);
  }
  if (Failure)
    return std::move(Failure);

  // A proposal that enables other rules is offered composed with each of
  // their proposals on its result, not alone.
  std::vector<agent::Proposal> Final;
  for (agent::Proposal &P : Out) {
    if (P.Enables.empty()) {
      Final.push_back(std::move(P));
      continue;
    }
    StringRef Rule = StringRef(P.Origin).drop_front(strlen("expert:"));
    auto Composed = compose(Req, P);
    if (!Composed) {
      Skipped.push_back({Rule.str(), toString(Composed.takeError())});
      continue;
    }
    append_range(Final, std::move(*Composed));
  }
  return Final;
}

Expected<std::vector<agent::Proposal>>
ExpertProposer::compose(const agent::ProposalRequest &Req, const agent::Proposal &P) {
  std::string Enabled = join(P.Enables, ", ");
  // The rules it enables, as far as the selection holds them.
  std::vector<const RuleInfo *> Then;
  for (const std::string &Name : P.Enables)
    for (const RuleInfo *R : Composable.empty() ? Rules : Composable)
      if (Name == R->Name)
        Then.push_back(R);
  if (Then.empty())
    return makeError("it exists to enable {0}, which the rule selection leaves out", Enabled);

  // Its result, launched as its spec change says.
  auto Text = P.launchOnly() ? Expected<std::string>(Req.Source)
                             : agent::applyEditText(P.Edits, Req.File, Req.Source, P.Origin);
  if (!Text)
    return Text.takeError();
  agent::ProposalRequest Next = Req;
  Next.Source = *Text;
  Next.History.clear();
  Next.Model.clear();
  Next.Analysis.clear();
  std::deque<measure::LaunchSpec> Keep;
  if (P.Spec && !P.Spec->empty()) {
    if (!Req.Spec)
      return makeError("its launch change needs the spec, and there is none");
    measure::ValueMap Values(Req.Tunables.begin(), Req.Tunables.end());
    auto Spec = agent::applySpecChange(*Req.Spec, *P.Spec, Keep, Values);
    if (!Spec)
      return makeError("its launch change does not apply: {0}", toString(Spec.takeError()));
    agent::setLaunch(Next, **Spec, Values);
  }

  ExpertProposer Sub(TC, Parse, Then);
  auto Follow = Sub.propose(Next);
  if (!Follow)
    return makeError("its result does not parse for {0}: {1}", Enabled,
                     toString(Follow.takeError()));
  if (Follow->empty()) {
    std::vector<std::string> Why;
    for (const RuleSkip &S : Sub.skipped())
      Why.push_back(S.Rule + ": " + S.Reason);
    return makeError("{0} declined its result ({1})", Enabled, join(Why, "; "));
  }
  std::vector<agent::Proposal> Out;
  for (const agent::Proposal &Q : *Follow) {
    auto Final = Q.launchOnly() ? Expected<std::string>(*Text)
                                : agent::applyEditText(Q.Edits, Req.File, *Text, Q.Origin);
    if (!Final)
      return Final.takeError();
    agent::Proposal C;
    C.Origin = P.Origin + "+" + StringRef(Q.Origin).drop_front(strlen("expert:")).str();
    C.Summary = Q.Summary + ", on " + P.Summary;
    C.Rationale = P.Rationale + "\n\nOn that form, " + Q.Origin + ": " + Q.Rationale;
    C.Trusted = true;
    if (P.Spec || Q.Spec)
      C.Spec = agent::composeSpecChanges(P.Spec.value_or(agent::SpecChange()),
                                         Q.Spec.value_or(agent::SpecChange()));
    if (*Final != Req.Source) {
      auto Blocks = agent::renderEditBlocks(Req.Source, {differenceOf(Req.Source, *Final)});
      if (!Blocks)
        return Blocks.takeError();
      C.Edits = *Blocks;
    }
    Out.push_back(std::move(C));
  }
  return Out;
}

} // namespace forge::agent
