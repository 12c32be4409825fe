//===- CompileCacheTest.cpp - Cache hits, misses and keys -----------------===//
//
// These run against a fake nvcc (a shell script that counts its runs), so a
// hit that should have been a miss, or the reverse, shows in the count.
//
//===----------------------------------------------------------------------===//
#include "BuildTestUtil.h"
#include <cstdlib>

using namespace forge::build;
using namespace forge::build::testing;

namespace {

class CompileCacheTest : public ::testing::Test {
protected:
  CompileCacheTest()
      : Cache(Work.path("cache")),
        Driver(Fake.toolkit(), DriverOptions{60, &Cache}) {}

  CompileJob job(llvm::StringRef Source, llvm::StringRef Output = "") {
    CompileJob J;
    J.Source = Source.str();
    J.Targets = {sm("sm_90")};
    J.OutputPath = Output.str();
    return J;
  }

  CompileResult compile(const CompileJob &J) {
    auto R = Driver.compile(J);
    if (!R) {
      ADD_FAILURE() << llvm::toString(R.takeError());
      return {};
    }
    return std::move(*R);
  }

  unsigned entries() const {
    unsigned N = 0;
    std::error_code EC;
    for (llvm::sys::fs::recursive_directory_iterator I(Cache.directory(), EC),
         E;
         I != E && !EC; I.increment(EC))
      N += llvm::sys::path::filename(I->path()) == "result.json";
    return N;
  }

