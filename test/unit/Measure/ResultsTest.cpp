//===- ResultsTest.cpp - parsing result lines and the roofline class ------===//
#include "forge/Measure/Results.h"
#include "gtest/gtest.h"
#include <iterator>

using namespace forge;
using namespace forge::measure;

namespace {

// Lines as forge-worker writes them (docs/worker-protocol.md), including a
// supervisor line for a crash and a line kind this parser does not know.
const char *Lines =
    R"({"type":"device","name":"NVIDIA H200","cc":"9.0","sms":132,"l2_bytes":62914560,"clock_khz":1980000,"uuid":"GPU-1","timer":"cupti"}
{"type":"ceilings","dram_gbps":4200,"fp32_gflops":60000,"fp64_gflops":30000,"source":"cache"}
{"type":"candidate","id":"ref","reference":true,"label":"k.cu","status":"ok","reasons":[],"error":"","checks":[{"set":0,"buffer":"y","rel_l2":0,"max_abs":0,"over_bound":0,"unwritten":0,"first_bad":-1}],"time_ns":{"median":100000,"min":99000,"max":104000,"p10":99500,"p90":101000,"spread":0.015,"samples":50},"round_medians_ns":[100000,100100,99900,100050,100000],"baseline_median_ns":100000,"noise":0.002,"speedup":1,"floor_ns":30000,"gbps":1260,"gflops":null,"roofline_fraction":0.3,"process":1,"restored_per_launch":["y"],"restore":"pristine-copy"}
{"type":"future-kind","x":1}
{"type":"candidate","id":"c1","reference":false,"label":"bad.cu","status":"wrong","reasons":["wrong","unwritten"],"error":"","checks":[{"set":1,"buffer":"y","rel_l2":0.25,"max_abs":3.5,"over_bound":12,"unwritten":4,"first_bad":17,"first_unwritten":90}],"inputs_changed":[{"set":0,"buffer":"x","elements":1,"first":99}],"process":1}
{"type":"candidate","id":"c2","status":"crashed","reasons":["crashed"],"error":"an illegal memory access was encountered","process":1}
)";

TEST(Results, ParsesEveryKind) {
  auto R = parseResults(Lines, "results.jsonl");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_TRUE(R->Device.has_value());
  EXPECT_EQ(R->Device->Name, "NVIDIA H200");
  EXPECT_EQ(R->Device->ComputeCapability, "9.0");
  EXPECT_EQ(R->Device->L2Bytes, 62914560u);
  ASSERT_TRUE(R->Ceiling.has_value());
  EXPECT_EQ(R->Ceiling->Fp32GFlops, 60000);
  ASSERT_EQ(R->Candidates.size(), 3u);
  const CandidateResult *Ref = R->find("ref");
  ASSERT_TRUE(Ref);
  EXPECT_TRUE(Ref->Reference);
  EXPECT_TRUE(Ref->ok());
  ASSERT_TRUE(Ref->Time.has_value());
  EXPECT_EQ(Ref->Time->Median, 100000);
  EXPECT_EQ(Ref->Time->Samples, 50u);
  EXPECT_EQ(Ref->RoundMediansNs.size(), 5u);
  EXPECT_EQ(*Ref->Noise, 0.002);
  EXPECT_FALSE(Ref->GFlops.has_value()); // null
  EXPECT_EQ(Ref->RestoredPerLaunch, std::vector<std::string>{"y"});
  EXPECT_EQ(Ref->Restore, "pristine-copy");
  const CandidateResult *C1 = R->find("c1");
  ASSERT_TRUE(C1);
  EXPECT_EQ(C1->Status, CandidateStatus::Wrong);
  EXPECT_EQ(C1->Reasons, (std::vector<CandidateStatus>{CandidateStatus::Wrong,
                                                       CandidateStatus::Unwritten}));
  ASSERT_EQ(C1->Checks.size(), 1u);
  EXPECT_EQ(C1->Checks[0].Set, 1u);
  EXPECT_EQ(C1->Checks[0].OverBound, 12u);
  EXPECT_EQ(C1->Checks[0].FirstBad, 17);
  EXPECT_EQ(C1->Checks[0].FirstUnwritten, 90);
  ASSERT_EQ(C1->InputsChanged.size(), 1u);
  EXPECT_EQ(C1->InputsChanged[0].Buffer, "x");
  EXPECT_EQ(C1->InputsChanged[0].First, 99);
  EXPECT_FALSE(C1->Time.has_value());
  EXPECT_EQ(R->find("c2")->Error, "an illegal memory access was encountered");
  EXPECT_FALSE(R->ReferenceFailure.has_value());
}

