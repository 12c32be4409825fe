//===- Agent/Transcript.cpp - Every prompt, reply and verdict -------------===//
#include "forge/Agent/Transcript.h"
#include "forge/Support/JsonReader.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/JsonReader.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace forge::agent {

namespace {

Json snapshotJson(const KernelSnapshot &S) {
  return {{"median_ns", S.MedianNs},     {"noise", S.Noise},
          {"gbps", S.AchievedGBs},       {"gflops", S.AchievedGflops},
          {"bound", S.Bound},            {"fraction_of_peak", S.FractionOfPeak},
          {"registers", S.Registers},    {"static_shared", S.StaticShared},
          {"occupancy", S.Occupancy},    {"analysis", S.Analysis}};
}

Json proposalJson(const Proposal &P) {
  Json J = {{"origin", P.Origin}, {"summary", P.Summary}, {"rationale", P.Rationale},
            {"reply", P.Edits}};
  if (P.Trusted)
    J["trusted"] = true;
  if (!P.Prompt.empty())
    J["prompt"] = P.Prompt;
  if (P.PromptTokens || P.ReplyTokens)
    J["tokens"] = {{"prompt", P.PromptTokens}, {"reply", P.ReplyTokens}};
  if (P.Spec) {
    Json G = Json::object(), T = Json::object(), V = Json::object();
    for (const auto &[K, X] : P.Spec->Geometry)
      G[K] = X;
    for (const auto &[K, X] : P.Spec->NewTunables)
      T[K] = X;
    for (const auto &[K, X] : P.Spec->Values)
      V[K] = X;
    J["spec_change"] = {{"geometry", G}, {"new_tunables", T}, {"values", V},
                        {"justification", P.Spec->Justification}};
    if (!P.Spec->NewConstraints.empty())
      J["spec_change"]["new_constraints"] = P.Spec->NewConstraints;
  }
  return J;
}

/// A proposal as the transcript records it; problems go to Read.
Proposal readProposal(JsonReader &Read, const Json &J, const std::string &Path) {
  Proposal P;
  if (!Read.expectObject(J, Path))
    return P;
  P.Origin = Read.string(J, Path, "origin", /*Required=*/true);
  P.Summary = Read.string(J, Path, "summary");
  P.Rationale = Read.string(J, Path, "rationale");
  P.Edits = Read.string(J, Path, "reply");
  P.Prompt = Read.string(J, Path, "prompt");
  // A transcript is a file anyone can edit: its "trusted" flag is read (a
  // wrong type is still an error) and ignored. A replayed proposal is held
  // to the scope like a model's, whoever proposed it first.
  (void)Read.boolean(J, Path, "trusted");
  P.Trusted = false;
  if (const Json *T = Read.object(J, Path, "tokens", /*Required=*/false)) {
    std::string TP = JsonReader::member(Path, "tokens");
    P.PromptTokens = Read.count(*T, TP, "prompt");
    P.ReplyTokens = Read.count(*T, TP, "reply");
  }
  if (const Json *S = Read.object(J, Path, "spec_change", /*Required=*/false)) {
    std::string SP = JsonReader::member(Path, "spec_change");
    SpecChange C;
    if (const Json *G = Read.object(*S, SP, "geometry", /*Required=*/false))
      for (auto It = G->begin(); It != G->end(); ++It)
        C.Geometry[It.key()] = Read.string(*G, JsonReader::member(SP, "geometry"), It.key(),
                                           /*Required=*/true);
    if (const Json *T = Read.object(*S, SP, "new_tunables", /*Required=*/false))
      for (auto It = T->begin(); It != T->end(); ++It) {
        std::string VP = JsonReader::member(JsonReader::member(SP, "new_tunables"), It.key());
        if (!Read.expectArray(It.value(), VP))
          break;
        for (size_t I = 0; I < It.value().size(); ++I) {
          const Json &X = It.value()[I];
          if (!X.is_number_integer() ||
              (X.is_number_unsigned() && X.get<uint64_t>() > uint64_t(INT64_MAX))) {
            Read.fail(JsonReader::element(VP, I),
                      X.is_number_integer() ? "integer out of range" : "expected an integer");
            break;
          }
          C.NewTunables[It.key()].push_back(It.value()[I].get<int64_t>());
        }
      }
    if (const Json *V = Read.object(*S, SP, "values", /*Required=*/false))
      for (auto It = V->begin(); It != V->end(); ++It)
        C.Values[It.key()] =
            Read.integer(*V, JsonReader::member(SP, "values"), It.key(), /*Required=*/true);
    if (const Json *K = Read.array(*S, SP, "new_constraints", /*Required=*/false)) {
      std::string KP = JsonReader::member(SP, "new_constraints");
      for (size_t I = 0; I < K->size(); ++I) {
        if (!Read.expectString((*K)[I], JsonReader::element(KP, I)))
          break;
        C.NewConstraints.push_back((*K)[I].get<std::string>());
      }
    }
    C.Justification = Read.string(*S, SP, "justification");
    P.Spec = std::move(C);
  }
  return P;
}

Json recordJson(const ProposalRecord &R) {
  Json J = proposalJson(R.P);
  if (R.Repair)
    J["repair"] = proposalJson(*R.Repair);
  Json Stages = Json::array();
  for (const StageVerdict &S : R.Stages)
    Stages.push_back(
        {{"stage", stageName(S.Stage).str()}, {"passed", S.Passed}, {"detail", S.Detail}});
  J["stages"] = Stages;
  J["verdict"] = verdictName(R.Verdict).str();
  J["reason"] = R.Reason;
  J["diff"] = R.Diff;
  if (R.Status)
    J["status"] = measure::statusName(*R.Status);
  if (R.MedianNs > 0) {
    J["median_ns"] = R.MedianNs;
    J["speedup"] = R.Speedup;
    J["registers"] = R.Registers;
    J["static_shared"] = R.StaticShared;
  }
  return J;
}

/// The rounds: each proposal, its repair and the verdict the replay
/// compares with; the stages and the worker's status it carries are checked
/// too. A name this version does not know is an error, never a guess.
std::vector<Replay::RecordedRound> readRounds(JsonReader &Read, const Json &Rounds) {
  std::vector<Replay::RecordedRound> Out;
  for (size_t I = 0; I < Rounds.size() && Read.ok(); ++I) {
    std::string RP = JsonReader::element("$.rounds", I);
    Replay::RecordedRound R;
    R.Number = unsigned(Read.count(Rounds[I], RP, "round", /*Required=*/true));
    R.Accepted = int(Read.integer(Rounds[I], RP, "accepted", false, -1));
    const Json *Props = Read.array(Rounds[I], RP, "proposals", /*Required=*/true);
    for (size_t P = 0; Props && P < Props->size() && Read.ok(); ++P) {
      const Json &X = (*Props)[P];
      std::string PP = JsonReader::element(JsonReader::member(RP, "proposals"), P);
      Replay::RecordedProposal RecP;
      RecP.P = readProposal(Read, X, PP);
      if (!Read.ok())
        break;
      if (const Json *Rep = Read.object(X, PP, "repair", /*Required=*/false))
        RecP.Repair = readProposal(Read, *Rep, JsonReader::member(PP, "repair"));
      std::string V = Read.string(X, PP, "verdict");
      RecP.V = parseVerdict(V);
      if (!V.empty() && !RecP.V)
        Read.fail(JsonReader::member(PP, "verdict"), "unknown verdict '" + V + "'");
      std::string S = Read.string(X, PP, "status");
      if (!S.empty() && !measure::parseCandidateStatus(S))
        Read.fail(JsonReader::member(PP, "status"), "unknown status '" + S + "'");
      const Json *Stages = Read.array(X, PP, "stages", /*Required=*/false);
      for (size_t K = 0; Stages && K < Stages->size(); ++K) {
        std::string SP = JsonReader::element(JsonReader::member(PP, "stages"), K);
        std::string Name = Read.string((*Stages)[K], SP, "stage", /*Required=*/true);
        if (!Name.empty() && !parseStage(Name))
          Read.fail(JsonReader::member(SP, "stage"), "unknown stage '" + Name + "'");
      }
      R.Proposals.push_back(std::move(RecP));
    }
    Out.push_back(std::move(R));
  }
  return Out;
}

/// The measurement jobs: each one's results.jsonl lines (parsed, with line
/// numbers, when a replay needs them) and the candidates' resources.
std::vector<Replay::RecordedJob> readJobs(JsonReader &Read, const Json &Jobs) {
  std::vector<Replay::RecordedJob> Out;
  for (size_t I = 0; I < Jobs.size() && Read.ok(); ++I) {
    std::string JP = JsonReader::element("$.measurements", I);
    Replay::RecordedJob Job;
    Job.Name = Read.string(Jobs[I], JP, "job");
    const Json *Results = Read.array(Jobs[I], JP, "results", /*Required=*/true);
    for (size_t L = 0; Results && L < Results->size(); ++L) {
      if (!Read.expectObject((*Results)[L], JsonReader::element(JsonReader::member(JP, "results"), L)))
        break;
      Job.ResultLines += (*Results)[L].dump() + "\n";
    }
    if (const Json *Res = Read.object(Jobs[I], JP, "resources", /*Required=*/false))
      for (auto It = Res->begin(); It != Res->end(); ++It) {
        std::string RP = JsonReader::member(JsonReader::member(JP, "resources"), It.key());
        if (!Read.expectObject(It.value(), RP))
          break;
        Job.Resources[It.key()] = {unsigned(Read.count(It.value(), RP, "registers")),
                                   Read.count(It.value(), RP, "static_shared")};
      }
    Out.push_back(std::move(Job));
  }
  return Out;
}

} // namespace