  TempDir Work;
  FakeNvcc Fake;
  CompileCache Cache;
  NvccDriver Driver;
};

TEST_F(CompileCacheTest, MissThenHitCopiesTheOutput) {
  std::string Src = Work.write("k.cu", "__global__ void k() {}\n");
  CompileResult First = compile(job(Src, Work.path("a.o")));
  EXPECT_EQ(First.Status, CompileStatus::Success);
  EXPECT_FALSE(First.CacheHit);
  EXPECT_EQ(First.OutputPath, Work.path("a.o"));
  EXPECT_EQ(Fake.runs(), 1u);
  EXPECT_EQ(entries(), 1u);

  CompileResult Second = compile(job(Src, Work.path("b.o")));
  EXPECT_EQ(Second.Status, CompileStatus::Success);
  EXPECT_TRUE(Second.CacheHit);
  EXPECT_EQ(Fake.runs(), 1u);
  EXPECT_EQ(Second.OutputPath, Work.path("b.o"));
  auto A = forge::readFile(Work.path("a.o"));
  auto B = forge::readFile(Work.path("b.o"));
  ASSERT_TRUE(A && B);
  EXPECT_EQ(*A, *B);
  EXPECT_EQ(*A, "object of\n__global__ void k() {}\n");
  // The command is the one for this job, not the stored one.
  ASSERT_FALSE(Second.Command.empty());
  EXPECT_EQ(Second.Command.back(), Src);
  EXPECT_EQ(Second.Command[Second.Command.size() - 2], Work.path("b.o"));
}

TEST_F(CompileCacheTest, AnExecutableFromTheCacheStaysRunnable) {
  // Program mode builds the same program twice (a sweep, then the final
  // check); the second is a hit, and must still run.
  std::string Src = Work.write("app.cu", "int main() {}\n");
  CompileJob J = job(Src, Work.path("first"));
  J.Output = OutputKind::Executable;
  CompileResult First = compile(J);
  ASSERT_EQ(First.Status, CompileStatus::Success);
  J.OutputPath = Work.path("second");
  CompileResult Second = compile(J);
  ASSERT_TRUE(Second.CacheHit);
  auto Perm = llvm::sys::fs::getPermissions(Work.path("second"));
  ASSERT_TRUE(bool(Perm));
  EXPECT_TRUE(*Perm & llvm::sys::fs::owner_exe);
}

TEST_F(CompileCacheTest, KeyedBySourceFlagsHeadersAndDependencies) {
  Work.write("inc/tile.h", "#define TILE 16\n");
  Work.write("local.cuh", "#include <tile.h>\n");
  std::string Dep = Work.write("table.bin", "v1");
  std::string Src = Work.write(
      "k.cu", "#include \"local.cuh\"\n#include <vector>\n__global__ void k() {}\n");
  CompileJob J = job(Src);
  J.IncludeDirs = {Work.path("inc")};
  J.Dependencies = {Dep};
  compile(J);
  EXPECT_EQ(Fake.runs(), 1u);
  compile(J);
  EXPECT_EQ(Fake.runs(), 1u) << "identical job must hit";

  Work.write("inc/tile.h", "#define TILE 32\n"); // A header two levels down.
  compile(J);
  EXPECT_EQ(Fake.runs(), 2u);
  compile(J);
  EXPECT_EQ(Fake.runs(), 2u);

  Work.write("table.bin", "v2");
  compile(J);
  EXPECT_EQ(Fake.runs(), 3u);

  J.Defines = {"N=4"};
  compile(J);
  EXPECT_EQ(Fake.runs(), 4u);

  J.Targets = {sm("sm_90a")};
  compile(J);
  EXPECT_EQ(Fake.runs(), 5u);

  Work.write("k.cu", "#include \"local.cuh\"\n__global__ void k2() {}\n");
  compile(J);
  EXPECT_EQ(Fake.runs(), 6u);

  J.UseCache = false;
  compile(J);
  EXPECT_EQ(Fake.runs(), 7u);
}

TEST_F(CompileCacheTest, AnotherCompilerVersionMisses) {
  std::string Src = Work.write("k.cu", "__global__ void k() {}\n");
  compile(job(Src));
  EXPECT_EQ(Fake.runs(), 1u);
  FakeNvcc Newer("13.1.20");
  NvccDriver Other(Newer.toolkit(), DriverOptions{60, &Cache});
  auto R = Other.compile(job(Src));
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  EXPECT_FALSE(R->CacheHit);
  EXPECT_EQ(Newer.runs(), 1u);
}

TEST_F(CompileCacheTest, FailedCompilesAreCachedWithTheirDiagnostics) {
  std::string Src = Work.write("bad.cu", "BROKEN\n");
  CompileResult First = compile(job(Src, Work.path("bad.o")));
  EXPECT_EQ(First.Status, CompileStatus::Failed);
  EXPECT_EQ(First.ExitCode, 2);
  EXPECT_TRUE(First.OutputPath.empty());
  ASSERT_EQ(First.Diagnostics.size(), 1u);
  EXPECT_EQ(First.Diagnostics[0].File, Src);
  EXPECT_EQ(First.Diagnostics[0].Line, 3u);
  EXPECT_EQ(First.errorCount(), 1u);

  CompileResult Second = compile(job(Src, Work.path("bad.o")));
  EXPECT_TRUE(Second.CacheHit);
  EXPECT_EQ(Second.Status, CompileStatus::Failed);
  EXPECT_EQ(Second.Diagnostics, First.Diagnostics);
  EXPECT_EQ(Second.Log, First.Log);
  EXPECT_EQ(Fake.runs(), 1u);
  EXPECT_FALSE(llvm::sys::fs::exists(Work.path("bad.o")));

  // The same text under another name hits, with the names rewritten.
  std::string Copy = Work.write("copy.cu", "BROKEN\n");
  CompileResult Third = compile(job(Copy));
  EXPECT_TRUE(Third.CacheHit);
  EXPECT_EQ(Fake.runs(), 1u);
  ASSERT_EQ(Third.Diagnostics.size(), 1u);
  EXPECT_EQ(Third.Diagnostics[0].File, Copy);
  EXPECT_EQ(llvm::StringRef(Third.Log).find(Src), llvm::StringRef::npos);
  EXPECT_NE(llvm::StringRef(Third.Log).find(Copy), llvm::StringRef::npos);
}

TEST_F(CompileCacheTest, TimeoutIsReportedAndNotCached) {
  std::string Src = Work.write("slow.cu", "SLEEP\n");
  CompileJob J = job(Src);
  J.TimeoutSeconds = 1;
  CompileResult R = compile(J);
  EXPECT_EQ(R.Status, CompileStatus::TimedOut);
  EXPECT_LT(R.Seconds, 10.0);
  ASSERT_FALSE(R.Diagnostics.empty());
  EXPECT_EQ(R.Diagnostics.back().Message, "nvcc timed out after 1 s");
  EXPECT_EQ(entries(), 0u);
}

TEST_F(CompileCacheTest, CorruptEntryIsAMiss) {
  std::string Src = Work.write("k.cu", "__global__ void k() {}\n");
  CompileJob J = job(Src);
  compile(J);
  ASSERT_EQ(entries(), 1u);
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator I(Cache.directory(), EC), E;
       I != E && !EC; I.increment(EC))
    if (llvm::sys::path::filename(I->path()) == "result.json")
      Work.write(llvm::StringRef(I->path()).drop_front(Work.path().size() + 1),
                 "{ not json");
  CompileResult R = compile(J);
  EXPECT_FALSE(R.CacheHit);
  EXPECT_EQ(R.Status, CompileStatus::Success);
  EXPECT_EQ(Fake.runs(), 2u);
}

