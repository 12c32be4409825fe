//===- Port/BuildFlags.cpp - GPU arch flags in build files ----------------===//
#include "forge/Port/BuildFlags.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include <algorithm>

using namespace llvm;

namespace forge::port {

namespace {

// What CUDA 13.0's nvcc (V13.0.88) accepts for -arch / -code: the plain
// targets are `nvcc --list-gpu-code` (sm_*) and `--list-gpu-arch`
// (compute_*); the a/f variants were found by compiling for each one
// (nvcc lists none of them). BuildFlagsTest checks the plain ones against
// the installed nvcc.
const char *const Accepted[] = {
    "sm_75",  "sm_80",   "sm_86",   "sm_87",   "sm_88",   "sm_89",   "sm_90",  "sm_90a",
    "sm_100", "sm_100a", "sm_100f", "sm_103",  "sm_103a", "sm_103f", "sm_110", "sm_110a",
    "sm_110f", "sm_120", "sm_120a", "sm_120f", "sm_121",  "sm_121a", "sm_121f",
};

/// Compute capabilities that existed, for telling a target list's bare
/// numbers from other numbers.
const unsigned KnownCCs[] = {10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62,
                             70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121};

/// Why nvcc 13 rejects a compute capability: its generation and the CUDA
/// release that removed it.
struct Removal {
  unsigned From, To;
  const char *Generation;
  const char *Removed;
};
const Removal Removals[] = {
    {10, 13, "Tesla", "CUDA 7.0"},    {20, 21, "Fermi", "CUDA 9.0"},
    {30, 32, "Kepler", "CUDA 11.0"},  {35, 37, "Kepler", "CUDA 12.0"},
    {50, 53, "Maxwell", "CUDA 13.0"}, {60, 62, "Pascal", "CUDA 13.0"},
    {70, 72, "Volta", "CUDA 13.0"},
};

/// Targets CUDA 13 renamed: the token-for-token replacement keeps the suffix.
struct Rename {
  unsigned From, To;
};
const Rename Renames[] = {{101, 110}};

bool isKnownCC(unsigned CC) { return is_contained(KnownCCs, CC); }

bool accepted(StringRef SmName) {
  return any_of(Accepted, [&](const char *A) { return SmName == A; });
}

/// The oldest compute capability nvcc 13 accepts (75).
unsigned oldestAccepted() {
  unsigned Min = ~0u;
  for (const char *A : Accepted) {
    StringRef S(A);
    S.consume_front("sm_");
    unsigned CC;
    if (!S.consumeInteger(10, CC) && S.empty())
      Min = std::min(Min, CC);
  }
  return Min;
}

/// How a target is spelled, so that a replacement keeps the form.
enum class Form { Sm, Compute, Number, Dotted };

struct ArchToken {
  size_t Offset, Length;
  Form F;
  unsigned CC;        ///< 35, 100
  std::string Suffix; ///< "", "a", "f"
};

std::string spell(Form F, unsigned CC, StringRef Suffix) {
  switch (F) {
  case Form::Sm:
    return "sm_" + std::to_string(CC) + Suffix.str();
  case Form::Compute:
    return "compute_" + std::to_string(CC) + Suffix.str();
  case Form::Number:
    return std::to_string(CC) + Suffix.str();
  case Form::Dotted:
    return std::to_string(CC / 10) + "." + std::to_string(CC % 10) + Suffix.str();
  }
  return "";
}

/// The target's name in form F ("sm_100", "compute_100", "100", "10.0").
std::string spellTarget(Form F, const arch::TargetInfo &T) {
  StringRef Suffix = T.Variant == arch::ArchVariant::ArchSpecific     ? "a"
                     : T.Variant == arch::ArchVariant::FamilySpecific ? "f"
                                                                      : "";
  return spell(F, T.ccNumber(), Suffix);
}

bool isWordChar(char C) { return isAlnum(C) || C == '_'; }

/// Text with comments blanked out (offsets and newlines kept).
std::string maskComments(StringRef Text, BuildFileKind K) {
  std::string Out = Text.str();
  bool InQuote = false;
  for (size_t I = 0; I < Out.size(); ++I) {
    char C = Out[I];
    if (C == '\n') {
      // Makefiles and shells do not continue a quote over lines for our
      // purposes; CMake does.
      if (K != BuildFileKind::CMake)
        InQuote = false;
      continue;
    }
    if (C == '\\') {
      ++I; // an escaped character, '\#' included
      continue;
    }
    if (C == '"' && K != BuildFileKind::Makefile) {
      InQuote = !InQuote;
      continue;
    }
    if (C != '#' || InQuote)
      continue;
    // A shell comment starts a word; make and CMake take any '#'.
    if (K == BuildFileKind::Other && I > 0 && !isSpace(Out[I - 1]) && Out[I - 1] != ';')
      continue;
    size_t End;
    if (K == BuildFileKind::CMake && StringRef(Out).substr(I + 1).starts_with("[")) {
      // A bracket comment: #[[ ... ]] or #[=[ ... ]=].
      size_t J = I + 2;
      while (J < Out.size() && Out[J] == '=')
        ++J;
      if (J < Out.size() && Out[J] == '[') {
        std::string Close = "]" + std::string(J - I - 2, '=') + "]";
        size_t C2 = Out.find(Close, J);
        End = C2 == std::string::npos ? Out.size() : C2 + Close.size();
        for (size_t X = I; X < End; ++X)
          if (Out[X] != '\n')
            Out[X] = ' ';
        I = End - 1;
        continue;
      }
    }
    End = Out.find('\n', I);
    if (End == std::string::npos)
      End = Out.size();
    for (size_t X = I; X < End; ++X)
      Out[X] = ' ';
    I = End - 1;
  }
  return Out;
}

/// Reads "35", "35a", "100f" at S[I...]: the number and suffix, and where it
/// ends. None if no digits.
std::optional<ArchToken> readNumber(StringRef S, size_t I, Form F) {
  size_t J = I;
  while (J < S.size() && isDigit(S[J]) && J - I < 3)
    ++J;
  if (J == I)
    return std::nullopt;
  unsigned CC = 0;
  S.slice(I, J).getAsInteger(10, CC);
  ArchToken T{I, 0, F, CC, ""};
  if (F == Form::Dotted) {
    // "3.5": one digit, a dot, one digit.
    if (J - I != 1 && J - I != 2)
      return std::nullopt;
    if (J + 1 >= S.size() || S[J] != '.' || !isDigit(S[J + 1]))
      return std::nullopt;
    T.CC = CC * 10 + (S[J + 1] - '0');
    J += 2;
  }
  if (J < S.size() && (S[J] == 'a' || S[J] == 'f')) {
    T.Suffix = std::string(1, S[J]);
    ++J;
  }
  T.Length = J - I;
  return T;
}

/// sm_NN / compute_NN tokens of S (comments already blanked).
std::vector<ArchToken> archTokens(StringRef S) {
  std::vector<ArchToken> Out;
  for (StringRef Prefix : {"sm_", "compute_"}) {
    Form F = Prefix == "sm_" ? Form::Sm : Form::Compute;
    for (size_t I = S.find(Prefix); I != StringRef::npos; I = S.find(Prefix, I + 1)) {
      // The token starts a word or a flag's value: not "my_sm_35",
      // "kernel-sm_35", "dir/sm_35".
      if (I > 0 && !StringRef(" \t\r\n=,\"'[(;{:").contains(S[I - 1]))
        continue;
      auto T = readNumber(S, I + Prefix.size(), F);
      if (!T)
        continue;
      size_t End = T->Offset + T->Length;
      if (End < S.size() && isWordChar(S[End]))
        continue;
      T->Length = End - I;
      T->Offset = I;
      Out.push_back(*T);
    }
  }
  return Out;
}

/// Whether Name (a variable or property) holds a list of targets, and
/// whether it is the weak plain "ARCH" (also used for CPU word sizes).
bool isTargetListName(StringRef Name, bool &Weak) {
  std::string U = Name.upper();
  StringRef N(U);
  Weak = N == "ARCH" || N == "NVCC_ARCH";
  return Weak || N == "SMS" || N == "SM" || N.starts_with("GENCODE") ||
         N.contains("CUDA_ARCH") || N.contains("GPU_ARCH") || N.contains("SM_ARCH") ||
         N.ends_with("_SMS") || N.contains("COMPUTE_CAPABILIT");
}

/// Bare numbers ("35", "35-real", "3.5+PTX", "90a") in the values of
/// target-list variables and properties.
std::vector<ArchToken> listTokens(StringRef S, BuildFileKind K) {
  std::vector<ArchToken> Out;
  size_t I = 0;
  while (I < S.size()) {
    if (!isAlpha(S[I]) && S[I] != '_') {
      ++I;
      continue;
    }
    size_t B = I;
    while (I < S.size() && isWordChar(S[I]))
      ++I;
    if (B > 0) {
      char P = S[B - 1];
      // Part of a longer word, or a reference: $(SMS), ${CUDA_ARCH}, $SMS.
      if (isWordChar(P) || P == '{' || P == '$' || (P == '(' && B > 1 && S[B - 2] == '$'))
        continue;
    }
    bool Weak;
    // __CUDA_ARCH__ and its kin are macros of the compiler, not lists.
    if (S.slice(B, I).starts_with("__") || !isTargetListName(S.slice(B, I), Weak))
      continue;
    // What follows the name: an assignment ("= ", ":=", "?=", "+=", "::=",
    // CMake's cache ":STRING="), or blanks then the values (CMake
    // arguments, "-gencode" style lists).
    size_t J = I;
    bool ToLineEnd = K != BuildFileKind::CMake;
    if (J < S.size() && S[J] == ':' && K == BuildFileKind::CMake) {
      // NAME:STRING=value in a CMake cache.
      size_t E = J + 1;
      while (E < S.size() && isAlpha(S[E]))
        ++E;
      if (E < S.size() && S[E] == '=') {
        J = E + 1;
        ToLineEnd = true;
      } else {
        continue;
      }
    } else {
      while (J < S.size() && (S[J] == ' ' || S[J] == '\t'))
        ++J;
      StringRef Rest = S.substr(J);
      size_t OpLen = 0;
      for (StringRef Op : {"::=", ":=", "?=", "+=", "="})
        if (Rest.starts_with(Op)) {
          OpLen = Op.size();
          break;
        }
      if (OpLen) {
        J += OpLen;
        ToLineEnd = true;
      } else if (K != BuildFileKind::CMake || J == I || (J < S.size() && S[J] == '\n')) {
        // Outside CMake's argument lists a list needs an assignment; "SMS)"
        // or "SMS\n" is a use, not a list.
        continue;
      }
    }
    // The values: to the end of the logical line, or (CMake arguments) to
    // the closing parenthesis or the next keyword.
    size_t V = J;
    while (V < S.size()) {
      char C = S[V];
      if (C == '\\' && V + 1 < S.size() && S[V + 1] == '\n') {
        V += 2;
        continue;
      }
      if (C == '\n' && ToLineEnd)
        break;
      if (C == ')' && !ToLineEnd)
        break;
      if (isSpace(C) || C == ';' || C == ',' || C == '"' || C == '\'') {
        ++V;
        continue;
      }
      size_t W = V;
      while (W < S.size() && !isSpace(S[W]) && !StringRef(";,\"')").contains(S[W]))
        ++W;
      if (W == V) {
        ++V; // a ')' in a Makefile value
        continue;
      }
      StringRef Item = S.slice(V, W);
      std::optional<ArchToken> T;
      if (Item.size() >= 3 && isDigit(Item[0]) && Item[1] == '.')
        T = readNumber(S, V, Form::Dotted);
      else if (!Item.empty() && isDigit(Item[0]))
        T = readNumber(S, V, Form::Number);
      if (T) {
        StringRef Tail = S.slice(V + T->Length, W);
        bool Clean = Tail.empty() || Tail == "-real" || Tail == "-virtual" || Tail == "+PTX";
        if (Clean && isKnownCC(T->CC) && !(Weak && (T->CC == 32 || T->CC == 64)))
          Out.push_back(*T);
      } else if (!ToLineEnd && isAlpha(Item[0]) && Item.upper() == Item.str() &&
                 !Item.contains('=')) {
        break; // the next CMake keyword: CACHE, PROPERTIES, STREQUAL, ...
      }
      V = W;
    }
    I = std::max(I, V);
  }
  return Out;
}

/// Line and column (1-based) of Offset.
std::pair<unsigned, unsigned> lineColumn(StringRef Text, size_t Offset) {
  unsigned Line = 1 + Text.take_front(Offset).count('\n');
  size_t LS = Text.take_front(Offset).rfind('\n');
  unsigned Col = LS == StringRef::npos ? Offset + 1 : Offset - LS;
  return {Line, Col};
}

/// The flag written right before a token ("-arch=", "-arch ", "code="...),
/// so that a message shows the replacement the way the file spells it.
std::string flagBefore(StringRef Text, size_t Offset) {
  StringRef Before = Text.take_front(Offset);
  for (StringRef F : {"--gpu-architecture=", "--gpu-architecture ", "--gpu-code=",
                      "--cuda-gpu-arch=", "--offload-arch=", "-arch=", "-arch ", "-code=",
                      "-code ", "arch=", "code="})
    if (Before.ends_with(F)) {
      // "arch=" of "-arch=" was taken above; a bare "arch=" must not be
      // the end of another word.
      size_t B = Before.size() - F.size();
      if (F[0] != '-' && B > 0 && isWordChar(Before[B - 1]))
        continue;
      return F.str();
    }
  return "";
}

/// What to build for Target instead of arch-specific code of another
/// compute capability.
std::string flagsFor(const arch::TargetInfo &Target) {
  std::string Base = "sm_" + std::to_string(Target.ccNumber());
  auto A = arch::lookupTarget(Base + "a");
  auto F = arch::lookupTarget(Base + "f");
  std::string Out;
  std::string Plain = "'-arch=" + Base + "' when it uses no arch-specific features";
  if (A) {
    std::string Uses = A->hasFeature(arch::Feature::TCGen05) ? "tcgen05 or other " : "";
    Out += "'-gencode arch=" + A->gencodeArch() + ",code=" + A->Name + "' for code that uses " +
           Uses + Base + "a-only features, ";
  } else {
    consumeError(A.takeError());
  }
  if (F) {
    std::vector<std::string> Family;
    for (const arch::TargetInfo &P : arch::allTargets())
      if (P.Variant == arch::ArchVariant::None && F->runsOn(P))
        Family.push_back(P.Name);
    Out += "'-gencode arch=" + F->gencodeArch() + ",code=" + F->Name +
           "' for the family (runs on " + join(Family, ", ") + "), ";
  } else {
    consumeError(F.takeError());
  }
  return Out.empty() ? Plain : Out + "or " + Plain;
}

/// "sm_90a code runs only on compute capability 9.0".
std::string runsOnlyOn(const arch::TargetInfo &A) {
  std::string CC = std::to_string(A.Major) + "." + std::to_string(A.Minor);
  if (A.Variant == arch::ArchVariant::ArchSpecific)
    return std::string(A.Name) + " code runs only on compute capability " + CC;
  return std::string(A.Name) + " code runs only on compute capability " +
         std::to_string(A.Major) + ".x from " + CC + " up";
}

/// An arch- or family-specific target that nvcc knows and whose code does
/// not run on Target.
const arch::TargetInfo *foreignSpecific(unsigned CC, StringRef Suffix,
                                        const arch::TargetInfo &Target) {
  if (Suffix.empty())
    return nullptr;
  auto T = arch::lookupTarget("sm_" + std::to_string(CC) + Suffix.str());
  if (!T) {
    consumeError(T.takeError());
    return nullptr;
  }
  if (T->runsOn(Target))
    return nullptr;
  return &*T;
}

BuildFlagFinding classify(StringRef Text, const ArchToken &T, const arch::TargetInfo &Target) {
  BuildFlagFinding F;
  F.Offset = T.Offset;
  F.Length = T.Length;
  F.Spelling = Text.substr(T.Offset, T.Length).str();
  std::tie(F.Line, F.Column) = lineColumn(Text, T.Offset);
  F.Arch = spell(T.F == Form::Compute ? Form::Compute : Form::Sm, T.CC, T.Suffix);
  std::string SmName = spell(Form::Sm, T.CC, T.Suffix);
  F.Accepted = accepted(SmName);
  std::string Flag = flagBefore(Text, T.Offset);
  if (F.Accepted) {
    if (const arch::TargetInfo *A = foreignSpecific(T.CC, T.Suffix, Target)) {
      F.Level = BuildFlagLevel::Note;
      F.Message = runsOnlyOn(*A) + ", not on " + Target.Name + "; for " + Target.Name +
                  " use " + flagsFor(Target);
    }
    return F;
  }
  F.Level = BuildFlagLevel::Error;
  F.Message = "nvcc 13 does not accept " + F.Arch;
  for (const Rename &R : Renames)
    if (T.CC == R.From) {
      F.Replacement = spell(T.F, R.To, T.Suffix);
      F.Message += " (CUDA 13 renamed it " + spell(Form::Sm, R.To, T.Suffix) + "); use " + Flag +
                   F.Replacement;
      return F;
    }
  if (!T.Suffix.empty() && accepted(spell(Form::Sm, T.CC, ""))) {
    F.Message += " (sm_" + std::to_string(T.CC) + " has no '" + T.Suffix +
                 "' variant); use " + Flag + spell(T.F, T.CC, "");
    if (accepted(spell(Form::Sm, T.CC, "a")))
      F.Message += " or " + Flag + spell(T.F, T.CC, "a");
    return F;
  }
  const Removal *Why = nullptr;
  for (const Removal &R : Removals)
    if (T.CC >= R.From && T.CC <= R.To)
      Why = &R;
  if (!Why) {
    F.Message += " (not a CUDA target)";
    return F;
  }
  unsigned Oldest = oldestAccepted();
  F.Message += std::string(" (") + Why->Generation + ", removed in " + Why->Removed + "); use " +
               Flag + spell(T.F, Oldest, "") + " (the oldest CUDA 13 supports) or " + Flag +
               spellTarget(T.F, Target) + " (the port's target)";
  // Only a plain target has a like-for-like replacement: an 'a' suffix on a
  // removed target named features that sm_75 may not have.
  if (T.Suffix.empty())
    F.Replacement = spell(T.F, Oldest, "");
  return F;
}

} // namespace

BuildFileKind classifyBuildFile(StringRef Path) {
  StringRef Name = sys::path::filename(Path);
  std::string Lower = Name.lower();
  StringRef L(Lower);
  if (L == "cmakelists.txt" || L == "cmakecache.txt" || L.ends_with(".cmake"))
    return BuildFileKind::CMake;
  if (L.starts_with("makefile") || L == "gnumakefile" || L.ends_with(".mk") ||
      L.ends_with(".make") || L.starts_with("make."))
    return BuildFileKind::Makefile;
  return BuildFileKind::Other;
}

std::vector<BuildFlagFinding> scanBuildFile(StringRef Path, StringRef Text,
                                            const arch::TargetInfo &Target) {
  BuildFileKind K = classifyBuildFile(Path);
  std::string Masked = maskComments(Text, K);
  std::vector<ArchToken> Tokens = archTokens(Masked);
  for (const ArchToken &T : listTokens(Masked, K))
    Tokens.push_back(T);
  sort(Tokens, [](const ArchToken &A, const ArchToken &B) { return A.Offset < B.Offset; });
  std::vector<BuildFlagFinding> Out;
  size_t Last = StringRef::npos;
  for (const ArchToken &T : Tokens) {
    if (T.Offset == Last)
      continue;
    Last = T.Offset;
    Out.push_back(classify(Text, T, Target));
  }
  return Out;
}

std::optional<std::string> compileFlagNote(ArrayRef<std::string> Args,
                                           const arch::TargetInfo &Target) {
  // Flags whose value names targets, as "-flag=value" or "-flag value".
  static const char *const Flags[] = {"-arch",         "--gpu-architecture", "-code",
                                      "--gpu-code",    "-gencode",           "--generate-code",
                                      "--cuda-gpu-arch", "--offload-arch"};
  std::vector<std::string> Named;
  const arch::TargetInfo *First = nullptr;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    StringRef Value;
    for (StringRef F : Flags) {
      if (A == F && I + 1 < Args.size()) {
        Value = Args[I + 1];
        break;
      }
      if (A.starts_with(F) && A.substr(F.size()).starts_with("=")) {
        Value = A.substr(F.size() + 1);
        break;
      }
    }
    if (Value.empty())
      continue;
    for (const ArchToken &T : archTokens(Value))
      if (const arch::TargetInfo *S = foreignSpecific(T.CC, T.Suffix, Target)) {
        if (!is_contained(Named, std::string(S->Name)))
          Named.push_back(S->Name);
        if (!First)
          First = S;
      }
  }
  if (!First)
    return std::nullopt;
  std::string Which = Named.size() == 1 ? Named[0] : join(Named, ", ");
  std::string Note = "the compile command builds for " + Which + ": " + runsOnlyOn(*First);
  for (size_t I = 1; I < Named.size(); ++I)
    if (auto T = arch::lookupTarget(Named[I]))
      Note += ", " + runsOnlyOn(*T);
    else
      consumeError(T.takeError());
  Note += "; none of it runs on " + std::string(Target.Name) + ". For " + Target.Name +
          " use " + flagsFor(Target);
  return Note;
}

ArrayRef<const char *> nvcc13AcceptedTargets() { return Accepted; }

} // namespace forge::port
