//===- TuneReport.cpp - Tuning reports ------------------------------------===//
#include "forge/Report/TuneReport.h"
#include "ReportCommon.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <map>
#include <set>

using namespace forge;
using namespace forge::report;
using measure::CandidateStatus;
using tune::ConfigResult;
using tune::TargetResult;
using tune::TuneResult;

std::optional<Format> forge::report::formatOf(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  if (Ext == ".json")
    return Format::Json;
  if (Ext == ".md")
    return Format::Markdown;
  if (Ext == ".html" || Ext == ".htm")
    return Format::Html;
  return std::nullopt;
}

static std::string valuesText(const std::map<std::string, int64_t> &V) {
  std::vector<std::string> Parts;
  for (const auto &[K, X] : V)
    Parts.push_back(K + "=" + std::to_string(X));
  return llvm::join(Parts, " ");
}

/// The configurations, fastest first, failed ones after the ok ones.
static std::vector<const ConfigResult *> sorted(const TuneResult &R) {
  std::vector<const ConfigResult *> V;
  for (const ConfigResult &C : R.Configs)
    V.push_back(&C);
  std::stable_sort(V.begin(), V.end(),
                   [](const ConfigResult *A, const ConfigResult *B) {
                     bool OkA = A->Status == CandidateStatus::Ok,
                          OkB = B->Status == CandidateStatus::Ok;
                     if (OkA != OkB)
                       return OkA;
                     return OkA && A->CostNs < B->CostNs;
                   });
  return V;
}

Json forge::report::tuneReportJson(const TuneReportInput &In) {
  const TuneResult &R = *In.Result;
  Json Space = Json::array();
  for (const tune::Parameter &P : R.Space)
    Space.push_back({{"name", P.Name}, {"values", P.Values}});
  Json Configs = Json::array();
  for (const ConfigResult *C : sorted(R))
    Configs.push_back({{"config", C->Key},
                       {"status", statusName(C->Status)},
                       {"cost_ns", C->CostNs},
                       {"median_ns", C->MedianNs},
                       {"noise", C->Noise},
                       {"detail", C->Detail},
                       {"registers", C->Registers},
                       {"from_database", C->FromDatabase},
                       {"measured_on", C->Gpu.empty() ? Json(nullptr) : Json(C->Gpu)},
                       {"target", C->Target}});
  Json Targets = Json::array();
  for (const TargetResult &T : R.Targets) {
    Json V = Json::object();
    for (const auto &[K, X] : T.Best)
      V[K] = X;
    Targets.push_back({{"target", T.Target->Name},
                       {"measured", T.Measured},
                       {"label", T.Measured ? "measured" : "predicted"},
                       {"gpu", T.Gpu},
                       {"basis", T.Basis},
                       {"values", V},
                       {"config", T.BestKey},
                       {"baseline_ns", T.BaselineNs},
                       {"best_ns", T.BestNs},
                       {"speedup", T.Speedup},
                       {"noise", T.Noise}});
  }
  return {{"kernel", In.Spec->Kernel},
          {"source", In.Source},
          {"date", In.Date},
          {"strategy", R.Strategy},
          {"seed", R.Seed},
          {"space", Space},
          {"space_size", R.SpaceSize},
          {"valid_configs", R.ValidConfigs},
          {"original", R.DefaultKey},
          {"measured", R.Measured},
          {"reused", R.Reused},
          {"configs_per_minute", R.ConfigsPerMinute},
          {"compile_seconds", R.CompileSeconds},
          {"run_seconds", R.RunSeconds},
          {"wall_seconds", R.WallSeconds},
          {"interrupted", R.Interrupted},
          {"targets", Targets},
          {"configs", Configs},
          {"diff", In.Diff}};
}

