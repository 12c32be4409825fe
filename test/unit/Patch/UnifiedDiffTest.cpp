#include "forge/Patch/PatchSet.h"
#include "forge/Patch/UnifiedDiff.h"
#include "forge/Support/FileUtil.h"
#include "forge/Support/Subprocess.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <chrono>
#include <optional>
#include <random>

using namespace forge;
using namespace forge::patch;

namespace {

std::vector<std::string> splitKeepingNewlines(llvm::StringRef Text) {
  std::vector<std::string> Lines;
  while (!Text.empty()) {
    size_t NL = Text.find('\n');
    size_t Len = NL == llvm::StringRef::npos ? Text.size() : NL + 1;
    Lines.push_back(Text.take_front(Len).str());
    Text = Text.drop_front(Len);
  }
  return Lines;
}

/// A strict applier of one file's unified diff, independent of the code
/// under test: every context and removed line must match, and the hunk
/// header counts must agree with the hunk body.
std::optional<std::string> applyDiff(llvm::StringRef Old, llvm::StringRef Diff,
                                     std::string &Why) {
  std::vector<std::string> OldLines = splitKeepingNewlines(Old);
  std::vector<std::string> D = splitKeepingNewlines(Diff);
  if (D.size() < 2 || !llvm::StringRef(D[0]).starts_with("--- ") ||
      !llvm::StringRef(D[1]).starts_with("+++ ")) {
    Why = "missing file header";
    return std::nullopt;
  }
  std::string Out;
  size_t I = 0;        // next old line
  size_t NewCount = 0; // new lines so far
  for (size_t K = 2; K < D.size();) {
    unsigned OB, OC = 1, NB, NC = 1;
    if (sscanf(D[K].c_str(), "@@ -%u,%u +%u,%u @@", &OB, &OC, &NB, &NC) != 4 &&
        sscanf(D[K].c_str(), "@@ -%u +%u,%u @@", &OB, &NB, &NC) != 3 &&
        sscanf(D[K].c_str(), "@@ -%u,%u +%u @@", &OB, &OC, &NB) != 3 &&
        sscanf(D[K].c_str(), "@@ -%u +%u @@", &OB, &NB) != 2) {
      Why = "bad hunk header: " + D[K];
      return std::nullopt;
    }
    size_t Start = OC == 0 ? OB : OB - 1;
    if (Start < I || Start > OldLines.size()) {
      Why = "hunk out of order: " + D[K];
      return std::nullopt;
    }
    // The new start must be the old start shifted by the edits so far.
    size_t NewBefore = NewCount + (Start - I);
    if ((NC == 0 ? NewBefore : NewBefore + 1) != NB) {
      Why = "new start line is wrong in " + D[K];
      return std::nullopt;
    }
    NewCount += Start - I;
    for (; I < Start; ++I)
      Out += OldLines[I];
    ++K;
    unsigned SeenOld = 0, SeenNew = 0;
    while (K < D.size() && !llvm::StringRef(D[K]).starts_with("@@")) {
      char Tag = D[K][0];
      std::string Text = D[K].substr(1);
      ++K;
      if (K < D.size() && D[K] == "\\ No newline at end of file\n") {
        Text.pop_back();
        ++K;
      }
      if (Tag == ' ' || Tag == '-') {
        if (I >= OldLines.size() || OldLines[I] != Text) {
          Why = "context or removed line does not match: " + Text;
          return std::nullopt;
        }
        ++I;
        ++SeenOld;
      }
      if (Tag == ' ' || Tag == '+') {
        Out += Text;
        ++SeenNew;
        ++NewCount;
      }
      if (Tag != ' ' && Tag != '-' && Tag != '+') {
        Why = "bad line: " + Text;
        return std::nullopt;
      }
    }
    if (SeenOld != OC || SeenNew != NC) {
      Why = "hunk counts do not match the header";
      return std::nullopt;
    }
  }
  for (; I < OldLines.size(); ++I)
    Out += OldLines[I];
  return Out;
}

/// The length of a longest common subsequence of lines, by dynamic
/// programming: the reference for the diff being minimal.
size_t lcsLength(const std::vector<std::string> &A,
                 const std::vector<std::string> &B) {
  std::vector<size_t> Prev(B.size() + 1), Cur(B.size() + 1);
  for (size_t I = 1; I <= A.size(); ++I) {
    for (size_t J = 1; J <= B.size(); ++J)
      Cur[J] = A[I - 1] == B[J - 1] ? Prev[J - 1] + 1
                                    : std::max(Prev[J], Cur[J - 1]);
    std::swap(Prev, Cur);
  }
  return Prev[B.size()];
}

std::pair<size_t, size_t> countChanges(llvm::StringRef Diff) {
  size_t Minus = 0, Plus = 0;
  std::vector<std::string> D = splitKeepingNewlines(Diff);
  for (size_t K = 2; K < D.size(); ++K) {
    if (D[K][0] == '-')
      ++Minus;
    else if (D[K][0] == '+')
      ++Plus;
  }
  return {Minus, Plus};
}

class TempDir {
public:
  TempDir() {
    std::error_code EC = llvm::sys::fs::createUniqueDirectory("forge-diff", Path);
    EXPECT_FALSE(EC);
  }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
  std::string file(llvm::StringRef Name) const {
    llvm::SmallString<256> P(Path);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
  llvm::SmallString<256> Path;
};

/// Writes Old to <dir>/src/k.cu, applies Diff there with `patch -p1`, and
/// returns the result.
std::string applyWithPatch(llvm::StringRef Old, llvm::StringRef Diff,
                           llvm::StringRef RelPath = "src/k.cu") {
  auto PatchExe = findProgram("patch");
  if (!PatchExe)
    return "<patch not found>";
  TempDir Dir;
  std::string Target = Dir.file(RelPath);
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Target));
  if (llvm::Error E = writeFileAtomically(Target, Old))
    return llvm::toString(std::move(E));
  std::string DiffPath = Dir.file("change.diff");
  if (llvm::Error E = writeFileAtomically(DiffPath, Diff))
    return llvm::toString(std::move(E));
  SubprocessOptions Opts;
  Opts.WorkingDir = std::string(Dir.Path);
  Opts.TimeoutSeconds = 30;
  auto R = runProgram(*PatchExe,
                      {"patch", "-p1", "--batch", "--no-backup-if-mismatch",
                       "-i", DiffPath},
                      Opts);
  if (!R)
    return llvm::toString(R.takeError());
  if (!R->ok())
    return "<patch failed: " + R->Stdout + R->Stderr + ">";
  auto Text = readFile(Target);
  if (!Text)
    return llvm::toString(Text.takeError());
  return *Text;
}

