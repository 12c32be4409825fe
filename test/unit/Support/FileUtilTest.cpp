#include "forge/Support/FileUtil.h"
#include "forge/Support/Json.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"
#include <chrono>
#include <optional>
#include <thread>

using namespace forge;

TEST(FileUtil, AbsolutePathIsNormalised) {
  EXPECT_EQ(absolutePath("/p/a/../b/./k.cu"), "/p/b/k.cu");
  llvm::SmallString<128> Here;
  ASSERT_FALSE(llvm::sys::fs::current_path(Here));
  EXPECT_EQ(absolutePath("x/../k.cu"), (Here + "/k.cu").str());
}

TEST(FileUtil, AtomicWriteReplacesAndKeepsMode) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-fileutil", Dir));
  std::string Path = (Dir + "/f.cu").str();
  ASSERT_FALSE(bool(writeFileAtomically(Path, "old")));
  llvm::sys::fs::setPermissions(Path, llvm::sys::fs::perms(0640));
  ASSERT_FALSE(bool(writeFileAtomically(Path, "new")));
  auto Text = readFile(Path);
  ASSERT_TRUE(bool(Text));
  EXPECT_EQ(*Text, "new");
  llvm::sys::fs::file_status St;
  ASSERT_FALSE(llvm::sys::fs::status(Path, St));
  EXPECT_EQ(St.permissions(), llvm::sys::fs::perms(0640));
  // Nothing else is left in the directory.
  std::error_code EC;
  int Count = 0;
  for (llvm::sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC; I.increment(EC))
    ++Count;
  EXPECT_EQ(Count, 1);
  llvm::sys::fs::remove_directories(Dir);
}

TEST(FileUtil, AtomicWriteToMissingDirFails) {
  auto E = writeFileAtomically("/nonexistent-dir/x.cu", "x");
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("cannot write"), std::string::npos);
}

TEST(FileUtil, ReadMissingFileNamesIt) {
  auto T = readFile("/no/such/file.cu");
  ASSERT_FALSE(bool(T));
  EXPECT_NE(llvm::toString(T.takeError()).find("/no/such/file.cu"), std::string::npos);
}

TEST(Json, BadJsonIsAnErrorNotAnAbort) {
  auto J = parseJson("{\"a\": [1, 2,, ]}", "spec.json");
  ASSERT_FALSE(bool(J));
  std::string Msg = llvm::toString(J.takeError());
  EXPECT_NE(Msg.find("spec.json: invalid JSON"), std::string::npos) << Msg;
  auto Good = parseJson("{\"a\": 1}", "x");
  ASSERT_TRUE(bool(Good));
  EXPECT_EQ((*Good)["a"], 1);
}

// nlohmann_json throws out_of_range, not parse_error, for a number that does
// not fit a double; that escaped parseJson and aborted every reader of JSON
// (the fuzz corpus keeps the input: fuzz/corpus/tuning-db/number-overflow.json).
TEST(Json, ANumberBeyondDoubleIsAnErrorNotAnAbort) {
  for (const char *Text : {"{\"cost_ns\": 7e1123}", "[-1e400]", "0.5E78827"}) {
    auto J = parseJson(Text, "db.json");
    ASSERT_FALSE(bool(J)) << Text;
    std::string Msg = llvm::toString(J.takeError());
    EXPECT_NE(Msg.find("db.json: invalid JSON: number overflow parsing"), std::string::npos)
        << Msg;
  }
  auto Big = parseJson("[1e308]", "db.json");
  ASSERT_TRUE(bool(Big)) << llvm::toString(Big.takeError());
}

TEST(FileUtil, DepfilesEscapeAsMakeReadsThem) {
  EXPECT_EQ(renderDepfile("/b/out.cu", {"/s/a b.cu", "/s/x#y.h", "/s/$z.h"}),
            "/b/out.cu: \\\n  /s/a\\ b.cu \\\n  /s/x\\#y.h \\\n  /s/$$z.h\n");
  EXPECT_EQ(renderDepfile("o", {}), "o:\n");
}

TEST(FileUtil, DepfilesReadBackAsWritten) {
  std::vector<std::string> Deps = {"/s/a b.cu", "/s/x#y.h", "/s/$z.h", "C:\\inc\\w.h"};
  auto Back = parseDepfile(renderDepfile("/b/out.cu", Deps), "k.d");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(*Back, Deps);
  // As compilers write them: several targets, several rules, words on one
  // line, CRLF continuations, a dependency listed twice.
  auto Cc = parseDepfile("k.o k.d: k.cu inc/t.h \\\r\n  /usr/include/s.h\nx.o: x.cu k.cu\n", "k.d");
  ASSERT_TRUE(bool(Cc)) << llvm::toString(Cc.takeError());
  EXPECT_EQ(*Cc, (std::vector<std::string>{"k.cu", "inc/t.h", "/usr/include/s.h", "x.cu"}));
  auto Empty = parseDepfile("", "k.d");
  ASSERT_TRUE(bool(Empty));
  EXPECT_TRUE(Empty->empty());
  for (const char *Bad : {"just words\n", ": no.target\n", "a:b c\n"}) {
    auto B = parseDepfile(Bad, "k.d");
    ASSERT_FALSE(bool(B)) << Bad;
    EXPECT_NE(llvm::toString(B.takeError()).find("k.d: not a depfile"), std::string::npos) << Bad;
  }
}

TEST(FileUtil, ALockIsExclusiveUntilReleased) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("forge-lock", "lock", Path));
  std::string P = Path.str().str();
  bool Waited = false;
  {
    auto First = FileLock::acquire(P);
    ASSERT_TRUE(bool(First)) << llvm::toString(First.takeError());
    // A second holder has to wait: released by the first going out of
    // scope on another thread.
    std::optional<FileLock> Held(std::move(*First));
    std::thread Release([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      Held.reset();
    });
    auto Second = FileLock::acquire(P, [&] { Waited = true; });
    EXPECT_TRUE(bool(Second));
    if (!Second)
      llvm::consumeError(Second.takeError());
    Release.join();
  }
  EXPECT_TRUE(Waited);
  llvm::sys::fs::remove(P);
}
