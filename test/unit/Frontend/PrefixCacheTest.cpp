// The precompiled CUDA prefix (PrefixCache.h): built once, reused, rebuilt
// when stale or damaged, keyed by the command line, off with FORGE_PCH=0,
// and a parse through it sees what a parse without it sees.
#include "forge/Frontend/PrefixCache.h"
#include "forge/Config.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Support/FileUtil.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <cstdlib>

using namespace forge;
using namespace forge::frontend;

namespace {

const char *Kernel = R"(
#include <cuda_runtime.h>
__global__ void dot(const float4 *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? a[i].x * b[i] : 0.f;
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(out, v);
}
void run(float *d, int n) {
  float *out;
  cudaMalloc(&out, sizeof(float));
  dot<<<(n + 255) / 256, 256>>>((const float4 *)d, d, out, n);
}
)";

struct Parsed {
  bool UsedHeader = false;
  unsigned Errors = 0;
  std::vector<std::string> Functions; ///< of the main file, with their types
  std::vector<std::string> Messages;
};

Parsed parse(Side S, const std::string &Code, std::vector<std::string> Extra = {},
             std::string File = "/tmp/forge-prefix-cache-test.cu") {
  Toolchain TC = Toolchain::detect(nullptr);
  ParseOptions Opts;
  Opts.ExtraArgs = std::move(Extra);
  ParseRequest Req;
  Req.File = File;
  Req.S = S;
  Req.Contents = Code;
  Parsed P;
  Req.OnBegin = [&](clang::CompilerInstance &CI) {
    P.UsedHeader = !CI.getPreprocessorOpts().ImplicitPCHInclude.empty();
  };
  ParseDiagnostics Diags(nullptr);
  llvm::Error E = parseCuda(TC, Opts, Req, Diags,
                            [&](clang::ASTContext &Ctx, clang::CompilerInstance &,
                                const PreprocessorFacts &) {
                              const clang::SourceManager &SM = Ctx.getSourceManager();
                              for (const clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
                                if (const auto *F = llvm::dyn_cast<clang::FunctionDecl>(D))
                                  if (SM.isWrittenInMainFile(F->getLocation()))
                                    P.Functions.push_back(F->getNameAsString() + ": " +
                                                          F->getType().getAsString());
                            });
  EXPECT_FALSE(E) << llvm::toString(std::move(E));
  P.Errors = Diags.errors();
  P.Messages = Diags.errorMessages();
  return P;
}

std::vector<std::string> filesWith(llvm::StringRef Dir, llvm::StringRef Ext) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), E; It != E && !EC; It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == Ext)
      Out.push_back(It->path());
  std::sort(Out.begin(), Out.end());
  return Out;
}

class PrefixCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!Toolchain::detect(nullptr).hasCuda())
      GTEST_SKIP() << "no CUDA toolkit";
    llvm::SmallString<128> D;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-pch", D));
    Dir = D.str().str();
    setenv("FORGE_PCH_DIR", Dir.c_str(), 1);
    unsetenv("FORGE_PCH");
  }
  void TearDown() override {
    unsetenv("FORGE_PCH_DIR");
    unsetenv("FORGE_PCH");
    if (!Dir.empty())
      llvm::sys::fs::remove_directories(Dir);
  }
  std::string Dir;
};

TEST_F(PrefixCacheTest, BuiltOnceThenLoaded) {
  EXPECT_EQ(prefixCacheDir(), Dir);
  Parsed First = parse(Side::Device, Kernel);
  EXPECT_TRUE(First.UsedHeader);
  auto Headers = filesWith(Dir, ".pch");
  ASSERT_EQ(Headers.size(), 1u);
  ASSERT_EQ(filesWith(Dir, ".files").size(), 1u);
  llvm::sys::fs::file_status Before;
  ASSERT_FALSE(llvm::sys::fs::status(Headers[0], Before));

  Parsed Second = parse(Side::Device, Kernel);
  EXPECT_TRUE(Second.UsedHeader);
  EXPECT_EQ(filesWith(Dir, ".pch"), Headers) << "the same command line reuses its header";
  llvm::sys::fs::file_status After;
  ASSERT_FALSE(llvm::sys::fs::status(Headers[0], After));
  EXPECT_EQ(Before.getUniqueID(), After.getUniqueID()) << "not rebuilt";

  // The host side is another command line: its own header.
  EXPECT_TRUE(parse(Side::Host, Kernel).UsedHeader);
  EXPECT_EQ(filesWith(Dir, ".pch").size(), 2u);
  // So is a user's macro.
  EXPECT_TRUE(parse(Side::Device, Kernel, {"-DFORGE_TEST_MACRO=3"}).UsedHeader);
  EXPECT_EQ(filesWith(Dir, ".pch").size(), 3u);
}

