//===- BuildFlagsTest.cpp - GPU arch flags in build files -----------------===//
//
// Spellings of GPU targets in build files written after old projects (an old
// CUDA SDK common.mk, a Rodinia make.config, CMake files of the CUDA 8 to 11
// era, a PyTorch extension's build script), the positions and replacements
// of the findings, what is not a target (-march=native, ARCH=x86_64,
// comments), and the note for compile commands that build for sm_90a. The
// table of accepted targets is checked against the installed nvcc.
//
//===----------------------------------------------------------------------===//
#include "forge/Config.h"
#include "forge/Port/BuildFlags.h"
#include "forge/Support/Subprocess.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"
#include <set>

using namespace forge;
using namespace forge::port;

namespace {

const arch::TargetInfo &target(llvm::StringRef Name) {
  auto T = arch::lookupTarget(Name);
  if (!T) {
    ADD_FAILURE() << llvm::toString(T.takeError());
    return arch::defaultTarget();
  }
  return *T;
}

/// The spellings found, in order.
std::vector<std::string> spellings(const std::vector<BuildFlagFinding> &Fs) {
  std::vector<std::string> Out;
  for (const BuildFlagFinding &F : Fs)
    Out.push_back(F.Spelling);
  return Out;
}

/// Text with every replacement applied (back to front).
std::string applied(llvm::StringRef Text, const std::vector<BuildFlagFinding> &Fs) {
  std::string Out = Text.str();
  for (auto It = Fs.rbegin(); It != Fs.rend(); ++It)
    if (!It->Replacement.empty())
      Out.replace(It->Offset, It->Length, It->Replacement);
  return Out;
}

/// Every finding's offset, length, line and column agree with the text.
void expectPositions(llvm::StringRef Text, const std::vector<BuildFlagFinding> &Fs) {
  for (const BuildFlagFinding &F : Fs) {
    EXPECT_EQ(Text.substr(F.Offset, F.Length), F.Spelling);
    llvm::StringRef Before = Text.take_front(F.Offset);
    EXPECT_EQ(F.Line, 1 + Before.count('\n')) << F.Spelling;
    size_t LS = Before.rfind('\n');
    EXPECT_EQ(F.Column, LS == llvm::StringRef::npos ? F.Offset + 1 : F.Offset - LS)
        << F.Spelling;
  }
}

TEST(BuildFlags, Classify) {
  EXPECT_EQ(classifyBuildFile("proj/Makefile"), BuildFileKind::Makefile);
  EXPECT_EQ(classifyBuildFile("GNUmakefile"), BuildFileKind::Makefile);
  EXPECT_EQ(classifyBuildFile("Makefile.nvidia"), BuildFileKind::Makefile);
  EXPECT_EQ(classifyBuildFile("common/common.mk"), BuildFileKind::Makefile);
  EXPECT_EQ(classifyBuildFile("rodinia/common/make.config"), BuildFileKind::Makefile);
  EXPECT_EQ(classifyBuildFile("CMakeLists.txt"), BuildFileKind::CMake);
  EXPECT_EQ(classifyBuildFile("cmake/Cuda.cmake"), BuildFileKind::CMake);
  EXPECT_EQ(classifyBuildFile("build.sh"), BuildFileKind::Other);
}

// NVIDIA's samples before CUDA 11: SMS lists the targets and a foreach
// builds GENCODE_FLAGS from it.
const char *const SdkCommonMk = R"(# Common build flags
# SMS ?= 10 11 12 (the CUDA 3 list; commented out)
SMS ?= 20 30 35 37 50 52 60
ifeq ($(SMS),)
$(info >>> WARNING - no SM architectures have been specified - waiving sample <<<)
endif
ifeq ($(GENCODE_FLAGS),)
$(foreach sm,$(SMS),$(eval GENCODE_FLAGS += -gencode arch=compute_$(sm),code=sm_$(sm)))
HIGHEST_SM := $(lastword $(sort $(SMS)))
GENCODE_FLAGS += -gencode arch=compute_$(HIGHEST_SM),code=compute_$(HIGHEST_SM)
endif
GENCODE_SM20 := -gencode arch=compute_20,code=sm_20
GENCODE_SM30 := -gencode arch=compute_30,code=\"sm_30,compute_30\"
HOST_ARCH := $(shell uname -m)
ARCH = x86_64
CCFLAGS := -march=native -m64
)";

