//===- Report/OptimizeReport.cpp - Optimisation reports -------------------===//
#include "forge/Report/OptimizeReport.h"
#include "forge/Search/ArchiveSvg.h"
#include "ReportCommon.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace forge::report {

namespace {

Json snapshotJson(const agent::KernelSnapshot &S) {
  return {{"median_ns", S.MedianNs}, {"noise", S.Noise},           {"bound", S.Bound},
          {"gbps", S.AchievedGBs},   {"gflops", S.AchievedGflops}, {"registers", S.Registers},
          {"static_shared", S.StaticShared}, {"occupancy", S.Occupancy},
          {"analysis", S.Analysis}};
}

std::string snapshotLine(const agent::KernelSnapshot &S) {
  if (S.MedianNs <= 0)
    return S.Analysis.empty() ? "not measured" : S.Analysis;
  return S.Analysis;
}

const agent::ProposalRecord *accepted(const agent::RoundRecord &R) {
  return R.Accepted >= 0 ? &R.Proposals[size_t(R.Accepted)] : nullptr;
}

/// "original -> expert:a (generation 1, 2.10x) -> tuner (generation 3, 1.21x)".
std::string lineageLine(const std::vector<search::LineageStep> &L) {
  std::vector<std::string> Parts;
  for (const search::LineageStep &S : L)
    Parts.push_back(S.Origin == "original"
                        ? std::string("original")
                        : formatv("{0} (generation {1}, {2:F2}x{3})", S.Origin, S.Generation,
                                  S.GainOverParent,
                                  S.OtherParents.empty()
                                      ? std::string()
                                      : ", with " + join(S.OtherParents, ", "))
                              .str());
  return join(Parts, " -> ");
}

/// "expert:vectorize 12, tuner 3" (the evaluations spent per proposer).
std::string evaluationsLine(const search::Archive &A) {
  std::vector<std::string> Parts;
  for (const auto &[Who, N] : A.evaluations())
    Parts.push_back(Who + " " + std::to_string(N));
  return join(Parts, ", ");
}

} // namespace

std::string roundSentence(const agent::RoundRecord &R) {
  std::string S = formatv("Round {0}: ", R.Number).str();
  if (const agent::ProposalRecord *A = accepted(R)) {
    S += A->P.Origin + ": " + A->P.Summary;
    if (!A->P.Rationale.empty())
      S += "; " + A->P.Rationale;
    S += formatv("; {0:F2}x faster ({1} us -> {2} us).", R.Gain, us(R.Before.MedianNs),
                 us(R.After.MedianNs))
             .str();
    return S;
  }
  return S + (R.Note.empty() ? "nothing was kept." : R.Note + ".");
}

/// --search evolve's archive, lineage and evaluations; null for the greedy
/// loop.
static Json evolveJson(const agent::OptimizeResult &R) {
  if (!R.Evolve)
    return nullptr;
  const agent::EvolveResult &E = *R.Evolve;
  Json Lineage = Json::array();
  for (const search::LineageStep &S : E.Lineage)
    Lineage.push_back({{"id", S.Id},
                       {"origin", S.Origin},
                       {"generation", S.Generation},
                       {"median_ns", S.MedianNs},
                       {"gain_over_parent", S.GainOverParent},
                       {"other_parents", S.OtherParents}});
  Json Migrations = Json::array();
  for (const search::Migration &M : E.Migrations)
    if (!M.Skipped)
      Migrations.push_back(
          {{"from", M.From}, {"to", M.To}, {"migrant", M.Migrant}, {"replaced", M.Replaced}});
  Json Out = {{"generations", E.Generations},
              {"evaluations", E.Archive.totalEvaluations()},
              {"evaluations_per_proposer", E.Archive.evaluations()},
              {"cells", E.Archive.cellCount()},
              {"lineage", Lineage},
              {"migrations", Migrations},
              {"archive", E.Archive.toJson()}};
  if (E.Instructions)
    Out["instructions"] = *E.Instructions;
  return Out;
}

