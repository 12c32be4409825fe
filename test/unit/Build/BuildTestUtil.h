//===- BuildTestUtil.h - Helpers shared by the Build unit tests -*- C++ -*-===//
#ifndef FORGE_TEST_UNIT_BUILD_BUILDTESTUTIL_H
#define FORGE_TEST_UNIT_BUILD_BUILDTESTUTIL_H

#include "forge/Build/NvccDriver.h"
#include "forge/Support/FileUtil.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <gtest/gtest.h>
#include <string>

namespace forge::build::testing {

/// A -gencode entry for a target of the Arch table ("sm_90a").
inline CodeTarget sm(llvm::StringRef Name, bool Ptx = false) {
  return CodeTarget(llvm::cantFail(arch::lookupTarget(Name)), Ptx);
}

/// Text of a recorded fixture in test/unit/Build/Inputs.
inline std::string fixturePath(llvm::StringRef Name) {
  llvm::SmallString<256> P(FORGE_BUILD_TEST_INPUTS);
  llvm::sys::path::append(P, Name);
  return P.str().str();
}

inline std::string fixture(llvm::StringRef Name) {
  auto Text = readFile(fixturePath(Name));
  if (!Text) {
    ADD_FAILURE() << llvm::toString(Text.takeError());
    return "";
  }
  return *Text;
}

/// A temporary directory removed with the object.
class TempDir {
public:
  TempDir() {
    if (llvm::sys::fs::createUniqueDirectory("forge-build-test", Path))
      ADD_FAILURE() << "cannot create a temporary directory";
  }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
  std::string path(llvm::StringRef Name = "") const {
    llvm::SmallString<256> P(Path);
    if (!Name.empty())
      llvm::sys::path::append(P, Name);
    return P.str().str();
  }
  std::string write(llvm::StringRef Name, llvm::StringRef Text) const {
    std::string P = path(Name);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
    if (llvm::Error E = writeFileAtomically(P, Text))
      ADD_FAILURE() << llvm::toString(std::move(E));
    return P;
  }

private:
  llvm::SmallString<128> Path;
};

/// A shell script standing in for nvcc: it counts its runs in <dir>/count
/// and acts on markers in the source text:
///   SLEEP   sleeps 30 s (for timeouts);
///   CRASH   kills itself with SIGSEGV;
///   BROKEN  prints a front-end error at line 3 and exits 2;
///   PTXERR  prints a ptxas error at PTX line 31; with -keep-dir it writes
///           the recorded wgmma.ptx there and names that file;
///   USAGE   prints `ptxas -v` lines for kernel _Z1kPf;
/// otherwise it writes "object of <source text>" to the -o path.
class FakeNvcc {
public:
  explicit FakeNvcc(llvm::StringRef Version = "13.0.88") {
    std::string Script = R"(#!/bin/sh
if [ "$1" = "--version" ]; then
  echo "nvcc: NVIDIA (R) Cuda compiler driver"
  echo "Cuda compilation tools, release 13.0, V@VERSION@"
  exit 0
fi
echo run >> "@DIR@/count"
echo "$*" >> "@DIR@/args"
out=""; keep=""; src=""; prev=""
for a in "$@"; do
  case "$prev" in
    -o) out="$a" ;;
    -keep-dir) keep="$a" ;;
  esac
  case "$a" in *.cu) src="$a" ;; esac
  prev="$a"
done
if grep -q SLEEP "$src"; then exec sleep 30; fi
if grep -q CRASH "$src"; then kill -SEGV $$; fi
if grep -q BROKEN "$src"; then
  echo "$src(3): error: identifier \"broken\" is undefined" >&2
  echo "    broken;" >&2
  echo "    ^" >&2
  echo "" >&2
  echo "1 error detected in the compilation of \"$src\"." >&2
  exit 2
fi
if grep -q PTXERR "$src"; then
  ptx=/tmp/tmpxft_0000dead_00000000-6_gone.ptx
  if [ -n "$keep" ]; then cp "@PTX@" "$keep/k.ptx"; ptx="$keep/k.ptx"; fi
  echo "ptxas $ptx, line 31; error   : Instruction 'wgmma.fence' not supported on .target 'sm_90'" >&2
  echo "ptxas fatal   : Ptx assembly aborted due to errors" >&2
  exit 255
fi
if grep -q USAGE "$src"; then
  echo "ptxas info    : 0 bytes gmem" >&2
  echo "ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'" >&2
  echo "ptxas info    : Function properties for _Z1kPf" >&2
  echo "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" >&2
  echo "ptxas info    : Used 12 registers, used 0 barriers" >&2
fi
if [ -n "$out" ]; then
  { echo "object of"; cat "$src"; } > "$out"
fi
exit 0
)";
    replaceAll(Script, "@VERSION@", Version);
    replaceAll(Script, "@DIR@", Dir.path());
    replaceAll(Script, "@PTX@", fixturePath("wgmma.ptx"));
    Dir.write("bin/nvcc", Script);
    llvm::sys::fs::setPermissions(Dir.path("bin/nvcc"),
                                  llvm::sys::fs::all_read |
                                      llvm::sys::fs::all_exe |
                                      llvm::sys::fs::owner_write);
  }

  std::string root() const { return Dir.path(); }
  std::string nvcc() const { return Dir.path("bin/nvcc"); }
  CudaToolkit toolkit() const {
    auto TK = CudaToolkit::find(root());
    if (!TK) {
      ADD_FAILURE() << llvm::toString(TK.takeError());
      return {};
    }
    return *TK;
  }
  /// How many times the fake compiled (not counting --version).
  unsigned runs() const {
    auto Text = readFile(Dir.path("count"));
    if (!Text) {
      llvm::consumeError(Text.takeError());
      return 0;
    }
    return llvm::StringRef(*Text).count('\n');
  }
  /// The argument lines of every run, one per line.
  std::string args() const {
    auto Text = readFile(Dir.path("args"));
    if (!Text) {
      llvm::consumeError(Text.takeError());
      return "";
    }
    return *Text;
  }

private:
  static void replaceAll(std::string &S, llvm::StringRef From,
                         llvm::StringRef To) {
    for (size_t Pos = S.find(From.str()); Pos != std::string::npos;
         Pos = S.find(From.str(), Pos + To.size()))
      S.replace(Pos, From.size(), To.str());
  }
  TempDir Dir;
};

} // namespace forge::build::testing

#endif
