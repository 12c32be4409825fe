//===- ProjectFilesTest.cpp - What project mode knows of a project's files -===//
#include "forge/Port/ProjectFiles.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::port;

namespace {

class ProjectFilesTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-project-files", Dir));
    Root = absolutePath(Dir);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }
  std::string write(llvm::StringRef Rel, llvm::StringRef Text) {
    llvm::SmallString<256> P(Root);
    llvm::sys::path::append(P, Rel);
    EXPECT_FALSE(llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P)));
    EXPECT_FALSE(bool(writeFileAtomically(P, Text)));
    return P.str().str();
  }
  llvm::SmallString<128> Dir;
  std::string Root;
};

TEST(ProjectPaths, RelativeAndUnder) {
  EXPECT_EQ(relativePath("/p/src/k.cu", "/p/out"), "../src/k.cu");
  EXPECT_EQ(relativePath("/p/a/b/h.cuh", "/p"), "a/b/h.cuh");
  EXPECT_EQ(relativePath("/x/h.cuh", "/p/q"), "../../x/h.cuh");
  EXPECT_TRUE(isUnder("/p/a/k.cu", "/p"));
  EXPECT_TRUE(isUnder("/p", "/p"));
  EXPECT_FALSE(isUnder("/pq/k.cu", "/p")) << "a prefix of the name is not a parent";
  EXPECT_TRUE(isUnder("/any/file", "/"));
}

TEST_F(ProjectFilesTest, IncludedCudaFilesAreNotUnitsOfTheirOwn) {
  std::string Main = write("b/main.cu", "#include \"kernel.cu\"\n  # include \"../a/a.cu\"\n"
                                        "#include <angle.cu>\n");
  std::string Angle = write("b/angle.cu", "__global__ void g() {}\n");
  std::string Kernel = write("b/kernel.cu", "__global__ void k() {}\n");
  std::string A = write("a/a.cu", "int a;\n");
  std::string C = write("c/c.cu", "// #include \"missing.cu\"\nint c;\n");
  write(".hidden/x.cu", "int x;\n");
  std::string Host = write("h/main.cpp", "#include <stdio.h>\n#include <cuda_runtime.h>\n");
  write("h/plain.cpp", "#include <stdio.h>\n// cuda_runtime.h is not included\n");
  write("build/CMakeCache.txt", "");
  write("build/gen.cu", "int g;\n");
  auto T = cudaSourcesUnder(Root);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(T->Units, (std::vector<std::string>{Main, C, Host}))
      << "host code that includes the CUDA runtime is a unit; plain C++ is not";
  ASSERT_EQ(T->Included.size(), 3u);
  EXPECT_EQ(T->Included[0], std::make_pair(A, Main));
  EXPECT_EQ(T->Included[1], std::make_pair(Angle, Main));
  EXPECT_EQ(T->Included[2], std::make_pair(Kernel, Main));
  auto Missing = cudaSourcesUnder(Root + "/nope");
  EXPECT_FALSE(bool(Missing));
  llvm::consumeError(Missing.takeError());
}

TEST_F(ProjectFilesTest, BuildFiles) {
  std::string Make = write("Makefile", "");
  std::string Config = write("common/make.config", "");
  std::string Lists = write("CMakeLists.txt", "");
  std::string Mod = write("cmake/cuda.cmake", "");
  write("notes.txt", "");
  write(".git/Makefile", "");
  EXPECT_EQ(buildFilesUnder(Root),
            (std::vector<std::string>{Lists, Make, Mod, Config}));
}

TEST_F(ProjectFilesTest, OverlayTreeReadsPatchedFilesBesideTheOriginals) {
  std::string Main = write("src/main.cu", "#include \"../inc/h.cuh\"\n");
  std::string Header = write("inc/h.cuh", "old\n");
  write("inc/other.cuh", "other\n");
  write("src/sub/deep.cuh", "deep\n");
  std::string Tree;
  {
    auto T = OverlayTree::make(Root, {{Main, "patched main\n"}, {Header, "new\n"}});
    ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
    Tree = T->path();
    auto Read = [&](llvm::StringRef Rel) {
      auto Text = readFile(T->pathOf(Root + "/" + Rel.str()));
      return Text ? *Text : llvm::toString(Text.takeError());
    };
    EXPECT_EQ(Read("src/main.cu"), "patched main\n");
    EXPECT_EQ(Read("inc/h.cuh"), "new\n");
    EXPECT_EQ(Read("inc/other.cuh"), "other\n") << "neighbours are the originals";
    EXPECT_EQ(Read("src/sub/deep.cuh"), "deep\n");
    // A relative path from the patched file reaches the patched header.
    auto Via = readFile(T->pathOf(Main) + "/../../inc/h.cuh");
    EXPECT_EQ(T->mapDirectory(Root + "/inc"), T->pathOf(Root + "/inc"));
    EXPECT_EQ(T->mapDirectory("/elsewhere"), "/elsewhere");
    auto Original = readFile(Header);
    ASSERT_TRUE(bool(Original));
    EXPECT_EQ(*Original, "old\n") << "the original is untouched";
    llvm::consumeError(Via.takeError());
  }
  EXPECT_FALSE(llvm::sys::fs::exists(Tree)) << "removed with the object";
  auto Outside = OverlayTree::make(Root + "/src", {{Header, "x"}});
  EXPECT_FALSE(bool(Outside));
  llvm::consumeError(Outside.takeError());
}