TEST(BuildFlags, SdkCommonMk) {
  const auto &T = target("sm_100");
  auto Fs = scanBuildFile("samples/common/common.mk", SdkCommonMk, T);
  EXPECT_EQ(spellings(Fs),
            (std::vector<std::string>{"20", "30", "35", "37", "50", "52", "60", "compute_20",
                                      "sm_20", "compute_30", "sm_30", "compute_30"}));
  expectPositions(SdkCommonMk, Fs);
  for (const BuildFlagFinding &F : Fs) {
    EXPECT_EQ(F.Level, BuildFlagLevel::Error) << F.Spelling;
    EXPECT_FALSE(F.Accepted) << F.Spelling;
  }
  // SMS on line 3: "SMS ?= 20 ..." puts 20 at column 8.
  EXPECT_EQ(Fs[0].Line, 3u);
  EXPECT_EQ(Fs[0].Column, 8u);
  EXPECT_EQ(Fs[0].Arch, "sm_20");
  EXPECT_EQ(Fs[0].Message, "nvcc 13 does not accept sm_20 (Fermi, removed in CUDA 9.0); use 75 "
                           "(the oldest CUDA 13 supports) or 100 (the port's target)");
  EXPECT_EQ(Fs[2].Message, "nvcc 13 does not accept sm_35 (Kepler, removed in CUDA 12.0); use 75 "
                           "(the oldest CUDA 13 supports) or 100 (the port's target)");
  EXPECT_NE(Fs[4].Message.find("(Maxwell, removed in CUDA 13.0)"), std::string::npos);
  EXPECT_EQ(Fs[7].Arch, "compute_20");
  EXPECT_EQ(Fs[7].Message,
            "nvcc 13 does not accept compute_20 (Fermi, removed in CUDA 9.0); use arch=compute_75 "
            "(the oldest CUDA 13 supports) or arch=compute_100 (the port's target)");
  EXPECT_NE(Fs[8].Message.find("use code=sm_75 (the oldest CUDA 13 supports) or code=sm_100"),
            std::string::npos);
  // The quoted code list: each target is replaced in place.
  std::string Fixed = applied(SdkCommonMk, Fs);
  EXPECT_NE(Fixed.find("SMS ?= 75 75 75 75 75 75 75\n"), std::string::npos);
  EXPECT_NE(Fixed.find("GENCODE_SM30 := -gencode arch=compute_75,code=\\\"sm_75,compute_75\\\"\n"),
            std::string::npos);
  // The comment, the foreach, ARCH = x86_64 and -march=native are untouched.
  EXPECT_NE(Fixed.find("# SMS ?= 10 11 12 (the CUDA 3 list; commented out)"), std::string::npos);
  EXPECT_NE(Fixed.find("code=sm_$(sm)"), std::string::npos);
  EXPECT_NE(Fixed.find("ARCH = x86_64\nCCFLAGS := -march=native -m64"), std::string::npos);
}

// Rodinia's make.config and a benchmark Makefile: -arch with a blank.
const char *const RodiniaMakeConfig = R"(# CUDA toolkit installation path
CUDA_DIR = /usr/local/cuda
# CUDA SDK installation path
SDK_DIR = /usr/local/cuda/samples/
CUDA_LIB_DIR := $(CUDA_DIR)/lib
ifeq ($(shell uname -m), x86_64)
     ifeq ($(shell if test -d $(CUDA_DIR)/lib64; then echo T; fi),T)
     	CUDA_LIB_DIR := $(CUDA_DIR)/lib64
     endif
endif
NVCC_FLAGS = -O3 -arch sm_13 -use_fast_math # -arch sm_20
euler3d: euler3d.cu
	nvcc $(KERNEL_DIM) -O2 -Xptxas -v --gpu-architecture=compute_13 --gpu-code=compute_13 euler3d.cu -o euler3d -I$(CUDA_SDK_PATH)/common/inc
)";

