//===- Agent/TunerProposer.cpp - A sweep as a proposal -------------------===//
#include "forge/Agent/TunerProposer.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/KernelIndex.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Tune/TuneSession.h"
#include "forge/Tune/Tuner.h"
#include "forge/Tune/WriteBack.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace forge::agent {

namespace {

std::string valuesText(const std::map<std::string, int64_t> &V) {
  std::vector<std::string> Parts;
  for (const auto &[K, X] : V)
    Parts.push_back(K + "=" + std::to_string(X));
  return join(Parts, " ");
}

/// Whether Source spells Name as an identifier (not inside a longer one).
bool spellsIdentifier(StringRef Source, StringRef Name) {
  auto IdChar = [](char C) { return isAlnum(C) || C == '_'; };
  for (size_t P = Source.find(Name); P != StringRef::npos; P = Source.find(Name, P + 1)) {
    size_t E = P + Name.size();
    if ((P == 0 || !IdChar(Source[P - 1])) && (E >= Source.size() || !IdChar(Source[E])))
      return true;
  }
  return false;
}

} // namespace

Expected<std::vector<agent::Proposal>>
TunerProposer::propose(const agent::ProposalRequest &Req) {
  Skip.clear();
  if (!O.Sweep.GpuTarget) {
    Skip = "no GPU to sweep on";
    return std::vector<agent::Proposal>();
  }
  if (!Req.Spec || Req.Spec->Tunables.empty()) {
    Skip = "the spec has no tunables";
    return std::vector<agent::Proposal>();
  }
  // Once at the start, then again after another proposal was kept (in the
  // same round as the last sweep, too: that sweep saw the older source).
  unsigned LastSweep = 0, LastKept = 0;
  for (const agent::Attempt &A : Req.History) {
    if (A.Origin == "tuner")
      LastSweep = std::max(LastSweep, A.Round);
    else if (A.Verdict == agent::Verdict::Accepted)
      LastKept = std::max(LastKept, A.Round);
  }
  if (LastSweep && LastKept < LastSweep) {
    Skip = formatv("swept in round {0} and nothing else was kept since", LastSweep).str();
    return std::vector<agent::Proposal>();
  }
  ++Sweeps;
  std::string Dir = formatv("{0}/sweep-{1}", O.Sweep.JobRoot, Sweeps).str();
  if (auto EC = sys::fs::create_directories(Dir))
    return makeError("cannot create {0}: {1}", Dir, EC.message());
  std::string Path = Dir + "/" + sys::path::filename(O.File).str();
  if (Error E = writeFileAtomically(Path, Req.Source))
    return std::move(E);
  SmallString<256> SrcDir(O.File);
  sys::fs::make_absolute(SrcDir);
  sys::path::remove_filename(SrcDir);

  // The source's index: where each tunable is written.
  frontend::ParseOptions PO = O.Parse;
  PO.Target = Req.Target;
  PO.ExtraArgs.push_back("-I" + SrcDir.str().str());
  frontend::ParseDiagnostics Diags(nullptr);
  auto Index = frontend::buildKernelIndex(*O.Toolchain, PO, Path, Diags);
  if (!Index)
    return Index.takeError();
  // The tunables the write-back binds to the source; those the spec alone
  // reads (a rewrite's capped grid reads its waves there: not spelled in
  // the source, not a source-only tunable such as an unroll count, not a
  // template argument or launch dimension the spec names) travel in the
  // spec change alone.
  tune::BindOptions BO = tune::bindOptionsFor(*Req.Spec);
  std::vector<std::string> SourceOnlyNames = tune::sourceOnlyTunables(*Req.Spec);
  auto SpecAlone = [&](const std::string &N) {
    return !spellsIdentifier(Req.Source, N) && !is_contained(SourceOnlyNames, N) &&
           !BO.TemplateArgs.count(N) && !BO.GridDims.count(N) && !BO.BlockDims.count(N) &&
           !is_contained(BO.SharedMem, N);
  };
  std::vector<std::string> Names;
  for (const measure::Tunable &T : Req.Spec->Tunables)
    if (!SpecAlone(T.Name))
      Names.push_back(T.Name);

  tune::TuneOptions T = O.Sweep;
  T.Source = Path;
  T.Spec = Req.Spec;
  T.Targets = {Req.Target};
  if (!T.Limit.MaxEvaluations && !T.Limit.MaxSeconds)
    T.Limit.MaxEvaluations = 64;
  T.JobRoot = Dir;
  T.NvccFlags.push_back("-I" + SrcDir.str().str());
  if (!SourceOnlyNames.empty()) {
    auto SF = tune::sourceVariants(*Index, Req.Spec->Kernel, SourceOnlyNames, Req.Source,
                                   Dir + "/variants");
    if (!SF)
      return SF.takeError();
    T.SourceFor = std::move(*SF);
  }
  if (O.OnProgress)
    T.OnProgress = [&](const tune::TuneProgress &P) {
      O.OnProgress(formatv("tuner: {0}/{1} configurations, best {2}", P.Done, P.Total,
                           P.BestNs ? formatv("{0:F2} us", *P.BestNs / 1000).str()
                                    : std::string("none yet"))
                       .str());
    };
  auto R = tune::runTuning(T);
  if (!R)
    return R.takeError();
  if (R->Targets.empty() || R->Targets.front().Best.empty()) {
    Skip = "no configuration passed its checks";
    return std::vector<agent::Proposal>();
  }
  const tune::TargetResult &Best = R->Targets.front();
  std::map<std::string, int64_t> Current;
  for (const measure::Tunable &Tn : Req.Spec->Tunables) {
    auto It = Req.Tunables.find(Tn.Name);
    Current[Tn.Name] = It != Req.Tunables.end() ? It->second : Tn.defaultValue();
  }
  if (Best.Best == Current) {
    Skip = formatv("the sweep of {0} configuration(s) found the current values best ({1})",
                   R->Configs.size(), valuesText(Current))
               .str();
    return std::vector<agent::Proposal>();
  }
  // Where the spec puts each tunable (template arguments, dim3 extents)
  // is where its value is written.
  std::vector<SourceEdit> SE;
  std::vector<std::string> Notes;
  if (!Names.empty()) {
    auto Bound = tune::bindTunables(*Index, Req.Spec->Kernel, Names, BO);
    if (!Bound) {
      Skip = "the best values cannot be written into the source: " + toString(Bound.takeError());
      return std::vector<agent::Proposal>();
    }
    // The values the bindings write; a tunable the write-back could not
    // bind (a capped grid's waves, where the source's launch computes its
    // own grid) travels in the spec change alone.
    std::map<std::string, int64_t> Written;
    std::vector<std::string> SpecOnly;
    for (const auto &[N, V] : Best.Best) {
      if (any_of(Bound->Bindings, [&](const tune::TunableBinding &B) { return B.Name == N; }))
        Written[N] = V;
      else
        SpecOnly.push_back(N);
    }
    if (!SpecOnly.empty())
      Bound->Notes.push_back(formatv("{0} set through the spec alone: the source has no place "
                                     "for {1}",
                                     join(SpecOnly, ", "), SpecOnly.size() > 1 ? "them" : "it")
                                 .str());
    auto Edits = tune::writeBackEdits(*Index, Bound->Bindings, Written);
    if (!Edits)
      return Edits.takeError();
    for (const patch::Edit &E : Edits->editsFor(patch::PatchSet::normalizePath(Index->File)))
      SE.push_back({E.Replacement.getOffset(), E.Replacement.getLength(),
                    E.Replacement.getReplacementText().str()});
    Notes = Bound->Notes;
  }
  agent::Proposal P;
  P.Origin = "tuner";
  P.Trusted = true;
  P.Summary = formatv("{0} (was {1})", valuesText(Best.Best), valuesText(Current)).str();
  double Baseline = 0;
  for (const tune::ConfigResult &C : R->Configs)
    if (C.Values == Current && C.Status == measure::CandidateStatus::Ok)
      Baseline = C.MedianNs;
  P.Rationale = formatv("{0} sweep of {1} configuration(s) on {2}: best {3:F2} us{4}",
                        R->Strategy, R->Configs.size(), O.Sweep.GpuName, Best.BestNs / 1000,
                        Baseline > 0 ? formatv(" against {0:F2} us for the current values",
                                               Baseline / 1000)
                                           .str()
                                     : std::string())
                    .str();
  for (const std::string &N : Notes)
    P.Rationale += "; " + N;
  agent::SpecChange C;
  C.Values = Best.Best;
  C.Justification = "the tuner's best configuration, written into the source by the same edit";
  P.Spec = C;
  if (SE.empty()) {
    // Values the harness sets only through the spec (a capped grid's
    // waves): the proposal is the spec change alone, with no edit.
    C.Justification = "the tuner's best configuration, through the spec alone (the source "
                      "spells none of these values)";
    P.Spec = C;
    return std::vector<agent::Proposal>{std::move(P)};
  }
  auto Text = renderEditBlocks(Req.Source, SE);
  if (!Text)
    return Text.takeError();
  P.Edits = *Text;
  return std::vector<agent::Proposal>{std::move(P)};
}

} // namespace forge::agent