/// Checks the diff with our strict applier, with `patch -p1` and, where git
/// is installed, with `git apply`.
void expectRoundTrip(const std::string &Old, const std::string &New) {
  std::string Diff = unifiedDiff(Old, New, "a/src/k.cu", "b/src/k.cu");
  if (Old == New) {
    EXPECT_EQ(Diff, "");
    return;
  }
  std::string Why;
  auto Applied = applyDiff(Old, Diff, Why);
  ASSERT_TRUE(Applied.has_value()) << Why << "\n" << Diff;
  EXPECT_EQ(*Applied, New) << Diff;
  EXPECT_EQ(applyWithPatch(Old, Diff), New) << Diff;

  auto Git = findProgram("git");
  if (!Git)
    return;
  TempDir Dir;
  std::string Target = Dir.file("src/k.cu");
  llvm::sys::fs::create_directories(Dir.file("src"));
  ASSERT_FALSE(bool(writeFileAtomically(Target, Old)));
  std::string DiffPath = Dir.file("change.diff");
  ASSERT_FALSE(bool(writeFileAtomically(DiffPath, Diff)));
  SubprocessOptions Opts;
  Opts.WorkingDir = std::string(Dir.Path);
  Opts.TimeoutSeconds = 30;
  auto R = runProgram(*Git, {"git", "apply", "--unsafe-paths", DiffPath}, Opts);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->ok()) << R->Stderr << "\n" << Diff;
  auto Text = readFile(Target);
  ASSERT_TRUE(bool(Text));
  EXPECT_EQ(*Text, New) << Diff;
}

