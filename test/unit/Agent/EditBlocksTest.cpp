//===- EditBlocksTest.cpp - parsing and applying SEARCH/REPLACE blocks ----===//
#include "forge/Agent/EditBlocks.h"
#include "forge/Support/Error.h"
#include "gtest/gtest.h"
#include <map>

using namespace forge;
using namespace forge::agent;

namespace {

const char *Kernel = "__global__ void scale(const float *x, float *y, int n) {\n"
                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                     "  if (i < n)\n"
                     "    y[i] = 2.0f * x[i];\n"
                     "}\n";

patch::ContentsProvider files(std::map<std::string, std::string> M) {
  return [M](llvm::StringRef F) -> llvm::Expected<std::string> {
    auto It = M.find(F.str());
    if (It == M.end())
      return makeError("{0}: no such file", F);
    return It->second;
  };
}

std::string err(llvm::Error E) { return llvm::toString(std::move(E)); }

/// Parses and applies Reply to k.cu (= Kernel); the new text or the error.
std::string run(const std::string &Reply) {
  auto B = parseEditBlocks(Reply);
  if (!B)
    return "error: " + err(B.takeError());
  auto P = applyEditBlocks(*B, "k.cu", {"k.cuh"}, files({{"k.cu", Kernel}}),
                           "test");
  if (!P)
    return "error: " + err(P.takeError());
  auto Out = P->applyTo("k.cu", Kernel);
  return Out ? *Out : "error: " + err(Out.takeError());
}

TEST(EditBlocks, AGoodEditInsideFencesWithAFileLine) {
  std::string R = run("Use __restrict__ so loads can go through the read-only path.\n"
                      "k.cu\n"
                      "```cuda\n"
                      "<<<<<<< SEARCH\n"
                      "__global__ void scale(const float *x, float *y, int n) {\n"
                      "=======\n"
                      "__global__ void scale(const float *__restrict__ x, float *__restrict__ y, int n) {\n"
                      ">>>>>>> REPLACE\n"
                      "```\n");
  EXPECT_EQ(R.substr(0, R.find('\n')),
            "__global__ void scale(const float *__restrict__ x, float *__restrict__ y, int n) {");
  EXPECT_NE(R.find("y[i] = 2.0f * x[i];"), std::string::npos);
}

TEST(EditBlocks, WhitespaceAndCrlfAreTolerated) {
  // Different indentation, trailing blanks, CRLF, markers with spaces.
  std::string R = run("<<<<<<< SEARCH  \r\n"
                      "if (i < n)\r\n"
                      "      y[i] = 2.0f * x[i];   \r\n"
                      "=======\r\n"
                      "  if (i < n)\r\n"
                      "    y[i] = x[i] + x[i];\r\n"
                      ">>>>>>> REPLACE\r\n");
  EXPECT_NE(R.find("    y[i] = x[i] + x[i];\n}"), std::string::npos) << R;
  EXPECT_EQ(R.find("2.0f"), std::string::npos);
}

TEST(EditBlocks, SeveralBlocksApplyTogether) {
  std::string R = run("<<<<<<< SEARCH\n  if (i < n)\n=======\n  if (i >= n)\n    return;\n>>>>>>> REPLACE\n"
                      "and\n"
                      "<<<<<<< SEARCH\n    y[i] = 2.0f * x[i];\n=======\n  y[i] = 2.0f * x[i];\n>>>>>>> REPLACE\n");
  EXPECT_NE(R.find("  if (i >= n)\n    return;\n  y[i] = 2.0f * x[i];\n}"), std::string::npos) << R;
}

TEST(EditBlocks, BadRepliesAreErrors) {
  EXPECT_EQ(run("I think the kernel is fine as it is."),
            "error: no SEARCH/REPLACE block in the reply");
  EXPECT_EQ(run("<<<<<<< SEARCH\n  if (i < n)\n=======\n  if (i >= n)\n"),
            "error: the SEARCH block at line 1 of the reply has no '>>>>>>> REPLACE' line");
  EXPECT_EQ(run("x\n<<<<<<< SEARCH\n  if (i < n)\n>>>>>>> REPLACE\n"),
            "error: the SEARCH block at line 2 of the reply has no '=======' line between its "
            "SEARCH and REPLACE parts");
  EXPECT_EQ(run("<<<<<<< SEARCH\n\n=======\nint x;\n>>>>>>> REPLACE\n"),
            "error: the SEARCH block at line 1 of the reply has no SEARCH text: give the text "
            "to replace");
}

TEST(EditBlocks, MissingAmbiguousAndForeignTextIsRejected) {
  EXPECT_EQ(run("<<<<<<< SEARCH\n  y[i] = 3.0f * x[i];\n=======\n  y[i] = 0;\n>>>>>>> REPLACE\n"),
            "error: block 1 (line 1 of the reply): its SEARCH text is not in k.cu (it begins "
            "'y[i] = 3.0f * x[i];')");
  EXPECT_EQ(run("<<<<<<< SEARCH\n[i]\n=======\n[i + 1]\n>>>>>>> REPLACE\n"),
            "error: block 1 (line 1 of the reply): its SEARCH text is ambiguous, it matches 2 "
            "places in k.cu (lines 4, 4); include more context");
  EXPECT_EQ(run("main.cpp\n<<<<<<< SEARCH\nint main\n=======\nint main2\n>>>>>>> REPLACE\n"),
            "error: block 1 (line 2 of the reply): it edits main.cpp, which is not a file of this "
            "optimisation (k.cu)");
}

TEST(EditBlocks, OverlappingBlocksConflict) {
  std::string R = run("<<<<<<< SEARCH\n  if (i < n)\n    y[i] = 2.0f * x[i];\n=======\n  y[i] = 0;\n>>>>>>> REPLACE\n"
                      "<<<<<<< SEARCH\n    y[i] = 2.0f * x[i];\n=======\n    y[i] = 1;\n>>>>>>> REPLACE\n");
  EXPECT_EQ(R.rfind("error: block 2 (line 7 of the reply): ", 0), 0u) << R;
}

TEST(EditBlocks, AVeryLargeReplyIsParsed) {
  std::string Big(200000, 'x');
  std::string R = run("noise " + Big + "\n<<<<<<< SEARCH\n  if (i < n)\n=======\n  if (n > i)\n>>>>>>> REPLACE\n" + Big);
  EXPECT_NE(R.find("  if (n > i)\n"), std::string::npos);
}

} // namespace