static std::string targetLine(const TargetResult &T) {
  std::string S = T.Target->Name + std::string(": ") + valuesText(T.Best) + " (" +
                  (T.Measured ? "measured" : "predicted") + "; " + T.Basis +
                  ")";
  if (T.Speedup > 0)
    S += llvm::formatv("; {0:F3}x over the original ({1} us -> {2} us, noise "
                       "±{3:F1}%)",
                       T.Speedup, us(T.BaselineNs), us(T.BestNs),
                       T.Noise * 100)
             .str();
  return S;
}

std::string forge::report::tuneReportMarkdown(const TuneReportInput &In) {
  const TuneResult &R = *In.Result;
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << "# Tuning report: `" << In.Spec->Kernel << "`\n\n";
  OS << "- source: `" << In.Source << "`, " << In.Date << "\n";
  OS << "- strategy: " << R.Strategy << " (seed " << R.Seed << ")\n";
  OS << "- space: ";
  std::vector<std::string> Dims;
  for (const tune::Parameter &P : R.Space) {
    std::vector<std::string> Vs;
    for (int64_t V : P.Values)
      Vs.push_back(std::to_string(V));
    Dims.push_back("`" + P.Name + "` ∈ {" + llvm::join(Vs, ", ") + "}");
  }
  OS << llvm::join(Dims, " × ") << ": " << R.SpaceSize << " configurations, "
     << R.ValidConfigs << " valid\n";
  OS << llvm::formatv("- measured {0} configuration(s) in {1:F1} s ({2:F1} "
                      "per minute; compiling {3:F1} s, running {4:F1} s), "
                      "{5} from the tuning database\n",
                      R.Measured, R.WallSeconds, R.ConfigsPerMinute,
                      R.CompileSeconds, R.RunSeconds, R.Reused);
  if (R.Interrupted)
    OS << "- **interrupted**: the results below are partial\n";
  OS << "\n## Result\n\n";
  for (const TargetResult &T : R.Targets)
    OS << "- " << targetLine(T) << "\n";
  OS << "\n## Every configuration\n\n";
  OS << "| configuration | status | time (us) | registers | note |\n";
  OS << "|---|---|---|---|---|\n";
  for (const ConfigResult *C : sorted(R)) {
    std::string Note = C->Key == R.DefaultKey ? "original" : "";
    if (C->FromDatabase)
      Note += (Note.empty() ? "" : ", ") + std::string("from the database");
    if (!C->Detail.empty())
      Note += (Note.empty() ? "" : "; ") + C->Detail;
    std::replace(Note.begin(), Note.end(), '|', '/');
    OS << "| " << C->Key << " | " << statusName(C->Status) << " | "
       << (C->Status == CandidateStatus::Ok ? us(C->CostNs) : "-") << " | "
       << (C->Registers ? std::to_string(C->Registers) : "-") << " | " << Note
       << " |\n";
  }
  if (!In.Diff.empty())
    OS << "\n## Write-back\n\n```diff\n" << In.Diff << "```\n";
  OS << "\nTimes are medians of interleaved runs with L2 flushed, normalised "
        "to the first batch's measurement of the original.\n";
  return S;
}

std::string forge::report::tuneChartSvg(const TuneResult &R) {
  std::vector<Bar> Bars;
  bool First = true;
  for (const ConfigResult *C : sorted(R)) {
    if (C->Status != CandidateStatus::Ok)
      continue;
    bool Original = C->Key == R.DefaultKey;
    Bars.push_back({C->Key + (Original ? " (original)" : ""), C->CostNs, us(C->CostNs),
                    First ? "#2a9d4b" : Original ? "#d08b1f" : "#5b7fb5"});
    First = false;
  }
  return barChartSvg("time per launch (us), shorter is better", Bars);
}