TEST(BuildFlags, RodiniaMakeConfig) {
  const auto &T = target("sm_100");
  auto Fs = scanBuildFile("common/make.config", RodiniaMakeConfig, T);
  ASSERT_EQ(spellings(Fs), (std::vector<std::string>{"sm_13", "compute_13", "compute_13"}));
  expectPositions(RodiniaMakeConfig, Fs);
  EXPECT_EQ(Fs[0].Line, 11u);
  EXPECT_EQ(Fs[0].Column, 24u);
  EXPECT_EQ(Fs[0].Message, "nvcc 13 does not accept sm_13 (Tesla, removed in CUDA 7.0); use -arch "
                           "sm_75 (the oldest CUDA 13 supports) or -arch sm_100 (the port's target)");
  EXPECT_EQ(Fs[0].Replacement, "sm_75");
  EXPECT_NE(Fs[1].Message.find("use --gpu-architecture=compute_75 (the oldest CUDA 13 supports) or "
                               "--gpu-architecture=compute_100 (the port's target)"),
            std::string::npos);
  EXPECT_NE(Fs[2].Message.find("use --gpu-code=compute_75"), std::string::npos);
  std::string Fixed = applied(RodiniaMakeConfig, Fs);
  EXPECT_NE(Fixed.find("NVCC_FLAGS = -O3 -arch sm_75 -use_fast_math # -arch sm_20\n"),
            std::string::npos);
  EXPECT_NE(Fixed.find("--gpu-architecture=compute_75 --gpu-code=compute_75 euler3d.cu"),
            std::string::npos);
}

// A CMake project of the CUDA 9 to 11 era: FindCUDA's CUDA_NVCC_FLAGS, then
// CMake 3.18's CUDA_ARCHITECTURES.
const char *const OldCMake = R"(cmake_minimum_required(VERSION 3.18)
project(stencil LANGUAGES CXX CUDA)
#[[ Kepler builds were dropped:
set(CMAKE_CUDA_ARCHITECTURES 30)
]]
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES "35;52;70-real;80")
endif()
set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS};-gencode arch=compute_35,code=sm_35;-gencode=arch=compute_61,code=[sm_61,compute_61])
list(APPEND CUDA_NVCC_FLAGS -arch=sm_20) # was sm_13
add_library(stencil stencil.cu)
set_target_properties(stencil PROPERTIES CUDA_ARCHITECTURES 50 60 CUDA_SEPARABLE_COMPILATION ON)
set_property(TARGET stencil PROPERTY
             CUDA_ARCHITECTURES 90a 100)
if(CMAKE_CUDA_ARCHITECTURES VERSION_LESS 70)
  message(STATUS "old ${CMAKE_CUDA_ARCHITECTURES}")
endif()
)";

TEST(BuildFlags, OldCMake) {
  const auto &T = target("sm_100");
  auto Fs = scanBuildFile("CMakeLists.txt", OldCMake, T);
  ASSERT_EQ(spellings(Fs),
            (std::vector<std::string>{"35", "52", "70", "80", "compute_35", "sm_35", "compute_61",
                                      "sm_61", "compute_61", "sm_20", "50", "60", "90a", "100"}));
  expectPositions(OldCMake, Fs);
  // 80 and 100 are accepted and run on sm_100's family or are the target:
  // nothing to say.
  EXPECT_TRUE(Fs[3].Accepted);
  EXPECT_EQ(Fs[3].Level, BuildFlagLevel::Ok);
  EXPECT_TRUE(Fs[3].Message.empty());
  EXPECT_EQ(Fs[13].Level, BuildFlagLevel::Ok);
  // 90a is accepted but its code does not run on sm_100: a note.
  EXPECT_TRUE(Fs[12].Accepted);
  EXPECT_EQ(Fs[12].Level, BuildFlagLevel::Note);
  EXPECT_EQ(Fs[12].Arch, "sm_90a");
  EXPECT_TRUE(Fs[12].Replacement.empty());
  EXPECT_NE(Fs[12].Message.find("sm_90a code runs only on compute capability 9.0, not on sm_100"),
            std::string::npos);
  // 70-real: the number is the spelling, "-real" stays.
  EXPECT_EQ(Fs[2].Replacement, "75");
  EXPECT_EQ(Fs[2].Line, 7u);
  std::string Fixed = applied(OldCMake, Fs);
  EXPECT_NE(Fixed.find(R"(set(CMAKE_CUDA_ARCHITECTURES "75;75;75-real;80"))"), std::string::npos);
  EXPECT_NE(Fixed.find("-gencode arch=compute_75,code=sm_75;-gencode=arch=compute_75,code=[sm_75,"
                       "compute_75])"),
            std::string::npos);
  EXPECT_NE(Fixed.find("list(APPEND CUDA_NVCC_FLAGS -arch=sm_75) # was sm_13"), std::string::npos);
  EXPECT_NE(Fixed.find("PROPERTIES CUDA_ARCHITECTURES 75 75 CUDA_SEPARABLE_COMPILATION ON"),
            std::string::npos);
  // The bracket comment, VERSION_LESS 70 and the references are not lists.
  EXPECT_NE(Fixed.find("set(CMAKE_CUDA_ARCHITECTURES 30)\n]]"), std::string::npos);
  EXPECT_NE(Fixed.find("VERSION_LESS 70)"), std::string::npos);
}