std::string numbered(unsigned From, unsigned To) {
  std::string S;
  for (unsigned I = From; I <= To; ++I)
    S += "line " + std::to_string(I) + "\n";
  return S;
}

TEST(UnifiedDiff, IdenticalTextsGiveNothing) {
  EXPECT_EQ(unifiedDiff("", "", "a/x", "b/x"), "");
  EXPECT_EQ(unifiedDiff("a\nb\n", "a\nb\n", "a/x", "b/x"), "");
  EXPECT_EQ(unifiedDiff("a\nb", "a\nb", "a/x", "b/x"), "");
}

TEST(UnifiedDiff, ExactFormat) {
  std::string Old = numbered(1, 10);
  std::string New = Old;
  New.replace(New.find("line 5\n"), 7, "five\n");
  EXPECT_EQ(unifiedDiff(Old, New, "a/k.cu", "b/k.cu"),
            "--- a/k.cu\n"
            "+++ b/k.cu\n"
            "@@ -2,7 +2,7 @@\n"
            " line 2\n"
            " line 3\n"
            " line 4\n"
            "-line 5\n"
            "+five\n"
            " line 6\n"
            " line 7\n"
            " line 8\n");
  // GNU diff prints a one-line range without its count, and an empty range
  // as the line before it.
  EXPECT_EQ(unifiedDiff("a\n", "b\n", "a/k", "b/k"),
            "--- a/k\n+++ b/k\n@@ -1 +1 @@\n-a\n+b\n");
  EXPECT_EQ(unifiedDiff("", "b\n", "a/k", "b/k"),
            "--- a/k\n+++ b/k\n@@ -0,0 +1 @@\n+b\n");
  EXPECT_EQ(unifiedDiff("a\nb\n", "a\n", "a/k", "b/k", 0),
            "--- a/k\n+++ b/k\n@@ -2 +1,0 @@\n-b\n");
}

TEST(UnifiedDiff, MissingNewlineIsMarked) {
  EXPECT_EQ(unifiedDiff("a\nb", "a\nb\n", "a/k", "b/k"),
            "--- a/k\n+++ b/k\n@@ -1,2 +1,2 @@\n a\n-b\n"
            "\\ No newline at end of file\n+b\n");
  EXPECT_EQ(unifiedDiff("a\nb", "x\nb", "a/k", "b/k"),
            "--- a/k\n+++ b/k\n@@ -1,2 +1,2 @@\n-a\n+x\n b\n"
            "\\ No newline at end of file\n");
}

TEST(UnifiedDiff, ContextControlsHunkSplitting) {
  std::string Old = numbered(1, 30);
  std::string New = Old;
  New.replace(New.find("line 3\n"), 7, "three\n");
  New.replace(New.find("line 25\n"), 8, "twenty-five\n");
  std::string Diff = unifiedDiff(Old, New, "a/k", "b/k");
  EXPECT_EQ(llvm::StringRef(Diff).count("@@ -"), 2u) << Diff;
  // Changes 8 lines apart share a hunk: their contexts touch (2 * 3 >= 6).
  std::string Near = Old;
  Near.replace(Near.find("line 3\n"), 7, "three\n");
  Near.replace(Near.find("line 10\n"), 8, "ten\n");
  EXPECT_EQ(llvm::StringRef(unifiedDiff(Old, Near, "a/k", "b/k")).count("@@ -"),
            1u);
  EXPECT_EQ(llvm::StringRef(unifiedDiff(Old, Near, "a/k", "b/k", 1)).count("@@ -"),
            2u);
}

