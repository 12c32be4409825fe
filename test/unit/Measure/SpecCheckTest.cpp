//===- SpecCheckTest.cpp - reading compute-sanitizer's report -------------===//
#include "forge/Measure/SpecCheck.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::measure;

namespace {

SanitizerReport readInput(const char *Name) {
  auto B = llvm::MemoryBuffer::getFile(std::string(FORGE_MEASURE_TEST_INPUTS) + "/" + Name);
  EXPECT_TRUE(bool(B));
  return B ? parseSanitizerOutput((*B)->getBuffer()) : SanitizerReport{};
}

// Each error block becomes a finding with its access, line, thread and the
// buffer it left by how much; host-side errors have no function; the
// summary's count is read; lines without the prefix are the worker's.
TEST(SanitizerOutput, FindingsAndSummary) {
  SanitizerReport R = readInput("sanitizer-memcheck.txt");
  ASSERT_EQ(R.Findings.size(), 5u);
  ASSERT_TRUE(R.ErrorCount.has_value());
  EXPECT_EQ(*R.ErrorCount, 5u);

  const SanitizerFinding &A = R.Findings[0];
  EXPECT_EQ(A.What, "Invalid __global__ read of size 4 bytes");
  EXPECT_EQ(A.Space, "__global__");
  EXPECT_EQ(A.Access, "read");
  EXPECT_EQ(A.Size, 4u);
  EXPECT_EQ(A.Function, "rows_sum(const float *, float *, int, int)");
  EXPECT_EQ(A.File, "/home/u/k.cu");
  EXPECT_EQ(A.Line, 14u);
  EXPECT_EQ(A.Thread, "(64,0,0)");
  EXPECT_EQ(A.Block, "(15,0,0)");
  EXPECT_EQ(A.Address, "is out of bounds");
  EXPECT_EQ(A.Relation, SanitizerFinding::Near::After);
  EXPECT_EQ(A.Offset, 4u);
  EXPECT_EQ(A.AllocationBytes, 16384u);
  EXPECT_TRUE(A.onDevice());
  EXPECT_EQ(R.Findings[1].Offset, 8u);

  const SanitizerFinding &W = R.Findings[2];
  EXPECT_EQ(W.Access, "write");
  EXPECT_EQ(W.Size, 8u);
  EXPECT_EQ(W.Line, 17u);
  EXPECT_EQ(W.Relation, SanitizerFinding::Near::Before);
  EXPECT_EQ(W.Offset, 8u);
  EXPECT_EQ(W.AllocationBytes, 1024u);

  const SanitizerFinding &M = R.Findings[3]; // no line information
  EXPECT_EQ(M.Function, "rows_sum(const float *, float *, int, int)");
  EXPECT_TRUE(M.File.empty());
  EXPECT_EQ(M.Address, "is misaligned");
  EXPECT_EQ(M.Relation, SanitizerFinding::Near::Inside);

  const SanitizerFinding &H = R.Findings[4];
  EXPECT_FALSE(H.onDevice());
  EXPECT_NE(H.What.find("cudaErrorLaunchFailure"), std::string::npos);
}

// A clean run: the summary says 0 and nothing else is a finding; an
// output without a summary (the sanitizer died) has none.
TEST(SanitizerOutput, CleanAndUnfinished) {
  SanitizerReport R = parseSanitizerOutput("========= COMPUTE-SANITIZER\n"
                                           "worker output\n"
                                           "========= ERROR SUMMARY: 0 errors\n");
  EXPECT_TRUE(R.Findings.empty());
  ASSERT_TRUE(R.ErrorCount.has_value());
  EXPECT_EQ(*R.ErrorCount, 0u);
  // One summary per process (--target-processes all): they add up.
  R = parseSanitizerOutput("========= ERROR SUMMARY: 0 errors\n========= ERROR SUMMARY: 2 errors\n");
  EXPECT_EQ(*R.ErrorCount, 2u);
  R = parseSanitizerOutput("========= COMPUTE-SANITIZER\n");
  EXPECT_FALSE(R.ErrorCount.has_value());
}

// The result names the buffers an allocation's size matches, and is clean
// only with a zero summary, no finding and a kernel that ran.
TEST(SpecCheckResult, BuffersAndCleanliness) {
  SpecCheckResult R;
  R.BufferBytes = {{"x", 4096}, {"y", 4096}, {"n", 8}};
  EXPECT_EQ(R.buffersOfSize(4096), "'x' or 'y'");
  EXPECT_EQ(R.buffersOfSize(8), "'n'");
  EXPECT_EQ(R.buffersOfSize(12), "");
  EXPECT_FALSE(R.clean()); // no summary, no kernel result
  R.Report.ErrorCount = 0;
  R.Kernel = CandidateResult{};
  R.Kernel->Status = CandidateStatus::Ok;
  EXPECT_TRUE(R.clean());
  R.Kernel->Status = CandidateStatus::Crashed;
  EXPECT_FALSE(R.clean());
  R.Kernel->Status = CandidateStatus::Ok;
  R.Report.Findings.emplace_back();
  EXPECT_FALSE(R.clean());
}

} // namespace