TEST(BuildFlags, CacheAndScripts) {
  const auto &T = target("sm_100");
  auto Cache = scanBuildFile("build/CMakeCache.txt",
                             "//CUDA architectures\nCMAKE_CUDA_ARCHITECTURES:STRING=52\n", T);
  ASSERT_EQ(spellings(Cache), std::vector<std::string>{"52"});
  EXPECT_EQ(Cache[0].Line, 2u);
  EXPECT_EQ(Cache[0].Column, 33u);

  const char *Script = "#!/bin/sh\n"
                       "export TORCH_CUDA_ARCH_LIST=\"3.5;6.0;8.0+PTX\" # 3.0 too\n"
                       "cmake -DCMAKE_CUDA_ARCHITECTURES=\"37;75\" ..\n"
                       "nvcc -arch=sm_101a -o k k.cu  # sm_20\n"
                       "ARCH=32 make\n"
                       "gcc -march=native -o my_sm_30 x.c out/sm_35/k.o\n";
  auto Fs = scanBuildFile("build.sh", Script, T);
  ASSERT_EQ(spellings(Fs), (std::vector<std::string>{"3.5", "6.0", "8.0", "37", "75", "sm_101a"}));
  expectPositions(Script, Fs);
  EXPECT_EQ(Fs[0].Arch, "sm_35");
  EXPECT_EQ(Fs[0].Replacement, "7.5");
  EXPECT_EQ(Fs[1].Replacement, "7.5");
  EXPECT_EQ(Fs[2].Level, BuildFlagLevel::Ok);
  EXPECT_EQ(Fs[4].Level, BuildFlagLevel::Ok);
  // sm_101 is sm_110 in CUDA 13: renamed, suffix kept.
  EXPECT_EQ(Fs[5].Replacement, "sm_110a");
  EXPECT_EQ(Fs[5].Message,
            "nvcc 13 does not accept sm_101a (CUDA 13 renamed it sm_110a); use -arch=sm_110a");
}

TEST(BuildFlags, VariantsAndUnknown) {
  const auto &T = target("sm_100");
  auto Fs = scanBuildFile("Makefile",
                          "NVCC += -arch=sm_90f -gencode arch=compute_35a,code=sm_35a -arch=sm_99\n",
                          T);
  ASSERT_EQ(spellings(Fs),
            (std::vector<std::string>{"sm_90f", "compute_35a", "sm_35a", "sm_99"}));
  EXPECT_EQ(Fs[0].Message, "nvcc 13 does not accept sm_90f (sm_90 has no 'f' variant); use "
                           "-arch=sm_90 or -arch=sm_90a");
  EXPECT_TRUE(Fs[0].Replacement.empty());
  // A removed target with a suffix has no like-for-like replacement.
  EXPECT_EQ(Fs[1].Level, BuildFlagLevel::Error);
  EXPECT_TRUE(Fs[1].Replacement.empty());
  EXPECT_EQ(Fs[3].Message, "nvcc 13 does not accept sm_99 (not a CUDA target)");
  EXPECT_TRUE(Fs[3].Replacement.empty());
}