static Json experienceJson(const agent::OptimizeResult &R) {
  Json Out = Json::array();
  for (const experience::Entry &E : R.Experience)
    Out.push_back(experience::toJson(E));
  return Out;
}

Json optimizeReportJson(const OptimizeReportInput &In) {
  const agent::OptimizeResult &R = *In.Result;
  Json Rounds = Json::array();
  for (const agent::RoundRecord &RR : R.Rounds) {
    Json Props = Json::array();
    for (const agent::ProposalRecord &P : RR.Proposals) {
      Json Stages = Json::array();
      for (const agent::StageVerdict &V : P.Stages)
        Stages.push_back({{"stage", agent::stageName(V.Stage).str()},
                          {"passed", V.Passed},
                          {"detail", V.Detail}});
      Props.push_back({{"origin", P.P.Origin},
                       {"summary", P.P.Summary},
                       {"rationale", P.P.Rationale},
                       {"verdict", agent::verdictName(P.Verdict).str()},
                       {"reason", P.Reason},
                       {"repaired", P.Repaired},
                       {"median_ns", P.MedianNs},
                       {"speedup", P.Speedup},
                       {"registers", P.Registers},
                       {"stages", Stages},
                       {"diff", P.Diff}});
    }
    Json NotProposed = Json::object();
    for (const auto &[Who, Why] : RR.NotProposed)
      NotProposed[Who] = Why;
    Rounds.push_back({{"round", RR.Number},
                      {"before", snapshotJson(RR.Before)},
                      {"after", snapshotJson(RR.After)},
                      {"gain", RR.Gain},
                      {"accepted", RR.Accepted},
                      {"sentence", roundSentence(RR)},
                      {"note", RR.Note},
                      {"not_proposed", NotProposed},
                      {"proposals", Props}});
  }
  Json LastNot = Json::object();
  for (const auto &[Who, Why] : R.LastNotProposed)
    LastNot[Who] = Why;
  return {{"kernel", In.Options->Spec->Kernel},
          {"file", In.File},
          {"date", In.Date},
          {"target", In.Options->Target->Name},
          {"gpu", R.Device ? R.Device->Name : std::string()},
          {"proposer", In.Proposer},
          {"measured", R.Measured},
          {"baseline_ns", R.Baseline.MedianNs},
          {"final_ns", R.Final.MedianNs},
          {"speedup", R.speedup()},
          {"baseline", snapshotJson(R.Baseline)},
          {"final", snapshotJson(R.Final)},
          {"stop_reason", R.StopReason},
          {"checked_against", R.Reference},
          {"kernel_model", R.OriginalModel},
          {"final_config", R.FinalValues},
          {"not_proposed_at_the_end", LastNot},
          {"final_spec", measure::toJson(R.FinalSpec)},
          {"rounds", Rounds},
          {"evolve", evolveJson(R)},
          {"experience", experienceJson(R)},
          {"diff", In.Diff},
          {"final_source", R.FinalSource}};
}