TEST(Results, RoundTripsThroughJson) {
  auto R = parseResults(Lines, "results.jsonl");
  ASSERT_TRUE(bool(R));
  std::string Again;
  for (const CandidateResult &C : R->Candidates)
    Again += toJson(C).dump() + "\n";
  auto R2 = parseResults(Again, "again");
  ASSERT_TRUE(bool(R2)) << llvm::toString(R2.takeError());
  ASSERT_EQ(R2->Candidates.size(), 3u);
  EXPECT_EQ(R2->find("ref")->Time->P90, 101000);
  EXPECT_EQ(R2->find("ref")->RestoredPerLaunch, std::vector<std::string>{"y"});
  EXPECT_EQ(R2->find("ref")->Restore, "pristine-copy");
  EXPECT_TRUE(R2->find("c1")->RestoredPerLaunch.empty());
  EXPECT_EQ(R2->find("c1")->Checks[0].RelL2, 0.25);
  EXPECT_EQ(R2->find("c1")->InputsChanged[0].Elements, 1u);
  EXPECT_EQ(toJson(R2->find("c1")->Checks.empty() ? CandidateResult()
                                                   : *R2->find("c1")),
            toJson(*R->find("c1")));
}

TEST(Results, ReferenceFailure) {
  auto R = parseResults(
      R"({"type":"reference-failed","id":"ref","status":"timeout","error":"no result after 30 s"})",
      "r");
  ASSERT_TRUE(bool(R));
  ASSERT_TRUE(R->ReferenceFailure.has_value());
  EXPECT_EQ(*R->ReferenceFailure, "timeout: no result after 30 s");
}

TEST(Results, MalformedLinesNameTheLine) {
  auto E = [](const char *Text) {
    auto R = parseResults(Text, "results.jsonl");
    return R ? std::string("no error") : llvm::toString(R.takeError());
  };
  EXPECT_EQ(E("{\"type\":\"device\"}\n{not json"),
            "results.jsonl:2: not a JSON object: {not json");
  EXPECT_EQ(E("[1,2]"), "results.jsonl:1: not a JSON object: [1,2]");
  EXPECT_EQ(E(R"({"type":"candidate","status":"ok"})"),
            "results.jsonl:1: a candidate line without an \"id\"");
  EXPECT_EQ(E(R"({"type":"candidate","id":"a","status":"ok","time_ns":{"median":"fast","samples":3}})"),
            "results.jsonl:1: field \"median\" has the wrong type (in \"time_ns\")");
  EXPECT_EQ(E("{\"type\":\"candidate\",\"id\":\"a\",\"status\":\"ok\"}\n"
              "{\"type\":\"candidate\",\"id\":\"a\",\"status\":\"ok\"}"),
            "results.jsonl:2: a second line for candidate 'a'");
  EXPECT_EQ(E("{\"type\":\"device\"}\n{\"type\":\"future-kind\"}\n"
              R"({"type":"candidate","id":"a","status":"foo","reasons":["foo"]})"),
            "results.jsonl:3: unknown status 'foo'");
  EXPECT_EQ(E(R"({"type":"candidate","id":"a","status":"wrong","reasons":["wrong","bar"]})"),
            "results.jsonl:1: unknown status 'bar' (in \"reasons\")");
}

// The spellings are the protocol (docs/worker-protocol.md): each status has
// one, and each spelling reads back as its status.
// The sandbox's line and a candidate it denied calls (docs/sandbox.md), as
// the worker writes them; the denials survive toJson (replay caches).
TEST(Results, SandboxLineAndDenials) {
  const char *Text =
      R"J({"type":"sandbox","mode":"on","active":["env","seccomp"],"refused":[{"layer":"netns","reason":"no network namespace"}],"process":1}
{"type":"candidate","id":"p1","reference":false,"label":"x","status":"sandbox-denied","reasons":["sandbox-denied"],"error":"sandbox: denied execve (x2) while loading or running candidate 'p1'","process":1,"sandbox_denied":[{"syscall":"execve","count":2},{"syscall":"socket(AF_INET)","count":1}]}
)J";
  auto R = parseResults(Text, "results.jsonl");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_TRUE(R->Sandbox.has_value());
  EXPECT_EQ(R->Sandbox->Mode, "on");
  EXPECT_EQ(R->Sandbox->Active, (std::vector<std::string>{"env", "seccomp"}));
  ASSERT_EQ(R->Sandbox->Refused.size(), 1u);
  EXPECT_EQ(R->Sandbox->Refused[0].first, "netns");
  const CandidateResult *P = R->find("p1");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Status, CandidateStatus::SandboxDenied);
  EXPECT_FALSE(P->ok());
  ASSERT_EQ(P->SandboxDenied.size(), 2u);
  EXPECT_EQ(P->SandboxDenied[0], (std::pair<std::string, unsigned>{"execve", 2}));
  Json J = toJson(*P);
  ASSERT_TRUE(J.contains("sandbox_denied"));
  EXPECT_EQ(J["sandbox_denied"][1]["syscall"], "socket(AF_INET)");
  auto Again = parseResults(J.dump() + "\n", "again");
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  EXPECT_EQ(Again->Candidates[0].SandboxDenied, P->SandboxDenied);
}

