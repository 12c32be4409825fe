//===- Agent/Evolve.cpp - optimize --search evolve ------------------------===//
///
/// The evolutionary search (docs/evolve.md). Each generation, every island
/// picks a parent among its variants (or, now and then, any elite of the
/// archive), asks the proposers for transformations of it and judges the
/// best-ranked few with the greedy loop's stages; with a model, islands
/// also ask for a crossover of two elites of different cells. The
/// generation's survivors are checked and timed in one job beside their
/// parents; each correct one is described (lib/Search) and offered to the
/// MAP-Elites archive, which keeps the fastest variant per cell, and to its
/// island. Islands pass their best on every few generations. The search
/// ends when the evaluation budget or the time is spent, or when no
/// proposer has anything new for any parent; the fastest elite is the
/// result.
///
//===----------------------------------------------------------------------===//
#include "OptimizerLoop.h"
#include "forge/Search/Descriptors.h"
#include "forge/Support/Error.h"
#include "forge/Support/Hash.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <chrono>
#include <set>

using namespace llvm;

namespace forge::agent::detail {

namespace {

/// A variant the search can return to: what a request about it needs.
struct Member {
  std::string Path, Source;
  const measure::LaunchSpec *Spec = nullptr;
  measure::ValueMap Values;
  KernelContract Contract;
  KernelSnapshot Snap;
};

/// A proposal judged this generation, and where it came from.
struct Child {
  std::string Id, Parent, Other; ///< Other: the second parent of a crossover
  unsigned Island = 0;
  std::optional<unsigned> Instruction;
};

std::string formatUs(double Ns) { return formatv("{0:F2} us", Ns / 1000).str(); }

} // namespace

/// What the compile and the launch say of a variant, for its descriptor.
static search::CompileFacts compileFacts(const KernelSnapshot &S, const measure::LaunchSpec &Spec,
                                         const measure::ValueMap &Values) {
  search::CompileFacts F;
  F.Registers = int(S.Registers);
  F.StaticShared = int(S.StaticShared);
  auto Env = Spec.environment(Values);
  if (!Env) {
    consumeError(Env.takeError());
    return F;
  }
  F.Scalars = *Env;
  for (const measure::Scalar &Sc : Spec.Scalars) {
    if (const auto *I = std::get_if<int64_t>(&Sc.Value))
      F.Scalars[Sc.Name] = *I;
    else if (const auto *E = std::get_if<measure::IntExpr>(&Sc.Value)) {
      if (auto V = E->evaluate(*Env))
        F.Scalars[Sc.Name] = *V;
      else
        consumeError(V.takeError());
    }
  }
  if (auto G = Spec.geometry(Values)) {
    F.Block = G->Block;
    F.Grid = G->Grid;
    F.BlockThreads = int(G->Block[0] * G->Block[1] * G->Block[2]);
    F.DynamicShared = int(G->SharedMemBytes);
  } else {
    consumeError(G.takeError());
  }
  return F;
}

Expected<OptimizeResult> Loop::evolve(KernelSnapshot Snap) {
  const EvolveOptions &E = *O.Evolve;
  if (!O.GpuTarget) {
    // Nothing can be timed, so nothing can enter the archive: the greedy
    // loop's one round of validation says as much as a search could.
    progress("--search evolve needs a GPU to time variants; validating one round instead");
    return greedy(Snap);
  }
  using Clock = std::chrono::steady_clock;
  auto Began = Clock::now();
  auto Elapsed = [&] { return std::chrono::duration<double>(Clock::now() - Began).count(); };

  search::SourceParse Parse{O.Checker->toolchain(), O.Checker->options(), O.File};
  auto Describe = [&](StringRef Source, const KernelSnapshot &S, const measure::LaunchSpec &Spec,
                      const measure::ValueMap &Values) {
    auto D = search::describeSource(Source, O.Spec->Kernel, compileFacts(S, Spec, Values),
                                    *O.Target, Parse);
    if (D)
      return *D;
    // Still measured and correct: kept, in the plainest cell, with why.
    search::Descriptor Plain;
    Plain.Occupancy = search::occupancyBandOf(S.Occupancy);
    Plain.OccupancyFraction = S.Occupancy;
    Plain.MemoryWhy = "not described: " + toString(D.takeError());
    return Plain;
  };

  EvolveResult ER;
  ER.Archive = search::Archive(std::max({Snap.Noise, O.MinGain, 0.0}));
  search::Archive &A = ER.Archive;
  search::Islands Isl({E.Islands, E.Population, E.MigrationInterval, 0.1}, E.Seed);
  std::map<std::string, Member> Members;

  search::Variant Root;
  Root.Id = "v0";
  Root.Source = Origin.Source;
  Root.SourcePath = Origin.Path;
  Root.Origin = "original";
  Root.MedianNs = Snap.MedianNs;
  Root.Correct = true;
  Root.Desc = Describe(Origin.Source, Snap, *Origin.Spec, Origin.Values);
  A.insert(Root);
  if (Error Err = Isl.seedAll("v0", A))
    return std::move(Err);
  Members["v0"] = {Origin.Path, Origin.Source, Origin.Spec, Origin.Values, CurrentContract, Snap};

  auto SetCurrent = [&](const std::string &Id) {
    const Member &M = Members.at(Id);
    Current = {M.Path, M.Source, M.Spec, M.Values};
    CurrentContract = M.Contract;
  };
  // (parent, proposal) pairs already judged: never judged twice.
  std::set<std::string> Tried;
  // Variants the proposers have nothing new for.
  std::set<std::string> Exhausted;
  // What was tried on each variant (the request's history).
  std::map<std::string, std::vector<Attempt>> Histories;
  auto KeyOf = [](const std::string &Parent, const Proposal &P) {
    ContentHasher H;
    H.add(Parent).add(P.Origin).add(P.Edits);
    if (P.Spec) {
      for (const auto &[K, V] : P.Spec->Geometry)
        H.add(K).add(V);
      for (const auto &[K, V] : P.Spec->Values)
        H.add(K).add(std::to_string(V));
    }
    return H.hex();
  };

  // A proposer that cannot be asked ends the search, as it ends the loop.
  auto ProposerFailed = [&](Error Err) {
    R.StopReason =
        "the " + O.Propose->name().str() + " proposer failed: " + toString(std::move(Err));
    R.ProposerFailed = true;
  };
  unsigned Evals = 0, Next = 1;
  // A budget of evaluations, or only of time (--budget 30m).
  bool Counted = E.Budget != ~0u;
  auto Spent = [&](unsigned N) {
    return Counted ? formatv("{0} of {1}", N, E.Budget).str()
                   : formatv("{0}, {1:F0} s of {2:F0} s", N, Elapsed(), E.Seconds).str();
  };
  std::string BestId = "v0";
  for (unsigned Gen = 1;; ++Gen) {
    if (O.Interrupted && *O.Interrupted) {
      R.StopReason = "interrupted";
      break;
    }
    if (Evals >= E.Budget) {
      R.StopReason = formatv("the evaluation budget ({0}) was spent", E.Budget).str();
      break;
    }
    if (E.Seconds > 0 && Elapsed() >= E.Seconds) {
      R.StopReason = formatv("the time budget ({0:F0} s) was spent", E.Seconds).str();
      break;
    }
    RoundRecord RR;
    RR.Number = Gen;
    RR.Before = Members.at(BestId).Snap;
    std::vector<Candidate> Cands;
    std::vector<Child> Kids;

    auto Judge = [&](Proposal P, const ProposalRequest &Q, Child K) -> Error {
      Candidate C;
      C.Rec.P = std::move(P);
      K.Id = "v" + std::to_string(Next++);
      progress(formatv("generation {0}: island {1}: judging {2} (evaluation {3})", Gen, K.Island,
                       C.Rec.P.Origin, Spent(Evals + 1)));
      if (Error Err = judge(C, Q, Gen, unsigned(Cands.size())))
        return Err;
      A.noteEvaluation(C.Rec.P.Origin);
      ++Evals;
      Cands.push_back(std::move(C));
      Kids.push_back(std::move(K));
      return Error::success();
    };

    bool AnyProposal = false;
    for (unsigned Island = 0; Island < Isl.count() && Evals < E.Budget; ++Island) {
      auto Sel = Isl.selectParent(Island, A);
      if (!Sel)
        return Sel.takeError();
      // The selected parent first; when the proposers have nothing new for
      // it, the island's others and then the archive's elites, fastest
      // first, a few of them.
      std::vector<std::string> Order = {Sel->Id};
      std::vector<const search::Variant *> Others;
      for (const std::string &Id : Isl.population(Island))
        if (const search::Variant *V = A.find(Id))
          Others.push_back(V);
      for (const search::Variant *V : A.elites())
        Others.push_back(V);
      std::stable_sort(Others.begin(), Others.end(),
                       [](const search::Variant *X, const search::Variant *Y) {
                         return X->MedianNs.value_or(0) < Y->MedianNs.value_or(0);
                       });
      for (const search::Variant *V : Others)
        if (Members.count(V->Id) && !is_contained(Order, V->Id))
          Order.push_back(V->Id);
      unsigned Asked = 0, Taken = 0;
      std::optional<unsigned> Instr;
      ProposalRequest Q;
      for (const std::string &Parent : Order) {
        if (Taken || Asked == 4 || Evals >= E.Budget)
          break;
        if (Exhausted.count(Parent))
          continue;
        ++Asked;
        SetCurrent(Parent);
        const Member &PM = Members.at(Parent);
        // What was tried on this very variant, not on its relatives: a rule
        // kept on one branch is still new on another.
        History = Histories[Parent];
        Q = request(Gen, PM.Snap);
        Q.Cell = A.find(Parent)->Desc.key();
        Q.CurrentNs = PM.Snap.MedianNs;
        if (E.Meta) {
          auto [Id, Text] = E.Meta->pick();
          Instr = Id;
          Q.Instruction = Text;
        }
        auto Props = O.Propose->propose(Q);
        if (!Props) {
          ProposerFailed(Props.takeError());
          break;
        }
        RR.NotProposed = O.Propose->notProposed();
        rankByExperience(*Props);
        for (Proposal &P : *Props) {
          if (Taken >= E.Offspring || Evals >= E.Budget)
            break;
          if (!Tried.insert(KeyOf(Parent, P)).second)
            continue;
          AnyProposal = true;
          ++Taken;
          if (Error Err = Judge(std::move(P), Q, {"", Parent, "", Island, Instr}))
            return std::move(Err);
        }
        if (!Taken)
          Exhausted.insert(Parent); // nothing it has not answered before
      }
      if (R.ProposerFailed)
        break;

      // A crossover of two elites of different cells, every other
      // generation once there are two cells.
      if (!E.Crossover || Gen % 2 != 0 || A.cellCount() < 2 || Evals >= E.Budget)
        continue;
      auto Pair = Isl.crossoverPair(A);
      if (!Pair) {
        consumeError(Pair.takeError());
        continue;
      }
      SetCurrent(Pair->first);
      History = Histories[Pair->first];
      const Member &First = Members.at(Pair->first);
      const search::Variant *Second = A.find(Pair->second);
      ProposalRequest X = request(Gen, First.Snap);
      X.Cell = A.find(Pair->first)->Desc.key();
      X.CurrentNs = First.Snap.MedianNs;
      X.Other = ProposalRequest::Elite{Second->Source, Second->Desc.key(), Second->Origin,
                                      Second->MedianNs.value_or(0)};
      X.Instruction = Q.Instruction;
      auto Xs = O.Propose->crossover(X);
      if (!Xs) {
        ProposerFailed(Xs.takeError());
        break;
      }
      for (Proposal &P : *Xs) {
        if (!Tried.insert(KeyOf(Pair->first + "+" + Pair->second, P)).second)
          continue;
        AnyProposal = true;
        if (Error Err = Judge(std::move(P), X, {"", Pair->first, Pair->second, Island, Instr}))
          return std::move(Err);
        break;
      }
    }
    if (R.ProposerFailed) {
      RR.Note = R.StopReason;
      RR.After = RR.Before;
      R.Rounds.push_back(std::move(RR));
      break;
    }
    if (!AnyProposal) {
      R.StopReason = "the proposers have nothing new for any variant of the archive";
      R.LastNotProposed = RR.NotProposed;
      break;
    }

    // Every survivor in one job, beside its parent (gains are measured in
    // the same job), against the original.
    std::vector<size_t> Live;
    for (size_t I = 0; I < Cands.size(); ++I)
      if (!Cands[I].Rec.Verdict)
        Live.push_back(I);
    std::map<std::string, double> ParentNs;
    if (!Live.empty()) {
      std::vector<measure::MeasureCandidate> MC;
      std::set<std::string> Parents;
      for (size_t I : Live)
        Parents.insert(Kids[I].Parent);
      for (const std::string &P : Parents) {
        if (P == "v0" && !Precise)
          continue; // the reference is the original, timed in every job
        const Member &M = Members.at(P);
        MC.push_back({"m_" + P, M.Path, M.Values, A.find(P)->Origin,
                      M.Spec == O.Spec ? nullptr : M.Spec});
      }
      for (size_t I : Live)
        MC.push_back({"k_" + Kids[I].Id, Cands[I].Rec.SourcePath, Cands[I].Values,
                      Cands[I].Rec.P.Origin, Cands[I].Spec == O.Spec ? nullptr : Cands[I].Spec});
      progress(formatv("generation {0}: checking and timing {1} variant(s) on the GPU", Gen,
                       Live.size()));
      auto Rep = measure(Gen, std::move(MC));
      if (!Rep)
        return Rep.takeError();
      for (const measure::CandidateOutcome &Out : Rep->Outcomes) {
        StringRef Id = Out.Candidate.Id;
        if (Id.consume_front("m_") && Out.Result.ok() && Out.Result.Time)
          ParentNs[Id.str()] = Out.Result.Time->Median;
        else if (&Out == &Rep->Outcomes.front() && Out.Result.ok() && Out.Result.Time)
          ParentNs["v0"] = Out.Result.Time->Median;
      }
      for (const measure::CandidateOutcome &Out : Rep->Outcomes) {
        auto It = find_if(Live, [&](size_t I) { return Out.Candidate.Id == "k_" + Kids[I].Id; });
        if (It == Live.end())
          continue;
        Candidate &C = Cands[*It];
        Child &K = Kids[*It];
        if (!checked(C, Out))
          continue;
        C.Rec.MedianNs = Out.Result.Time ? Out.Result.Time->Median : 0;
        double Base = ParentNs.count(K.Parent) ? ParentNs[K.Parent]
                                                : Members.at(K.Parent).Snap.MedianNs;
        C.Rec.Speedup = C.Rec.MedianNs > 0 ? Base / C.Rec.MedianNs : 0;
        double Noise = std::max({Out.Result.Noise.value_or(0), O.MinGain});
        std::string T = formatv("{0} -> {1} over its parent {2}, {3:F3}x (noise ±{4:F1} %)",
                                formatUs(Base), formatUs(C.Rec.MedianNs), K.Parent,
                                C.Rec.Speedup, Noise * 100)
                            .str();
        stage(C.Rec, Stage::Timing, C.Rec.Speedup > 1 + Noise, T);
        // Faster or not than its parent, a correct variant may found a cell.
        C.Rec.Verdict.reset();
        C.Rec.Reason.clear();
        KernelSnapshot KS = snapshot(*Rep, Out, *C.Spec, C.Values);
        search::Variant V;
        V.Id = K.Id;
        V.Parents = {K.Parent};
        if (!K.Other.empty())
          V.Parents.push_back(K.Other);
        V.Source = C.Patched;
        V.SourcePath = C.Rec.SourcePath;
        V.Origin = C.Rec.P.Origin;
        V.Generation = Gen;
        V.Island = K.Island;
        V.MedianNs = C.Rec.MedianNs;
        V.Correct = true;
        V.Desc = Describe(C.Patched, KS, *C.Spec, C.Values);
        std::string Cell = V.Desc.key();
        search::InsertResult In = A.insert(std::move(V));
        if (!In.entered()) {
          C.Rec.Verdict = C.Rec.Speedup < 1 - Noise ? Verdict::Slower : Verdict::NotFaster;
          C.Rec.Reason = formatv("timing: {0}; the elite of cell {1} ({2}) is as fast or faster",
                                 T, Cell, In.Incumbent)
                             .str();
          continue;
        }
        SetCurrent(K.Parent);
        auto CC = O.Checker->analyse(O.File, C.Patched, O.Spec->Kernel, *O.Target);
        if (!CC)
          return CC.takeError();
        Members[K.Id] = {C.Rec.SourcePath, C.Patched, C.Spec, C.Values, *CC, KS};
        if (auto Added = Isl.add(K.Island, K.Id, A); !Added)
          consumeError(Added.takeError());
        C.Rec.Verdict = Verdict::Superseded;
        C.Rec.Reason = formatv("{0}; kept in the archive: {1} cell {2}{3}", T,
                               In.Outcome == search::InsertOutcome::NewCell ? "a new"
                                                                             : "the elite of",
                               Cell,
                               In.Incumbent.empty() ? std::string()
                                                    : " (replaced " + In.Incumbent + ")")
                           .str();
      }
    }

    // The generation's best, when it beats the best so far.
    if (const search::Variant *B = A.best(); B && B->Id != BestId && Members.count(B->Id)) {
      BestId = B->Id;
      for (size_t I = 0; I < Kids.size(); ++I)
        if (Kids[I].Id == BestId) {
          Cands[I].Rec.Verdict = Verdict::Accepted;
          RR.Accepted = int(I);
        }
    }
    for (size_t I = 0; I < Cands.size(); ++I) {
      ProposalRecord &Rec = Cands[I].Rec;
      if (!Rec.Verdict) {
        Rec.Verdict = Verdict::Rejected;
        Rec.Reason = "not timed";
      }
      if (E.Meta && Kids[I].Instruction)
        E.Meta->credit(*Kids[I].Instruction, *Rec.Verdict, Rec.Speedup);
      noteExperience(Rec, Members.at(Kids[I].Parent).Contract);
      std::optional<Stage> Reached;
      if (const StageVerdict *F = Rec.failedStage())
        Reached = F->Stage;
      else if (!Rec.Stages.empty())
        Reached = Rec.Stages.back().Stage;
      Histories[Kids[I].Parent].push_back(
          {Gen, Rec.P.Origin, Rec.P.Summary, Reached, Rec.Verdict, Rec.Reason});
      RR.Proposals.push_back(std::move(Rec));
      if (O.OnRecord)
        O.OnRecord(Gen, RR.Proposals.back());
    }
    if (Isl.migrationDue(Gen))
      for (search::Migration &M : Isl.migrate(A))
        ER.Migrations.push_back(std::move(M));
    if (E.Meta)
      E.Meta->evolve();

    RR.After = Members.at(BestId).Snap;
    RR.Gain = RR.Before.MedianNs > 0 && RR.After.MedianNs > 0
                  ? RR.Before.MedianNs / RR.After.MedianNs
                  : 1.0;
    RR.Note = formatv("{0} cell(s) in the archive; best {1}", A.cellCount(),
                      formatUs(RR.After.MedianNs))
                  .str();
    R.Rounds.push_back(std::move(RR));
    ER.Generations = Gen;
    // The ETA: the evaluations left at this generation's pace, or the time
    // left, whichever ends first.
    double Eta = Counted ? Elapsed() / std::max(1u, Evals) * (E.Budget - std::min(Evals, E.Budget))
                         : 1e30;
    if (E.Seconds > 0)
      Eta = std::min(Eta, std::max(0.0, E.Seconds - Elapsed()));
    progress(formatv("generation {0}: evaluation {1}, best {2} ({3:F2}x), {4} cell(s), ETA {5:F0} s",
                     Gen, Spent(Evals), formatUs(R.Rounds.back().After.MedianNs),
                     Snap.MedianNs / std::max(1.0, R.Rounds.back().After.MedianNs),
                     A.cellCount(), Eta));
    if (Gen >= 1000) {
      R.StopReason = "the generation limit (1000) was reached";
      break;
    }
  }

  const Member &Best = Members.at(BestId);
  Current = {Best.Path, Best.Source, Best.Spec, Best.Values};
  CurrentContract = Best.Contract;
  if (auto L = A.lineage(BestId))
    ER.Lineage = std::move(*L);
  else
    consumeError(L.takeError());
  if (E.Meta)
    ER.Instructions = E.Meta->toJson();
  R.FinalSource = Best.Source;
  R.FinalSpec = *Best.Spec;
  R.FinalValues = std::map<std::string, int64_t>(Best.Values.begin(), Best.Values.end());
  R.Final = Best.Snap;
  R.Evolve = std::move(ER);
  return std::move(R);
}

} // namespace forge::agent::detail