std::string optimizeReportMarkdown(const OptimizeReportInput &In) {
  const agent::OptimizeResult &R = *In.Result;
  std::string S;
  raw_string_ostream OS(S);
  OS << "# Optimisation report: `" << In.Options->Spec->Kernel << "`\n\n";
  OS << "- source: `" << In.File << "`, " << In.Date << "\n";
  OS << "- target: " << In.Options->Target->Name;
  if (R.Device)
    OS << ", measured on " << R.Device->Name;
  else
    OS << ", not measured (no GPU)";
  OS << "\n- proposer: " << In.Proposer << "\n";
  if (R.Measured && R.Final.MedianNs > 0)
    OS << formatv("- result: {0} us -> {1} us, **{2:F2}x** over the original\n",
                  us(R.Baseline.MedianNs), us(R.Final.MedianNs), R.speedup());
  OS << "- checked against: " << R.Reference << "\n";
  OS << "- stopped: " << R.StopReason << "\n\n";
  OS << "| " << (R.Evolve ? "generation" : "round")
     << " | before (us) | after (us) | gain | kept | registers | occupancy | roofline "
        "|\n|---|---|---|---|---|---|---|---|\n";
  for (const agent::RoundRecord &RR : R.Rounds) {
    const agent::ProposalRecord *A = accepted(RR);
    OS << formatv("| {0} | {1} ±{2:F1}% | {3} | {4:F2}x | {5} | {6} | {7:F0}% | {8} {9:F0}% |\n",
                  RR.Number, us(RR.Before.MedianNs), RR.Before.Noise * 100,
                  us(RR.After.MedianNs), RR.Gain, A ? A->P.Origin : std::string("none"),
                  RR.After.Registers, RR.After.Occupancy * 100,
                  RR.After.Bound.empty() ? std::string("-") : RR.After.Bound,
                  RR.After.FractionOfPeak * 100);
  }
  if (R.Evolve) {
    const agent::EvolveResult &E = *R.Evolve;
    OS << "\n## The evolutionary search\n\n";
    OS << formatv("- {0} generation(s), {1} evaluation(s): {2}\n", E.Generations,
                  E.Archive.totalEvaluations(), evaluationsLine(E.Archive));
    OS << formatv("- the archive: {0} cell(s) of {1}", E.Archive.cellCount(), search::NumCells);
    if (!In.ArchiveSvg.empty())
      OS << " (grid: [" << In.ArchiveSvg << "](" << In.ArchiveSvg << "))";
    OS << "\n- the winner's lineage: " << lineageLine(E.Lineage) << "\n\n";
    OS << "| cell | elite | origin | generation | time (us) |\n|---|---|---|---|---|\n";
    for (const search::Variant *V : E.Archive.elites())
      OS << "| " << V->Desc.key() << " | " << V->Id << " | " << V->Origin << " | "
         << V->Generation << " | " << us(V->MedianNs.value_or(0)) << " |\n";
  }
  for (const agent::RoundRecord &RR : R.Rounds) {
    OS << "\n## " << (R.Evolve ? "Generation " : "Round ") << RR.Number << "\n\n"
       << roundSentence(RR) << "\n\n";
    OS << "- before: " << snapshotLine(RR.Before) << "\n";
    if (const agent::ProposalRecord *A = accepted(RR)) {
      OS << "- after: " << snapshotLine(RR.After) << "\n";
      if (!A->Diff.empty())
        OS << "\n```diff\n" << A->Diff << "```\n";
    }
    if (!RR.NotProposed.empty()) {
      OS << "\nNot proposed:\n\n";
      for (const auto &[Who, Why] : RR.NotProposed)
        OS << "- " << Who << ": " << Why << "\n";
    }
    bool Any = false;
    for (const agent::ProposalRecord &P : RR.Proposals) {
      if (&P == accepted(RR))
        continue;
      if (!Any)
        OS << "\nNot kept:\n\n";
      Any = true;
      OS << "- " << P.P.Origin << " (" << P.P.Summary << "): **"
         << agent::verdictName(P.Verdict) << "**" << (P.Reason.empty() ? "" : ": " + P.Reason)
         << (P.Repaired ? " (after a repair)" : "") << "\n";
    }
  }
  if (!R.LastNotProposed.empty()) {
    OS << "\n## Why nothing more was proposed\n\n";
    for (const auto &[Who, Why] : R.LastNotProposed)
      OS << "- " << Who << ": " << Why << "\n";
  }
  if (!In.Diff.empty())
    OS << "\n## The whole change\n\n```diff\n" << In.Diff << "```\n";
  if (!R.OriginalModel.empty())
    OS << "\n## The original kernel's model (`forge-port analyze`)\n\n```\n"
       << StringRef(R.OriginalModel).rtrim() << "\n```\n";
  OS << "\nTimes are medians of interleaved runs with L2 flushed; every kept version was "
        "checked against "
     << (R.PreciseReference ? "the precision reference above"
                                        : "the original kernel's outputs")
     << " on two random input sets.\n";
  return S;
}

