#include "forge/Patch/AtomicApply.h"
#include "forge/Support/FileUtil.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::patch;

namespace {

class AtomicApply : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-apply", Dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  std::string path(llvm::StringRef Name) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
  void write(const std::string &Path, llvm::StringRef Text) {
    ASSERT_FALSE(bool(writeFileAtomically(Path, Text)));
  }
  std::string read(const std::string &Path) {
    auto T = readFile(Path);
    if (!T)
      return "<" + llvm::toString(T.takeError()) + ">";
    return *T;
  }
  unsigned entriesInDir() {
    std::error_code EC;
    unsigned N = 0;
    for (llvm::sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC;
         I.increment(EC))
      ++N;
    return N;
  }

  llvm::SmallString<256> Dir;
};

TEST_F(AtomicApply, WritesEveryFileInPlace) {
  std::string A = path("a.cu"), B = path("b.cu");
  write(A, "int a;\n");
  write(B, "int b;\n");
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement(A, 0, 3, "long"), "p1")));
  ASSERT_FALSE(bool(P.add(makeReplacement(B, 4, 1, "bee"), "p2")));
  std::vector<std::string> Written;
  llvm::Error E = applyToFiles(P, {}, &Written);
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
  EXPECT_EQ(read(A), "long a;\n");
  EXPECT_EQ(read(B), "int bee;\n");
  EXPECT_EQ(Written, (std::vector<std::string>{A, B}));
  EXPECT_EQ(entriesInDir(), 2u); // no temporary files left behind
}

TEST_F(AtomicApply, AnyBadEditMeansNothingIsWritten) {
  std::string A = path("a.cu"), B = path("b.cu");
  write(A, "int a;\n");
  write(B, "int b;\n");
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement(A, 0, 3, "long"), "p1")));
  ASSERT_FALSE(bool(P.add(makeReplacement(B, 4, 100, "x"), "bad-pass")));
  llvm::Error E = applyToFiles(P);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("'bad-pass'"), std::string::npos);
  EXPECT_EQ(read(A), "int a;\n");
  EXPECT_EQ(read(B), "int b;\n");
}

TEST_F(AtomicApply, UnreadableFileMeansNothingIsWritten) {
  std::string A = path("a.cu"), Missing = path("zz-missing.cu");
  write(A, "int a;\n");
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement(A, 0, 3, "long"), "p1")));
  ASSERT_FALSE(bool(P.add(makeReplacement(Missing, 0, 0, "x"), "p2")));
  llvm::Error E = applyToFiles(P);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("zz-missing.cu"), std::string::npos);
  EXPECT_EQ(read(A), "int a;\n");
  EXPECT_FALSE(llvm::sys::fs::exists(Missing));
}

TEST_F(AtomicApply, OutputPathLeavesTheInputAlone) {
  std::string In = path("k.cu"), Out = path("out.cu");
  write(In, "__shfl(v, 1);\n");
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement(In, 0, 7, "__shfl_sync(0xffffffff, "), "warp-sync")));
  ApplyOptions Opts;
  Opts.OutputPath = Out;
  llvm::Error E = applyToFiles(P, Opts);
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
  EXPECT_EQ(read(In), "__shfl(v, 1);\n");
  EXPECT_EQ(read(Out), "__shfl_sync(0xffffffff, v, 1);\n");
}

TEST_F(AtomicApply, OutputPathWithNoEditsCopiesTheInput) {
  std::string In = path("k.cu"), Out = path("out.cu");
  write(In, "int k;");
  ApplyOptions Opts;
  Opts.OutputPath = Out;
  llvm::Error NoInput = applyToFiles(PatchSet(), Opts);
  EXPECT_TRUE(bool(NoInput));
  llvm::consumeError(std::move(NoInput));
  Opts.InputPath = In;
  llvm::Error E = applyToFiles(PatchSet(), Opts);
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
  EXPECT_EQ(read(Out), "int k;");
}

TEST_F(AtomicApply, OutputPathNeedsOneFile) {
  std::string A = path("a.cu"), B = path("b.cu");
  write(A, "a");
  write(B, "b");
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement(A, 0, 1, "x"), "p")));
  ASSERT_FALSE(bool(P.add(makeReplacement(B, 0, 1, "y"), "p")));
  ApplyOptions Opts;
  Opts.OutputPath = path("out.cu");
  llvm::Error E = applyToFiles(P, Opts);
  ASSERT_TRUE(bool(E));
  llvm::consumeError(std::move(E));
  EXPECT_FALSE(llvm::sys::fs::exists(Opts.OutputPath));
  // An input that is not the file the edits are for is refused too.
  PatchSet Q;
  ASSERT_FALSE(bool(Q.add(makeReplacement(A, 0, 1, "x"), "p")));
  Opts.InputPath = B;
  llvm::Error E2 = applyToFiles(Q, Opts);
  ASSERT_TRUE(bool(E2));
  llvm::consumeError(std::move(E2));
  EXPECT_FALSE(llvm::sys::fs::exists(Opts.OutputPath));
  EXPECT_EQ(read(A), "a");
  EXPECT_EQ(read(B), "b");
}

