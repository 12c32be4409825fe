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
  }
  return J;
}

Proposal proposalFrom(const Json &J) {
  Proposal P;
  P.Origin = J.value("origin", "");
  P.Summary = J.value("summary", "");
  P.Rationale = J.value("rationale", "");
  P.Edits = J.value("reply", "");
  P.Prompt = J.value("prompt", "");
  P.Trusted = J.value("trusted", false);
  if (J.contains("tokens")) {
    P.PromptTokens = J["tokens"].value("prompt", uint64_t(0));
    P.ReplyTokens = J["tokens"].value("reply", uint64_t(0));
  }
  if (J.contains("spec_change") && J["spec_change"].is_object()) {
    SpecChange C;
    const Json &S = J["spec_change"];
    if (S.contains("geometry") && S["geometry"].is_object())
      for (auto It = S["geometry"].begin(); It != S["geometry"].end(); ++It)
        if (It.value().is_string())
          C.Geometry[It.key()] = It.value().get<std::string>();
    if (S.contains("new_tunables") && S["new_tunables"].is_object())
      for (auto It = S["new_tunables"].begin(); It != S["new_tunables"].end(); ++It)
        if (It.value().is_array())
          for (const Json &V : It.value())
            if (V.is_number_integer())
              C.NewTunables[It.key()].push_back(V.get<int64_t>());
    if (S.contains("values") && S["values"].is_object())
      for (auto It = S["values"].begin(); It != S["values"].end(); ++It)
        if (It.value().is_number_integer())
          C.Values[It.key()] = It.value().get<int64_t>();
    C.Justification = S.value("justification", "");
    P.Spec = C;
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

/// The rounds' shape and every name in them: a verdict the replay compares
/// with, the stages and the worker's status it carries. A name this version
/// does not know is an error, never a guess.
void checkRounds(JsonReader &Read, const Json &Rounds) {
  for (size_t I = 0; I < Rounds.size() && Read.ok(); ++I) {
    std::string RP = JsonReader::element("$.rounds", I);
    Read.count(Rounds[I], RP, "round", /*Required=*/true);
    Read.integer(Rounds[I], RP, "accepted");
    const Json *Props = Read.array(Rounds[I], RP, "proposals", /*Required=*/true);
    for (size_t P = 0; Props && P < Props->size() && Read.ok(); ++P) {
      const Json &X = (*Props)[P];
      std::string PP = JsonReader::element(JsonReader::member(RP, "proposals"), P);
      std::string V = Read.string(X, PP, "verdict");
      if (!V.empty() && !parseVerdict(V))
        Read.fail(JsonReader::member(PP, "verdict"), "unknown verdict '" + V + "'");
      std::string S = Read.string(X, PP, "status");
      if (!S.empty() && !measure::parseCandidateStatus(S))
        Read.fail(JsonReader::member(PP, "status"), "unknown status '" + S + "'");
      const Json *Stages = Read.array(X, PP, "stages");
      for (size_t K = 0; Stages && K < Stages->size(); ++K) {
        std::string SP = JsonReader::element(JsonReader::member(PP, "stages"), K);
        std::string Name = Read.string((*Stages)[K], SP, "stage", /*Required=*/true);
        if (!Name.empty() && !parseStage(Name))
          Read.fail(JsonReader::member(SP, "stage"), "unknown stage '" + Name + "'");
      }
    }
  }
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
  auto J = readJsonFile(Path);
  if (!J)
    return J.takeError();
  if (!J->is_object() || !J->contains("forge_transcript"))
    return makeError("{0}: not a Kernel Forge transcript (no \"forge_transcript\" key)", Path);
  if (!(*J)["forge_transcript"].is_number_integer() || (*J)["forge_transcript"].get<int>() != 1)
    return makeError("{0}: transcript version {1} is not supported (1 is)", Path,
                     (*J)["forge_transcript"].dump());
  for (const char *K : {"rounds", "measurements"})
    if (!J->contains(K) || !(*J)[K].is_array())
      return makeError("{0}: $.{1}: expected an array", Path, K);
  JsonReader Read(Path.str());
  checkRounds(Read, (*J)["rounds"]);
  if (Error E = Read.takeError())
    return std::move(E);
  auto R = std::make_unique<Replay>();
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
  R->J = std::move(*J);
  return std::move(R);
}

Expected<std::vector<Proposal>> Replay::propose(const ProposalRequest &Req) {
  std::vector<Proposal> Out;
  for (const Json &RR : J["rounds"])
    if (RR.value("round", 0u) == Req.Round && RR.contains("proposals"))
      for (const Json &P : RR["proposals"])
        Out.push_back(proposalFrom(P));
  return Out;
}

Expected<std::optional<Proposal>> Replay::repair(const ProposalRequest &Req,
                                                 const Proposal &Failed) {
  for (const Json &RR : J["rounds"])
    if (RR.value("round", 0u) == Req.Round && RR.contains("proposals"))
      for (const Json &P : RR["proposals"])
        if (P.value("origin", "") == Failed.Origin && P.value("reply", "") == Failed.Edits) {
          if (P.contains("repair") && P["repair"].is_object())
            return std::optional<Proposal>(proposalFrom(P["repair"]));
          return makeError("replay diverged: round {0}'s {1} needed a repair that the "
                           "transcript does not have",
                           Req.Round, Failed.Origin);
        }
  return std::optional<Proposal>();
}

Expected<measure::MeasureReport> Replay::measure(const measure::MeasureRequest &Req) {
  const Json &Jobs = J["measurements"];
  if (NextJob >= Jobs.size())
    return makeError("replay diverged: the run needs measurement job {0} ({1}) but the "
                     "transcript has {2}",
                     NextJob + 1, Req.JobDir, Jobs.size());
  const Json &Job = Jobs[NextJob++];
  std::string Lines;
  if (Job.contains("results"))
    for (const Json &L : Job["results"])
      Lines += L.dump() + "\n";
  auto Res = measure::parseResults(Lines, "transcript measurement " + std::to_string(NextJob));
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
                       Job.value("job", "?"), C->Id, C->Label);
    measure::CandidateOutcome O;
    O.Candidate = *C;
    O.Result = *R;
    if (Job.contains("resources") && Job["resources"].contains(C->Id)) {
      build::KernelResources K;
      K.Registers = Job["resources"][C->Id].value("registers", 0u);
      K.SharedMemBytes = Job["resources"][C->Id].value("static_shared", uint64_t(0));
      K.HasUsage = true;
      O.Resources = K;
    }
    Rep.Outcomes.push_back(std::move(O));
  }
  return Rep;
}

