//===- PlanTest.cpp - Reading the worker's job.plan -----------------------===//
#include "Plan.h"
#include "gtest/gtest.h"

#include <string>

using namespace forge::worker;

namespace {

/// A valid plan; the error tests edit it.
const char *Good = R"(forge-job 1
# a comment line
option seed 20261129
option input_sets 3
option warmup 2
option rounds 4
option reps 7
option min_time_ms 1.5
option flush none
option timer events
option floor_factor 0.25
option candidate_timeout_s 12
work bytes 12582912 flops 2097152 dtype f64
buffer x f32 1048576 in uniform -1 1
buffer y f32 1048576 inout normal 0 1 tol 1e-06 -
buffer z i32 16 out none tol - 2
buffer w u8 100 in file data/w.bin
buffer v f64 8 in constant 2.5   # trailing comment
buffer k i64 8 in iota
reference ref harness-ref.so forge_entry_0
  grid 4096 1 1
  block 256 1 1
  shared 0
  arg scalar i32 1048576
  arg scalar f32 2.5
  arg buffer x
  arg buffer y
  arg buffer z
end
candidate c1 /abs/harness-0.so forge_entry_1
  label BLOCK=128 UNROLL=2
  grid 8192 2 3
  block 128 1 1
  shared 4096
  arg scalar i64 -9223372036854775808
  arg scalar u64 18446744073709551615
  arg scalar i8 -128
  arg buffer x
end
)";

/// The error parsing Text, or "parsed".
std::string parseError(const std::string &Text) {
  Plan P;
  std::string Error;
  if (parsePlan(Text, "/job", P, Error))
    return "parsed";
  return Error;
}

/// Good with line N (1-based) replaced by Line.
std::string withLine(unsigned N, const std::string &Line) {
  std::string S = Good;
  size_t Start = 0;
  for (unsigned I = 1; I < N; ++I)
    Start = S.find('\n', Start) + 1;
  size_t End = S.find('\n', Start);
  return S.substr(0, Start) + Line + S.substr(End);
}

/// Good with Line inserted before line N.
std::string insertLine(unsigned N, const std::string &Line) {
  std::string S = Good;
  size_t Start = 0;
  for (unsigned I = 1; I < N; ++I)
    Start = S.find('\n', Start) + 1;
  return S.substr(0, Start) + Line + "\n" + S.substr(Start);
}

bool startsWith(const std::string &S, const std::string &Prefix) {
  return S.compare(0, Prefix.size(), Prefix) == 0;
}