TEST(BuildFlags, NoFalsePositives) {
  const auto &T = target("sm_100");
  const char *Mk = "ARCH ?= x86_64\n"
                   "ARCH := 64\n"
                   "CFLAGS += -march=native -mtune=generic -m32\n"
                   "TARGET_ARCH = aarch64\n"
                   "SMS_DIR = /opt/sms/35\n"
                   "OBJ = kernel_sm_35.o kernel-sm_35.o\n"
                   "N = 35 50\n"
                   "# -arch=sm_20 in a comment\n"
                   "MSG = \"see sm_\"\n"
                   "sm_: ; echo $(SMS) ${CUDA_ARCH} $$SMS\n"
                   "CUDA_ARCH_BIN 35 50\n";
  // Source code that mentions the arch macro is no list either (a header
  // scanned as "other" text).
  EXPECT_TRUE(scanBuildFile("transform_buffer.h",
                            "  SHM_BANKS = ((__CUDA_ARCH__ >= 200) ? 32 : 16),\n"
                            "#if CUDA_ARCH >= 350\n",
                            T)
                  .empty());
  EXPECT_TRUE(scanBuildFile("Makefile", Mk, T).empty());
  EXPECT_TRUE(scanBuildFile("CMakeLists.txt",
                            "set(CMAKE_CUDA_ARCHITECTURES native)\n"
                            "set(CMAKE_CUDA_ARCHITECTURES all-major)\n"
                            "# set(CMAKE_CUDA_ARCHITECTURES 35)\n"
                            "message(\"# not a comment: no target here either\")\n",
                            T)
                  .empty());
  // Malformed input: unterminated quotes, brackets and lines, no crash.
  for (const char *Bad : {"SMS ?= \"35", "set(CMAKE_CUDA_ARCHITECTURES \"35;", "#[[ sm_20",
                          "-arch=sm_", "compute_", "SMS", "SMS=", "CUDA_ARCH:STRING", "\\",
                          "-arch=sm_1234567", "sm_35\\", ""}) {
    for (const char *Path : {"Makefile", "CMakeLists.txt", "x.sh"}) {
      auto Fs = scanBuildFile(Path, Bad, T);
      expectPositions(Bad, Fs);
    }
  }
}

TEST(BuildFlags, TargetForms) {
  // The port's target is spelled in the file's form, suffix included.
  auto Fs = scanBuildFile("CMakeLists.txt", "set(CMAKE_CUDA_ARCHITECTURES 35)\n",
                          target("sm_100a"));
  ASSERT_EQ(Fs.size(), 1u);
  EXPECT_NE(Fs[0].Message.find("or 100a (the port's target)"), std::string::npos);
  Fs = scanBuildFile("Makefile", "NVFLAGS = -gencode arch=compute_52,code=sm_52\n",
                     target("sm_120"));
  ASSERT_EQ(Fs.size(), 2u);
  EXPECT_NE(Fs[0].Message.find("or arch=compute_120 (the port's target)"), std::string::npos);
  EXPECT_EQ(Fs[0].Replacement, "compute_75");
}