TEST(UnifiedDiff, RoundTripsThroughPatch) {
  std::string Base = numbered(1, 40);
  auto replaceLine = [](std::string S, unsigned N, llvm::StringRef With) {
    std::string Key = "line " + std::to_string(N) + "\n";
    return S.replace(S.find(Key), Key.size(), With.str());
  };
  // Insertions at the start, in the middle and at the end.
  expectRoundTrip(Base, "#include <cuda.h>\n" + Base);
  expectRoundTrip(Base, replaceLine(Base, 20, "line 20\nnew a\nnew b\n"));
  expectRoundTrip(Base, Base + "tail\n");
  // Deletions.
  expectRoundTrip(Base, replaceLine(Base, 1, ""));
  expectRoundTrip(Base, replaceLine(replaceLine(Base, 17, ""), 18, ""));
  expectRoundTrip(Base, replaceLine(Base, 40, ""));
  // Several hunks, changes and mixed edits.
  expectRoundTrip(Base, replaceLine(replaceLine(replaceLine(Base, 2, "two\n"),
                                                20, ""),
                                    39, "x\ny\n"));
  // No newline at the end: removed, added, kept with a change before it,
  // and the last line itself changed.
  std::string NoNL = Base.substr(0, Base.size() - 1);
  expectRoundTrip(NoNL, Base);
  expectRoundTrip(Base, NoNL);
  expectRoundTrip(NoNL, replaceLine(Base, 38, "changed\n").substr(
                            0, replaceLine(Base, 38, "changed\n").size() - 1));
  expectRoundTrip(NoNL, NoNL.substr(0, NoNL.size() - 2) + "XY");
  expectRoundTrip("a", "b");
  // Everything replaced; from and to a file of one line.
  expectRoundTrip(Base, numbered(100, 130));
  expectRoundTrip("only\n", Base);
  expectRoundTrip(Base, "only\n");
  // Whole file deleted down to nothing, and the text without newlines.
  expectRoundTrip("a\nb\n", "a\n");
}

TEST(UnifiedDiff, RandomEditsAreMinimalAndApply) {
  std::mt19937 Rng(12345);
  const char *Alphabet[] = {"a\n", "b\n", "c\n", "d\n", "e\n", "{\n", "}\n"};
  for (int Round = 0; Round < 300; ++Round) {
    auto randomText = [&](unsigned MaxLines) {
      std::string S;
      unsigned N = Rng() % (MaxLines + 1);
      for (unsigned I = 0; I < N; ++I)
        S += Alphabet[Rng() % 7];
      if (!S.empty() && Rng() % 4 == 0)
        S.pop_back(); // no newline at the end
      return S;
    };
    std::string Old = randomText(30), New = randomText(30);
    unsigned Context = Rng() % 4;
    std::string Diff =
        unifiedDiff(Old, New, "a/src/k.cu", "b/src/k.cu", Context);
    if (Old == New) {
      EXPECT_EQ(Diff, "");
      continue;
    }
    std::string Why;
    auto Applied = applyDiff(Old, Diff, Why);
    ASSERT_TRUE(Applied.has_value()) << Why << "\n" << Diff;
    ASSERT_EQ(*Applied, New) << Diff;
    auto A = splitKeepingNewlines(Old), B = splitKeepingNewlines(New);
    size_t L = lcsLength(A, B);
    auto [Minus, Plus] = countChanges(Diff);
    EXPECT_EQ(Minus, A.size() - L) << Diff;
    EXPECT_EQ(Plus, B.size() - L) << Diff;
    // A few through the real tool too.
    if (Round % 30 == 0) {
      EXPECT_EQ(applyWithPatch(Old, Diff), New) << Diff;
    }
  }
}