std::string forge::report::tuneReportHtml(const TuneReportInput &In) {
  const TuneResult &R = *In.Result;
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << htmlHead("Tuning report: " + In.Spec->Kernel);
  OS << "<h1>Tuning report: <code>" << escape(In.Spec->Kernel)
     << "</code></h1>\n<ul>\n";
  OS << "<li>source: <code>" << escape(In.Source) << "</code>, " << In.Date
     << "</li>\n";
  OS << "<li>strategy: " << escape(R.Strategy) << " (seed " << R.Seed
     << ")</li>\n";
  OS << "<li>" << R.SpaceSize << " configurations, " << R.ValidConfigs
     << " valid; measured " << R.Measured << " ("
     << llvm::formatv("{0:F1}", R.ConfigsPerMinute) << " per minute), "
     << R.Reused << " from the tuning database</li>\n</ul>\n";
  OS << "<h2>Result</h2>\n<ul>\n";
  for (const TargetResult &T : R.Targets)
    OS << "<li>" << escape(targetLine(T)) << "</li>\n";
  OS << "</ul>\n<h2>Configurations</h2>\n" << tuneChartSvg(R);
  OS << "<table><tr><th>configuration</th><th>status</th><th>time "
        "(us)</th><th>registers</th><th>note</th></tr>\n";
  for (const ConfigResult *C : sorted(R))
    OS << "<tr><td>" << escape(C->Key) << "</td><td>"
       << escape(statusName(C->Status)) << "</td><td>"
       << (C->Status == CandidateStatus::Ok ? us(C->CostNs) : "-")
       << "</td><td>" << (C->Registers ? std::to_string(C->Registers) : "-")
       << "</td><td>" << escape(C->Detail) << "</td></tr>\n";
  OS << "</table>\n";
  if (!In.Diff.empty())
    OS << "<h2>Write-back</h2>\n<pre>" << escape(In.Diff) << "</pre>\n";
  OS << "</body></html>\n";
  return S;
}

std::string forge::report::renderTuneReport(const TuneReportInput &In,
                                            Format F) {
  switch (F) {
  case Format::Json:
    return tuneReportJson(In).dump(2) + "\n";
  case Format::Markdown:
    return tuneReportMarkdown(In);
  case Format::Html:
    return tuneReportHtml(In);
  }
  return "";
}

void forge::report::renderTuneSummary(llvm::raw_ostream &OS, const TuneResult &R) {
  using namespace llvm;
  std::set<std::string> Keys, OkKeys;
  for (const ConfigResult &C : R.Configs) {
    Keys.insert(C.Key);
    if (C.Status == measure::CandidateStatus::Ok)
      OkKeys.insert(C.Key);
  }
  OS << formatv("forge-port: {0} of {1} valid configuration(s) evaluated ({2} measured now, "
                "{3} measurement(s) from the database), {4} passed the checks",
                Keys.size(), R.ValidConfigs, R.Measured, R.Reused, OkKeys.size());
  if (R.Measured)
    OS << formatv("; {0:F1} configurations per minute (compile {1:F1} s, run {2:F1} s)",
                  R.ConfigsPerMinute, R.CompileSeconds, R.RunSeconds);
  OS << "\n";
  std::map<std::string, size_t> Failed;
  for (const ConfigResult &C : R.Configs)
    if (C.Status != measure::CandidateStatus::Ok)
      ++Failed[statusName(C.Status)];
  for (const auto &[Status, N] : Failed)
    OS << "  " << N << " " << Status << "\n";
  for (const TargetResult &T : R.Targets) {
    OS << "  " << T.Target->Name << ": ";
    std::vector<std::string> Parts;
    for (const auto &[K, V] : T.Best)
      Parts.push_back(K + "=" + std::to_string(V));
    OS << join(Parts, " ") << " [" << (T.Measured ? "measured" : "predicted") << "] "
       << T.Basis;
    if (T.Speedup > 0)
      OS << formatv("; {0:F3}x over the original {1} ({2:F2} us -> {3:F2} us, noise ±{4:F1}%)",
                    T.Speedup, R.DefaultKey, T.BaselineNs / 1000, T.BestNs / 1000,
                    T.Noise * 100);
    OS << "\n";
  }
}