Expected<measure::MeasureReport> MeasurementLog::record(
    const measure::MeasureRequest &Req,
    function_ref<Expected<measure::MeasureReport>(const measure::MeasureRequest &)> Measure) {
  auto Rep = Measure(Req);
  if (!Rep)
    return Rep.takeError();
  Json Job = {{"job", sys::path::filename(sys::path::parent_path(Req.JobDir)).str()}};
  Json Results = Json::array();
  if (auto Text = readFile(Req.JobDir + "/results.jsonl")) {
    if (Error E = forEachJsonLine(*Text, "results.jsonl", [&](const Json &L, unsigned) {
          Results.push_back(L);
          return Error::success();
        }))
      consumeError(std::move(E));
  } else {
    consumeError(Text.takeError());
  }
  Job["results"] = Results;
  Json Res = Json::object();
  for (const measure::CandidateOutcome &O : Rep->Outcomes)
    if (O.Resources)
      Res[O.Candidate.Id] = {{"registers", O.Resources->Registers},
                             {"static_shared", O.Resources->SharedMemBytes}};
  Job["resources"] = Res;
  Jobs.push_back(std::move(Job));
  return Rep;
}

Json transcriptToJson(const TranscriptInfo &Info, const OptimizeOptions &O,
                      const OptimizeResult &R, const MeasurementLog &Log) {
  Json J = {{"forge_transcript", 1},
            {"tool", Info.Tool},
            {"date", Info.Date},
            {"file", O.File},
            {"spec", Info.Spec},
            {"kernel", O.Spec->Kernel},
            {"target", O.Target->Name},
            {"gpu", R.Device ? R.Device->Name : std::string()},
            {"proposer", Info.Proposer}};
  if (!Info.Model.empty())
    J["model"] = Info.Model;
  if (!Info.Endpoint.empty())
    J["endpoint"] = Info.Endpoint;
  J["options"] = {{"rounds", O.MaxRounds},
                  {"threshold", O.Threshold},
                  {"min_gain", O.MinGain},
                  {"scope", O.Scope},
                  {"proposals_per_round", O.MaxProposalsPerRound}};
  J["baseline"] = snapshotJson(R.Baseline);
  Json Rounds = Json::array();
  for (const RoundRecord &RR : R.Rounds) {
    Json Props = Json::array();
    for (const ProposalRecord &P : RR.Proposals)
      Props.push_back(recordJson(P));
    Rounds.push_back({{"round", RR.Number},
                      {"before", snapshotJson(RR.Before)},
                      {"proposals", Props},
                      {"accepted", RR.Accepted},
                      {"after", snapshotJson(RR.After)},
                      {"gain", RR.Gain},
                      {"note", RR.Note}});
  }
  J["rounds"] = Rounds;
  J["final"] = snapshotJson(R.Final);
  J["speedup"] = R.speedup();
  J["measured"] = R.Measured;
  J["stop_reason"] = R.StopReason;
  J["measurements"] = Log.toJson();
  return J;
}

