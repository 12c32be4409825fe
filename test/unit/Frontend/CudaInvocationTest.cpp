#include "forge/Frontend/CudaInvocation.h"
#include "llvm/ADT/STLExtras.h"
#include "gtest/gtest.h"

using namespace forge::frontend;

static const forge::arch::TargetInfo &target(llvm::StringRef Name) {
  return llvm::cantFail(forge::arch::lookupTarget(Name));
}

static bool has(const std::vector<std::string> &V, const std::string &S) {
  return llvm::is_contained(V, S);
}

TEST(TranslateNvccFlags, CMakeStyleCommand) {
  std::vector<std::string> Cmd = {
      "/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler", "-DUSE_X=1",
      "-I/src/include", "-isystem", "/opt/inc", "-O3", "-lineinfo",
      "--expt-relaxed-constexpr", "-Xcompiler=-fPIC,-DHOSTONLY", "--generate-code=arch=compute_90a,code=[sm_90a]",
      "-gencode", "arch=compute_80,code=sm_80", "-std=c++17", "-x", "cu", "-c", "/src/k.cu",
      "-o", "k.o", "-Xptxas", "-v", "-ccbin", "/usr/bin/g++"};
  TranslatedFlags F = translateNvccFlags(Cmd);
  EXPECT_EQ(F.Archs, (std::vector<std::string>{"sm_90a", "sm_80"}));
  EXPECT_TRUE(has(F.ClangArgs, "-DUSE_X=1"));
  EXPECT_TRUE(has(F.ClangArgs, "-I/src/include"));
  EXPECT_TRUE(has(F.ClangArgs, "-isystem"));
  EXPECT_TRUE(has(F.ClangArgs, "/opt/inc"));
  EXPECT_TRUE(has(F.ClangArgs, "-std=c++17"));
  EXPECT_TRUE(has(F.ClangArgs, "-DHOSTONLY"));
  EXPECT_TRUE(has(F.ClangArgs, "-fPIC"));
  // Nothing nvcc-specific or output-related reaches Clang.
  for (const std::string &A : F.ClangArgs) {
    EXPECT_NE(A, "-O3");
    EXPECT_NE(A, "-lineinfo");
    EXPECT_NE(A, "k.o");
    EXPECT_NE(A, "/src/k.cu");
    EXPECT_NE(A, "-v");
    EXPECT_NE(A, "/usr/bin/g++");
    EXPECT_NE(A, "cu");
  }
  EXPECT_FALSE(F.RelocatableDeviceCode);
}

TEST(TranslateNvccFlags, ArchSpellingsAndRdc) {
  TranslatedFlags F = translateNvccFlags(
      {"nvcc", "-arch=sm_86", "--gpu-architecture", "compute_75", "-rdc=true",
       "--std", "c++20", "--define-macro", "A=2", "--include-path", "inc"});
  EXPECT_EQ(F.Archs, (std::vector<std::string>{"sm_86", "sm_75"}));
  EXPECT_TRUE(F.RelocatableDeviceCode);
  EXPECT_TRUE(has(F.ClangArgs, "-fgpu-rdc"));
  EXPECT_TRUE(has(F.ClangArgs, "-std=c++20"));
  EXPECT_TRUE(has(F.ClangArgs, "-DA=2"));
  EXPECT_TRUE(has(F.ClangArgs, "-Iinc"));
}

TEST(TranslateNvccFlags, ClangCommandKeepsItsArch) {
  TranslatedFlags F = translateNvccFlags({"clang++", "--cuda-gpu-arch=sm_90", "-DX"});
  EXPECT_EQ(F.Archs, (std::vector<std::string>{"sm_90"}));
  EXPECT_TRUE(has(F.ClangArgs, "-DX"));
}

TEST(BuildClangCommand, OneSideOneTarget) {
  Toolchain TC;
  TC.CudaPath = "/usr/local/cuda";
  TC.ResourceDir = "/res";
  ParseOptions O;
  O.Target = &target("sm_90");
  O.ExtraArgs = {"-DX", "--cuda-gpu-arch=sm_70"};
  auto Host = buildClangCommand(TC, O, "k.cu", Side::Host);
  EXPECT_TRUE(has(Host, "--cuda-host-only"));
  EXPECT_TRUE(has(Host, "--cuda-gpu-arch=sm_90"));
  EXPECT_FALSE(has(Host, "--cuda-gpu-arch=sm_70")); // the target wins
  EXPECT_TRUE(has(Host, "--cuda-path=/usr/local/cuda"));
  EXPECT_TRUE(has(Host, "/usr/local/cuda/include/cccl"));
  EXPECT_TRUE(has(Host, "-resource-dir=/res"));
  EXPECT_TRUE(has(Host, "-Wno-unknown-cuda-version"));
  EXPECT_TRUE(has(Host, "-DX"));
  EXPECT_EQ(Host.back(), "k.cu");
  auto Dev = buildClangCommand(TC, O, "k.cu", Side::Device);
  EXPECT_TRUE(has(Dev, "--cuda-device-only"));
  EXPECT_TRUE(has(Dev, "-fgpu-rdc"));
}