TEST(BuildFlags, CompileFlagNote) {
  const auto &B200 = target("sm_100");
  std::vector<std::string> Hopper = {"/usr/local/cuda/bin/nvcc", "-O3", "-arch=sm_90a", "-c",
                                     "gemm.cu", "-o", "gemm.o"};
  auto N = compileFlagNote(Hopper, B200);
  ASSERT_TRUE(N.has_value());
  EXPECT_EQ(*N, "the compile command builds for sm_90a: sm_90a code runs only on compute "
                "capability 9.0; none of it runs on sm_100. For sm_100 use '-gencode "
                "arch=compute_100a,code=sm_100a' for code that uses tcgen05 or other "
                "sm_100a-only features, '-gencode arch=compute_100f,code=sm_100f' for the "
                "family (runs on sm_100, sm_103), or '-arch=sm_100' when it uses no "
                "arch-specific features");
  // The other spellings of the same target.
  for (std::vector<std::string> Args :
       {std::vector<std::string>{"nvcc", "-gencode", "arch=compute_90a,code=sm_90a", "k.cu"},
        std::vector<std::string>{"nvcc", "-gencode=arch=compute_90a,code=[sm_90a,compute_90a]"},
        std::vector<std::string>{"nvcc", "--generate-code", "arch=compute_90a,code=sm_90a"},
        std::vector<std::string>{"nvcc", "-arch", "sm_90a"},
        std::vector<std::string>{"nvcc", "--gpu-architecture=compute_90a"},
        std::vector<std::string>{"clang++", "--cuda-gpu-arch=sm_90a", "-x", "cuda"},
        std::vector<std::string>{"clang++", "--offload-arch=sm_90a"}}) {
    auto M = compileFlagNote(Args, B200);
    ASSERT_TRUE(M.has_value()) << Args[1];
    EXPECT_NE(M->find("builds for sm_90a"), std::string::npos);
  }
  // Nothing without an arch-specific target, or where it runs.
  EXPECT_FALSE(compileFlagNote({"nvcc", "-arch=sm_90", "k.cu"}, B200));
  EXPECT_FALSE(compileFlagNote({"nvcc", "-gencode", "arch=compute_80,code=sm_80"}, B200));
  EXPECT_FALSE(compileFlagNote({"nvcc", "-arch=sm_100a"}, B200));
  EXPECT_FALSE(compileFlagNote({"nvcc", "-arch=sm_90a"}, target("sm_90a")));
  EXPECT_FALSE(compileFlagNote({"nvcc", "-arch=sm_100f"}, target("sm_103")));
  // sm_90a in a file name or a define is not a target.
  EXPECT_FALSE(compileFlagNote({"nvcc", "-DKERNEL=sm_90a", "-o", "k_sm_90a.o", "sm_90a/k.cu"},
                               B200));
  EXPECT_FALSE(compileFlagNote({"nvcc", "-arch"}, B200)); // a flag without its value
  EXPECT_FALSE(compileFlagNote({}, B200));
  // Family code of another major version, and two named targets.
  auto F = compileFlagNote({"nvcc", "-arch=sm_100f", "-gencode", "arch=compute_90a,code=sm_90a"},
                           target("sm_120"));
  ASSERT_TRUE(F.has_value());
  EXPECT_NE(F->find("builds for sm_100f, sm_90a: sm_100f code runs only on compute capability "
                    "10.x from 10.0 up, sm_90a code runs only on compute capability 9.0; none of "
                    "it runs on sm_120"),
            std::string::npos);
  EXPECT_EQ(F->find("tcgen05"), std::string::npos); // sm_120a has none
}

// The table is what the installed nvcc lists (the plain targets; nvcc lists
// no a/f variants).
TEST(BuildFlags, AcceptedTableMatchesNvcc) {
  std::string Nvcc = std::string(FORGE_DEFAULT_CUDA_PATH) + "/bin/nvcc";
  if (!llvm::sys::fs::exists(Nvcc))
    GTEST_SKIP() << "no nvcc at " << Nvcc;
  auto R = runProgram(Nvcc, {Nvcc, "--list-gpu-code"}, {});
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  auto V = runProgram(Nvcc, {Nvcc, "--version"}, {});
  ASSERT_TRUE(static_cast<bool>(V));
  if (V->Stdout.find("release 13.0") == std::string::npos)
    GTEST_SKIP() << "the table is CUDA 13.0's; nvcc here is another release";
  std::set<std::string> Listed;
  llvm::SmallVector<llvm::StringRef> Lines;
  llvm::StringRef(R->Stdout).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines)
    Listed.insert(L.trim().str());
  std::set<std::string> Plain;
  for (const char *A : nvcc13AcceptedTargets())
    if (!llvm::StringRef(A).ends_with("a") && !llvm::StringRef(A).ends_with("f"))
      Plain.insert(A);
  EXPECT_EQ(Plain, Listed);
}

} // namespace