Expected<std::unique_ptr<Replay>> Replay::load(StringRef Path) {
  auto Text = readFile(Path);
  if (!Text)
    return Text.takeError();
  return parse(*Text, Path);
}

Expected<std::unique_ptr<Replay>> Replay::parse(StringRef Text, StringRef Path) {
  auto J = parseJson(Text, Path);
  if (!J)
    return J.takeError();
  if (!J->is_object() || !J->contains("forge_transcript"))
    return makeError("{0}: not a Kernel Forge transcript (no \"forge_transcript\" key)", Path);
  const Json &Version = (*J)["forge_transcript"];
  if (!Version.is_number_integer() || Version.get<int64_t>() != 1)
    return makeError("{0}: transcript version {1} is not supported (1 is)", Path,
                     Version.dump());
  JsonReader Read(Path.str());
  const Json *Rounds = Read.array(*J, "$", "rounds", /*Required=*/true);
  const Json *Jobs = Read.array(*J, "$", "measurements", /*Required=*/true);
  if (Error E = Read.takeError())
    return std::move(E);
  auto R = std::make_unique<Replay>();
  R->Rounds = readRounds(Read, *Rounds);
  R->Jobs = readJobs(Read, *Jobs);
  RecordedOptions &RO = R->Options;
  RO.Measured = Read.boolean(*J, "$", "measured");
  if (const Json *Opts = Read.object(*J, "$", "options", /*Required=*/false)) {
    const std::string P = "$.options";
    if (Opts->contains("rounds"))
      RO.Rounds = unsigned(Read.count(*Opts, P, "rounds"));
    if (Opts->contains("proposals_per_round"))
      RO.ProposalsPerRound = unsigned(Read.count(*Opts, P, "proposals_per_round"));
    if (Opts->contains("threshold"))
      RO.Threshold = Read.number(*Opts, P, "threshold");
    if (Opts->contains("min_gain"))
      RO.MinGain = Read.number(*Opts, P, "min_gain");
    if (Opts->contains("scope"))
      RO.Scope = Read.string(*Opts, P, "scope");
  }
  if (Error E = Read.takeError())
    return std::move(E);
  return std::move(R);
}