TEST_F(ProjectFilesTest, QuotedIncludesAreRebasedForAnotherDirectory) {
  write("src/kernel.cu", "");
  write("src/both.cuh", "");
  write("out/both.cuh", "");
  std::string Text = "#include \"kernel.cu\"\n#  include \"both.cuh\"\n#include <cstdio>\n"
                     "#include \"missing.cuh\"\n// #include \"kernel.cu\" in a comment\n";
  auto Done = rebaseQuotedIncludes(Text, Root + "/src", Root + "/out");
  EXPECT_EQ(Text, "#include \"../src/kernel.cu\"\n#  include \"both.cuh\"\n#include <cstdio>\n"
                  "#include \"missing.cuh\"\n// #include \"kernel.cu\" in a comment\n");
  EXPECT_EQ(Done, (std::vector<std::string>{"kernel.cu -> ../src/kernel.cu"}));
  std::string Same = "#include \"kernel.cu\"";
  EXPECT_TRUE(rebaseQuotedIncludes(Same, Root + "/src", Root + "/src/.").empty());
  EXPECT_EQ(Same, "#include \"kernel.cu\"") << "no trailing newline added";
}

TEST_F(ProjectFilesTest, CompileDatabaseUnitsAndRoot) {
  std::string A = write("p/a/a.cu", ""), B = write("p/b/b.cpp", "");
  std::string X = write("p/b/x.cc", "");
  write("build/compile_commands.json",
        "[{\"directory\": \"" + Root + "/p\", \"command\": \"nvcc -c a/a.cu\", \"file\": "
        "\"a/a.cu\"},"
        "{\"directory\": \"" + Root + "/p\", \"command\": \"g++ -c b/b.cpp\", \"file\": "
        "\"b/b.cpp\"},"
        "{\"directory\": \"" + Root + "/p\", \"command\": \"nvcc -x cu -c b/x.cc\", \"file\": "
        "\"" + X + "\"},"
        "{\"directory\": \"" + Root + "/p\", \"command\": \"nvcc -c a/a.cu -DTWICE\", \"file\": "
        "\"a/a.cu\"}]");
  auto DB = compileDatabaseSources(Root + "/build");
  ASSERT_TRUE(bool(DB)) << llvm::toString(DB.takeError());
  EXPECT_EQ(DB->Units, (std::vector<std::string>{A, X}));
  EXPECT_EQ(DB->Skipped, 1u);
  EXPECT_EQ(DB->Root, Root + "/p");
  // One entry: its directory, not the file's, is the root.
  write("one/compile_commands.json",
        "[{\"directory\": \"" + Root + "/p\", \"command\": \"nvcc -c a/a.cu\", "
        "\"file\": \"a/a.cu\"}]");
  auto One = compileDatabaseSources(Root + "/one");
  ASSERT_TRUE(bool(One)) << llvm::toString(One.takeError());
  EXPECT_EQ(One->Root, Root + "/p");
  auto None = compileDatabaseSources(Root + "/p");
  EXPECT_FALSE(bool(None));
  llvm::consumeError(None.takeError());
  (void)B;
}

TEST_F(ProjectFilesTest, PortInputsFromTheDatabaseOrTheFiles) {
  std::string A = write("p/a/a.cu", "");
  write("build/compile_commands.json",
        "[{\"directory\": \"" + Root + "/p\", \"command\": \"nvcc -c a/a.cu\", \"file\": "
        "\"a/a.cu\"}]");
  // Project mode from the database: its units and root, the database kept.
  auto All = portInputs({}, Root + "/build", /*All=*/true);
  ASSERT_TRUE(bool(All)) << llvm::toString(All.takeError());
  EXPECT_EQ(All->Files, std::vector<std::string>{A});
  EXPECT_EQ(All->ProjectRoot, Root + "/p");
  ASSERT_TRUE(All->Database != nullptr);
  EXPECT_EQ(All->Notes.size(), 1u);
  // One file with -p: the database's tree is the project.
  auto One = portInputs({A}, Root + "/build", /*All=*/false);
  ASSERT_TRUE(bool(One)) << llvm::toString(One.takeError());
  EXPECT_EQ(One->ProjectRoot, Root + "/p");
  EXPECT_TRUE(One->Database != nullptr);
  // A directory: its units, and it is the root.
  auto Dir = portInputs({Root + "/p"}, "", /*All=*/true);
  ASSERT_TRUE(bool(Dir)) << llvm::toString(Dir.takeError());
  EXPECT_EQ(Dir->Files, std::vector<std::string>{A});
  EXPECT_EQ(Dir->ProjectRoot, Root + "/p");
  EXPECT_EQ(Dir->Database, nullptr);
  // Usage errors: a directory without --all, nothing to port.
  auto NotAll = portInputs({Root + "/p"}, "", /*All=*/false);
  EXPECT_FALSE(bool(NotAll));
  llvm::consumeError(NotAll.takeError());
  auto Nothing = portInputs({}, "", /*All=*/true);
  EXPECT_FALSE(bool(Nothing));
  llvm::consumeError(Nothing.takeError());
}

} // namespace