std::string optimizeReportHtml(const OptimizeReportInput &In) {
  const agent::OptimizeResult &R = *In.Result;
  std::string S;
  raw_string_ostream OS(S);
  OS << htmlHead("Optimisation report: " + In.Options->Spec->Kernel);
  OS << "<h1>Optimisation report: <code>" << escape(In.Options->Spec->Kernel)
     << "</code></h1>\n<ul><li>source: <code>" << escape(In.File) << "</code>, " << In.Date
     << "</li><li>target: " << escape(In.Options->Target->Name)
     << (R.Device ? ", measured on " + escape(R.Device->Name) : std::string(", not measured"))
     << "</li><li>proposer: " << escape(In.Proposer) << "</li>";
  if (R.Measured && R.Final.MedianNs > 0)
    OS << formatv("<li>result: {0} us &rarr; {1} us, <b>{2:F2}x</b></li>", us(R.Baseline.MedianNs),
                  us(R.Final.MedianNs), R.speedup());
  OS << "<li>checked against: " << escape(R.Reference) << "</li>";
  OS << "<li>stopped: " << escape(R.StopReason) << "</li></ul>\n";
  std::vector<Bar> Bars;
  if (R.Baseline.MedianNs > 0)
    Bars.push_back({"original", R.Baseline.MedianNs, us(R.Baseline.MedianNs) + " us", "#d08b1f"});
  for (const agent::RoundRecord &RR : R.Rounds)
    if (RR.After.MedianNs > 0)
      Bars.push_back({formatv("after round {0}", RR.Number).str(), RR.After.MedianNs,
                      us(RR.After.MedianNs) + " us", RR.Accepted >= 0 ? "#2a9d4b" : "#999999"});
  if (!Bars.empty())
    OS << barChartSvg("time per launch (us), shorter is better", Bars);
  if (R.Evolve) {
    const agent::EvolveResult &E = *R.Evolve;
    OS << "<h2>The evolutionary search</h2>\n<ul><li>"
       << formatv("{0} generation(s), {1} evaluation(s): ", E.Generations,
                  E.Archive.totalEvaluations())
       << escape(evaluationsLine(E.Archive)) << "</li><li>the winner's lineage: "
       << escape(lineageLine(E.Lineage)) << "</li></ul>\n"
       << search::renderArchiveSvg(E.Archive) << "\n";
  }
  for (const agent::RoundRecord &RR : R.Rounds) {
    OS << "<h2>" << (R.Evolve ? "Generation " : "Round ") << RR.Number << "</h2>\n<p>" << escape(roundSentence(RR)) << "</p>\n<ul><li>before: "
       << escape(snapshotLine(RR.Before)) << "</li>";
    if (const agent::ProposalRecord *A = accepted(RR))
      OS << "<li>after: " << escape(snapshotLine(RR.After)) << "</li></ul>\n<pre>"
         << escape(A->Diff) << "</pre>\n";
    else
      OS << "</ul>\n";
    OS << "<table><tr><th>proposal</th><th>verdict</th><th>reason</th></tr>\n";
    for (const agent::ProposalRecord &P : RR.Proposals)
      OS << "<tr><td>" << escape(P.P.Origin) << ": " << escape(P.P.Summary) << "</td><td>"
         << escape(agent::verdictName(P.Verdict)) << "</td><td>" << escape(P.Reason)
         << "</td></tr>\n";
    OS << "</table>\n";
  }
  if (!In.Diff.empty())
    OS << "<h2>The whole change</h2>\n<pre>" << escape(In.Diff) << "</pre>\n";
  if (!R.OriginalModel.empty())
    OS << "<h2>The original kernel's model</h2>\n<pre>" << escape(R.OriginalModel) << "</pre>\n";
  OS << "</body></html>\n";
  return S;
}

std::string renderOptimizeReport(const OptimizeReportInput &In, Format F) {
  switch (F) {
  case Format::Json:
    return optimizeReportJson(In).dump(2) + "\n";
  case Format::Markdown:
    return optimizeReportMarkdown(In);
  case Format::Html:
    return optimizeReportHtml(In);
  }
  return "";
}

} // namespace forge::report