TEST(WorkerPlan, ParsesTheDocExample) {
  Plan P;
  std::string Error;
  ASSERT_TRUE(parsePlan(Good, "/job", P, Error)) << Error;
  EXPECT_EQ(P.JobDir, "/job");
  EXPECT_EQ(P.Opts.Seed, 20261129u);
  EXPECT_EQ(P.Opts.InputSets, 3u);
  EXPECT_EQ(P.Opts.Warmup, 2u);
  EXPECT_EQ(P.Opts.Rounds, 4u);
  EXPECT_EQ(P.Opts.Reps, 7u);
  EXPECT_DOUBLE_EQ(P.Opts.MinTimeMs, 1.5);
  EXPECT_FALSE(P.Opts.FlushL2);
  EXPECT_FALSE(P.Opts.Cupti);
  EXPECT_DOUBLE_EQ(P.Opts.FloorFactor, 0.25);
  EXPECT_DOUBLE_EQ(P.Opts.CandidateTimeoutS, 12);
  ASSERT_TRUE(P.Work.has_value());
  EXPECT_DOUBLE_EQ(P.Work->Bytes, 12582912);
  EXPECT_DOUBLE_EQ(P.Work->Flops, 2097152);
  EXPECT_EQ(P.Work->Type, DType::F64);

  ASSERT_EQ(P.Buffers.size(), 6u);
  const BufferPlan *X = P.findBuffer("x");
  ASSERT_NE(X, nullptr);
  EXPECT_EQ(X->Type, DType::F32);
  EXPECT_EQ(X->Count, 1048576u);
  EXPECT_EQ(X->R, Role::In);
  EXPECT_EQ(X->Init, InitKind::Uniform);
  EXPECT_DOUBLE_EQ(X->A, -1);
  EXPECT_DOUBLE_EQ(X->B, 1);
  EXPECT_FALSE(X->RelL2.has_value());
  const BufferPlan *Y = P.findBuffer("y");
  ASSERT_NE(Y, nullptr);
  EXPECT_EQ(Y->R, Role::InOut);
  EXPECT_EQ(Y->Init, InitKind::Normal);
  ASSERT_TRUE(Y->RelL2.has_value());
  EXPECT_DOUBLE_EQ(*Y->RelL2, 1e-6);
  EXPECT_FALSE(Y->MaxAbs.has_value());
  const BufferPlan *Z = P.findBuffer("z");
  ASSERT_NE(Z, nullptr);
  EXPECT_EQ(Z->R, Role::Out);
  EXPECT_EQ(Z->Init, InitKind::None);
  EXPECT_FALSE(Z->RelL2.has_value());
  ASSERT_TRUE(Z->MaxAbs.has_value());
  EXPECT_DOUBLE_EQ(*Z->MaxAbs, 2);
  const BufferPlan *W = P.findBuffer("w");
  ASSERT_NE(W, nullptr);
  EXPECT_EQ(W->Init, InitKind::File);
  EXPECT_EQ(W->Path, "/job/data/w.bin");
  const BufferPlan *V = P.findBuffer("v");
  ASSERT_NE(V, nullptr);
  EXPECT_EQ(V->Init, InitKind::Constant);
  EXPECT_DOUBLE_EQ(V->A, 2.5);
  EXPECT_EQ(P.findBuffer("k")->Init, InitKind::Iota);
  EXPECT_EQ(P.findBuffer("nope"), nullptr);

  ASSERT_EQ(P.Candidates.size(), 2u);
  const CandidatePlan &R = P.Candidates[0];
  EXPECT_TRUE(R.Reference);
  EXPECT_EQ(R.Id, "ref");
  EXPECT_EQ(R.Library, "/job/harness-ref.so");
  EXPECT_EQ(R.Symbol, "forge_entry_0");
  EXPECT_EQ(R.Label, "");
  EXPECT_EQ(R.Grid[0], 4096u);
  EXPECT_EQ(R.Block[0], 256u);
  ASSERT_EQ(R.Args.size(), 5u);
  EXPECT_FALSE(R.Args[0].IsBuffer);
  EXPECT_EQ(R.Args[0].Type, DType::I32);
  EXPECT_EQ(R.Args[0].IntValue, 1048576);
  EXPECT_EQ(R.Args[1].Type, DType::F32);
  EXPECT_DOUBLE_EQ(R.Args[1].FloatValue, 2.5);
  EXPECT_TRUE(R.Args[2].IsBuffer);
  EXPECT_EQ(R.Args[2].Buffer, "x");
  EXPECT_EQ(R.Args[4].Buffer, "z");
  EXPECT_EQ(R.Args[4].Type, DType::I32);

  const CandidatePlan *C = P.findCandidate("c1");
  ASSERT_NE(C, nullptr);
  EXPECT_FALSE(C->Reference);
  EXPECT_EQ(C->Library, "/abs/harness-0.so"); // absolute paths stay
  EXPECT_EQ(C->Label, "BLOCK=128 UNROLL=2");
  EXPECT_EQ(C->Grid[1], 2u);
  EXPECT_EQ(C->Grid[2], 3u);
  EXPECT_EQ(C->SharedBytes, 4096u);
  ASSERT_EQ(C->Args.size(), 4u);
  EXPECT_EQ(C->Args[0].IntValue, INT64_MIN);
  EXPECT_EQ(uint64_t(C->Args[1].IntValue), UINT64_MAX);
  EXPECT_EQ(C->Args[2].IntValue, -128);
  EXPECT_EQ(P.findCandidate("c2"), nullptr);
}

TEST(WorkerPlan, Defaults) {
  Plan P;
  std::string Error;
  ASSERT_TRUE(parsePlan("forge-job 1\n"
                        "buffer a f16 4 inout iota\n"
                        "reference r lib.so e\n"
                        "grid 1 1 1\nblock 4 1 1\nend\n",
                        "", P, Error))
      << Error;
  // One definition of the options for both sides (WorkerProtocol.h): the
  // worker's default seed is forge-port's.
  EXPECT_EQ(P.Opts.Seed, 20261129u);
  EXPECT_EQ(P.Opts.InputSets, 2u);
  EXPECT_EQ(P.Opts.Warmup, 3u);
  EXPECT_EQ(P.Opts.Rounds, 5u);
  EXPECT_EQ(P.Opts.Reps, 10u);
  EXPECT_TRUE(P.Opts.FlushL2);
  EXPECT_TRUE(P.Opts.Cupti);
  EXPECT_DOUBLE_EQ(P.Opts.FloorFactor, 0.5);
  EXPECT_DOUBLE_EQ(P.Opts.CandidateTimeoutS, 30);
  EXPECT_EQ(P.Opts.Sandbox, forge::measure::SandboxMode::On);
  EXPECT_FALSE(P.Work.has_value());
  EXPECT_EQ(P.Candidates[0].Library, "lib.so"); // no job dir: as written
  EXPECT_EQ(P.Candidates[0].SharedBytes, 0u);
}