TEST_F(PrefixCacheTest, SharedByFilesAndDirectories) {
  // Another file in another directory, parsed from another working
  // directory: its unit id and compilation directory differ, the prefix
  // does not. One header per side serves them all.
  ASSERT_TRUE(parse(Side::Device, Kernel).UsedHeader);
  auto Headers = filesWith(Dir, ".pch");
  ASSERT_EQ(Headers.size(), 1u);
  llvm::sys::fs::file_status Before;
  ASSERT_FALSE(llvm::sys::fs::status(Headers[0], Before));
  llvm::SmallString<128> Cwd;
  ASSERT_FALSE(llvm::sys::fs::current_path(Cwd));
  ASSERT_FALSE(llvm::sys::fs::set_current_path(Dir));
  Parsed Other = parse(Side::Device, Kernel, {}, Dir + "/elsewhere/other-name.cu");
  ASSERT_FALSE(llvm::sys::fs::set_current_path(Cwd));
  EXPECT_TRUE(Other.UsedHeader);
  EXPECT_EQ(Other.Errors, 0u);
  EXPECT_EQ(filesWith(Dir, ".pch"), Headers);
  llvm::sys::fs::file_status After;
  ASSERT_FALSE(llvm::sys::fs::status(Headers[0], After));
  EXPECT_EQ(Before.getUniqueID(), After.getUniqueID()) << "loaded, not rebuilt";
}

TEST_F(PrefixCacheTest, SharedAcrossIncludeDirectories) {
  // A project's units differ in their -I directories (each its own
  // directory, ../Common): none holds a header the prefix includes, so one
  // header serves them all; a macro still makes its own.
  auto MakeDir = [&](const char *Name) {
    std::string D = Dir + "/" + Name;
    EXPECT_FALSE(llvm::sys::fs::create_directories(D));
    EXPECT_FALSE(bool(writeFileAtomically(D + "/helper.h", "#define FORGE_HELPER 1\n")));
    return D;
  };
  std::string A = MakeDir("unit_a"), B = MakeDir("unit_b");
  std::string Uses = std::string("#include \"helper.h\"\n") + Kernel;
  Parsed First = parse(Side::Device, Uses, {"-I" + A});
  ASSERT_TRUE(First.UsedHeader);
  EXPECT_EQ(First.Errors, 0u);
  auto Headers = filesWith(Dir, ".pch");
  ASSERT_EQ(Headers.size(), 1u);
  llvm::sys::fs::file_status Before;
  ASSERT_FALSE(llvm::sys::fs::status(Headers[0], Before));
  Parsed Second = parse(Side::Device, Uses, {"-I", B, "-iquote", A});
  EXPECT_TRUE(Second.UsedHeader);
  EXPECT_EQ(Second.Errors, 0u);
  EXPECT_EQ(filesWith(Dir, ".pch"), Headers) << "another -I directory shares the header";
  llvm::sys::fs::file_status After;
  ASSERT_FALSE(llvm::sys::fs::status(Headers[0], After));
  EXPECT_EQ(Before.getUniqueID(), After.getUniqueID()) << "loaded, not rebuilt";
}

TEST_F(PrefixCacheTest, UserDirectoryShadowingAHeaderGetsItsOwn) {
  // A user directory that holds a header the prefix includes (here a
  // cuda_runtime.h of its own, which marks itself) would be found before
  // the system's: the shared header must not serve that command line, nor
  // a header built from it serve the others.
  ASSERT_TRUE(parse(Side::Device, Kernel).UsedHeader);
  auto Shared = filesWith(Dir, ".pch");
  ASSERT_EQ(Shared.size(), 1u);
  Toolchain TC = Toolchain::detect(nullptr);
  auto Real = readFile(TC.CudaPath + "/include/cuda_runtime.h");
  ASSERT_TRUE(bool(Real));
  std::string Own = Dir + "/shadow";
  ASSERT_FALSE(llvm::sys::fs::create_directories(Own));
  ASSERT_FALSE(bool(writeFileAtomically(Own + "/cuda_runtime.h",
                                        *Real + "\n#define FORGE_SHADOWED_RUNTIME 1\n")));
  std::string Seen = std::string("#ifndef FORGE_SHADOWED_RUNTIME\n#error not the user's\n#endif\n") +
                     Kernel;
  Parsed Shadowed = parse(Side::Device, Seen, {"-I" + Own});
  EXPECT_TRUE(Shadowed.UsedHeader);
  EXPECT_EQ(Shadowed.Errors, 0u) << "the user's cuda_runtime.h was not read";
  EXPECT_EQ(filesWith(Dir, ".pch").size(), 2u) << "its own header beside the shared one";
  // The others still get the system's.
  std::string NotSeen =
      std::string("#ifdef FORGE_SHADOWED_RUNTIME\n#error the user's\n#endif\n") + Kernel;
  std::string Plain = Dir + "/plain";
  ASSERT_FALSE(llvm::sys::fs::create_directories(Plain));
  Parsed Other = parse(Side::Device, NotSeen, {"-I" + Plain});
  EXPECT_TRUE(Other.UsedHeader);
  EXPECT_EQ(Other.Errors, 0u) << "a header built with the shadowing directory was shared";
  EXPECT_EQ(filesWith(Dir, ".pch").size(), 2u);
}