TEST_F(CompileCacheTest, StoreLookupAndHitWithoutStoredOutput) {
  CompileResult R;
  R.Status = CompileStatus::Success;
  R.Log = "log";
  R.Command = {"nvcc", "k.cu"};
  std::string Key(64, 'a');
  EXPECT_FALSE(Cache.contains(Key));
  ASSERT_FALSE(static_cast<bool>(Cache.store(Key, R, "")));
  EXPECT_TRUE(Cache.contains(Key));
  // Storing again is harmless (another process may have won the race).
  ASSERT_FALSE(static_cast<bool>(Cache.store(Key, R, "")));
  auto NoOutputWanted = Cache.lookup(Key, "");
  ASSERT_TRUE(NoOutputWanted.has_value());
  EXPECT_TRUE(NoOutputWanted->CacheHit);
  EXPECT_EQ(NoOutputWanted->Log, "log");
  // A successful entry without its output cannot serve a job that wants one.
  EXPECT_FALSE(Cache.lookup(Key, Work.path("x.o")).has_value());
  EXPECT_FALSE(Cache.lookup(std::string(64, 'b'), "").has_value());
}

TEST(CompileCacheScan, FollowsProjectHeadersOnly) {
  TempDir Dir;
  Dir.write("proj/a.h", "#pragma once\n#include \"sub/b.h\"\n");
  Dir.write("proj/sub/b.h", "  #  include \"../a.h\"\n#include <c.h>\n");
  Dir.write("inc/c.h", "#include <cuda_runtime.h>\n#include MACRO_HEADER\n");
  Dir.write("sys/cuda_runtime.h", "// system\n");
  std::string Src = Dir.write(
      "proj/k.cu", "#include \"a.h\"\n#include <vector>\n// #include \"gone.h\"\n");
  auto Found = CompileCache::scanIncludes(
      Src, {Dir.path("inc"), Dir.path("sys")}, {Dir.path("sys")});
  EXPECT_EQ(Found, (std::vector<std::string>{Dir.path("inc/c.h"),
                                             Dir.path("proj/a.h"),
                                             Dir.path("proj/sub/b.h")}));
}

TEST(CompileCacheDir, DefaultDirectoryFollowsTheEnvironment) {
  const char *Saved = std::getenv("FORGE_CACHE_DIR");
  std::string SavedValue = Saved ? Saved : "";
  const char *SavedXdg = std::getenv("XDG_CACHE_HOME");
  std::string SavedXdgValue = SavedXdg ? SavedXdg : "";

  setenv("FORGE_CACHE_DIR", "/tmp/forge-cache-here", 1);
  EXPECT_EQ(CompileCache::defaultDirectory(), "/tmp/forge-cache-here");
  unsetenv("FORGE_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(CompileCache::defaultDirectory(), "/tmp/xdg/forge/compile");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_TRUE(llvm::StringRef(CompileCache::defaultDirectory())
                  .ends_with("/.cache/forge/compile"));

  if (Saved)
    setenv("FORGE_CACHE_DIR", SavedValue.c_str(), 1);
  if (SavedXdg)
    setenv("XDG_CACHE_HOME", SavedXdgValue.c_str(), 1);
}

} // namespace