TEST(UnifiedDiff, LargeFilesAreFast) {
  // Two unrelated files of 5000 lines (worst case for Myers: D = N + M)
  // and a file with scattered edits.
  std::string Old, Unrelated, Scattered;
  for (unsigned I = 0; I < 5000; ++I) {
    Old += "  value[" + std::to_string(I) + "] = f(x);\n";
    Unrelated += "  other[" + std::to_string(I) + "] = g(y);\n";
    Scattered += I % 37 == 0 ? "  changed();\n"
                             : "  value[" + std::to_string(I) + "] = f(x);\n";
  }
  auto Start = std::chrono::steady_clock::now();
  std::string D1 = unifiedDiff(Old, Unrelated, "a/k", "b/k");
  std::string D2 = unifiedDiff(Old, Scattered, "a/src/k.cu", "b/src/k.cu");
  double Seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - Start)
                       .count();
  EXPECT_LT(Seconds, 1.0);
  EXPECT_EQ(countChanges(D1), std::make_pair(size_t(5000), size_t(5000)));
  EXPECT_EQ(countChanges(D2), std::make_pair(size_t(136), size_t(136)));
  std::string Why;
  auto A2 = applyDiff(Old, D2, Why);
  ASSERT_TRUE(A2.has_value()) << Why;
  EXPECT_EQ(*A2, Scattered);
  EXPECT_EQ(applyWithPatch(Old, D2), Scattered);
}

TEST(UnifiedDiff, PatchSetDiffCoversEveryFile) {
  TempDir Dir;
  std::string A = Dir.file("src/a.cu"), B = Dir.file("src/b.cu");
  llvm::sys::fs::create_directories(Dir.file("src"));
  std::string AText = numbered(1, 20), BText = "int b;\nint c;";
  ASSERT_FALSE(bool(writeFileAtomically(A, AText)));
  ASSERT_FALSE(bool(writeFileAtomically(B, BText)));

  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement(A, 0, 0, "// header\n"), "p1")));
  ASSERT_FALSE(bool(P.add(makeReplacement(A, AText.find("line 15"), 7, "fifteen"), "p2")));
  ASSERT_FALSE(bool(P.add(makeReplacement(B, BText.size(), 0, "\n"), "p3")));
  auto Diff = P.diff(diskContents(), 3, Dir.Path);
  ASSERT_TRUE(bool(Diff)) << llvm::toString(Diff.takeError());
  EXPECT_NE(Diff->find("--- a/src/a.cu\n+++ b/src/a.cu\n"), std::string::npos)
      << *Diff;
  EXPECT_NE(Diff->find("--- a/src/b.cu\n+++ b/src/b.cu\n"), std::string::npos)
      << *Diff;
  EXPECT_LT(Diff->find("a/src/a.cu"), Diff->find("a/src/b.cu"));

  // Applying it in the directory gives what applyTo gives.
  std::string DiffPath = Dir.file("all.diff");
  ASSERT_FALSE(bool(writeFileAtomically(DiffPath, *Diff)));
  auto PatchExe = findProgram("patch");
  ASSERT_TRUE(PatchExe.has_value());
  SubprocessOptions Opts;
  Opts.WorkingDir = std::string(Dir.Path);
  auto R = runProgram(*PatchExe, {"patch", "-p1", "--batch", "-i", DiffPath}, Opts);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_TRUE(R->ok()) << R->Stdout << R->Stderr << *Diff;
  auto NewA = readFile(A), NewB = readFile(B);
  ASSERT_TRUE(NewA && NewB);
  EXPECT_EQ(*NewA, "// header\n" + numbered(1, 20).replace(
                                       numbered(1, 20).find("line 15"), 7,
                                       "fifteen"));
  EXPECT_EQ(*NewB, "int b;\nint c;\n");

  // A file the provider cannot give is an error, not a partial diff.
  auto Bad = P.diff([](llvm::StringRef) -> llvm::Expected<std::string> {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "gone");
  });
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()), "gone");
}

TEST(UnifiedDiff, AbsolutePathsLoseTheirLeadingSlash) {
  PatchSet P;
  ASSERT_FALSE(bool(P.add(makeReplacement("/abs/k.cu", 0, 1, "y"), "p")));
  auto Diff = P.diff([](llvm::StringRef) -> llvm::Expected<std::string> {
    return std::string("x\n");
  });
  ASSERT_TRUE(bool(Diff));
  EXPECT_EQ(*Diff, "--- a/abs/k.cu\n+++ b/abs/k.cu\n@@ -1 +1 @@\n-x\n+y\n");
}

} // namespace