TEST_F(AtomicApply, UnwritableOutputLeavesInputByteForByte) {
  std::string In = path("k.cu");
  const std::string Original = "line1\r\nline2\n\xff\xfe no newline";
  write(In, Original);
  std::string RegularFile = path("plain");
  write(RegularFile, "x");
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement(In, 0, 5, "LINE1"), "p")));
  for (std::string Out : {path("no-such-dir/out.cu"), RegularFile + "/out.cu"}) {
    ApplyOptions Opts;
    Opts.OutputPath = Out;
    llvm::Error E = applyToFiles(P, Opts);
    ASSERT_TRUE(bool(E)) << Out;
    std::string Msg = llvm::toString(std::move(E));
    EXPECT_NE(Msg.find("cannot write"), std::string::npos) << Msg;
    EXPECT_EQ(read(In), Original);
    EXPECT_FALSE(llvm::sys::fs::exists(Out));
  }
  EXPECT_EQ(entriesInDir(), 2u);
}

TEST_F(AtomicApply, FailedLaterWriteRestoresEarlierFiles) {
  // The second file's text comes from the provider, but its directory does
  // not exist, so its write fails after the first file was replaced.
  std::string A = path("a.cu"), B = path("zz/missing-dir/b.cu");
  write(A, "int a;\n");
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement(A, 0, 3, "long"), "p1")));
  ASSERT_FALSE(bool(P.add(makeReplacement(B, 0, 3, "long"), "p2")));
  ApplyOptions Opts;
  Opts.Contents = [&](llvm::StringRef File) -> llvm::Expected<std::string> {
    if (File == B)
      return std::string("int b;\n");
    return readFile(File);
  };
  std::vector<std::string> Written;
  llvm::Error E = applyToFiles(P, Opts, &Written);
  ASSERT_TRUE(bool(E));
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("missing-dir/b.cu"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("restored 1 of 1"), std::string::npos) << Msg;
  EXPECT_EQ(read(A), "int a;\n");
  EXPECT_TRUE(Written.empty());
}

TEST_F(AtomicApply, RestoreOrderAndFailuresThroughTheWriterSeam) {
  PatchSet P;
  for (const char *F : {"a.cu", "b.cu", "c.cu"})
    ASSERT_FALSE(bool(P.add(makeReplacement(F, 0, 1, "X"), "p")));
  std::vector<std::pair<std::string, std::string>> Calls;
  ApplyOptions Opts;
  Opts.Contents = [](llvm::StringRef File) -> llvm::Expected<std::string> {
    return ("old " + File).str();
  };
  Opts.Writer = [&](llvm::StringRef Path, llvm::StringRef Text) -> llvm::Error {
    Calls.emplace_back(Path.str(), Text.str());
    if (Path == "c.cu")
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot write 'c.cu': disk full");
    return llvm::Error::success();
  };
  llvm::Error E = applyToFiles(P, Opts);
  ASSERT_TRUE(bool(E));
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("disk full"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("restored 2 of 2"), std::string::npos) << Msg;
  std::vector<std::pair<std::string, std::string>> Expected = {
      {"a.cu", "Xld a.cu"}, {"b.cu", "Xld b.cu"}, {"c.cu", "Xld c.cu"},
      {"a.cu", "old a.cu"}, {"b.cu", "old b.cu"}};
  EXPECT_EQ(Calls, Expected);
}

TEST_F(AtomicApply, FirstWriteFailingChangesNothing) {
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement("a.cu", 0, 1, "X"), "p")));
  unsigned Writes = 0;
  ApplyOptions Opts;
  Opts.Contents = [](llvm::StringRef) -> llvm::Expected<std::string> {
    return std::string("a");
  };
  Opts.Writer = [&](llvm::StringRef, llvm::StringRef) -> llvm::Error {
    ++Writes;
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "nope");
  };
  llvm::Error E = applyToFiles(P, Opts);
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(llvm::toString(std::move(E)), "nope; no file was changed");
  EXPECT_EQ(Writes, 1u);
}

TEST_F(AtomicApply, UnchangedFilesAreNotRewritten) {
  PatchSet P;
  // Replaces "a" with "a": the text does not change.
  ASSERT_FALSE(bool(P.add(makeReplacement("a.cu", 0, 1, "a"), "p")));
  unsigned Writes = 0;
  ApplyOptions Opts;
  Opts.Contents = [](llvm::StringRef) -> llvm::Expected<std::string> {
    return std::string("abc");
  };
  Opts.Writer = [&](llvm::StringRef, llvm::StringRef) -> llvm::Error {
    ++Writes;
    return llvm::Error::success();
  };
  ASSERT_FALSE(bool(applyToFiles(P, Opts)));
  EXPECT_EQ(Writes, 0u);
}

} // namespace
