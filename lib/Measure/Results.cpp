//===- Results.cpp - The worker's result lines ----------------------------===//
#include "forge/Measure/Results.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace forge;
using namespace forge::measure;

namespace {

/// Reads typed fields of one line, remembering the first problem.
class LineReader {
public:
  LineReader(const Json &J, std::string Where) : J(J), Where(std::move(Where)) {}

  template <class T> std::optional<T> opt(const char *Key) {
    auto It = J.find(Key);
    if (It == J.end() || It->is_null())
      return std::nullopt;
    try {
      return It->get<T>();
    } catch (const std::exception &) {
      fail(std::string("field \"") + Key + "\" has the wrong type");
      return std::nullopt;
    }
  }
  template <class T> T get(const char *Key, T Default = T()) {
    auto V = opt<T>(Key);
    return V ? *V : Default;
  }
  void fail(std::string Msg) {
    if (Error.empty())
      Error = Where + ": " + Msg;
  }

  const Json &J;
  std::string Where;
  std::string Error;
};

} // namespace

const CandidateResult *JobResults::find(llvm::StringRef Id) const {
  for (const CandidateResult &C : Candidates)
    if (C.Id == Id)
      return &C;
  return nullptr;
}

llvm::Expected<JobResults> forge::measure::parseResults(llvm::StringRef Text,
                                                        llvm::StringRef Origin) {
  JobResults R;
  auto Err = forEachJsonLine(Text, Origin, [&](const Json &J,
                                                unsigned N) -> llvm::Error {
    std::string Where = (Origin + ":" + llvm::Twine(N)).str();
    LineReader In(J, Where);
    std::string Type = In.get<std::string>("type");
    if (Type == "device") {
      DeviceInfo D;
      D.Name = In.get<std::string>("name");
      D.ComputeCapability = In.get<std::string>("cc");
      D.SMs = In.get<unsigned>("sms");
      D.L2Bytes = In.get<uint64_t>("l2_bytes");
      D.ClockKHz = In.get<unsigned>("clock_khz");
      D.Uuid = In.get<std::string>("uuid");
      D.Timer = In.get<std::string>("timer");
      if (!R.Device)
        R.Device = D;
    } else if (Type == "ceilings") {
      Ceilings C;
      C.DramGBps = In.get<double>("dram_gbps");
      C.Fp32GFlops = In.get<double>("fp32_gflops");
      C.Fp64GFlops = In.get<double>("fp64_gflops");
      C.Source = In.get<std::string>("source");
      if (!R.Ceiling)
        R.Ceiling = C;
    } else if (Type == "sandbox") {
      SandboxInfo S;
      S.Mode = In.get<std::string>("mode");
      S.Active = In.get<std::vector<std::string>>("active");
      if (auto It = J.find("refused"); It != J.end() && It->is_array())
        for (const Json &E : *It) {
          LineReader RI(E, Where);
          S.Refused.push_back(
              {RI.get<std::string>("layer"), RI.get<std::string>("reason")});
          if (!RI.Error.empty())
            In.fail(RI.Error.substr(Where.size() + 2) + " (in \"refused\")");
        }
      if (!R.Sandbox)
        R.Sandbox = S;
    } else if (Type == "reference-failed") {
      std::string Status = In.get<std::string>("status");
      std::string Error = In.get<std::string>("error");
      R.ReferenceFailure = Status.empty() ? Error : Status + ": " + Error;
    } else if (Type == "candidate") {
      CandidateResult C;
      C.Id = In.get<std::string>("id");
      if (C.Id.empty())
        In.fail("a candidate line without an \"id\"");
      C.Label = In.get<std::string>("label");
      std::string Status = In.get<std::string>("status");
      if (Status.empty())
        In.fail("a candidate line without a \"status\"");
      else if (auto S = parseCandidateStatus(Status))
        C.Status = *S;
      else
        In.fail("unknown status '" + Status + "'");
      C.Error = In.get<std::string>("error");
      C.Reference = In.get<bool>("reference");
      for (const std::string &Reason :
           In.get<std::vector<std::string>>("reasons")) {
        if (auto S = parseCandidateStatus(Reason))
          C.Reasons.push_back(*S);
        else
          In.fail("unknown status '" + Reason + "' (in \"reasons\")");
      }
      C.Process = In.get<unsigned>("process");
      if (auto It = J.find("checks"); It != J.end() && It->is_array()) {
        for (const Json &E : *It) {
          LineReader CI(E, Where);
          BufferCheck B;
          B.Set = CI.get<unsigned>("set");
          B.Buffer = CI.get<std::string>("buffer");
          B.RelL2 = CI.get<double>("rel_l2");
          B.MaxAbs = CI.get<double>("max_abs");
          B.OverBound = CI.get<uint64_t>("over_bound");
          B.Unwritten = CI.get<uint64_t>("unwritten");
          B.FirstBad = CI.get<int64_t>("first_bad", -1);
          B.FirstUnwritten = CI.get<int64_t>("first_unwritten", -1);
          if (!CI.Error.empty())
            In.fail(CI.Error.substr(Where.size() + 2) + " (in \"checks\")");
          C.Checks.push_back(B);
        }
      }
      if (auto It = J.find("inputs_changed"); It != J.end() && It->is_array()) {
        for (const Json &E : *It) {
          LineReader CI(E, Where);
          InputChange X;
          X.Set = CI.get<unsigned>("set");
          X.Buffer = CI.get<std::string>("buffer");
          X.Elements = CI.get<uint64_t>("elements");
          X.First = CI.get<int64_t>("first", -1);
          if (!CI.Error.empty())
            In.fail(CI.Error.substr(Where.size() + 2) + " (in \"inputs_changed\")");
          C.InputsChanged.push_back(X);
        }
      }
      if (auto It = J.find("time_ns"); It != J.end() && It->is_object()) {
        LineReader TI(*It, Where);
        TimeStats T;
        T.Median = TI.get<double>("median");
        T.Min = TI.get<double>("min");
        T.Max = TI.get<double>("max");
        T.P10 = TI.get<double>("p10");
        T.P90 = TI.get<double>("p90");
        T.Spread = TI.get<double>("spread");
        T.Samples = TI.get<unsigned>("samples");
        if (!TI.Error.empty())
          In.fail(TI.Error.substr(Where.size() + 2) + " (in \"time_ns\")");
        if (T.Samples > 0)
          C.Time = T;
      }
      if (auto It = J.find("sandbox_denied"); It != J.end() && It->is_array())
        for (const Json &E : *It) {
          LineReader DI(E, Where);
          C.SandboxDenied.push_back(
              {DI.get<std::string>("syscall"), DI.get<unsigned>("count")});
          if (!DI.Error.empty())
            In.fail(DI.Error.substr(Where.size() + 2) +
                    " (in \"sandbox_denied\")");
        }
      C.RoundMediansNs = In.get<std::vector<double>>("round_medians_ns");
      C.BaselineMedianNs = In.opt<double>("baseline_median_ns");
      C.Noise = In.opt<double>("noise");
      C.Speedup = In.opt<double>("speedup");
      C.FloorNs = In.opt<double>("floor_ns");
      C.GBps = In.opt<double>("gbps");
      C.GFlops = In.opt<double>("gflops");
      C.RooflineFraction = In.opt<double>("roofline_fraction");
      C.RestoredPerLaunch = In.get<std::vector<std::string>>("restored_per_launch");
      C.Restore = In.get<std::string>("restore");
      if (R.find(C.Id))
        In.fail("a second line for candidate '" + C.Id + "'");
      R.Candidates.push_back(std::move(C));
    }
    if (!In.Error.empty())
      return makeError("{0}", In.Error);
    return llvm::Error::success();
  });
  if (Err)
    return std::move(Err);
  return R;
}