Expected<std::vector<Proposal>> Replay::propose(const ProposalRequest &Req) {
  std::vector<Proposal> Out;
  for (const RecordedRound &RR : Rounds)
    if (RR.Number == Req.Round)
      for (const RecordedProposal &P : RR.Proposals)
        Out.push_back(P.P);
  // Trust is not read from the file: a recorded proposal is trusted only
  // when the built-in proposer makes the same edit here and now.
  bool AnyBuiltIn = any_of(Out, [](const Proposal &P) {
    return StringRef(P.Origin).starts_with("expert:");
  });
  if (BuiltIn && AnyBuiltIn) {
    auto Again = BuiltIn->propose(Req);
    if (!Again)
      return Again.takeError();
    for (Proposal &P : Out)
      P.Trusted = any_of(*Again, [&](const Proposal &A) {
        return A.Trusted && A.Origin == P.Origin && A.Edits == P.Edits;
      });
  }
  return Out;
}

Expected<std::optional<Proposal>> Replay::repair(const ProposalRequest &Req,
                                                 const Proposal &Failed) {
  for (const RecordedRound &RR : Rounds)
    if (RR.Number == Req.Round)
      for (const RecordedProposal &P : RR.Proposals)
        if (P.P.Origin == Failed.Origin && P.P.Edits == Failed.Edits) {
          if (P.Repair)
            return P.Repair;
          return makeError("replay diverged: round {0}'s {1} needed a repair that the "
                           "transcript does not have",
                           Req.Round, Failed.Origin);
        }
  return std::optional<Proposal>();
}

