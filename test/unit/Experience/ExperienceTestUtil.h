//===- ExperienceTestUtil.h - Temporary files and entries -------*- C++ -*-===//
#ifndef FORGE_TEST_UNIT_EXPERIENCE_EXPERIENCETESTUTIL_H
#define FORGE_TEST_UNIT_EXPERIENCE_EXPERIENCETESTUTIL_H

#include "forge/Experience/Experience.h"
#include "forge/Support/FileUtil.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace forge::experience::test {

/// A directory removed with everything in it at the end of the test.
struct TempDir {
  std::string Path;
  TempDir() {
    llvm::SmallString<128> P;
    EXPECT_FALSE(bool(llvm::sys::fs::createUniqueDirectory("forge-exp-test", P)));
    Path = std::string(P);
  }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
  std::string path(llvm::StringRef Name) const { return Path + "/" + Name.str(); }
  std::string write(llvm::StringRef Name, llvm::StringRef Text) const {
    EXPECT_FALSE(bool(writeFileAtomically(path(Name), Text)));
    return path(Name);
  }
  std::string read(llvm::StringRef Name) const {
    auto T = readFile(path(Name));
    EXPECT_TRUE(bool(T));
    return T ? *T : (llvm::consumeError(T.takeError()), std::string());
  }
};

/// An entry with the information-only fields filled.
inline Entry entry(llvm::StringRef T, llvm::StringRef Pattern, llvm::StringRef Arch, Verdict V,
                   double Gain = 0, llvm::StringRef Family = "f") {
  Entry E;
  E.Transformation = T.str();
  E.Pattern = Pattern.str();
  E.Family = Family.str();
  E.Arch = Arch.str();
  E.V = V;
  E.Gain = Gain;
  E.Kernel = "k";
  E.File = "k.cu";
  E.Time = "2026-11-30T12:00:00Z";
  E.ForgeVersion = "test";
  return E;
}

/// Restores environment variables at the end of the test.
struct EnvGuard {
  std::vector<std::pair<std::string, std::optional<std::string>>> Saved;
  explicit EnvGuard(std::initializer_list<const char *> Names) {
    for (const char *N : Names) {
      const char *V = std::getenv(N);
      Saved.push_back({N, V ? std::optional<std::string>(V) : std::nullopt});
    }
  }
  ~EnvGuard() {
    for (auto &[N, V] : Saved)
      V ? setenv(N.c_str(), V->c_str(), 1) : unsetenv(N.c_str());
  }
};

} // namespace forge::experience::test

#endif
