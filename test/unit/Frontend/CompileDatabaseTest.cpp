//===- CompileDatabaseTest.cpp - compile_commands.json, loaded once -------===//
#include "forge/Frontend/CompileDatabase.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::frontend;
using llvm::Error;

namespace {

TEST(CompileDatabase, OneLoadServesRawArgsFlagsAndEntries) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-compdb", Dir));
  std::string Root = absolutePath(Dir);
  ASSERT_FALSE(bool(writeFileAtomically(Root + "/k.cu", "__global__ void k() {}\n")));
  ASSERT_FALSE(bool(writeFileAtomically(
      Root + "/compile_commands.json",
      "[{\"directory\": \"" + Root + "\", \"command\": \"nvcc -arch=sm_90a -Iinc -DX=1 -c "
      "k.cu\", \"file\": \"k.cu\"}]")));
  auto DB = CompileDatabase::load(Root);
  ASSERT_TRUE(bool(DB)) << llvm::toString(DB.takeError());
  auto Args = (*DB)->argumentsOf(Root + "/k.cu");
  ASSERT_TRUE(bool(Args)) << llvm::toString(Args.takeError());
  EXPECT_EQ(Args->front(), "nvcc");
  EXPECT_NE(std::find(Args->begin(), Args->end(), "-arch=sm_90a"), Args->end());
  auto Flags = (*DB)->flagsOf(Root + "/k.cu");
  ASSERT_TRUE(bool(Flags)) << llvm::toString(Flags.takeError());
  EXPECT_EQ(Flags->Archs, std::vector<std::string>{"sm_90a"});
  EXPECT_NE(std::find(Flags->ClangArgs.begin(), Flags->ClangArgs.end(), "-I" + Root + "/inc"),
            Flags->ClangArgs.end())
      << "a relative -I is relative to the entry's directory";
  EXPECT_EQ((*DB)->allCommands().size(), 1u);
  llvm::sys::fs::remove_directories(Dir);
  // (A directory below Root would find Root's: Clang looks in the parents.)
  llvm::SmallString<128> Empty;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-compdb-none", Empty));
  auto None = CompileDatabase::load(Empty);
  EXPECT_FALSE(bool(None));
  llvm::consumeError(None.takeError());
  llvm::sys::fs::remove_directories(Empty);
}

TEST(CompileDatabase, WhatCompilesAsCuda) {
  EXPECT_TRUE(compilesAsCuda("k.cu", {}));
  EXPECT_FALSE(compilesAsCuda("main.cpp", {"g++", "-c", "main.cpp"}));
  EXPECT_TRUE(compilesAsCuda("main.cpp", {"nvcc", "-x", "cu", "-c", "main.cpp"}));
  EXPECT_TRUE(compilesAsCuda("main.cc", {"clang++", "-x", "cuda", "main.cc"}));
  EXPECT_TRUE(compilesAsCuda("main.cc", {"nvcc", "-xcu", "main.cc"}));
  EXPECT_TRUE(isHostSourceName("a/main.cpp"));
  EXPECT_TRUE(isHostSourceName("x.c"));
  EXPECT_FALSE(isHostSourceName("k.cu"));
  EXPECT_FALSE(isHostSourceName("k.cuh"));
  // .c is C (nvcc: gcc -x c); .C, as for gcc, is C++.
  EXPECT_TRUE(isCSourceName("simple/simple.c"));
  EXPECT_FALSE(isCSourceName("main.C"));
  EXPECT_FALSE(isCSourceName("main.cpp"));
  EXPECT_FALSE(isCSourceName("k.cu"));
  // A host unit: a C or C++ source nothing compiles as CUDA.
  EXPECT_TRUE(isHostUnit("simple.c", {}, {}));
  EXPECT_TRUE(isHostUnit("simple.c", {"nvcc", "-c", "simple.c"}, {"-DX"}));
  EXPECT_FALSE(isHostUnit("simple.c", {"nvcc", "-x", "cu", "-c", "simple.c"}, {}));
  EXPECT_FALSE(isHostUnit("main.cpp", {}, {"-x", "cuda"}));
  EXPECT_FALSE(isHostUnit("k.cu", {}, {}));
  EXPECT_FALSE(isHostUnit("notes.txt", {}, {}));
  // A C unit: a .c host unit (no kernels); '-x cu' makes it CUDA.
  EXPECT_TRUE(isCUnit("simple.c", {"nvcc", "-c", "simple.c"}, {}));
  EXPECT_FALSE(isCUnit("simple.c", {"nvcc", "-x", "cu", "-c", "simple.c"}, {}));
  EXPECT_FALSE(isCUnit("simple.c", {}, {"-x", "cuda"}));
  EXPECT_FALSE(isCUnit("main.cpp", {}, {}));
  EXPECT_FALSE(isCUnit("main.C", {}, {}));
  EXPECT_FALSE(isCUnit("k.cu", {}, {}));
}

TEST(CompileDatabase, CUnitReadAsC) {
  // Every reader of a C unit gets the host compiler's parse (C), as port
  // and list do, unless its compile command says '-x cu'; a C unit that a
  // subcommand needs a kernel of is refused.
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-compdb-c", Dir));
  std::string Root = absolutePath(Dir);
  ASSERT_FALSE(bool(writeFileAtomically(Root + "/plain.c", "int new = 1;\n")));
  ASSERT_FALSE(bool(writeFileAtomically(Root + "/dev.c", "__global__ void k() {}\n")));
  ASSERT_FALSE(bool(writeFileAtomically(
      Root + "/compile_commands.json",
      "[{\"directory\": \"" + Root + "\", \"command\": \"nvcc -c plain.c\", "
      "\"file\": \"plain.c\"}, {\"directory\": \"" + Root + "\", \"command\": "
      "\"nvcc -x cu -c dev.c\", \"file\": \"dev.c\"}]")));
  auto Plain = makeParseOptions(Root + "/plain.c", Root, nullptr, {});
  ASSERT_TRUE(bool(Plain)) << llvm::toString(Plain.takeError());
  EXPECT_TRUE(Plain->HostCompiler);
  auto Dev = makeParseOptions(Root + "/dev.c", Root, nullptr, {});
  ASSERT_TRUE(bool(Dev)) << llvm::toString(Dev.takeError());
  EXPECT_FALSE(Dev->HostCompiler);
  auto NoDb = makeParseOptions(Root + "/dev.c", "", nullptr, {});
  ASSERT_TRUE(bool(NoDb)) << llvm::toString(NoDb.takeError());
  EXPECT_TRUE(NoDb->HostCompiler);
  EXPECT_FALSE(makeParseOptions(Root + "/k.cu", "", nullptr, {})->HostCompiler);
  EXPECT_EQ(compileCommandIn(Root, Root + "/dev.c").back(), "dev.c");
  EXPECT_TRUE(compileCommandIn("", Root + "/dev.c").empty());

  Error E = checkKernelInput(Root + "/plain.c", Root, {});
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(llvm::toString(std::move(E)),
            "'" + Root + "/plain.c' is a C unit (nvcc compiles it with the host compiler): "
            "it has no kernels");
  EXPECT_FALSE(bool(checkKernelInput(Root + "/dev.c", Root, {})));
  EXPECT_FALSE(bool(checkKernelInput(Root + "/plain.c", "", {"-x", "cu"})));
  Error Gone = checkKernelInput(Root + "/gone.c", "", {});
  ASSERT_TRUE(bool(Gone));
  EXPECT_NE(llvm::toString(std::move(Gone)).find("cannot open"), std::string::npos);
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