TEST(BuildClangCommand, HostUnitAsTheHostCompilerSeesIt) {
  // A .cpp nvcc hands to gcc (nvcc -dryrun: -x c++ -D__NVCC__ -I<cuda>/include
  // -isystem <cuda>/include/cccl -D__CUDACC_VER_MAJOR__=...): C++, not CUDA.
  Toolchain TC;
  TC.CudaPath = "/usr/local/cuda";
  TC.ResourceDir = "/res";
  TC.CudaVersion = 12040;
  ParseOptions O;
  O.Target = &target("sm_90");
  O.HostCompiler = true;
  O.ExtraArgs = {"-DX", "--cuda-gpu-arch=sm_70", "-fgpu-rdc", "-Iinc"};
  auto H = buildClangCommand(TC, O, "main.cpp", Side::Host);
  EXPECT_TRUE(has(H, "c++"));
  EXPECT_FALSE(has(H, "cuda"));
  EXPECT_FALSE(has(H, "--cuda-host-only"));
  EXPECT_FALSE(has(H, "--cuda-gpu-arch=sm_90"));
  EXPECT_FALSE(has(H, "--cuda-gpu-arch=sm_70"));
  EXPECT_FALSE(has(H, "-fgpu-rdc"));
  EXPECT_TRUE(has(H, "-D__NVCC__"));
  EXPECT_TRUE(has(H, "-D__CUDACC_VER_MAJOR__=12"));
  EXPECT_TRUE(has(H, "-D__CUDACC_VER_MINOR__=4"));
  EXPECT_TRUE(has(H, "/usr/local/cuda/include"));
  EXPECT_TRUE(has(H, "/usr/local/cuda/include/cccl"));
  EXPECT_TRUE(has(H, "-DX"));
  EXPECT_TRUE(has(H, "-Iinc"));
  EXPECT_EQ(H.back(), "main.cpp");
  // Only the host side is the host compiler's.
  auto D = buildClangCommand(TC, O, "main.cpp", Side::Device);
  EXPECT_TRUE(has(D, "--cuda-device-only"));
}

TEST(BuildClangCommand, CHostUnitIsC) {
  // A .c nvcc hands to gcc as C (nvcc -dryrun: gcc -x c -D__NVCC__ ...,
  // without nvcc's -std=c++17; -Xcompiler -std=c99 reaches it).
  Toolchain TC;
  TC.CudaPath = "/usr/local/cuda";
  TC.ResourceDir = "/res";
  TC.CudaVersion = 13000;
  ParseOptions O;
  O.HostCompiler = true;
  O.ExtraArgs = translateNvccFlags(std::vector<std::string>{
                    "nvcc", "-std=c++17", "-Xcompiler", "-std=c99", "-DX", "-c", "main.c"})
                    .ClangArgs;
  auto H = buildClangCommand(TC, O, "main.c", Side::Host);
  EXPECT_EQ(H.front(), "clang");
  auto X = llvm::find(H, "-x");
  ASSERT_NE(X, H.end());
  EXPECT_EQ(*std::next(X), "c");
  EXPECT_FALSE(has(H, "c++"));
  EXPECT_FALSE(has(H, "-std=c++17"));
  EXPECT_TRUE(has(H, "-std=c99"));
  EXPECT_TRUE(has(H, "-DX"));
  EXPECT_TRUE(has(H, "-D__NVCC__"));
  EXPECT_TRUE(has(H, "/usr/local/cuda/include"));
  EXPECT_FALSE(has(H, PreludeName));
  EXPECT_EQ(H.back(), "main.c");
  // A .cpp keeps C++'s standard and drops C's.
  auto Cxx = buildClangCommand(TC, O, "main.cpp", Side::Host);
  EXPECT_TRUE(has(Cxx, "-std=c++17"));
  EXPECT_FALSE(has(Cxx, "-std=c99"));
  // nvcc's -std takes C++ standards only: a C one goes to its host compiler.
  auto Nvcc = nvccFlagsFromClangArgs(O.ExtraArgs);
  auto C99 = llvm::find(Nvcc, "-std=c99");
  ASSERT_NE(C99, Nvcc.end());
  EXPECT_EQ(*std::prev(C99), "-Xcompiler");
  EXPECT_TRUE(has(Nvcc, "-std=c++17"));
}

