#include "forge/Patch/PatchSet.h"
#include "gtest/gtest.h"

using namespace forge::patch;
using clang::tooling::Replacement;

namespace {

std::string errorText(llvm::Error E) { return llvm::toString(std::move(E)); }

bool isConflict(llvm::Error E) {
  bool Result = E.isA<ConflictError>();
  llvm::consumeError(std::move(E));
  return Result;
}

/// Asserts success and keeps going with a readable message otherwise.
#define ASSERT_OK(Expr)                                                        \
  do {                                                                         \
    llvm::Error Err_ = (Expr);                                                 \
    ASSERT_FALSE(bool(Err_)) << llvm::toString(std::move(Err_));               \
  } while (0)

const char *Code = "int main() {\n  return x + y;\n}\n";

TEST(PatchSet, EmptySet) {
  PatchSet P;
  EXPECT_TRUE(P.empty());
  EXPECT_EQ(P.size(), 0u);
  EXPECT_TRUE(P.files().empty());
  EXPECT_TRUE(P.editsFor("a.cu").empty());
  auto R = P.applyTo("a.cu", Code);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(*R, Code);
}

TEST(PatchSet, CombinesEditsFromSeveralPasses) {
  PatchSet P;
  // "x" is at offset 22, "y" at 26.
  ASSERT_OK(P.add(makeReplacement("a.cu", 22, 1, "left"), "pass-a"));
  ASSERT_OK(P.add(makeReplacement("a.cu", 26, 1, "right"), "pass-b"));
  ASSERT_OK(P.add(makeReplacement("a.cu", 0, 0, "// hi\n"), "pass-c"));
  ASSERT_OK(P.add(makeReplacement("b.cu", 0, 3, "long"), "pass-a"));
  EXPECT_FALSE(P.empty());
  EXPECT_EQ(P.size(), 4u);
  EXPECT_EQ(P.files(), (std::vector<std::string>{"a.cu", "b.cu"}));
  ASSERT_EQ(P.editsFor("a.cu").size(), 3u);
  // Sorted by offset, each with its origin.
  EXPECT_EQ(P.editsFor("a.cu")[0].Origins[0], "pass-c");
  EXPECT_EQ(P.editsFor("a.cu")[1].Origins[0], "pass-a");
  EXPECT_EQ(P.editsFor("a.cu")[2].Origins[0], "pass-b");
  EXPECT_EQ(P.replacementsFor("a.cu").size(), 3u);

  auto R = P.applyTo("a.cu", Code);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(*R, "// hi\nint main() {\n  return left + right;\n}\n");
  auto B = P.applyTo("b.cu", "int v;");
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  EXPECT_EQ(*B, "long v;");
}

TEST(PatchSet, ExactDuplicateIsAcceptedOnce) {
  PatchSet P;
  ASSERT_OK(P.add(makeReplacement("a.cu", 22, 1, "z"), "pass-a"));
  ASSERT_OK(P.add(makeReplacement("a.cu", 22, 1, "z"), "pass-b"));
  ASSERT_OK(P.add(makeReplacement("a.cu", 22, 1, "z"), "pass-a"));
  EXPECT_EQ(P.size(), 1u);
  ASSERT_EQ(P.editsFor("a.cu").size(), 1u);
  EXPECT_EQ(P.editsFor("a.cu")[0].originText(), "pass-a, pass-b");
  auto R = P.applyTo("a.cu", Code);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(*R, "int main() {\n  return z + y;\n}\n");
}

TEST(PatchSet, IdenticalInsertionsAreAppliedOnce) {
  PatchSet P;
  ASSERT_OK(P.add(makeReplacement("a.cu", 0, 0, "#include <x>\n"), "pass-a"));
  ASSERT_OK(P.add(makeReplacement("a.cu", 0, 0, "#include <x>\n"), "pass-b"));
  EXPECT_EQ(P.size(), 1u);
  auto R = P.applyTo("a.cu", "int v;\n");
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(*R, "#include <x>\nint v;\n");
}

TEST(PatchSet, OverlapIsAConflictNamingBothOrigins) {
  PatchSet P;
  ASSERT_OK(P.add(makeReplacement("a.cu", 20, 8, "a"), "warp-sync"));
  llvm::Error E = P.add(makeReplacement("a.cu", 24, 6, "b"), "arch-guards");
  ASSERT_TRUE(bool(E));
  EXPECT_TRUE(E.isA<ConflictError>());
  std::string Msg = errorText(std::move(E));
  EXPECT_NE(Msg.find("'warp-sync'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("'arch-guards'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("a.cu:24-30"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("a.cu:20-28"), std::string::npos) << Msg;
  // The set is unchanged.
  EXPECT_EQ(P.size(), 1u);
  EXPECT_EQ(P.editsFor("a.cu")[0].Replacement.getReplacementText(), "a");
}

TEST(PatchSet, ContainedAndContainingRangesConflict) {
  PatchSet P;
  ASSERT_OK(P.add(makeReplacement("a.cu", 10, 10, "a"), "p1"));
  EXPECT_TRUE(isConflict(P.add(makeReplacement("a.cu", 12, 2, "b"), "p2")));
  EXPECT_TRUE(isConflict(P.add(makeReplacement("a.cu", 5, 30, "c"), "p2")));
  // Same range, different text.
  EXPECT_TRUE(isConflict(P.add(makeReplacement("a.cu", 10, 10, "d"), "p2")));
  // Different range, same text.
  EXPECT_TRUE(isConflict(P.add(makeReplacement("a.cu", 10, 9, "a"), "p2")));
  EXPECT_EQ(P.size(), 1u);
}

TEST(PatchSet, InsertionsAtOneOffsetFromDifferentPassesConflict) {
  PatchSet P;
  ASSERT_OK(P.add(makeReplacement("a.cu", 13, 0, "A;"), "pass-a"));
  llvm::Error E = P.add(makeReplacement("a.cu", 13, 0, "B;"), "pass-b");
  ASSERT_TRUE(bool(E));
  EXPECT_TRUE(E.isA<ConflictError>());
  std::string Msg = errorText(std::move(E));
  EXPECT_NE(Msg.find("'pass-a'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("'pass-b'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("a.cu:13"), std::string::npos) << Msg;
  EXPECT_EQ(P.size(), 1u);
  // tooling::Replacements would merge these two ("x" + "xx" reads the same
  // in either order); they are still two different edits to one place.
  PatchSet Q;
  ASSERT_OK(Q.add(makeReplacement("a.cu", 13, 0, "x"), "pass-a"));
  EXPECT_TRUE(isConflict(Q.add(makeReplacement("a.cu", 13, 0, "xx"), "pass-b")));
  EXPECT_EQ(Q.size(), 1u);
}

TEST(PatchSet, InsertionInsideAReplacedRangeConflicts) {
  PatchSet P;
  ASSERT_OK(P.add(makeReplacement("a.cu", 10, 5, "r"), "p1"));
  EXPECT_TRUE(isConflict(P.add(makeReplacement("a.cu", 12, 0, "i"), "p2")));
  PatchSet Q;
  ASSERT_OK(Q.add(makeReplacement("a.cu", 12, 0, "i"), "p2"));
  EXPECT_TRUE(isConflict(Q.add(makeReplacement("a.cu", 10, 5, "r"), "p1")));
}

TEST(PatchSet, InsertionsAtTheEndsOfAReplacementAreOrdered) {
  //                     0123456789
  const char *Text = "aaBBBcc";
  for (bool InsertFirst : {true, false}) {
    PatchSet P;
    auto Ins = [&] {
      ASSERT_OK(P.add(makeReplacement("a.cu", 2, 0, "<"), "open"));
      ASSERT_OK(P.add(makeReplacement("a.cu", 5, 0, ">"), "close"));
    };
    if (InsertFirst)
      Ins();
    ASSERT_OK(P.add(makeReplacement("a.cu", 2, 3, "xyz"), "rename"));
    if (!InsertFirst)
      Ins();
    EXPECT_EQ(P.size(), 3u);
    auto R = P.applyTo("a.cu", Text);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ(*R, "aa<xyz>cc");
  }
}

TEST(PatchSet, AdjacentReplacementsDoNotConflict) {
  PatchSet P;
  ASSERT_OK(P.add(makeReplacement("a.cu", 0, 2, "X"), "p1"));
  ASSERT_OK(P.add(makeReplacement("a.cu", 2, 3, "Y"), "p2"));
  ASSERT_OK(P.add(makeReplacement("a.cu", 5, 2, ""), "p3"));
  auto R = P.applyTo("a.cu", "aaBBBcc!");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(*R, "XY!");
}

TEST(PatchSet, OtherFilesNeverConflict) {
  PatchSet P;
  ASSERT_OK(P.add(makeReplacement("a.cu", 0, 5, "a"), "p1"));
  ASSERT_OK(P.add(makeReplacement("b.cu", 0, 5, "b"), "p2"));
  EXPECT_EQ(P.size(), 2u);
}

TEST(PatchSet, PathsAreNormalised) {
  PatchSet P;
  ASSERT_OK(P.add(makeReplacement("./src/a.cu", 0, 1, "a"), "p1"));
  ASSERT_OK(P.add(makeReplacement("src/a.cu", 0, 1, "a"), "p2"));
  EXPECT_TRUE(isConflict(P.add(makeReplacement("src/./a.cu", 0, 1, "b"), "p3")));
  EXPECT_EQ(P.files(), (std::vector<std::string>{"src/a.cu"}));
  EXPECT_EQ(P.editsFor("./src/a.cu").size(), 1u);
  EXPECT_EQ(P.editsFor("src/a.cu")[0].Replacement.getFilePath(), "src/a.cu");
}

TEST(PatchSet, RejectsEditWithoutFile) {
  PatchSet P;
  llvm::Error E = P.add(Replacement(), "p1");
  ASSERT_TRUE(bool(E));
  EXPECT_NE(errorText(std::move(E)).find("'p1'"), std::string::npos);
  EXPECT_TRUE(P.empty());
}

TEST(PatchSet, MergingSetsKeepsOrigins) {
  PatchSet A, B;
  ASSERT_OK(A.add(makeReplacement("a.cu", 0, 1, "x"), "p1"));
  ASSERT_OK(B.add(makeReplacement("a.cu", 0, 1, "x"), "p2"));
  ASSERT_OK(B.add(makeReplacement("a.cu", 5, 1, "y"), "p2"));
  ASSERT_OK(B.add(makeReplacement("b.cu", 5, 1, "y"), "p3"));
  ASSERT_OK(A.add(B));
  EXPECT_EQ(A.size(), 3u);
  EXPECT_EQ(A.editsFor("a.cu")[0].originText(), "p1, p2");
  EXPECT_EQ(A.editsFor("a.cu")[1].originText(), "p2");
  EXPECT_EQ(A.editsFor("b.cu")[0].originText(), "p3");
}

TEST(PatchSet, MergingSetsIsAllOrNothing) {
  PatchSet A, B;
  ASSERT_OK(A.add(makeReplacement("b.cu", 10, 4, "keep"), "p1"));
  // B's first file merges cleanly, its second conflicts.
  ASSERT_OK(B.add(makeReplacement("a.cu", 0, 1, "new"), "p2"));
  ASSERT_OK(B.add(makeReplacement("b.cu", 12, 1, "clash"), "p2"));
  llvm::Error E = A.add(B);
  ASSERT_TRUE(bool(E));
  std::string Msg = errorText(std::move(E));
  EXPECT_NE(Msg.find("'p1'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("'p2'"), std::string::npos) << Msg;
  EXPECT_EQ(A.size(), 1u);
  EXPECT_EQ(A.files(), (std::vector<std::string>{"b.cu"}));
}

TEST(PatchSet, OutOfRangeEditIsAnError) {
  PatchSet P;
  ASSERT_OK(P.add(makeReplacement("a.cu", 5, 10, "x"), "too-far"));
  auto R = P.applyTo("a.cu", "0123456789");
  ASSERT_FALSE(bool(R));
  std::string Msg = errorText(R.takeError());
  EXPECT_NE(Msg.find("'too-far'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("out of range"), std::string::npos) << Msg;

  PatchSet Q;
  ASSERT_OK(Q.add(makeReplacement("a.cu", 11, 0, "x"), "past-end"));
  EXPECT_FALSE(bool(Q.applyTo("a.cu", "0123456789")));
  // The end itself is a valid place to insert, and a range may end there.
  PatchSet S;
  ASSERT_OK(S.add(makeReplacement("a.cu", 10, 0, "!"), "end"));
  ASSERT_OK(S.add(makeReplacement("a.cu", 8, 2, "XY"), "tail"));
  auto T = S.applyTo("a.cu", "0123456789");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(*T, "01234567XY!");
}

TEST(PatchSet, HugeOffsetsDoNotWrapAround) {
  PatchSet P;
  ASSERT_OK(P.add(makeReplacement("a.cu", 4, ~0u - 2, ""), "wrap"));
  EXPECT_FALSE(bool(P.applyTo("a.cu", "0123456789")));
}

TEST(LineColumn, OffsetsFollowClang) {
  llvm::StringRef Text = "ab\ncde\n\nf";
  auto Off = [&](unsigned L, unsigned C) {
    auto O = offsetForLineColumn(Text, L, C);
    if (!O) {
      llvm::consumeError(O.takeError());
      return -1;
    }
    return int(*O);
  };
  EXPECT_EQ(Off(1, 1), 0);
  EXPECT_EQ(Off(1, 3), 2); // the newline
  EXPECT_EQ(Off(2, 1), 3);
  EXPECT_EQ(Off(2, 3), 5);
  EXPECT_EQ(Off(3, 1), 7);
  EXPECT_EQ(Off(4, 1), 8);
  EXPECT_EQ(Off(4, 2), 9); // end of file
  EXPECT_EQ(Off(1, 4), -1);
  EXPECT_EQ(Off(3, 2), -1);
  EXPECT_EQ(Off(5, 1), -1);
  EXPECT_EQ(Off(0, 1), -1);
  EXPECT_EQ(Off(1, 0), -1);
  // Round trip for every offset.
  for (unsigned O = 0; O <= Text.size(); ++O) {
    auto LC = lineColumnForOffset(Text, O);
    ASSERT_TRUE(bool(LC));
    EXPECT_EQ(Off(LC->first, LC->second), int(O)) << O;
  }
  auto Bad = lineColumnForOffset(Text, Text.size() + 1);
  ASSERT_FALSE(bool(Bad));
  llvm::consumeError(Bad.takeError());
  auto LC = lineColumnForOffset(Text, 5);
  ASSERT_TRUE(bool(LC));
  EXPECT_EQ(*LC, std::make_pair(2u, 3u));
}

TEST(LineColumn, MakeReplacementAt) {
  auto R = makeReplacementAt("a.cu", Code, 2, 10, 1, "x2");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->getOffset(), 22u);
  EXPECT_EQ(R->getFilePath(), "a.cu");
  PatchSet P;
  ASSERT_OK(P.add(*R, "p"));
  auto T = P.applyTo("a.cu", Code);
  ASSERT_TRUE(bool(T));
  EXPECT_EQ(*T, "int main() {\n  return x2 + y;\n}\n");

  auto Bad = makeReplacementAt("a.cu", Code, 9, 1, 0, "");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(errorText(Bad.takeError()).find("a.cu:9:1"), std::string::npos);
  auto TooLong = makeReplacementAt("a.cu", Code, 3, 1, 100, "");
  ASSERT_FALSE(bool(TooLong));
  llvm::consumeError(TooLong.takeError());
}

// Clang's rewriter crashed on a file that starts with a UTF-16 or UTF-32
// byte order mark (a diagnostic without a consumer); the edits apply to any
// bytes (fuzz/corpus/edit-blocks/utf16-bom-source.txt keeps the input).
TEST(PatchSet, AnyBytesTakeTheEditsEvenAByteOrderMarkOrANul) {
  for (std::string Lead : {"\xFE\xFF", "\xFF\xFE", "\x00\x00\xFE\xFF", "\xEF\xBB\xBF", ""}) {
    std::string Text = Lead + std::string("int x;\0y;\n", 10);
    PatchSet P;
    ASSERT_OK(P.add(makeReplacement("a.cu", Lead.size() + 4, 1, "zz"), "pass-a"));
    ASSERT_OK(P.add(makeReplacement("a.cu", Lead.size() + 7, 1, "w"), "pass-a"));
    ASSERT_OK(P.add(makeReplacement("a.cu", Text.size(), 0, "// end\n"), "pass-a"));
    auto R = P.applyTo("a.cu", Text);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ(*R, Lead + std::string("int zz;\0w;\n// end\n", 18));
  }
}

} // namespace