TEST(WorkerPlan, DTypes) {
  DType T;
  for (const char *N :
       {"f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}) {
    ASSERT_TRUE(parseDType(N, T)) << N;
    EXPECT_EQ(std::string(dtypeName(T)), N);
  }
  EXPECT_FALSE(parseDType("f31", T));
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::U64), 8u);
  EXPECT_EQ(dtypeSize(DType::I8), 1u);
  EXPECT_EQ(dtypeSize(DType::U16), 2u);
  EXPECT_FALSE(isFloatingPoint(DType::I16));
  EXPECT_TRUE(isFloatingPoint(DType::F16));
  EXPECT_FALSE(isFloatingPoint(DType::U32));
}

TEST(WorkerPlan, GoodHelpersAreGood) {
  // The edits below must start from a valid plan.
  EXPECT_EQ(parseError(Good), "parsed");
  EXPECT_EQ(parseError(withLine(3, "option seed 7")), "parsed");
  EXPECT_EQ(parseError(insertLine(3, "# nothing")), "parsed");
}

TEST(WorkerPlan, UnknownDType) {
  EXPECT_EQ(parseError(withLine(14, "buffer x f31 1048576 in uniform -1 1")),
            "job.plan:14: unknown dtype 'f31'");
  EXPECT_EQ(parseError(withLine(24, "  arg scalar q32 1")),
            "job.plan:24: unknown dtype 'q32'");
}

TEST(WorkerPlan, VersionHeader) {
  EXPECT_EQ(parseError(withLine(1, "forge-job 2")),
            "job.plan:1: unsupported plan version '2' (this worker reads "
            "version 1)");
  EXPECT_TRUE(
      startsWith(parseError(withLine(1, "# no header")),
                 "job.plan:3: expected the version header 'forge-job 1'"));
  EXPECT_EQ(parseError(""), "job.plan:1: missing the version header "
                            "'forge-job 1'");
  EXPECT_EQ(parseError(insertLine(5, "forge-job 1")),
            "job.plan:5: the version header 'forge-job' is given twice");
}

TEST(WorkerPlan, UnknownOptionAndDirective) {
  EXPECT_EQ(parseError(withLine(5, "option warmups 3")),
            "job.plan:5: unknown option 'warmups'");
  EXPECT_EQ(parseError(withLine(9, "option flush l3")),
            "job.plan:9: unknown flush 'l3' (expected 'l2' or 'none')");
  EXPECT_EQ(parseError(insertLine(13, "frobnicate 1 2")),
            "job.plan:13: unknown directive 'frobnicate'");
  EXPECT_EQ(parseError(insertLine(22, "  frobnicate")),
            "job.plan:22: unknown directive 'frobnicate' in the block of "
            "'ref'");
  EXPECT_EQ(parseError(insertLine(4, "option seed 3")),
            "job.plan:4: option 'seed' is given twice");
}

TEST(WorkerPlan, BadNumbers) {
  EXPECT_EQ(parseError(withLine(14, "buffer x f32 12x in uniform -1 1")),
            "job.plan:14: bad element count '12x': expected a non-negative "
            "decimal integer");
  EXPECT_EQ(parseError(withLine(6, "option rounds -1")),
            "job.plan:6: bad rounds '-1': expected a non-negative decimal "
            "integer");
  EXPECT_EQ(parseError(withLine(4, "option input_sets 0")),
            "job.plan:4: input_sets must be at least 1, got 0");
  EXPECT_EQ(parseError(withLine(21, "  grid 0 1 1")),
            "job.plan:21: grid dimension must be at least 1, got 0");
  EXPECT_EQ(parseError(withLine(14, "buffer x f32 16 in uniform -1 one")),
            "job.plan:14: bad uniform maximum 'one': expected a decimal "
            "number");
  EXPECT_EQ(parseError(withLine(12, "option candidate_timeout_s 0")),
            "job.plan:12: candidate_timeout_s must be positive, got 0");
  EXPECT_EQ(parseError(withLine(14, "buffer x f32 16 in uniform 2 1")),
            "job.plan:14: uniform minimum 2 is larger than the maximum 1");
}

TEST(WorkerPlan, UnknownBufferInArg) {
  EXPECT_EQ(parseError(withLine(26, "  arg buffer q")),
            "job.plan:26: unknown buffer 'q'");
}

TEST(WorkerPlan, Duplicates) {
  EXPECT_EQ(parseError(insertLine(16, "buffer y f32 4 in iota")),
            "job.plan:16: buffer 'y' is declared twice");
  EXPECT_EQ(parseError(withLine(30, "candidate ref /abs/h.so forge_entry_1")),
            "job.plan:30: id 'ref' is used twice");
}