Expected<measure::MeasureReport> Replay::measure(const measure::MeasureRequest &Req) {
  if (NextJob >= Jobs.size())
    return makeError("replay diverged: the run needs measurement job {0} ({1}) but the "
                     "transcript has {2}",
                     NextJob + 1, Req.JobDir, Jobs.size());
  const RecordedJob &Job = Jobs[NextJob++];
  auto Res = measure::parseResults(Job.ResultLines,
                                   "transcript measurement " + std::to_string(NextJob));
  if (!Res)
    return Res.takeError();
  measure::MeasureReport Rep;
  Rep.Device = Res->Device;
  Rep.Ceiling = Res->Ceiling;
  auto W = measure::estimateWork(*Req.Spec, Req.Reference.Values);
  if (!W)
    return W.takeError();
  Rep.Work = *W;
  std::vector<const measure::MeasureCandidate *> All{&Req.Reference};
  for (const measure::MeasureCandidate &C : Req.Candidates)
    All.push_back(&C);
  for (const measure::MeasureCandidate *C : All) {
    const measure::CandidateResult *R = Res->find(C->Id);
    if (!R)
      return makeError("replay diverged: the recorded job {0} has no result for {1} ({2})",
                       Job.Name.empty() ? "?" : Job.Name, C->Id, C->Label);
    measure::CandidateOutcome O;
    O.Candidate = *C;
    O.Result = *R;
    if (auto It = Job.Resources.find(C->Id); It != Job.Resources.end()) {
      build::KernelResources K;
      K.Registers = It->second.first;
      K.SharedMemBytes = It->second.second;
      K.HasUsage = true;
      O.Resources = K;
    }
    Rep.Outcomes.push_back(std::move(O));
  }
  return Rep;
}

std::vector<std::string> Replay::compare(const OptimizeResult &R) const {
  std::vector<std::string> Diffs;
  if (Rounds.size() != R.Rounds.size())
    Diffs.push_back(formatv("the recording has {0} round(s), the replay {1}", Rounds.size(),
                            R.Rounds.size()));
  for (size_t I = 0; I < std::min(Rounds.size(), R.Rounds.size()); ++I) {
    const RecordedRound &Was = Rounds[I];
    const RoundRecord &Now = R.Rounds[I];
    if (Was.Accepted != Now.Accepted)
      Diffs.push_back(formatv("round {0}: the recording accepted proposal {1}, the replay {2}",
                              Now.Number, Was.Accepted, Now.Accepted));
    for (size_t P = 0; P < std::min(Was.Proposals.size(), Now.Proposals.size()); ++P)
      if (Was.Proposals[P].V != Now.Proposals[P].Verdict)
        Diffs.push_back(formatv("round {0}, {1}: recorded '{2}', replayed '{3}' ({4})",
                                Now.Number, Now.Proposals[P].P.Origin,
                                verdictName(Was.Proposals[P].V),
                                verdictName(Now.Proposals[P].Verdict), Now.Proposals[P].Reason));
  }
  return Diffs;
}

} // namespace forge::agent
