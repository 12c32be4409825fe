//===- Report/MeasureReport.cpp -------------------------------------------===//
#include "forge/Report/MeasureReport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>

using namespace llvm;

namespace forge::report {

using namespace measure;

namespace {

std::string fmtUs(double Ns) { return formatv("{0:F2}", Ns / 1000.0).str(); }
std::string pct(double F) { return formatv("{0:F1}%", F * 100).str(); }

Json rowJson(const MeasureRow &R, const CandidateOutcome &O) {
  Json J = toJson(O.Result);
  J["source"] = O.Candidate.Source;
  J["config"] = Json::object();
  for (const auto &[K, V] : O.Candidate.Values)
    J["config"][K] = V;
  if (O.Resources) {
    const build::KernelResources &K = *O.Resources;
    J["resources"] = {{"registers", K.Registers},
                      {"spill_store_bytes", K.SpillStoreBytes},
                      {"spill_load_bytes", K.SpillLoadBytes},
                      {"static_shared_bytes", K.SharedMemBytes},
                      {"stack_bytes", K.StackFrameBytes},
                      {"mangled_name", K.MangledName}};
  }
  if (R.Occupancy)
    J["occupancy"] = {{"fraction", R.Occupancy->Occupancy},
                      {"blocks_per_sm", R.Occupancy->ActiveBlocksPerSM},
                      {"limiter", arch::limiterName(R.Occupancy->Limiter)}};
  if (R.Position) {
    J["bottleneck"] = bottleneckName(R.Position->Class);
    J["intensity"] = R.Position->Intensity;
    J["ridge"] = R.Position->Ridge;
  }
  return J;
}

} // namespace

Json measureJson(const MeasureSessionResult &R) {
  const MeasureReport &Rep = *R.Report;
  Json J;
  if (Rep.Device)
    J["device"] = {{"name", Rep.Device->Name},
                   {"cc", Rep.Device->ComputeCapability},
                   {"sms", Rep.Device->SMs},
                   {"l2_bytes", Rep.Device->L2Bytes},
                   {"timer", Rep.Device->Timer}};
  if (Rep.Ceiling)
    J["ceilings"] = {{"dram_gbps", Rep.Ceiling->DramGBps},
                     {"fp32_gflops", Rep.Ceiling->Fp32GFlops},
                     {"fp64_gflops", Rep.Ceiling->Fp64GFlops},
                     {"source", Rep.Ceiling->Source}};
  J["arch"] = R.Target->Name;
  J["work"] = {{"bytes", Rep.Work.Bytes},
               {"flops", Rep.Work.Flops},
               {"bytes_derived_from_buffers", Rep.Work.Derived}};
  J["candidates"] = Json::array();
  for (const MeasureRow &Row : R.Rows)
    J["candidates"].push_back(rowJson(Row, Rep.Outcomes[Row.Outcome]));
  J["compile_seconds"] = Rep.CompileSeconds;
  J["run_seconds"] = Rep.RunSeconds;
  return J;
}

void renderMeasureText(raw_ostream &OS, const MeasureSessionResult &R, const JobOptions &Job) {
  const MeasureReport &Rep = *R.Report;
  StringRef Arch = R.Target->Name;
  if (Rep.Device)
    OS << "device: " << Rep.Device->Name << " (" << Arch << ", " << Rep.Device->SMs << " SMs, "
       << Rep.Device->L2Bytes / (1024 * 1024) << " MiB L2), timer " << Rep.Device->Timer << "\n";
  if (Rep.Ceiling)
    OS << formatv("ceilings ({0}): DRAM {1:F0} GB/s, FP32 {2:F1} TFLOP/s, FP64 {3:F1} TFLOP/s\n",
                  Rep.Ceiling->Source, Rep.Ceiling->DramGBps, Rep.Ceiling->Fp32GFlops / 1000,
                  Rep.Ceiling->Fp64GFlops / 1000);
  OS << formatv("work per launch: {0:F2} MB{1}, {2:F2} MFLOP\n", Rep.Work.Bytes / 1e6,
                Rep.Work.Derived ? " (every buffer once; the spec gives no bytes)" : "",
                Rep.Work.Flops / 1e6);
  OS << "\n";
  OS << formatv("{0,-6} {1,-28} {2,-13} {3,10} {4,10} {5,7} {6,16} {7,8} {8,9} {9,8} {10,5} "
                "{11,6} {12,7} {13,9}  {14}\n",
                "id", "variant", "status", "median us", "min us", "spread", "speedup (noise)",
                "GB/s", "GFLOP/s", "roofline", "regs", "spill", "smem", "occupancy",
                "bottleneck");
  for (const MeasureRow &Row : R.Rows) {
    const CandidateOutcome &O = Rep.Outcomes[Row.Outcome];
    const CandidateResult &C = O.Result;
    std::string Label = O.Candidate.Label;
    if (Label.size() > 28)
      Label = Label.substr(0, 25) + "...";
    std::string Med = "-", Min = "-", Spread = "-", Speed = "-", GB = "-", GF = "-", Roof = "-";
    if (C.Time) {
      Med = fmtUs(C.Time->Median);
      Min = fmtUs(C.Time->Min);
      Spread = pct(C.Time->Spread);
    }
    if (C.Speedup)
      Speed = formatv("{0:F3}x (±{1})", *C.Speedup, C.Noise ? pct(*C.Noise) : "?").str();
    if (C.GBps)
      GB = formatv("{0:F0}", *C.GBps).str();
    if (C.GFlops)
      GF = formatv("{0:F0}", *C.GFlops).str();
    if (C.RooflineFraction)
      Roof = pct(*C.RooflineFraction);
    std::string Regs = "-", Spill = "-", Smem = "-", Occ = "-";
    if (O.Resources) {
      Regs = std::to_string(O.Resources->Registers);
      Spill = std::to_string(O.Resources->SpillStoreBytes + O.Resources->SpillLoadBytes);
      Smem = std::to_string(O.Resources->SharedMemBytes);
    }
    if (Row.Occupancy)
      Occ = formatv("{0:P0}", Row.Occupancy->Occupancy).str();
    std::string Bn = Row.Position ? bottleneckName(Row.Position->Class).str() : "-";
    OS << formatv("{0,-6} {1,-28} {2,-13} {3,10} {4,10} {5,7} {6,16} {7,8} {8,9} {9,8} {10,5} "
                  "{11,6} {12,7} {13,9}  {14}\n",
                  C.Id, Label, statusName(C.Status), Med, Min, Spread, Speed, GB, GF, Roof, Regs, Spill, Smem,
                  Occ, Bn);
  }
  bool Header = false;
  for (const MeasureRow &Row : R.Rows) {
    const CandidateOutcome &O = Rep.Outcomes[Row.Outcome];
    const CandidateResult &C = O.Result;
    if (C.ok())
      continue;
    if (!Header)
      OS << "\nrejected:\n";
    Header = true;
    OS << "  " << C.Id << " (" << O.Candidate.Label << "): " << statusName(C.Status);
    if (C.Reasons.size() > 1)
      OS << " ["
         << join(map_range(C.Reasons,
                           [](CandidateStatus S) { return StringRef(statusName(S)); }),
                 ", ")
         << "]";
    std::string D = describeRejection(C, Job.FloorFactor);
    if (!D.empty())
      OS << ": " << D;
    OS << "\n";
  }
  OS << formatv("\noccupancy is predicted by the Arch database for {0}; times are the median "
                "of {1} launches in {2} interleaved rounds, L2 {3}\n",
                Arch, Job.Rounds * Job.Reps, Job.Rounds,
                Job.FlushL2 ? "flushed" : "not flushed");
  // What each timed launch started from: the buffers a kernel may change
  // were put back before it, outside the timed region.
  std::map<std::string, std::vector<std::string>> Restored;
  for (const MeasureRow &Row : R.Rows) {
    const CandidateResult &C = Rep.Outcomes[Row.Outcome].Result;
    if (!C.RestoredPerLaunch.empty())
      Restored[join(C.RestoredPerLaunch, ", ") + " (" + C.Restore + ")"].push_back(C.Id);
  }
  for (const auto &[What, Ids] : Restored)
    OS << "restored before every timed launch, untimed: " << What << " for " << join(Ids, ", ")
       << "\n";
}

void renderBuildOnly(raw_ostream &OS, const MeasureSessionResult &R) {
  for (const CandidateOutcome &O : R.Report->Outcomes) {
    bool Built = O.Result.Status != CandidateStatus::CompileFailed;
    OS << O.Candidate.Id << " " << O.Candidate.Label << ": "
       << (Built ? "built" : "compile-failed: " + O.Result.Error) << "\n";
  }
}

Json programJson(const MeasureSessionResult &R) {
  Json J = Json::array();
  for (const ProgramVariant &V : R.Programs) {
    Json K = Json::array();
    for (const KernelSummary &S : V.Kernels)
      K.push_back({{"name", S.Name},
                   {"launches", S.Launches},
                   {"streams", S.Streams},
                   {"median_ns", S.MedianNs},
                   {"total_ns", S.TotalNs},
                   {"run_spread", S.RunSpread}});
    J.push_back({{"label", V.Label},
                 {"source", V.Source},
                 {"status", statusName(V.Status).str()},
                 {"detail", V.Detail},
                 {"runs", V.Runs.size()},
                 {"left_running", V.LeftRunning},
                 {"kernels", K}});
  }
  return J;
}

void renderProgramText(raw_ostream &OS, const MeasureSessionResult &R, StringRef Command,
                       unsigned Runs) {
  const ProgramVariant &Orig = R.Programs.front();
  OS << "program mode: " << Command << " (" << R.Target->Name << ", " << Runs
     << " run(s) each; kernel times from CUPTI activity records)\n";
  for (const ProgramVariant &V : R.Programs) {
    OS << "\n" << V.Label << ": " << statusName(V.Status);
    if (!V.Detail.empty())
      OS << " (" << V.Detail << ")";
    OS << "\n";
    if (V.LeftRunning)
      OS << "  warning: " << V.LeftRunning
         << " launch(es) were still running when the program ended (left on another "
            "stream): they are in no time below\n";
    if (V.Kernels.empty())
      continue;
    OS << formatv("  {0,-48} {1,9} {2,7} {3,12} {4,12} {5,9} {6,10}\n", "kernel",
                  "launches", "streams", "median us", "total us", "run var", "vs orig");
    for (const KernelSummary &S : V.Kernels) {
      std::string Name = S.Name.size() > 48 ? S.Name.substr(0, 45) + "..." : S.Name;
      std::string Vs = "-";
      if (&V != &Orig)
        for (const KernelSummary &O : Orig.Kernels)
          if (O.Name == S.Name && S.MedianNs > 0)
            Vs = formatv("{0:F3}x", O.MedianNs / S.MedianNs).str();
      OS << formatv("  {0,-48} {1,9} {2,7} {3,12} {4,12} {5,9} {6,10}\n", Name, S.Launches,
                    S.Streams, fmtUs(S.MedianNs), fmtUs(S.TotalNs), pct(S.RunSpread), Vs);
    }
  }
}

} // namespace forge::report