TEST(Results, EveryStatusRoundTripsThroughItsName) {
  const char *Names[] = {"ok",
                         "no-work",
                         "writes-input",
                         "unwritten",
                         "wrong",
                         "crashed",
                         "timeout",
                         "load-failed",
                         "launch-failed",
                         "compile-failed",
                         "invalid",
                         "measurement-failed",
                         "interrupted",
                         "missing",
                         "sandbox-denied",
                         "lost"};
  ASSERT_EQ(std::size(Names), size_t(LastCandidateStatus) + 1);
  for (size_t I = 0; I < std::size(Names); ++I) {
    CandidateStatus S = CandidateStatus(I);
    EXPECT_STREQ(statusName(S), Names[I]);
    EXPECT_EQ(parseCandidateStatus(Names[I]), S) << Names[I];
  }
  EXPECT_EQ(parseCandidateStatus("OK"), std::nullopt);
  EXPECT_EQ(parseCandidateStatus(""), std::nullopt);
  EXPECT_EQ(parseCandidateStatus("timed-out"), std::nullopt);
}

TEST(Roofline, ClassifiesBySideAndFraction) {
  Ceilings C{4000, 60000, 30000, "measured"};
  // A copy of 1 GB in 0.3 ms: 3.3 TB/s of 4 TB/s, memory side.
  RooflinePosition P = classify(1e9, 0, 3e5, C, false);
  EXPECT_EQ(P.Class, Bottleneck::Memory);
  EXPECT_NEAR(P.MemFraction, 1e9 / 3e5 / 4000, 1e-12);
  // The same copy at 10% of the bandwidth: neither ceiling is near.
  EXPECT_EQ(classify(1e9, 0, 2.5e6, C, false).Class, Bottleneck::Latency);
  // SGEMM 2048^3 in 0.35 ms: 49 TFLOP/s, intensity far above the ridge (15).
  double F = 2.0 * 2048 * 2048 * 2048, B = 3.0 * 2048 * 2048 * 4;
  P = classify(B, F, 3.5e5, C, false);
  EXPECT_EQ(P.Class, Bottleneck::Compute);
  EXPECT_GT(P.Intensity, P.Ridge);
  EXPECT_NEAR(P.Ridge, 15, 1e-9);
  // Naive SGEMM at 5.4 TFLOP/s: compute side, but at 9% of the ceiling.
  EXPECT_EQ(classify(B, F, F / 5400, C, false).Class, Bottleneck::Latency);
  // FP64 uses the FP64 ceiling: 49 TFLOP/s would be over it.
  EXPECT_GT(classify(B, F, 3.5e5, C, true).ComputeFraction, 1.0);
  EXPECT_EQ(classify(0, 0, 1e5, C, false).Class, Bottleneck::Unknown);
  EXPECT_EQ(bottleneckName(Bottleneck::Latency), "latency/occupancy-bound");
}

} // namespace

namespace {

TEST(Results, RejectionsAreDescribedFromTheChecks) {
  auto R = parseResults(Lines, "results.jsonl");
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(describeRejection(*R->find("c2"), 0.5),
            "an illegal memory access was encountered");
  EXPECT_EQ(describeRejection(*R->find("c1"), 0.5),
            "input 'x' changed: 1 element(s) (first at 99); 'y', input set 1: "
            "4 element(s) left unwritten (first at 90); 'y', input set 1: "
            "relative L2 error 2.50E-01, largest error 3.50E+00, 12 "
            "element(s) over the per-element bound (first at 17)");
  CandidateResult NoWork;
  NoWork.Status = CandidateStatus::NoWork;
  NoWork.Time = TimeStats{1000, 900, 1100, 950, 1050, 0.1, 10};
  NoWork.FloorNs = 30000;
  EXPECT_EQ(describeRejection(NoWork, 0.5),
            "1.00 us is under 0.50 x the roofline floor of 30.00 us");
}

} // namespace