Json forge::measure::toJson(const CandidateResult &C) {
  Json Reasons = Json::array();
  for (CandidateStatus S : C.Reasons)
    Reasons.push_back(statusName(S));
  Json J = {{"type", "candidate"}, {"id", C.Id},
            {"reference", C.Reference}, {"label", C.Label},
            {"status", statusName(C.Status)}, {"reasons", Reasons},
            {"error", C.Error}};
  Json Checks = Json::array();
  for (const BufferCheck &B : C.Checks)
    Checks.push_back({{"set", B.Set}, {"buffer", B.Buffer},
                      {"rel_l2", B.RelL2}, {"max_abs", B.MaxAbs},
                      {"over_bound", B.OverBound}, {"unwritten", B.Unwritten},
                      {"first_bad", B.FirstBad},
                      {"first_unwritten", B.FirstUnwritten}});
  J["checks"] = Checks;
  Json Changed = Json::array();
  for (const InputChange &X : C.InputsChanged)
    Changed.push_back({{"set", X.Set}, {"buffer", X.Buffer},
                       {"elements", X.Elements}, {"first", X.First}});
  J["inputs_changed"] = Changed;
  if (C.Time)
    J["time_ns"] = {{"median", C.Time->Median}, {"min", C.Time->Min},
                    {"max", C.Time->Max},       {"p10", C.Time->P10},
                    {"p90", C.Time->P90},       {"spread", C.Time->Spread},
                    {"samples", C.Time->Samples}};
  J["round_medians_ns"] = C.RoundMediansNs;
  auto Put = [&](const char *K, const std::optional<double> &V) {
    if (V)
      J[K] = *V;
  };
  Put("baseline_median_ns", C.BaselineMedianNs);
  Put("noise", C.Noise);
  Put("speedup", C.Speedup);
  Put("floor_ns", C.FloorNs);
  Put("gbps", C.GBps);
  Put("gflops", C.GFlops);
  Put("roofline_fraction", C.RooflineFraction);
  J["process"] = C.Process;
  if (!C.RestoredPerLaunch.empty()) {
    J["restored_per_launch"] = C.RestoredPerLaunch;
    J["restore"] = C.Restore;
  }
  if (!C.SandboxDenied.empty()) {
    Json Denied = Json::array();
    for (const auto &[Call, Count] : C.SandboxDenied)
      Denied.push_back({{"syscall", Call}, {"count", Count}});
    J["sandbox_denied"] = Denied;
  }
  return J;
}