void forge::report::renderOptimizeRounds(llvm::raw_ostream &OS, const agent::OptimizeResult &R) {
  using llvm::formatv;
  for (const agent::RoundRecord &RR : R.Rounds) {
    OS << formatv("{0} {1}:", R.Evolve ? "generation" : "round", RR.Number);
    if (RR.Before.MedianNs > 0)
      OS << formatv(" {0:F2} us", RR.Before.MedianNs / 1000);
    if (RR.Accepted >= 0)
      OS << formatv(" -> {0:F2} us ({1:F2}x) with {2}: {3}", RR.After.MedianNs / 1000, RR.Gain,
                    RR.Proposals[RR.Accepted].P.Origin, RR.Proposals[RR.Accepted].P.Summary);
    else
      OS << (RR.Before.MedianNs > 0 ? ";" : "") << " nothing kept of " << RR.Proposals.size()
         << " proposal(s)";
    if (R.Evolve) {
      unsigned Archived = 0;
      for (const agent::ProposalRecord &P : RR.Proposals)
        Archived += P.Verdict == agent::Verdict::Superseded;
      if (Archived)
        OS << formatv("; {0} more into the archive", Archived);
    }
    OS << (RR.Note.empty() ? "" : "; " + RR.Note) << "\n";
  }
}

void forge::report::renderOptimizeStart(llvm::raw_ostream &OS,
                                        const agent::OptimizeSessionOptions &O,
                                        llvm::StringRef Kernel) {
  const measure::LocalGpu *G = O.Gpu ? &*O.Gpu : nullptr;
  std::string GpuName = !G ? "" : G->Name.empty() ? std::string(G->Target->Name) : G->Name;
  if (G && G->Target != O.Target)
    llvm::WithColor::warning(OS, "forge-port")
        << "the proposals compile for " << O.Target->Name << " but are checked and timed on the "
        << GpuName << " (" << G->Target->Name << "): the speed-ups are " << G->Target->Name
        << "'s, a prediction for " << O.Target->Name << "\n";
  std::string Proposer = !O.ReplayPath.empty() ? "replay of " + O.ReplayPath
                         : O.Model           ? "model"
                                             : "expert";
  OS << "forge-port: optimising " << Kernel << " for " << O.Target->Name << " with the "
     << Proposer << " proposer" << (!G ? std::string(", no GPU") : ", measured on " + GpuName)
     << "\n";
}

void forge::report::renderOptimizeEnd(llvm::raw_ostream &OS,
                                      const agent::OptimizeSessionResult &R) {
  const agent::OptimizeResult &Res = R.Result;
  renderOptimizeRounds(OS, Res);
  if (Res.Measured && Res.Final.MedianNs > 0)
    OS << llvm::formatv("forge-port: {0:F2} us -> {1:F2} us, {2:F2}x over the original; "
                        "stopped: {3}\n",
                        Res.Baseline.MedianNs / 1000, Res.Final.MedianNs / 1000, Res.speedup(),
                        Res.StopReason);
  else
    OS << "forge-port: stopped: " << Res.StopReason << "\n";
  if (Res.PreciseReference)
    OS << "forge-port: checked against " << Res.Reference << "\n";
  if (Res.Evolve) {
    const agent::EvolveResult &E = *Res.Evolve;
    OS << llvm::formatv("forge-port: evolve: {0} generation(s), {1} evaluation(s) ({2}); {3} "
                        "cell(s) of {4} in the archive\n",
                        E.Generations, E.Archive.totalEvaluations(), evaluationsLine(E.Archive),
                        E.Archive.cellCount(), search::NumCells);
    OS << "forge-port: the winner's lineage: " << lineageLine(E.Lineage) << "\n";
  }
  if (!R.ExperienceNote.empty())
    OS << "forge-port: experience: " << R.ExperienceNote << "\n";
  if (R.Replayed && R.ReplayDifferences.empty())
    OS << "forge-port: replay: the same decisions in " << Res.Rounds.size() << " round(s)\n";
  for (const std::string &L : R.ReplayDifferences)
    llvm::WithColor::error(OS, "forge-port") << "replay: " << L << "\n";
}
