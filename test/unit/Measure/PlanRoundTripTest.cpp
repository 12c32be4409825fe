//===- PlanRoundTripTest.cpp - renderPlan read back by forge-worker -------===//
//
// forge-port writes job.plan (lib/Measure/Harness.cpp) and forge-worker reads
// it (tools/forge-worker/Plan.cpp). Both sides share the options struct of
// WorkerProtocol.h; this test feeds one side's output to the other, so a
// field or spelling that drifts apart fails here rather than on a GPU.
//
//===----------------------------------------------------------------------===//
#include "Plan.h"
#include "forge/Measure/Harness.h"
#include "gtest/gtest.h"

using namespace forge;

namespace {

const char *SpecText = R"JSON({
  "kernel": "ns::scale",
  "template_args": ["float", "BLOCK"],
  "sizes": {"N": 3000},
  "buffers": [
    {"name": "x", "dtype": "f32", "count": "N", "role": "in",
     "init": {"kind": "normal", "mean": 1, "stddev": 2}},
    {"name": "acc", "dtype": "f64", "count": "N / 2", "role": "inout",
     "init": {"kind": "iota"}},
    {"name": "y", "dtype": "f32", "count": "N", "role": "out",
     "tolerance": {"rel_l2": 1e-6, "max_abs": 0.001}}
  ],
  "scalars": [{"name": "n", "dtype": "i32", "value": "N"},
              {"name": "a", "dtype": "f64", "value": 0.25}],
  "args": ["x", "acc", "y", "n", "a"],
  "grid": "ceil_div(N, BLOCK)",
  "block": "BLOCK",
  "shared_mem": "BLOCK * 8",
  "tunables": [{"name": "BLOCK", "values": [128, 256], "default": 256}]
})JSON";

TEST(PlanRoundTrip, WhatForgePortWritesTheWorkerReads) {
  auto J = parseJson(SpecText, "spec.json");
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  auto Spec = measure::parseLaunchSpec(*J, "/specs/spec.json");
  ASSERT_TRUE(bool(Spec)) << llvm::toString(Spec.takeError());

  // Every option away from its default, so a dropped line shows.
  measure::JobOptions O;
  O.Seed = 99;
  O.InputSets = 3;
  O.Warmup = 1;
  O.Rounds = 7;
  O.Reps = 4;
  O.MinTimeMs = 2.5;
  O.FlushL2 = false;
  O.Cupti = false;
  O.FloorFactor = 0.25;
  O.CandidateTimeoutS = 12;
  O.Sandbox = measure::SandboxMode::Strict; // written as "option sandbox strict"
  ASSERT_FALSE(O == measure::JobOptions());

  measure::JobEntry Ref{"ref", "h0.so", "forge_entry_0", "original", {}};
  measure::JobEntry Cand{"c1", "/abs/h1.so", "forge_entry_3", "BLOCK=128", {{"BLOCK", 128}}};
  auto Text = measure::renderPlan(*Spec, Ref, {Cand}, O);
  ASSERT_TRUE(bool(Text)) << llvm::toString(Text.takeError());

  worker::Plan P;
  std::string Error;
  ASSERT_TRUE(worker::parsePlan(*Text, "/job", P, Error)) << Error << "\n" << *Text;
  EXPECT_TRUE(P.Opts == O);
  EXPECT_EQ(P.Opts.Sandbox, measure::SandboxMode::Strict);

  ASSERT_EQ(P.Buffers.size(), 3u);
  EXPECT_EQ(P.Buffers[0].Name, "x");
  EXPECT_EQ(P.Buffers[0].Type, worker::DType::F32);
  EXPECT_EQ(P.Buffers[0].Count, 3000u);
  EXPECT_EQ(P.Buffers[0].R, worker::Role::In);
  EXPECT_EQ(P.Buffers[0].Init, worker::InitKind::Normal);
  EXPECT_DOUBLE_EQ(P.Buffers[0].A, 1);
  EXPECT_DOUBLE_EQ(P.Buffers[0].B, 2);
  EXPECT_EQ(P.Buffers[1].Type, worker::DType::F64);
  EXPECT_EQ(P.Buffers[1].Count, 1500u);
  EXPECT_EQ(P.Buffers[1].R, worker::Role::InOut);
  EXPECT_EQ(P.Buffers[1].Init, worker::InitKind::Iota);
  EXPECT_EQ(P.Buffers[2].R, worker::Role::Out);
  ASSERT_TRUE(P.Buffers[2].RelL2 && P.Buffers[2].MaxAbs);
  EXPECT_DOUBLE_EQ(*P.Buffers[2].RelL2, 1e-6);
  EXPECT_DOUBLE_EQ(*P.Buffers[2].MaxAbs, 0.001);

  ASSERT_TRUE(P.Work.has_value());
  // No bytes in the spec: every buffer once, the inout one twice.
  EXPECT_DOUBLE_EQ(P.Work->Bytes, 3000 * 4 + 2 * 1500 * 8 + 3000 * 4);

  ASSERT_EQ(P.Candidates.size(), 2u);
  const worker::CandidatePlan &R = P.Candidates[0], &C = P.Candidates[1];
  EXPECT_TRUE(R.Reference);
  EXPECT_EQ(R.Library, "/job/h0.so");
  EXPECT_EQ(R.Symbol, "forge_entry_0");
  EXPECT_EQ(R.Label, "original");
  EXPECT_EQ(R.Grid[0], 12u); // ceil(3000 / 256)
  EXPECT_EQ(R.Block[0], 256u);
  EXPECT_EQ(R.SharedBytes, 2048u);
  EXPECT_FALSE(C.Reference);
  EXPECT_EQ(C.Library, "/abs/h1.so");
  EXPECT_EQ(C.Symbol, "forge_entry_3");
  EXPECT_EQ(C.Grid[0], 24u); // ceil(3000 / 128)
  EXPECT_EQ(C.Block[0], 128u);
  EXPECT_EQ(C.SharedBytes, 1024u);
  ASSERT_EQ(C.Args.size(), 5u);
  EXPECT_TRUE(C.Args[0].IsBuffer);
  EXPECT_EQ(C.Args[2].Buffer, "y");
  EXPECT_FALSE(C.Args[3].IsBuffer);
  EXPECT_EQ(C.Args[3].Type, worker::DType::I32);
  EXPECT_EQ(C.Args[3].IntValue, 3000);
  EXPECT_EQ(C.Args[4].Type, worker::DType::F64);
  EXPECT_DOUBLE_EQ(C.Args[4].FloatValue, 0.25);
}

TEST(PlanRoundTrip, DefaultsAgree) {
  // The plan forge-port writes with the defaults, read with the worker's
  // defaults underneath: the same values, from the one definition.
  worker::Plan P;
  std::string Error;
  ASSERT_TRUE(worker::parsePlan("forge-job 1\nbuffer a f32 4 out none\n"
                                "reference r lib.so e\ngrid 1 1 1\nblock 4 1 1\nend\n",
                                "", P, Error))
      << Error;
  EXPECT_TRUE(P.Opts == measure::JobOptions());
}

} // namespace