llvm::StringRef forge::measure::bottleneckName(Bottleneck B) {
  switch (B) {
  case Bottleneck::Memory:
    return "memory-bound";
  case Bottleneck::Compute:
    return "compute-bound";
  case Bottleneck::Latency:
    return "latency/occupancy-bound";
  case Bottleneck::Unknown:
    return "unknown";
  }
  return "unknown";
}

RooflinePosition forge::measure::classify(double Bytes, double Flops,
                                          double TimeNs, const Ceilings &C,
                                          bool Fp64, double LatencyThreshold) {
  RooflinePosition P;
  double Peak = Fp64 ? C.Fp64GFlops : C.Fp32GFlops; // GFLOP/s = flop/ns
  double Bw = C.DramGBps;                            // GB/s = byte/ns
  if (TimeNs <= 0 || Bw <= 0 || Peak <= 0 || (Bytes <= 0 && Flops <= 0))
    return P;
  P.Ridge = Peak / Bw;
  P.MemFraction = Bytes > 0 ? Bytes / TimeNs / Bw : 0;
  P.ComputeFraction = Flops > 0 ? Flops / TimeNs / Peak : 0;
  bool ComputeSide;
  if (Bytes <= 0) {
    ComputeSide = true;
  } else {
    P.Intensity = Flops / Bytes;
    ComputeSide = P.Intensity > P.Ridge;
  }
  P.Fraction = ComputeSide ? P.ComputeFraction : P.MemFraction;
  if (P.Fraction < LatencyThreshold)
    P.Class = Bottleneck::Latency;
  else
    P.Class = ComputeSide ? Bottleneck::Compute : Bottleneck::Memory;
  return P;
}

std::string forge::measure::describeRejection(const CandidateResult &R,
                                              double FloorFactor) {
  if (!R.Error.empty())
    return R.Error;
  std::vector<std::string> Parts;
  auto Us = [](double Ns) { return llvm::formatv("{0:F2}", Ns / 1000).str(); };
  if (R.Status == CandidateStatus::NoWork && R.Time && R.FloorNs &&
      R.Time->Median < FloorFactor * *R.FloorNs)
    Parts.push_back(llvm::formatv("{0} us is under {1} x the roofline floor "
                                  "of {2} us",
                                  Us(R.Time->Median), FloorFactor,
                                  Us(*R.FloorNs)));
  // The first input set that shows each problem says enough.
  std::optional<unsigned> ChangedSet, BadSet;
  for (const InputChange &X : R.InputsChanged)
    ChangedSet = std::min(ChangedSet.value_or(X.Set), X.Set);
  auto Bad = [&](const BufferCheck &B) {
    return B.Unwritten || B.OverBound ||
           (R.Status == CandidateStatus::Wrong && B.RelL2 > 0);
  };
  for (const BufferCheck &B : R.Checks)
    if (Bad(B))
      BadSet = std::min(BadSet.value_or(B.Set), B.Set);
  for (const InputChange &X : R.InputsChanged)
    if (X.Set == ChangedSet)
      Parts.push_back(llvm::formatv("input '{0}' changed: {1} element(s) "
                                    "(first at {2})",
                                    X.Buffer, X.Elements, X.First));
  for (const BufferCheck &B : R.Checks) {
    if (B.Set != BadSet || !Bad(B))
      continue;
    if (B.Unwritten)
      Parts.push_back(llvm::formatv("'{0}', input set {1}: {2} element(s) "
                                    "left unwritten (first at {3})",
                                    B.Buffer, B.Set, B.Unwritten,
                                    B.FirstUnwritten));
    if (B.OverBound || (R.Status == CandidateStatus::Wrong && B.RelL2 > 0))
      Parts.push_back(llvm::formatv(
          "'{0}', input set {1}: relative L2 error {2:E2}, largest error "
          "{3:E2}, {4} element(s) over the per-element bound (first at {5})",
          B.Buffer, B.Set, B.RelL2, B.MaxAbs, B.OverBound, B.FirstBad));
  }
  return llvm::join(Parts, "; ");
}
