#include "forge/Patch/ReparseCheck.h"
#include "llvm/ADT/StringMap.h"
#include "gtest/gtest.h"

using namespace forge::patch;

namespace {

/// A stand-in for the Clang frontend: every "ERR" is one error.
llvm::Expected<unsigned> countErrs(llvm::StringRef File,
                                   llvm::StringRef Contents) {
  if (Contents.contains("UNPARSEABLE"))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the parser crashed");
  return unsigned(Contents.count("ERR"));
}

ContentsProvider memory(const llvm::StringMap<std::string> &Files) {
  return [&Files](llvm::StringRef File) -> llvm::Expected<std::string> {
    auto It = Files.find(File);
    if (It == Files.end())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "no file '%s'", File.str().c_str());
    return It->second;
  };
}

TEST(ReparseCheck, CleanEditsPass) {
  llvm::StringMap<std::string> Files{{"a.cu", "int a;"}, {"b.cu", "ERR b;"}};
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement("a.cu", 4, 1, "aa"), "p1")));
  // b.cu already had an error; an edit that keeps it is fine.
  ASSERT_FALSE(bool(P.add(makeReplacement("b.cu", 4, 1, "bb"), "p2")));
  llvm::Error E = verifyNoNewErrors(P, memory(Files), countErrs);
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
}

TEST(ReparseCheck, FewerErrorsPass) {
  llvm::StringMap<std::string> Files{{"a.cu", "ERR ERR"}};
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement("a.cu", 0, 3, "ok"), "fixer")));
  llvm::Error E = verifyNoNewErrors(P, memory(Files), countErrs);
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
}

TEST(ReparseCheck, NewErrorsFailNamingFileCountsAndPasses) {
  llvm::StringMap<std::string> Files{{"a.cu", "int a;"}, {"b.cu", "ERR b;"}};
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement("a.cu", 0, 0, "// fine\n"), "p1")));
  ASSERT_FALSE(bool(P.add(makeReplacement("b.cu", 4, 0, "ERR ERR "), "breaker")));
  ASSERT_FALSE(bool(P.add(makeReplacement("b.cu", 0, 0, "// x\n"), "p3")));
  llvm::Error E = verifyNoNewErrors(P, memory(Files), countErrs);
  ASSERT_TRUE(bool(E));
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("'b.cu'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("add 2 parse error(s) (1 before, 3 after)"),
            std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find("breaker"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("p3"), std::string::npos) << Msg;
  EXPECT_EQ(Msg.find("p1"), std::string::npos) << Msg;
}

TEST(ReparseCheck, ParserFailuresAndMissingFilesAreErrors) {
  llvm::StringMap<std::string> Files{{"a.cu", "int a;"}};
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement("a.cu", 0, 0, "UNPARSEABLE "), "p")));
  llvm::Error E = verifyNoNewErrors(P, memory(Files), countErrs);
  ASSERT_TRUE(bool(E));
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("after the edits: the parser crashed"), std::string::npos)
      << Msg;

  PatchSet Q;
  ASSERT_FALSE(bool(Q.add(makeReplacement("gone.cu", 0, 0, "x"), "p")));
  llvm::Error E2 = verifyNoNewErrors(Q, memory(Files), countErrs);
  ASSERT_TRUE(bool(E2));
  EXPECT_NE(llvm::toString(std::move(E2)).find("gone.cu"), std::string::npos);
}

TEST(ReparseCheck, ParsesOriginalAndPatchedText) {
  llvm::StringMap<std::string> Files{{"a.cu", "int a;"}};
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement("a.cu", 4, 1, "b"), "p")));
  std::vector<std::string> Seen;
  auto Record = [&](llvm::StringRef File,
                    llvm::StringRef Contents) -> llvm::Expected<unsigned> {
    Seen.push_back((File + ":" + Contents).str());
    return 0u;
  };
  ASSERT_FALSE(bool(verifyNoNewErrors(P, memory(Files), Record)));
  EXPECT_EQ(Seen, (std::vector<std::string>{"a.cu:int a;", "a.cu:int b;"}));
}

} // namespace