TEST(WorkerPlan, RolesAndInits) {
  EXPECT_EQ(parseError(withLine(16, "buffer z i32 16 out uniform 0 1")),
            "job.plan:16: buffer 'z' is 'out', so its init must be 'none', "
            "not 'uniform'");
  EXPECT_EQ(parseError(withLine(14, "buffer x f32 16 in none")),
            "job.plan:14: buffer 'x' is 'in', so it needs an init (only 'out' "
            "buffers take 'none')");
  EXPECT_EQ(parseError(withLine(15, "buffer y f32 16 inout none")),
            "job.plan:15: buffer 'y' is 'inout', so it needs an init (only "
            "'out' buffers take 'none')");
  EXPECT_EQ(parseError(withLine(14, "buffer x f32 16 in iota tol 1 -")),
            "job.plan:14: buffer 'x' is 'in' and takes no tolerance");
  EXPECT_EQ(parseError(withLine(14, "buffer x f32 16 in gaussian 0 1")),
            "job.plan:14: unknown init 'gaussian' (expected uniform, normal, "
            "iota, constant, file or none)");
  EXPECT_EQ(parseError(withLine(14, "buffer x i8 16 in uniform 0 300")),
            "job.plan:14: uniform maximum 300 is out of range for i8");
  EXPECT_EQ(parseError(withLine(14, "buffer x i32 16 in constant 1.5")),
            "job.plan:14: constant 1.5 is not an integer, but the buffer is "
            "i32");
}

TEST(WorkerPlan, ReferenceRules) {
  // No reference at all.
  EXPECT_EQ(parseError("forge-job 1\nbuffer a f32 4 inout iota\n"),
            "job.plan:2: the plan has no reference");
  // Two references.
  EXPECT_EQ(parseError(withLine(30, "reference r2 /abs/h.so forge_entry_1")),
            "job.plan:30: a second reference ('r2'); a plan has exactly one");
  // A candidate first.
  EXPECT_EQ(parseError("forge-job 1\n"
                       "buffer a f32 4 inout iota\n"
                       "candidate c h.so e\ngrid 1 1 1\nblock 1 1 1\nend\n"
                       "reference r h.so e\ngrid 1 1 1\nblock 1 1 1\nend\n"),
            "job.plan:3: candidate 'c' before the reference; the reference "
            "comes first");
}

TEST(WorkerPlan, BlocksNeedEnd) {
  // The reference's 'end' removed: the candidate line is inside its block.
  EXPECT_EQ(parseError(withLine(29, "")),
            "job.plan:30: 'candidate' inside the block of 'ref' (line 20), "
            "which has no 'end'");
  // The last block never ends: the error names the line that opened it.
  std::string S = Good;
  S.resize(S.rfind("end\n"));
  EXPECT_EQ(parseError(S), "job.plan:30: candidate 'c1' has no 'end'");
  EXPECT_EQ(parseError(insertLine(14, "end")),
            "job.plan:14: 'end' outside a reference or candidate block");
  EXPECT_EQ(parseError(withLine(22, "")),
            "job.plan:29: 'ref' has no 'block' line");
}

TEST(WorkerPlan, ScalarValues) {
  EXPECT_EQ(parseError(withLine(24, "  arg scalar i32 2.5")),
            "job.plan:24: scalar 2.5 is not an integer, but its dtype is i32");
  EXPECT_EQ(parseError(withLine(24, "  arg scalar i8 128")),
            "job.plan:24: scalar 128 is out of range for i8");
  EXPECT_EQ(parseError(withLine(24, "  arg scalar u32 -1")),
            "job.plan:24: scalar -1 is out of range for u32");
  EXPECT_EQ(parseError(withLine(24, "  arg scalar i64 9223372036854775808")),
            "job.plan:24: scalar 9223372036854775808 is out of range for i64");
  EXPECT_EQ(parseError(withLine(24, "  arg scalar f16 70000")),
            "job.plan:24: scalar 70000 is out of range for f16");
  EXPECT_EQ(parseError(withLine(24, "  arg scalar i32 12abc")),
            "job.plan:24: bad i32 scalar '12abc': expected a decimal integer");
  EXPECT_EQ(parseError(withLine(25, "  arg scalar f32 x2")),
            "job.plan:25: bad f32 scalar 'x2': expected a decimal number");
}

TEST(WorkerPlan, OrderAndFields) {
  EXPECT_EQ(parseError(insertLine(30, "buffer late f32 4 in iota")),
            "job.plan:30: 'buffer' after the first reference/candidate block; "
            "options, work and buffers come first");
  EXPECT_EQ(parseError(withLine(13, "work bytes 1 flops 2")),
            "job.plan:13: 'work' expects 'work bytes B flops F dtype D' (6 "
            "fields after it), got 4");
  EXPECT_EQ(parseError(insertLine(14, "  grid 1 1 1")),
            "job.plan:14: 'grid' outside a reference or candidate block");
  EXPECT_EQ(parseError(withLine(20, "reference 1ref harness-ref.so e")),
            "job.plan:20: reference id '1ref' is not a C identifier");
}

} // namespace