TEST(BuildClangCommand, ArchSpecificAndFamilyMacrosAsNvcc) {
  Toolchain TC;
  TC.ResourceDir = "/res";
  ParseOptions O;
  O.Target = &target("sm_100f");
  auto F = buildClangCommand(TC, O, "k.cu", Side::Device);
  EXPECT_TRUE(has(F, "--cuda-gpu-arch=sm_100a"));
  EXPECT_TRUE(has(F, "-D__CUDA_ARCH_FAMILY_SPECIFIC__=1000"));
  EXPECT_TRUE(has(F, "-U__CUDA_ARCH_SPECIFIC__"));
  EXPECT_TRUE(has(F, "-U__CUDA_ARCH_FEAT_SM100_ALL"));
  O.Target = &target("sm_90a");
  auto A = buildClangCommand(TC, O, "k.cu", Side::Device);
  EXPECT_TRUE(has(A, "--cuda-gpu-arch=sm_90a"));
  EXPECT_TRUE(has(A, "-D__CUDA_ARCH_SPECIFIC__=900"));
  EXPECT_TRUE(has(A, "-D__CUDA_ARCH_FAMILY_SPECIFIC__=900"));
  // The host side has no __CUDA_ARCH__ macros at all.
  auto H = buildClangCommand(TC, O, "k.cu", Side::Host);
  EXPECT_FALSE(has(H, "-D__CUDA_ARCH_SPECIFIC__=900"));
}

TEST(BuildClangCommand, OpenMPOnTheHostSideOnly) {
  // nvcc hands -Xcompiler -fopenmp to the host compiler alone; the host
  // GCC's omp.h is mapped under the prelude's directory, searched last.
  Toolchain TC;
  TC.ResourceDir = "/res";
  TC.OmpHeader = "/usr/lib/gcc/x86_64-linux-gnu/12/include/omp.h";
  ParseOptions O;
  O.Target = &target("sm_90");
  O.ExtraArgs = translateNvccFlags(std::vector<std::string>{"nvcc", "-Xcompiler", "-fopenmp,-O2", "-c", "k.cu"}).ClangArgs;
  ASSERT_TRUE(has(O.ExtraArgs, "-fopenmp"));
  std::string OmpPath = std::string(PreludeDir) + "/" + OmpDir;
  auto Host = buildClangCommand(TC, O, "k.cu", Side::Host);
  EXPECT_TRUE(has(Host, "-fopenmp"));
  auto It = llvm::find(Host, OmpPath);
  ASSERT_NE(It, Host.end());
  EXPECT_EQ(*std::prev(It), "-idirafter");
  auto Dev = buildClangCommand(TC, O, "k.cu", Side::Device);
  EXPECT_FALSE(has(Dev, "-fopenmp"));
  // nvcc validates with the flag where it belongs.
  auto Nvcc = nvccFlagsFromClangArgs(O.ExtraArgs);
  auto X = llvm::find(Nvcc, "-fopenmp");
  ASSERT_NE(X, Nvcc.end());
  EXPECT_EQ(*std::prev(X), "-Xcompiler");
  // No omp.h to map: no search directory for it.
  TC.OmpHeader.clear();
  EXPECT_FALSE(has(buildClangCommand(TC, O, "k.cu", Side::Host), OmpPath));
}

TEST(MakeParseOptions, TargetFromOptionsThenFlagsThenDefault) {
  auto Name = [](const forge::arch::TargetInfo *Given, std::vector<std::string> Args) {
    auto O = makeParseOptions("k.cu", "", Given, Args);
    EXPECT_TRUE(bool(O)) << llvm::toString(O.takeError());
    return O ? std::string(O->target().Name) : std::string();
  };
  EXPECT_EQ(Name(nullptr, {}), "sm_80");
  EXPECT_EQ(Name(nullptr, {"--offload-arch=sm_89"}), "sm_89");
  EXPECT_EQ(Name(&target("sm_100"), {"--offload-arch=sm_89"}), "sm_100");
  // An arch in the flags that the Arch database does not know.
  auto Bad = makeParseOptions("k.cu", "", nullptr, {"--cuda-gpu-arch=sm_42"});
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("unknown target 'sm_42'"), std::string::npos);
}
