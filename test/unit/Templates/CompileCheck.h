//===- CompileCheck.h - nvcc -Xptxas -v over generated text, for the tests -===//
//
// Used by the template tests: compiles CUDA text for sm_90 with -Werror
// all-warnings and reads ptxas' report of every kernel (stack frame, spills
// and shared memory).
//
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEST_UNIT_TEMPLATES_COMPILECHECK_H
#define FORGE_TEST_UNIT_TEMPLATES_COMPILECHECK_H

#include "forge/Build/CudaToolkit.h"
#include "forge/Support/Subprocess.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace forge::templates::test {

struct PtxasKernel {
  std::string Entry; ///< the "Compiling entry function ..." line
  unsigned StackBytes = 0, SpillStores = 0, SpillLoads = 0;
  unsigned SmemBytes = 0; ///< "N bytes smem" (ptxas omits it when 0)
};

struct CompileReport {
  bool Ok = false;
  std::string Stderr;
  std::string Unit; ///< the .cu compiled (kept when the compile fails)
  std::vector<PtxasKernel> Kernels;
};

/// Compiles Source for sm_90 (nvcc -Werror all-warnings -Xptxas -v) in a
/// temporary directory, removed afterwards when the compile succeeds.
inline llvm::Expected<CompileReport> compileForSm90(const build::CudaToolkit &TK,
                                                    llvm::StringRef Source,
                                                    llvm::StringRef Stem) {
  llvm::SmallString<128> Dir;
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory(Stem, Dir))
    return llvm::errorCodeToError(EC);
  llvm::SmallString<128> Unit(Dir), Object(Dir);
  llvm::sys::path::append(Unit, Stem + ".cu");
  llvm::sys::path::append(Object, Stem + ".o");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Unit, EC);
    if (EC)
      return llvm::errorCodeToError(EC);
    OS << Source;
  }
  llvm::Expected<SubprocessResult> P = runProgram(
      TK.NvccPath, {TK.NvccPath, "-arch=sm_90", "-std=c++17", "-Werror", "all-warnings",
                    "-Xptxas", "-v", "-c", Unit.str().str(), "-o", Object.str().str()},
      {600});
  if (!P)
    return P.takeError();
  CompileReport R;
  R.Ok = P->ok();
  R.Stderr = P->Stderr;
  R.Unit = Unit.str().str();
  llvm::Regex Smem("([0-9]+) bytes smem");
  llvm::Regex Spill("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes "
                    "spill loads");
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  llvm::StringRef(P->Stderr).split(Lines, '\n');
  std::string Entry;
  for (llvm::StringRef Line : Lines) {
    if (Line.contains("Compiling entry function"))
      Entry = Line.trim().str();
    llvm::SmallVector<llvm::StringRef, 4> M;
    if (Spill.match(Line, &M)) {
      PtxasKernel K;
      K.Entry = Entry;
      M[1].getAsInteger(10, K.StackBytes);
      M[2].getAsInteger(10, K.SpillStores);
      M[3].getAsInteger(10, K.SpillLoads);
      R.Kernels.push_back(K);
    } else if (!R.Kernels.empty() && Smem.match(Line, &M)) {
      M[1].getAsInteger(10, R.Kernels.back().SmemBytes);
    }
  }
  if (R.Ok)
    llvm::sys::fs::remove_directories(Dir);
  return R;
}

/// Expects no kernel of Report whose entry line contains Filter to spill
/// (stores or loads); returns how many kernels it looked at.
inline unsigned expectNoSpills(const CompileReport &Report, llvm::StringRef Filter = "") {
  unsigned Count = 0;
  for (const PtxasKernel &K : Report.Kernels) {
    if (!llvm::StringRef(K.Entry).contains(Filter))
      continue;
    ++Count;
    EXPECT_EQ(K.SpillStores, 0u) << K.Entry;
    EXPECT_EQ(K.SpillLoads, 0u) << K.Entry;
  }
  return Count;
}

} // namespace forge::templates::test

#endif
