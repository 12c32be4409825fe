//===- RuleUtilTest.cpp - Edits rendered as SEARCH/REPLACE blocks ---------===//
#include "RuleUtil.h"
#include "forge/Agent/EditBlocks.h"
#include "gtest/gtest.h"
#include <random>

using namespace forge;
using namespace forge::passes;

namespace {

std::string err(llvm::Error E) { return llvm::toString(std::move(E)); }

/// What parseEditBlocks + applyEditBlocks make of Blocks on Source.
std::string applyBlocks(const std::string &Blocks, const std::string &Source) {
  auto B = agent::parseEditBlocks(Blocks);
  if (!B)
    return "error: " + err(B.takeError());
  patch::ContentsProvider Contents = [&](llvm::StringRef) -> llvm::Expected<std::string> {
    return Source;
  };
  auto P = agent::applyEditBlocks(*B, "k.cu", {}, Contents, "test");
  if (!P)
    return "error: " + err(P.takeError());
  auto Out = P->applyTo("k.cu", Source);
  return Out ? *Out : "error: " + err(Out.takeError());
}

/// Renders Edits, checks the round trip, and returns the blocks.
std::string roundTrip(const std::string &Source, const std::vector<SourceEdit> &Edits) {
  auto Want = applySourceEdits(Source, Edits);
  EXPECT_TRUE(bool(Want)) << (Want ? "" : err(Want.takeError()));
  auto Blocks = renderEditBlocks(Source, Edits);
  if (!Blocks) {
    ADD_FAILURE() << err(Blocks.takeError());
    return "";
  }
  EXPECT_EQ(applyBlocks(*Blocks, Source), Want ? *Want : "") << *Blocks;
  return *Blocks;
}

const std::string Kernel = "__global__ void scale(const float *x, float *y, int n) {\n"
                           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "  if (i < n)\n"
                           "    y[i] = 2.0f * x[i];\n"
                           "}\n";

TEST(RenderEditBlocks, OneInsertionIsOneLineBlock) {
  std::string Src = Kernel;
  unsigned At = unsigned(Src.find("*x")) + 1;
  std::string B = roundTrip(Src, {{At, 0, "__restrict__ "}});
  EXPECT_EQ(B, "<<<<<<< SEARCH\n"
               "__global__ void scale(const float *x, float *y, int n) {\n"
               "=======\n"
               "__global__ void scale(const float *__restrict__ x, float *y, int n) {\n"
               ">>>>>>> REPLACE\n");
}

TEST(RenderEditBlocks, RepeatedLinesAreExtendedUntilUnique) {
  std::string Src = "void a() {\n  x = 1;\n}\nvoid b() {\n  x = 1;\n}\n";
  unsigned At = unsigned(Src.rfind("x = 1;"));
  std::string B = roundTrip(Src, {{At, 6, "x = 2;"}});
  // "  x = 1;" and "  x = 1;\n}" occur twice; the line above tells them apart.
  EXPECT_EQ(B, "<<<<<<< SEARCH\nvoid b() {\n  x = 1;\n}\n=======\nvoid b() {\n  x = 2;\n}\n"
               ">>>>>>> REPLACE\n");
}

TEST(RenderEditBlocks, NearbyEditsShareABlockAndFarOnesDoNot) {
  std::string Src;
  for (int I = 0; I < 20; ++I)
    Src += "line " + std::to_string(I) + ";\n";
  auto At = [&](int Line) { return unsigned(Src.find("line " + std::to_string(Line) + ";")); };
  std::string B = roundTrip(Src, {{At(3), 0, "// a\n"}, {At(5), 0, "// b\n"},
                                  {At(15), 4, "LINE"}});
  EXPECT_EQ(llvm::StringRef(B).count("<<<<<<< SEARCH"), 2u) << B;
  EXPECT_NE(B.find("line 3;\nline 4;\nline 5;\n======="), std::string::npos) << B;
}

TEST(RenderEditBlocks, DeletionsInsertionsAtTheEndsAndNewlines) {
  std::string Src = Kernel;
  // Delete a whole line, newline included.
  unsigned L3 = unsigned(Src.find("  if (i < n)\n"));
  roundTrip(Src, {{L3, unsigned(std::string("  if (i < n)\n").size()), ""}});
  // Append at the very end (after the last newline) and at the start.
  roundTrip(Src, {{unsigned(Src.size()), 0, "// end\n"}});
  roundTrip(Src, {{0, 0, "#include <cstdio>\n"}});
  // A replacement that ends in a newline, and one that is empty.
  unsigned Y = unsigned(Src.find("    y[i]"));
  roundTrip(Src, {{Y, 4, "\n"}});
  roundTrip(Src, {{Y, unsigned(Src.find('\n', Y) - Y), ""}});
  // A file without a final newline.
  std::string NoNL = "int a;\nint b;";
  roundTrip(NoNL, {{unsigned(NoNL.size()), 0, "\nint c;"}});
  roundTrip(NoNL, {{7, 6, "long b;\n"}});
}

TEST(RenderEditBlocks, BadEditsAreErrors) {
  EXPECT_NE(err(renderEditBlocks("abc\n", {{10, 0, "x"}}).takeError()).find("past the end"),
            std::string::npos);
  EXPECT_NE(err(renderEditBlocks("abcdef\n", {{1, 3, "x"}, {2, 1, "y"}}).takeError())
                .find("overlap"),
            std::string::npos);
  EXPECT_NE(err(renderEditBlocks("abc\n", {{1, 0, "x"}, {1, 0, "y"}}).takeError()).find("overlap"),
            std::string::npos);
  EXPECT_FALSE(err(renderEditBlocks("abc\n", {}).takeError()).empty());
  // A blank file has no text to search for.
  EXPECT_NE(err(renderEditBlocks("\n\n", {{1, 0, "y"}}).takeError()).find("unique"),
            std::string::npos);
  // A line that reads as a marker cannot be sent.
  EXPECT_NE(err(renderEditBlocks("a\n=======\nb\n", {{2, 7, "---"}}).takeError()).find("marker"),
            std::string::npos);
}

TEST(RenderEditBlocks, RandomEditsRoundTrip) {
  // Sources with many repeated lines and random non-overlapping edits.
  std::mt19937 Rng(1234);
  const char *Pieces[] = {"{\n", "}\n", "  x = 1;\n", "  y[i] = 2.0f * x[i];\n", "\n",
                          "  for (int k = 0; k < 4; ++k)\n", "  // note\n", "int f();\n"};
  for (int Trial = 0; Trial < 300; ++Trial) {
    std::string Src;
    int N = 5 + int(Rng() % 30);
    for (int I = 0; I < N; ++I)
      Src += Pieces[Rng() % 8];
    Src += "// trial " + std::to_string(Trial) + "\n"; // at least one unique line
    std::vector<unsigned> Cuts;
    int K = 1 + int(Rng() % 4);
    for (int I = 0; I < 2 * K; ++I)
      Cuts.push_back(unsigned(Rng() % (Src.size() + 1)));
    std::sort(Cuts.begin(), Cuts.end());
    std::vector<SourceEdit> Edits;
    for (int I = 0; I < K; ++I) {
      unsigned B = Cuts[2 * I], E = Cuts[2 * I + 1];
      if (!Edits.empty() && Edits.back().Offset + Edits.back().Length == B && E == B)
        continue; // two insertions at one offset
      const char *Texts[] = {"", "z", "\n", "new line\n", "  w = 3;"};
      Edits.push_back({B, E - B, Texts[Rng() % 5]});
    }
    if (Edits.size() == 1 && Edits[0].Length == 0 && Edits[0].Text.empty())
      continue;
    SCOPED_TRACE("trial " + std::to_string(Trial));
    roundTrip(Src, Edits);
  }
}

TEST(RuleUtil, LineHelpers) {
  std::string S = "a\n    b c\n\td\n";
  EXPECT_EQ(lineIndent(S, unsigned(S.find('c'))), "    ");
  EXPECT_EQ(lineIndent(S, unsigned(S.find('d'))), "\t");
  EXPECT_EQ(lineStart(S, unsigned(S.find('c'))), 2u);
  EXPECT_EQ(lineStart(S, 0), 0u);
}

TEST(RuleUtil, FitsMacroArgument) {
  EXPECT_TRUE(fitsMacroArgument("rt_row"));
  EXPECT_TRUE(fitsMacroArgument("(k + 1)"));
  EXPECT_TRUE(fitsMacroArgument("rt_acc[rt_i][rt_j]"));
  EXPECT_TRUE(fitsMacroArgument("min(a, b)"));
  // A comma outside parentheses would split the argument.
  EXPECT_FALSE(fitsMacroArgument("a, b"));
  EXPECT_FALSE(fitsMacroArgument("f<int, 2>(x)"));
  EXPECT_FALSE(fitsMacroArgument("v[{1, 2}]"));
  EXPECT_FALSE(fitsMacroArgument("(a"));
  EXPECT_FALSE(fitsMacroArgument("a) + (b"));
}

} // namespace