TEST_F(PrefixCacheTest, SameResultWithoutIt) {
  // A kernel with an error of its own: the same declarations and the same
  // message with and without the header, on both sides.
  std::string Broken = std::string(Kernel) + "__global__ void bad(float *p) { p[0] = undeclared; }\n";
  for (Side S : {Side::Device, Side::Host}) {
    Parsed With = parse(S, Broken);
    ASSERT_TRUE(With.UsedHeader);
    setenv("FORGE_PCH", "0", 1);
    EXPECT_EQ(prefixCacheDir(), "");
    Parsed Without = parse(S, Broken);
    unsetenv("FORGE_PCH");
    EXPECT_FALSE(Without.UsedHeader);
    EXPECT_EQ(With.Functions, Without.Functions);
    EXPECT_EQ(With.Errors, 1u);
    EXPECT_EQ(With.Messages, Without.Messages);
    ASSERT_FALSE(With.Functions.empty());
  }
}

TEST_F(PrefixCacheTest, OffLeavesNoFiles) {
  setenv("FORGE_PCH", "0", 1);
  Parsed P = parse(Side::Device, Kernel);
  EXPECT_FALSE(P.UsedHeader);
  EXPECT_EQ(P.Errors, 0u);
  EXPECT_TRUE(filesWith(Dir, ".pch").empty());
}

TEST_F(PrefixCacheTest, StaleManifestRebuilds) {
  ASSERT_TRUE(parse(Side::Device, Kernel).UsedHeader);
  auto Manifests = filesWith(Dir, ".files");
  ASSERT_EQ(Manifests.size(), 1u);
  auto Text = readFile(Manifests[0]);
  ASSERT_TRUE(bool(Text));
  // One file "changed" since: its recorded time differs from the disk's.
  std::string Stale = *Text;
  size_t Line = Stale.find("cuda_runtime.h");
  ASSERT_NE(Line, std::string::npos);
  size_t Start = Stale.rfind('\n', Line) + 1;
  size_t TimeAt = Stale.find(' ', Start) + 1;
  Stale.insert(TimeAt, "1");
  ASSERT_FALSE(bool(writeFileAtomically(Manifests[0], Stale)));
  auto Header = filesWith(Dir, ".pch")[0];
  llvm::sys::fs::file_status Before;
  ASSERT_FALSE(llvm::sys::fs::status(Header, Before));

  Parsed P = parse(Side::Device, Kernel);
  EXPECT_TRUE(P.UsedHeader);
  EXPECT_EQ(P.Errors, 0u);
  auto Rewritten = readFile(Manifests[0]);
  ASSERT_TRUE(bool(Rewritten));
  EXPECT_EQ(*Rewritten, *Text) << "the manifest of the rebuilt header is current again";
  llvm::sys::fs::file_status After;
  ASSERT_FALSE(llvm::sys::fs::status(Header, After));
  EXPECT_NE(Before.getUniqueID(), After.getUniqueID()) << "the header was rebuilt";
}

TEST_F(PrefixCacheTest, DamagedHeaderRebuilds) {
  ASSERT_TRUE(parse(Side::Device, Kernel).UsedHeader);
  auto Header = filesWith(Dir, ".pch")[0];
  uint64_t Size = 0;
  ASSERT_FALSE(llvm::sys::fs::file_size(Header, Size));
  // Truncated, as by a full disk outside our rename, or replaced by junk.
  for (const char *Junk : {"", "CPCH garbage"}) {
    ASSERT_FALSE(bool(writeFileAtomically(Header, Junk)));
    Parsed P = parse(Side::Device, Kernel);
    EXPECT_TRUE(P.UsedHeader);
    EXPECT_EQ(P.Errors, 0u) << "a damaged header is never the user's error";
    uint64_t Now = 0;
    ASSERT_FALSE(llvm::sys::fs::file_size(Header, Now));
    EXPECT_EQ(Now, Size);
  }
}

TEST_F(PrefixCacheTest, UnwritableDirectoryParsesWithout) {
  setenv("FORGE_PCH_DIR", "/proc/forge-no-such-dir", 1);
  Parsed P = parse(Side::Device, Kernel);
  EXPECT_FALSE(P.UsedHeader);
  EXPECT_EQ(P.Errors, 0u);
  EXPECT_FALSE(P.Functions.empty());
}

} // namespace
