//===- Agent/Transcript.h - Every prompt, reply and verdict ----*- C++ -*-===//
///
/// \file
/// `forge-port optimize --transcript t.json` keeps everything the loop saw
/// and decided: each proposal with its prompt and reply (a model's) or its
/// rule (the expert proposer's), the repair attempt, every stage's verdict,
/// and every measurement job's results as the worker wrote them.
/// `--replay t.json` reruns the loop from it: the recorded replies stand in
/// for the proposer, the recorded results for the GPU, so the same
/// decisions follow with no network and no GPU, and any difference is
/// reported. The format is in docs/transcript-format.md. API keys are never
/// in it.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_TRANSCRIPT_H
#define FORGE_AGENT_TRANSCRIPT_H

#include "forge/Agent/Optimizer.h"
#include "forge/Support/Json.h"
#include <map>
#include <optional>

namespace forge::agent {

/// What the transcript says about the run apart from its rounds.
struct TranscriptInfo {
  std::string Tool;      ///< "forge-port 0.5"
  std::string Date;      ///< "2026-11-29"
  std::string Proposer;  ///< "expert", "model", "replay"
  std::string Model;     ///< the model's name; empty for the expert
  std::string Endpoint;  ///< scheme, host and path of the model's URL
  std::string Spec;      ///< the spec's path
};

/// Records the measurement jobs of a run, in order.
class MeasurementLog {
public:
  /// Runs Measure and keeps its results (read from the job's results.jsonl).
  llvm::Expected<measure::MeasureReport>
  record(const measure::MeasureRequest &Req,
         llvm::function_ref<llvm::Expected<measure::MeasureReport>(const measure::MeasureRequest &)>
             Measure);
  Json toJson() const { return Jobs; }

private:
  Json Jobs = Json::array();
};

/// The whole transcript.
Json transcriptToJson(const TranscriptInfo &Info, const OptimizeOptions &O,
                      const OptimizeResult &R, const MeasurementLog &Log);

/// The options a recorded run was made with, as far as the transcript says
/// (a missing field: the loop's default).
struct RecordedOptions {
  std::optional<unsigned> Rounds, ProposalsPerRound;
  std::optional<double> Threshold, MinGain;
  std::optional<std::string> Scope;
  bool Measured = false; ///< the recorded run had a GPU
};

/// A transcript read back for --replay. Every field it uses is read when it
/// is loaded, through a JsonReader: a truncated file, a field of the wrong
/// type or a missing one is an error naming its JSON path, never an abort.
class Replay : public Proposer {
public:
  static llvm::Expected<std::unique_ptr<Replay>> load(llvm::StringRef Path);
  /// The transcript in Text, checked as load() checks a file; Path names it
  /// in errors.
  static llvm::Expected<std::unique_ptr<Replay>> parse(llvm::StringRef Text,
                                                       llvm::StringRef Path);
  llvm::StringRef name() const override { return "replay"; }
  llvm::Expected<std::vector<Proposal>> propose(const ProposalRequest &Req) override;
  llvm::Expected<std::optional<Proposal>> repair(const ProposalRequest &Req,
                                                 const Proposal &Failed) override;
  /// The recorded measurement job that matches Req (the next one in order);
  /// an error when the run has diverged from the recording.
  llvm::Expected<measure::MeasureReport> measure(const measure::MeasureRequest &Req);
  /// The recorded run's options, checked when the transcript was loaded.
  const RecordedOptions &options() const { return Options; }
  /// A transcript's proposals are untrusted (anyone can edit the file),
  /// except those that BuiltIn, run here on the same request, proposes
  /// again word for word: those are the built-in proposer's own edits and
  /// keep its trust (the expert rules' edits outside the kernels).
  void rederiveWith(Proposer *BuiltIn) { this->BuiltIn = BuiltIn; }
  /// Differences between the recorded decisions and R's, one line each.
  std::vector<std::string> compare(const OptimizeResult &R) const;

  /// What the transcript holds, read (and checked) once by load().
  struct RecordedProposal {
    Proposal P;
    std::optional<Proposal> Repair;
    std::optional<Verdict> V;
  };
  struct RecordedRound {
    unsigned Number = 0;
    int Accepted = -1;
    std::vector<RecordedProposal> Proposals;
  };
  struct RecordedJob {
    std::string Name;
    std::string ResultLines; ///< results.jsonl as the worker wrote it
    /// Registers and static shared memory by candidate id.
    std::map<std::string, std::pair<unsigned, uint64_t>> Resources;
  };

private:
  std::vector<RecordedRound> Rounds;
  std::vector<RecordedJob> Jobs;
  RecordedOptions Options;
  size_t NextJob = 0;
  Proposer *BuiltIn = nullptr;
};

} // namespace forge::agent

#endif