std::vector<std::string> Replay::compare(const OptimizeResult &R) const {
  std::vector<std::string> Diffs;
  const Json &Rounds = J["rounds"];
  if (Rounds.size() != R.Rounds.size())
    Diffs.push_back(formatv("the recording has {0} round(s), the replay {1}", Rounds.size(),
                            R.Rounds.size()));
  for (size_t I = 0; I < std::min(Rounds.size(), R.Rounds.size()); ++I) {
    const Json &Was = Rounds[I];
    const RoundRecord &Now = R.Rounds[I];
    if (Was.value("accepted", -1) != Now.Accepted)
      Diffs.push_back(formatv("round {0}: the recording accepted proposal {1}, the replay {2}",
                              Now.Number, Was.value("accepted", -1), Now.Accepted));
    const Json &Props = Was["proposals"];
    for (size_t P = 0; P < std::min(Props.size(), Now.Proposals.size()); ++P) {
      // load() checked that a recorded verdict is a known name or none.
      std::string V = Props[P].value("verdict", "");
      if (parseVerdict(V) != Now.Proposals[P].Verdict)
        Diffs.push_back(formatv("round {0}, {1}: recorded '{2}', replayed '{3}' ({4})",
                                Now.Number, Now.Proposals[P].P.Origin, V,
                                verdictName(Now.Proposals[P].Verdict), Now.Proposals[P].Reason));
    }
  }
  return Diffs;
}

} // namespace forge::agent
