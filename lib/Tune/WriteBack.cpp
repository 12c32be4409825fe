//===- Tune/WriteBack.cpp - Write tuned values back into the source -------===//
///
/// \file
/// Binding works from the KernelIndex (which names the tunables and where
/// their values are) plus a light reading of the text: the index records
/// one location per tunable, while a template argument or a block size is
/// written at every launch, so launch statements are re-read here (comments
/// and string literals blanked) to find each argument's exact range, the
/// end of the statement, and the uses of a macro or constant.
///
//===----------------------------------------------------------------------===//
#include "forge/Tune/WriteBack.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include <memory>
#include <tuple>
#include <algorithm>
#include <set>

using namespace llvm;
using forge::frontend::FileIndex;
using forge::frontend::KernelInfo;
using forge::frontend::LaunchSiteInfo;
using forge::frontend::TunableInfo;

namespace forge::tune {

namespace {

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

bool isIdentChar(char C) { return isAlnum(C) || C == '_'; }

/// The text with comments, string and character literals replaced by
/// spaces (newlines kept), so offsets stay the same and code can be
/// scanned without tripping over "<<<" in a string or a '}' in a comment.
std::string codeView(StringRef T) {
  std::string Out = T.str();
  size_t N = T.size();
  auto Blank = [&](size_t B, size_t E) {
    for (size_t I = B; I < E && I < N; ++I)
      if (Out[I] != '\n')
        Out[I] = ' ';
  };
  size_t I = 0;
  while (I < N) {
    char C = T[I];
    if (C == '/' && I + 1 < N && T[I + 1] == '/') {
      size_t E = T.find('\n', I);
      E = E == StringRef::npos ? N : E;
      Blank(I, E);
      I = E;
    } else if (C == '/' && I + 1 < N && T[I + 1] == '*') {
      size_t E = T.find("*/", I + 2);
      E = E == StringRef::npos ? N : E + 2;
      Blank(I, E);
      I = E;
    } else if (C == '"' || C == '\'') {
      // A digit separator (1'000) is not a character literal.
      if (C == '\'' && I > 0 && isAlnum(T[I - 1])) {
        size_t B = I - 1;
        while (B > 0 && isIdentChar(T[B - 1]))
          --B;
        if (isDigit(T[B])) {
          ++I;
          continue;
        }
      }
      // A raw string R"delim( ... )delim".
      if (C == '"' && I > 0 && T[I - 1] == 'R' && (I < 2 || !isIdentChar(T[I - 2]))) {
        size_t Open = T.find('(', I);
        if (Open != StringRef::npos) {
          std::string Close = (")" + T.slice(I + 1, Open) + "\"").str();
          size_t E = T.find(Close, Open);
          E = E == StringRef::npos ? N : E + Close.size();
          Blank(I, E);
          I = E;
          continue;
        }
      }
      size_t J = I + 1;
      while (J < N && T[J] != C && T[J] != '\n') {
        if (T[J] == '\\')
          ++J;
        ++J;
      }
      Blank(I, std::min(J + 1, N));
      I = J + 1;
    } else {
      ++I;
    }
  }
  return Out;
}

size_t lineStartOf(StringRef S, size_t Off) {
  size_t P = S.rfind('\n', Off == 0 ? 0 : Off - 1);
  if (Off == 0 || P == StringRef::npos)
    return 0;
  return P + 1;
}

size_t lineEndOf(StringRef S, size_t Off) {
  size_t P = S.find('\n', Off);
  return P == StringRef::npos ? S.size() : P;
}

unsigned lineOf(StringRef S, size_t Off) {
  return 1 + S.take_front(std::min(Off, S.size())).count('\n');
}

size_t skipSpace(StringRef Code, size_t I) {
  while (I < Code.size() && isSpace(Code[I]))
    ++I;
  return I;
}

/// The index of the last non-space character before I, or npos.
size_t prevNonSpace(StringRef Code, size_t I) {
  while (I > 0) {
    --I;
    if (!isSpace(Code[I]))
      return I;
  }
  return StringRef::npos;
}

/// Length of an integer literal at Off (0 when there is none).
size_t literalLength(StringRef Code, size_t Off) {
  if (Off >= Code.size() || !isDigit(Code[Off]))
    return 0;
  size_t E = Off;
  while (E < Code.size() && (isAlnum(Code[E]) || Code[E] == '\''))
    ++E;
  return E - Off;
}

std::optional<int64_t> literalValue(StringRef Lit) {
  std::string S;
  for (char C : Lit)
    if (C != '\'')
      S += C;
  StringRef R(S);
  R = R.rtrim("uUlL");
  int64_t V;
  if (R.getAsInteger(0, V))
    return std::nullopt;
  return V;
}

bool isIntLiteral(StringRef S) {
  return !S.empty() && literalLength(S, 0) == S.size() && literalValue(S).has_value();
}

/// The value as a literal in place of Current: an integer literal's u/l
/// suffix is kept.
std::string formatValue(int64_t V, StringRef Current) {
  std::string Suffix;
  if (isIntLiteral(Current)) {
    StringRef Rest = Current;
    while (!Rest.empty() && StringRef("uUlL").contains(Rest.back())) {
      Suffix.insert(Suffix.begin(), Rest.back());
      Rest = Rest.drop_back();
    }
  }
  return std::to_string(V) + Suffix;
}

/// A value in place of an identifier inside an expression.
std::string exprValue(int64_t V) {
  return V < 0 ? "(" + std::to_string(V) + ")" : std::to_string(V);
}

/// Offsets of Name as a whole identifier in Code.
std::vector<size_t> occurrences(StringRef Code, StringRef Name) {
  std::vector<size_t> Out;
  if (Name.empty())
    return Out;
  for (size_t P = Code.find(Name); P != StringRef::npos; P = Code.find(Name, P + 1)) {
    if (P > 0 && isIdentChar(Code[P - 1]))
      continue;
    size_t E = P + Name.size();
    if (E < Code.size() && isIdentChar(Code[E]))
      continue;
    Out.push_back(P);
  }
  return Out;
}

bool containsWord(StringRef Code, StringRef Word) { return !occurrences(Code, Word).empty(); }

StringRef lastComponent(StringRef Name) {
  size_t P = Name.rfind("::");
  return P == StringRef::npos ? Name : Name.drop_front(P + 2);
}

struct FileText {
  std::string Text, Code;
};

/// File contents and their code views, read once.
class Files {
public:
  explicit Files(const patch::ContentsProvider &P) : P(P) {}
  Expected<const FileText *> get(StringRef File) {
    auto It = Cache.find(File.str());
    if (It != Cache.end())
      return &It->second;
    auto T = P(File);
    if (!T)
      return T.takeError();
    FileText &F = Cache[File.str()];
    F.Text = std::move(*T);
    F.Code = codeView(F.Text);
    return &F;
  }

private:
  const patch::ContentsProvider &P;
  std::map<std::string, FileText> Cache;
};

//===----------------------------------------------------------------------===//
// Launch statements
//===----------------------------------------------------------------------===//

struct Range {
  size_t B = 0, E = 0;
};

Range trimmed(StringRef Code, size_t B, size_t E) {
  while (B < E && isSpace(Code[B]))
    ++B;
  while (E > B && isSpace(Code[E - 1]))
    --E;
  return {B, E};
}

/// `callee <targs> <<< config >>> ( args ) ;` read from Off.
struct ParsedLaunch {
  std::string Callee; ///< without spaces: "ns::k"
  bool HasTemplateArgs = false;
  std::vector<Range> TemplateArgs;
  std::vector<Range> Config;
  Range Stmt;          ///< from the callee to after the ';'
  bool Statement = false;
};

/// Splits [B, E) at commas outside brackets (and outside <> when Angles).
std::vector<Range> splitArgs(StringRef Code, size_t B, size_t E, bool Angles) {
  std::vector<Range> Out;
  int Depth = 0, Angle = 0;
  size_t Start = B;
  for (size_t I = B; I < E; ++I) {
    char C = Code[I];
    if (C == '(' || C == '[' || C == '{')
      ++Depth;
    else if (C == ')' || C == ']' || C == '}')
      --Depth;
    else if (Angles && Depth == 0 && C == '<')
      ++Angle;
    else if (Angles && Depth == 0 && C == '>')
      --Angle;
    else if (C == ',' && Depth == 0 && Angle == 0) {
      Out.push_back(trimmed(Code, Start, I));
      Start = I + 1;
    }
  }
  Range Last = trimmed(Code, Start, E);
  if (Last.E > Last.B || !Out.empty())
    Out.push_back(Last);
  return Out;
}

/// The matching closer of the bracket at Open, or npos.
size_t matchBracket(StringRef Code, size_t Open) {
  char O = Code[Open];
  char C = O == '(' ? ')' : O == '[' ? ']' : '}';
  int Depth = 0;
  for (size_t I = Open; I < Code.size(); ++I) {
    if (Code[I] == O)
      ++Depth;
    else if (Code[I] == C && --Depth == 0)
      return I;
  }
  return StringRef::npos;
}

/// Whether the text before B ends a statement (so a launch at B starts one).
bool startsStatement(StringRef Code, size_t B) {
  size_t P = prevNonSpace(Code, B);
  if (P == StringRef::npos)
    return true;
  char C = Code[P];
  if (C == ';' || C == '{' || C == '}')
    return true;
  if (C == ':')
    return P == 0 || Code[P - 1] != ':';
  if (isIdentChar(C)) {
    size_t W = P;
    while (W > 0 && isIdentChar(Code[W - 1]))
      --W;
    StringRef Word = Code.slice(W, P + 1);
    return Word == "else" || Word == "do";
  }
  if (C == ')') {
    // if (...), for (...), while (...): find the '(' and the keyword.
    int Depth = 0;
    for (size_t I = P + 1; I-- > 0;) {
      if (Code[I] == ')')
        ++Depth;
      else if (Code[I] == '(' && --Depth == 0) {
        size_t K = prevNonSpace(Code, I);
        if (K == StringRef::npos || !isIdentChar(Code[K]))
          return false;
        size_t W = K;
        while (W > 0 && isIdentChar(Code[W - 1]))
          --W;
        StringRef Word = Code.slice(W, K + 1);
        return Word == "if" || Word == "for" || Word == "while";
      }
    }
  }
  return false;
}

Expected<ParsedLaunch> parseChevron(StringRef Code, size_t Off, StringRef Where) {
  ParsedLaunch L;
  auto Fail = [&](const char *Why) {
    return makeError("{0}: the launch is not written as `kernel<<<...>>>(...)` ({1})", Where,
                     Why);
  };
  size_t I = Off;
  // The callee: identifiers joined by '::'.
  while (true) {
    I = skipSpace(Code, I);
    if (Code.substr(I, 2) == "::") {
      L.Callee += "::";
      I += 2;
      continue;
    }
    if (I >= Code.size() || !isIdentChar(Code[I]) || isDigit(Code[I]))
      break;
    size_t E = I;
    while (E < Code.size() && isIdentChar(Code[E]))
      ++E;
    if (!L.Callee.empty() && !StringRef(L.Callee).ends_with("::"))
      break;
    L.Callee += Code.slice(I, E).str();
    I = E;
  }
  if (L.Callee.empty())
    return Fail("no kernel name at the launch location");
  I = skipSpace(Code, I);
  if (Code.substr(I, 3) != "<<<") {
    if (I >= Code.size() || Code[I] != '<')
      return Fail("no '<<<' after the kernel name");
    L.HasTemplateArgs = true;
    int Depth = 0, Angle = 0;
    size_t Close = StringRef::npos;
    for (size_t J = I; J < Code.size(); ++J) {
      char C = Code[J];
      if (C == '(' || C == '[' || C == '{')
        ++Depth;
      else if (C == ')' || C == ']' || C == '}')
        --Depth;
      else if (C == ';')
        break;
      else if (Depth == 0 && C == '<')
        ++Angle;
      else if (Depth == 0 && C == '>' && --Angle == 0) {
        Close = J;
        break;
      }
    }
    if (Close == StringRef::npos)
      return Fail("unbalanced template argument list");
    L.TemplateArgs = splitArgs(Code, I + 1, Close, /*Angles=*/true);
    I = skipSpace(Code, Close + 1);
    if (Code.substr(I, 3) != "<<<")
      return Fail("no '<<<' after the template arguments");
  }
  size_t CfgB = I + 3, CfgE = StringRef::npos;
  int Depth = 0;
  for (size_t J = CfgB; J < Code.size(); ++J) {
    char C = Code[J];
    if (C == '(' || C == '[' || C == '{')
      ++Depth;
    else if (C == ')' || C == ']' || C == '}')
      --Depth;
    else if (C == ';')
      break;
    else if (Depth == 0 && Code.substr(J, 3) == ">>>") {
      CfgE = J;
      break;
    }
  }
  if (CfgE == StringRef::npos)
    return Fail("no '>>>'");
  L.Config = splitArgs(Code, CfgB, CfgE, /*Angles=*/false);
  I = skipSpace(Code, CfgE + 3);
  if (I >= Code.size() || Code[I] != '(')
    return Fail("no argument list after '>>>'");
  size_t ArgsE = matchBracket(Code, I);
  if (ArgsE == StringRef::npos)
    return Fail("unbalanced argument list");
  size_t Semi = skipSpace(Code, ArgsE + 1);
  L.Stmt.B = Off;
  if (Semi < Code.size() && Code[Semi] == ';') {
    L.Stmt.E = Semi + 1;
    L.Statement = startsStatement(Code, Off);
  } else {
    L.Stmt.E = ArgsE + 1;
  }
  return L;
}

//===----------------------------------------------------------------------===//
// Binding
//===----------------------------------------------------------------------===//

const KernelInfo *findKernel(const FileIndex &Index, StringRef Name) {
  for (const KernelInfo &K : Index.Kernels)
    if (K.QualifiedName == Name)
      return &K;
  const KernelInfo *Found = nullptr;
  for (const KernelInfo &K : Index.Kernels)
    if (K.Name == Name) {
      if (Found)
        return nullptr; // ambiguous
      Found = &K;
    }
  return Found;
}

std::vector<size_t> launchesOf(const FileIndex &Index, const KernelInfo &K) {
  std::vector<size_t> Out;
  for (size_t I = 0; I < Index.LaunchSites.size(); ++I) {
    const LaunchSiteInfo &L = Index.LaunchSites[I];
    if (L.Kernel == K.QualifiedName ||
        (!L.Resolved && (L.Kernel == K.Name || lastComponent(L.Kernel) == K.Name)))
      Out.push_back(I);
  }
  return Out;
}

bool isConventional(StringRef Name, std::initializer_list<const char *> Names) {
  for (const char *N : Names)
    if (Name.equals_insensitive(N))
      return true;
  return false;
}

/// The start of the declaration around P: after the previous ';', '{' or
/// '}', past preprocessor lines.
size_t declStart(StringRef Code, size_t P) {
  size_t B = P;
  while (B > 0 && !StringRef(";{}").contains(Code[B - 1]))
    --B;
  while (true) {
    B = skipSpace(Code, B);
    if (B >= P || Code[B] != '#')
      return std::min(B, P);
    size_t E = lineEndOf(Code, B);
    while (E < P && E > 0 && Code[E - 1] == '\\')
      E = lineEndOf(Code, E + 1);
    B = E;
  }
}

/// A function with __global__ or __device__: where its declaration starts,
/// its body, and whether it is also a host function.
struct DeviceFunction {
  size_t DeclBegin = 0, BodyBegin = 0, BodyEnd = 0;
  bool AlsoHost = false;
};

std::vector<DeviceFunction> deviceFunctions(StringRef Code) {
  std::vector<DeviceFunction> Out;
  std::vector<size_t> Keys = occurrences(Code, "__global__");
  for (size_t P : occurrences(Code, "__device__"))
    Keys.push_back(P);
  llvm::sort(Keys);
  size_t Done = 0;
  for (size_t P : Keys) {
    if (P < Done)
      continue;
    int Depth = 0;
    bool SawParen = false;
    size_t Body = StringRef::npos;
    for (size_t I = P; I < Code.size(); ++I) {
      char C = Code[I];
      if (C == '(') {
        ++Depth;
        SawParen = true;
      } else if (C == ')') {
        --Depth;
      } else if (Depth == 0 && (C == ';' || C == '=')) {
        break;
      } else if (Depth == 0 && C == '{') {
        if (SawParen)
          Body = I;
        break;
      }
    }
    if (Body == StringRef::npos)
      continue;
    size_t End = matchBracket(Code, Body);
    if (End == StringRef::npos)
      continue;
    DeviceFunction D;
    size_t B = declStart(Code, P);
    D.DeclBegin = B;
    D.BodyBegin = Body;
    D.BodyEnd = End;
    D.AlsoHost = containsWord(Code.slice(B, Body), "__host__");
    Out.push_back(D);
    Done = End;
  }
  return Out;
}

/// The range of the innermost braces around Off (the whole file at the top).
Range enclosingBlock(StringRef Code, size_t Off) {
  int Depth = 0;
  for (size_t I = std::min(Off, Code.size()); I-- > 0;) {
    if (Code[I] == '}')
      ++Depth;
    else if (Code[I] == '{' && Depth-- == 0) {
      size_t E = matchBracket(Code, I);
      return {I, E == StringRef::npos ? Code.size() : E};
    }
  }
  return {0, Code.size()};
}

/// The end of the statement from B: after its ';' at bracket depth 0.
size_t statementEnd(StringRef Code, size_t B) {
  int Depth = 0;
  for (size_t I = B; I < Code.size(); ++I) {
    char C = Code[I];
    if (C == '(' || C == '[' || C == '{')
      ++Depth;
    else if (C == ')' || C == ']' || C == '}')
      --Depth;
    else if (C == ';' && Depth <= 0)
      return I + 1;
  }
  return Code.size();
}

/// Where a local is changed after its declaration: an assignment, an
/// increment or its address taken; empty when nowhere.
std::string writtenAt(StringRef Code, StringRef Text, StringRef Name, size_t After,
                      size_t End) {
  for (size_t P : occurrences(Code, Name)) {
    if (P <= After || P >= End)
      continue;
    size_t N = skipSpace(Code, P + Name.size());
    StringRef Next = Code.substr(N, 3);
    size_t Q = prevNonSpace(Code, P);
    bool Write = (Next.starts_with("=") && !Next.starts_with("==")) ||
                 Next.starts_with("++") || Next.starts_with("--") ||
                 (Next.size() >= 2 && StringRef("+-*/%&|^").contains(Next[0]) &&
                  Next[1] == '=') ||
                 Next.starts_with("<<=") || Next.starts_with(">>=");
    if (Q != StringRef::npos && Q > 0 &&
        (Code.slice(Q - 1, Q + 1) == "++" || Code.slice(Q - 1, Q + 1) == "--" ||
         (Code[Q] == '&' && Code[Q - 1] != '&' && !isIdentChar(Code[Q - 1]) &&
          Code[Q - 1] != ')')))
      Write = true;
    if (Write)
      return "assigned at line " + std::to_string(lineOf(Text, P));
  }
  return "";
}

/// The initialiser at V: an integer literal, or a name whose definition
/// holds the value (`BLOCK_SIZE`, `CFG::kBlock`), which goes to Chain. Its
/// length; 0 when it is neither.
size_t initializerAt(StringRef Code, size_t V, std::string &Chain) {
  Chain.clear();
  if (size_t Len = literalLength(Code, V))
    return literalValue(Code.substr(V, Len)) ? Len : 0;
  size_t E = V;
  if (Code.substr(E, 2) == "::")
    E += 2;
  while (E < Code.size() && isIdentChar(Code[E]) && !isDigit(Code[E])) {
    while (E < Code.size() && isIdentChar(Code[E]))
      ++E;
    if (Code.substr(E, 2) != "::")
      break;
    E += 2;
  }
  StringRef Name = Code.slice(V, E);
  if (Name.empty() || Name.ends_with("::") || Name == "::")
    return 0;
  Chain = Name.starts_with("::") ? Name.drop_front(2).str() : Name.str();
  return E - V;
}

/// A definition that gives a name its value: `#define NAME <init>`, a
/// `const` / `constexpr` variable or static data member (one declarator of
/// several included), an enumerator, or a local variable of integer type.
/// Its initialiser is an integer literal, or a name whose own definition
/// holds the value: a link of a chain (`constexpr int B = BLOCK_SIZE;`).
struct ValueDef {
  std::string Kind;       ///< macro | constexpr | enum | local
  std::string Id;         ///< the name declared
  size_t Name = 0;        ///< offset of the declared name
  size_t Lit = 0, LitLen = 0; ///< the initialiser: the literal, or the name
  std::string Chain;      ///< the name the initialiser spells; empty: a literal
  Range Stmt;             ///< the whole declaration, with its ';' (a macro: its line)
  std::string Type;       ///< "constexpr int", for a declaration of the same type
  std::string Written;    ///< "assigned at line 12" for a local that changes
  std::string Scope;      ///< the class or namespace around it ("" at file scope)
  bool Member = false;    ///< a static data member: its uses are qualified
};

/// The class or namespace whose braces hold Off: its name, and whether it
/// is a class (struct, class, union).
std::pair<std::string, bool> scopeAt(StringRef Code, size_t Off) {
  Range Blk = enclosingBlock(Code, Off);
  if (Blk.B == 0 && Blk.E == Code.size())
    return {"", false};
  StringRef Head = Code.slice(declStart(Code, Blk.B), Blk.B);
  for (StringRef KW : {"struct", "class", "union", "namespace"}) {
    std::vector<size_t> Occ = occurrences(Head, KW);
    if (Occ.empty())
      continue;
    size_t I = skipSpace(Head, Occ.front() + KW.size()), E = I;
    while (E < Head.size() && isIdentChar(Head[E]))
      ++E;
    return {Head.slice(I, E).str(), KW != "namespace"};
  }
  return {"", false};
}

/// `#define Name <literal or name>` (the value may be parenthesised) on the
/// line at B of Code, or std::nullopt.
std::optional<ValueDef> macroDefinitionAt(StringRef Code, size_t B) {
  size_t E = lineEndOf(Code, B), I = B;
  auto Space = [&] {
    while (I < E && (Code[I] == ' ' || Code[I] == '\t'))
      ++I;
  };
  Space();
  if (I >= E || Code[I] != '#')
    return std::nullopt;
  ++I;
  Space();
  if (Code.slice(I, E).substr(0, 6) != "define" || I + 6 >= E || !isSpace(Code[I + 6]))
    return std::nullopt;
  I += 6;
  Space();
  size_t N = I;
  while (I < E && isIdentChar(Code[I]))
    ++I;
  if (I == N || isDigit(Code[N]) || I >= E || !isSpace(Code[I])) // a function-like macro
    return std::nullopt;
  ValueDef D;
  D.Kind = "macro";
  D.Id = Code.slice(N, I).str();
  D.Name = N;
  Space();
  bool Paren = I < E && Code[I] == '(';
  if (Paren) {
    ++I;
    Space();
  }
  size_t Len = initializerAt(Code.take_front(E), I, D.Chain);
  if (!Len)
    return std::nullopt;
  D.Lit = I;
  D.LitLen = Len;
  I += Len;
  Space();
  if (Paren) {
    if (I >= E || Code[I] != ')')
      return std::nullopt;
    ++I;
    Space();
  }
  if (I != E)
    return std::nullopt;
  D.Stmt = {B, E};
  return D;
}

/// The definition whose declared name is at P (NameLen long), when it is
/// one: the one definition finder behind constants, enumerators, locals
/// and the links of a chain.
std::optional<ValueDef> definitionAt(StringRef Code, StringRef Text, size_t P, size_t NameLen) {
  if (P > 0 && (Code[P - 1] == '.' || Code[P - 1] == ':' || Code[P - 1] == '>'))
    return std::nullopt;
  size_t LB = lineStartOf(Code, P);
  if (Code.slice(LB, P).ltrim().starts_with("#"))
    return std::nullopt;
  size_t I = skipSpace(Code, P + NameLen);
  if (I >= Code.size() || !StringRef("={(").contains(Code[I]) || Code.substr(I, 2) == "==")
    return std::nullopt;
  // The name follows a type or the ',' of a declarator list: not `x = f(y)`.
  size_t Q = prevNonSpace(Code, P);
  if (Q != StringRef::npos && !isIdentChar(Code[Q]) && !StringRef(",{*&").contains(Code[Q]))
    return std::nullopt;
  char Open = Code[I];
  size_t V = skipSpace(Code, I + 1);
  ValueDef D;
  size_t Len = initializerAt(Code, V, D.Chain);
  if (!Len)
    return std::nullopt;
  size_t After = skipSpace(Code, V + Len);
  if (After >= Code.size())
    return std::nullopt;
  char C = Code[After];
  if (Open == '=' ? (C != ';' && C != ',' && C != '}') : C != (Open == '(' ? ')' : '}'))
    return std::nullopt;
  StringRef Name = Code.substr(P, NameLen);
  size_t DB = declStart(Code, P);
  StringRef Decl = Code.slice(DB, P);
  D.Id = Name.str();
  D.Name = P;
  D.Lit = V;
  D.LitLen = Len;
  std::tie(D.Scope, D.Member) = scopeAt(Code, P);
  // An enumerator: the braces follow `enum [Name] [: type]`.
  size_t Br = prevNonSpace(Code, DB);
  size_t EB = Br != StringRef::npos && Code[Br] == '{' ? declStart(Code, Br) : 0;
  StringRef Head = EB ? Code.slice(EB, Br) : StringRef();
  if (Open == '=' && containsWord(Head, "enum")) {
    if (containsWord(Head, "class") || containsWord(Head, "struct"))
      return std::nullopt;
    D.Kind = "enum";
    D.Type = "constexpr int";
    D.Member = false;
    std::tie(D.Scope, std::ignore) = scopeAt(Code, Br);
    size_t Close = matchBracket(Code, Br);
    D.Stmt = {EB, Close == StringRef::npos ? Code.size() : statementEnd(Code, Close)};
    return D;
  }
  if (Decl.contains('(') || Decl.contains('#') || Decl.contains('<') || Decl.contains('"'))
    return std::nullopt;
  // The type: the words before the first declarator.
  StringRef Type = Decl;
  if (size_t Eq = Decl.find_first_of("={"); Eq != StringRef::npos) {
    Type = Decl.take_front(Eq).rtrim();
    while (!Type.empty() && isIdentChar(Type.back()))
      Type = Type.drop_back();
  }
  Type = Type.trim();
  if (Type.empty())
    return std::nullopt;
  D.Type = Type.str();
  D.Stmt = {DB, statementEnd(Code, P)};
  if (containsWord(Decl, "constexpr") || containsWord(Decl, "const")) {
    D.Kind = "constexpr";
    return D;
  }
  // A local of integer type, in a function or statement body.
  bool IntType = false;
  for (const char *W : {"int", "unsigned", "long", "short", "size_t", "int32_t", "uint32_t",
                        "int64_t", "uint64_t", "auto", "signed"})
    IntType |= containsWord(Type, W);
  Range Blk = enclosingBlock(Code, P);
  size_t Before = Blk.B ? prevNonSpace(Code, Blk.B) : StringRef::npos;
  if (!IntType || Blk.B == 0 || Before == StringRef::npos ||
      (Code[Before] != ')' && Code[Before] != '{' && Code[Before] != ';' &&
       Code[Before] != '}' && !containsWord(Code.slice(lineStartOf(Code, Blk.B), Blk.B), "else")))
    return std::nullopt;
  D.Kind = "local";
  D.Member = false;
  D.Written = writtenAt(Code, Text, Name, D.Stmt.E, Blk.E);
  return D;
}

/// Every definition of Name in a file (macros first), or, with Name
/// empty, every one whose initialiser is a literal (what the file offers).
std::vector<ValueDef> definitionsOf(StringRef Code, StringRef Text, StringRef Name = "") {
  std::vector<ValueDef> Out;
  for (size_t Pos = 0; Pos < Code.size();) {
    size_t E = lineEndOf(Code, Pos);
    if (Code.slice(Pos, E).contains("define"))
      if (auto D = macroDefinitionAt(Code, Pos))
        if (Name.empty() ? D->Chain.empty() : D->Id == Name)
          Out.push_back(std::move(*D));
    Pos = E + 1;
  }
  if (!Name.empty()) {
    for (size_t P : occurrences(Code, Name))
      if (auto D = definitionAt(Code, Text, P, Name.size()))
        Out.push_back(std::move(*D));
    return Out;
  }
  Regex Re("[A-Za-z_][A-Za-z0-9_]*[ \t\n]*(=|\\{)[ \t\n]*[0-9]");
  StringRef Rest = Code;
  SmallVector<StringRef, 2> M;
  while (Re.match(Rest, &M)) {
    size_t P = M[0].data() - Code.data();
    if (P == 0 || !isIdentChar(Code[P - 1])) {
      size_t Len = 0;
      while (isIdentChar(Code[P + Len]))
        ++Len;
      if (auto D = definitionAt(Code, Text, P, Len); D && D->Chain.empty())
        Out.push_back(std::move(*D));
    }
    Rest = Code.drop_front(P + M[0].size());
  }
  return Out;
}

/// The definition of Name that a use at Use sees: the nearest one before
/// it whose scope holds it; failing that, the only one. Defs are value
/// definitions (not macros).
const ValueDef *visibleDefinition(StringRef Code, const std::vector<ValueDef> &Defs,
                                  size_t Use) {
  const ValueDef *Best = nullptr;
  for (const ValueDef &D : Defs) {
    Range Blk = enclosingBlock(Code, D.Name);
    if (D.Name < Use && Blk.B <= Use && Use <= Blk.E && (!Best || D.Name > Best->Name))
      Best = &D;
  }
  if (!Best && Defs.size() == 1 && Defs[0].Kind != "local")
    Best = &Defs[0];
  return Best;
}

/// The headers a file includes: the name as written, and whether it is
/// written with <>.
std::vector<std::pair<std::string, bool>> includesOf(const FileText &FT) {
  std::vector<std::pair<std::string, bool>> Out;
  StringRef Code = FT.Code, Text = FT.Text;
  for (size_t Pos = 0; Pos < Code.size();) {
    size_t E = lineEndOf(Code, Pos);
    StringRef Line = Code.slice(Pos, E).ltrim();
    if (Line.consume_front("#") && Line.ltrim().starts_with("include")) {
      StringRef Rest = Text.slice(Pos, E);
      size_t Q = Rest.find_first_of("\"<", Rest.find("include") + 7);
      if (Q != StringRef::npos) {
        char Close = Rest[Q] == '<' ? '>' : '"';
        size_t C = Rest.find(Close, Q + 1);
        if (C != StringRef::npos)
          Out.push_back({Rest.slice(Q + 1, C).str(), Close == '>'});
      }
    }
    Pos = E + 1;
  }
  return Out;
}

/// Two spellings of one path ("./a.h", "a.h", "/abs/dir/a.h").
bool sameFile(StringRef A, StringRef B) {
  if (A == B)
    return true;
  auto Norm = [](StringRef P) {
    SmallString<256> S(P);
    sys::fs::make_absolute(S);
    sys::path::remove_dots(S, /*remove_dot_dot=*/true);
    return std::string(S.str());
  };
  return Norm(A) == Norm(B);
}

/// What a launch argument follows back to.
struct Followed {
  std::vector<WriteSite> Sites;
  std::string Why; ///< non-empty: the value cannot be written there
  std::string FixIt; ///< the edit that makes it writable, when one is known
  bool System = false; ///< the value comes from a system header
};

class Binder {
public:
  Binder(const FileIndex &Index, const KernelInfo &K, Files &F, const BindOptions &Opt)
      : Index(Index), K(K), F(F), Opt(Opt) {}

  /// The launches written: the kernel's, less those skipped, or the one
  /// --launch names.
  std::vector<size_t> launches() const;
  /// Values each launch holds now, per tunable (what it was bound from).
  std::map<size_t, std::map<std::string, int64_t>> LaunchValues;
  std::set<size_t> Excluded;
  std::vector<std::string> Notes;
  void note(std::string N) {
    if (!is_contained(Notes, N))
      Notes.push_back(std::move(N));
  }
  /// A fix-it for a name that binds to nothing ("" when none is found).
  std::string fixItFor(StringRef Name);
  Error productCompanions(std::vector<TunableBinding> &Bindings);

  /// Binds one name: a binding, or std::nullopt when nothing matches.
  /// Errors are for names that match but cannot be written.
  Expected<std::optional<TunableBinding>> bind(StringRef Name);

  /// What the file offers, for the error about unbound names.
  std::string offers();
  /// The file and the headers it includes with quotes (found beside the
  /// file that includes them, recursively), and the files the index found
  /// constants in: where a definition may be, and be written.
  const std::vector<std::string> &projectFiles();

private:
  Expected<WriteSite> siteAtLoc(StringRef Kind, const frontend::Location &Loc);
  Expected<WriteSite> siteAt(StringRef Kind, StringRef File, size_t Offset, size_t Length);
  Expected<const ParsedLaunch *> launch(size_t I);
  Expected<std::optional<TunableBinding>> bindTemplate(StringRef Name, size_t Param);
  Expected<std::optional<TunableBinding>> bindMacro(StringRef Name, StringRef Symbol);
  Expected<std::optional<TunableBinding>> bindVariable(StringRef Name, StringRef Symbol,
                                                       const TunableInfo *FromIndex);
  Expected<std::optional<TunableBinding>> bindBlock(StringRef Name);
  Expected<std::optional<TunableBinding>> bindOrigin(StringRef Name, StringRef Origin,
                                                     StringRef Role);
  Expected<std::optional<TunableBinding>> fromIndex(StringRef Name, const TunableInfo &T);
  Expected<WriteSite> templateDefault(StringRef Param);
  Error gridCompanions(size_t Launch, const WriteSite &Block, std::vector<WriteSite> &Out);
  Error companionsIn(Range G, size_t Launch, const WriteSite &Block,
                     std::vector<WriteSite> &Out);
  Expected<Followed> follow(StringRef File, Range R, std::optional<size_t> Launch,
                            StringRef LiteralKind, StringRef Name);
  Expected<std::pair<Range, std::string>> component(size_t Launch, size_t Pos, unsigned Dim);
  Expected<std::optional<TunableBinding>> bindHinted(StringRef Name);
  Expected<std::optional<TunableBinding>> bindNamed(StringRef Name);
  /// Headers found in Opt.SystemDirs that those files include, and what
  /// these include in turn: definitions there are read, never written.
  const std::vector<std::string> &systemFiles();
  /// One definition of a chain.
  struct Link {
    std::string File;
    ValueDef D;
    bool System = false;
  };
  /// The links from a name to the definition holding its literal; Why
  /// says why none can be written (with a FixIt when one is known).
  struct Chain {
    std::vector<Link> Links;
    std::string Why, FixIt;
    bool NotFound = false, System = false;
  };
  Expected<std::optional<Link>> resolve(StringRef File, size_t Use, StringRef Qual);
  Expected<Chain> chainFrom(std::vector<Link> Start, StringRef File, size_t Use,
                            StringRef Qual, StringRef Name);
  Expected<Followed> sitesOf(const Chain &C, std::optional<size_t> Launch, StringRef Name,
                             bool CheckFirst);
  /// How the code uses the name a link defines, besides the definition:
  /// where a launch of the kernel (or the link before) reads it, whether
  /// the kernel reads it, and every other use.
  struct Uses {
    std::vector<std::string> Other;
    std::map<std::string, std::vector<std::pair<unsigned, unsigned>>> Renames;
    bool InKernel = false;
  };
  Expected<Uses> usesOf(const Link &L, const Link *Prev);
  /// S becomes the declaration of a constant of the launches' own beside
  /// L's definition (the sites that rename its uses go to Out too).
  /// Via: the link before L, which is made to name the new constant.
  Error ownConstant(const Link &L, const Uses &U, WriteSite S, std::vector<WriteSite> &Out,
                    StringRef Via = "");
  std::string whereOf(const Link &L);
  Expected<std::vector<WriteSite>> namedSites(const Link &L, StringRef Name);
  std::vector<Range> derivedStatements(StringRef Code, size_t Launch);
  Expected<Range> kernelRange();

  const FileIndex &Index;
  const KernelInfo &K;
  Files &F;
  const BindOptions &Opt;
  std::map<size_t, ParsedLaunch> Parsed;
  std::vector<std::string> Project, System, Angled;
  bool ProjectRead = false, SystemRead = false;
};

std::vector<size_t> Binder::launches() const {
  std::vector<size_t> Out;
  for (size_t I : launchesOf(Index, K)) {
    const LaunchSiteInfo &L = Index.LaunchSites[I];
    if (Excluded.count(I))
      continue;
    if (Opt.LaunchLine &&
        (L.Loc.Line != Opt.LaunchLine ||
         (!Opt.LaunchFile.empty() && L.Loc.File != Opt.LaunchFile &&
          sys::path::filename(L.Loc.File) != sys::path::filename(Opt.LaunchFile))))
      continue;
    Out.push_back(I);
  }
  return Out;
}

Expected<WriteSite> Binder::siteAt(StringRef Kind, StringRef File, size_t Offset,
                                   size_t Length) {
  auto FT = F.get(File);
  if (!FT)
    return FT.takeError();
  StringRef Text = (*FT)->Text;
  if (Offset + Length > Text.size())
    return makeError("{0}: offset {1} is past the end of the file", File, Offset);
  WriteSite S;
  S.Kind = Kind.str();
  S.File = File.str();
  S.Offset = Offset;
  S.Length = Length;
  auto LC = patch::lineColumnForOffset(Text, Offset);
  if (!LC)
    return LC.takeError();
  S.Line = LC->first;
  S.Column = LC->second;
  S.Current = Text.substr(Offset, Length).str();
  return S;
}

Expected<WriteSite> Binder::siteAtLoc(StringRef Kind, const frontend::Location &Loc) {
  auto FT = F.get(Loc.File);
  if (!FT)
    return FT.takeError();
  auto Off = patch::offsetForLineColumn((*FT)->Text, Loc.Line, Loc.Column);
  if (!Off)
    return Off.takeError();
  size_t Len = literalLength((*FT)->Code, *Off);
  if (!Len && Kind == "unroll") {
    // The index points at `unroll` in `#pragma unroll 4`: the count follows.
    StringRef Code = (*FT)->Code;
    size_t E = lineEndOf(Code, *Off), I = *Off;
    while (I < E && isIdentChar(Code[I]))
      ++I;
    I = skipSpace(Code.take_front(E), I);
    if (I < E && literalLength(Code, I)) {
      Off = I;
      Len = literalLength(Code, I);
    }
  }
  if (!Len)
    return makeError("{0}:{1}:{2}: expected an integer literal for the {3} value, found `{4}`",
                     Loc.File, Loc.Line, Loc.Column, Kind,
                     StringRef((*FT)->Text).substr(*Off, 16));
  return siteAt(Kind, Loc.File, *Off, Len);
}

Expected<const ParsedLaunch *> Binder::launch(size_t I) {
  auto It = Parsed.find(I);
  if (It != Parsed.end())
    return &It->second;
  const LaunchSiteInfo &L = Index.LaunchSites[I];
  std::string Where = (L.Loc.File + ":" + Twine(L.Loc.Line)).str();
  if (L.Syntax != "chevron")
    return makeError("{0}: the launch of {1} goes through {2}; only <<<>>> launches are "
                     "rewritten",
                     Where, K.QualifiedName, L.Syntax);
  auto FT = F.get(L.Loc.File);
  if (!FT)
    return FT.takeError();
  auto Off = patch::offsetForLineColumn((*FT)->Text, L.Loc.Line, L.Loc.Column);
  if (!Off)
    return Off.takeError();
  auto P = parseChevron((*FT)->Code, *Off, Where);
  if (!P)
    return P.takeError();
  if (lastComponent(P->Callee) != K.Name)
    return makeError("{0}: expected a launch of {1}, found `{2}` (a launch written through a "
                     "macro or a function pointer is not rewritten)",
                     Where, K.Name, P->Callee);
  return &(Parsed[I] = std::move(*P));
}

Expected<WriteSite> Binder::templateDefault(StringRef Param) {
  auto FT = F.get(K.Loc.File);
  if (!FT)
    return FT.takeError();
  StringRef Code = (*FT)->Code;
  auto Off = patch::offsetForLineColumn((*FT)->Text, K.Loc.Line, K.Loc.Column);
  if (!Off)
    return Off.takeError();
  std::vector<size_t> T = occurrences(Code.take_front(*Off), "template");
  if (T.empty())
    return makeError("no template header before {0}", K.Name);
  size_t Open = skipSpace(Code, T.back() + 8);
  if (Open >= Code.size() || Code[Open] != '<')
    return makeError("no template parameter list before {0}", K.Name);
  int Angle = 0, Depth = 0;
  size_t Close = StringRef::npos;
  for (size_t J = Open; J < *Off; ++J) {
    char C = Code[J];
    if (C == '(' || C == '[' || C == '{')
      ++Depth;
    else if (C == ')' || C == ']' || C == '}')
      --Depth;
    else if (Depth == 0 && C == '<')
      ++Angle;
    else if (Depth == 0 && C == '>' && --Angle == 0) {
      Close = J;
      break;
    }
  }
  if (Close == StringRef::npos)
    return makeError("unbalanced template parameter list of {0}", K.Name);
  for (Range R : splitArgs(Code, Open + 1, Close, /*Angles=*/true)) {
    StringRef P = Code.slice(R.B, R.E);
    size_t Eq = P.find('=');
    if (Eq == StringRef::npos || !containsWord(P.take_front(Eq), Param))
      continue;
    Range D = trimmed(Code, R.B + Eq + 1, R.E);
    return siteAt("template-default", K.Loc.File, D.B, D.E - D.B);
  }
  return makeError("template parameter {0} of {1} has no default", Param, K.Name);
}

/// Literals in the grid argument that repeat a literal block size: B and
/// B - 1, as in `(n + 255) / 256` or `(n + 256 - 1) / 256`. They follow the
/// block so that the grid still covers the problem.
Error Binder::gridCompanions(size_t I, const WriteSite &Block, std::vector<WriteSite> &Out) {
  auto PL = launch(I);
  if (!PL)
    return PL.takeError();
  auto BV = literalValue(Block.Current);
  if ((*PL)->Config.empty() || !BV || *BV <= 2)
    return Error::success();
  return companionsIn((*PL)->Config[0], I, Block, Out);
}

Error Binder::companionsIn(Range G, size_t I, const WriteSite &Block,
                           std::vector<WriteSite> &Out) {
  auto BV = literalValue(Block.Current);
  if (!BV || *BV <= 2)
    return Error::success();
  const LaunchSiteInfo &L = Index.LaunchSites[I];
  auto FT = F.get(L.Loc.File);
  if (!FT)
    return FT.takeError();
  StringRef Code = (*FT)->Code;
  for (size_t J = G.B; J < G.E; ++J) {
    if (!isDigit(Code[J]) || (J > 0 && (isIdentChar(Code[J - 1]) || Code[J - 1] == '.')))
      continue;
    size_t Len = literalLength(Code, J);
    auto V = literalValue(Code.substr(J, Len));
    if (V && (*V == *BV || *V == *BV - 1)) {
      auto S = siteAt("grid-literal", L.Loc.File, J, Len);
      if (!S)
        return S.takeError();
      S->Delta = *V - *BV;
      S->Launch = I;
      Out.push_back(*S);
    }
    J += Len;
  }
  return Error::success();
}

Expected<std::optional<TunableBinding>> Binder::bindTemplate(StringRef Name, size_t PI) {
  const frontend::TemplateParamInfo &P = K.TemplateParams[PI];
  if (P.Kind != "non-type")
    return makeError("{0} is a {1} template parameter of {2}; only integer (non-type) "
                     "parameters take tuned values",
                     P.Name, P.Kind, K.QualifiedName);
  TunableBinding B;
  B.Name = Name.str();
  B.Origin = "template";
  B.Kernel = K.QualifiedName;
  B.Symbol = P.Name;
  bool NeedDefault = false;
  std::string Missing;
  std::set<std::pair<std::string, unsigned>> Seen;
  for (size_t I : launches()) {
    const LaunchSiteInfo &L = Index.LaunchSites[I];
    auto PL = launch(I);
    if (!PL)
      return PL.takeError();
    if (PI >= (*PL)->TemplateArgs.size()) {
      NeedDefault = true;
      Missing = (L.Loc.File + ":" + Twine(L.Loc.Line)).str();
      continue;
    }
    if (L.InTemplate && (PI >= L.TemplateArgs.size() || !L.TemplateArgs[PI].IntValue))
      return makeError("{0}:{1}: template argument {2} of {3} is `{4}`, which depends on the "
                       "enclosing function template ({5}); tune that function's parameter "
                       "where it is instantiated instead",
                       L.Loc.File, L.Loc.Line, P.Name, K.Name,
                       Index.LaunchSites[I].TemplateArgs.size() > PI
                           ? Index.LaunchSites[I].TemplateArgs[PI].Text
                           : std::string("?"),
                       L.EnclosingFunction);
    Range R = (*PL)->TemplateArgs[PI];
    // A literal, or the constant / macro / enumerator the argument names
    // (so that a launch geometry computed from it follows).
    auto Fo = follow(L.Loc.File, R, I, "template-arg", Name);
    if (!Fo)
      return Fo.takeError();
    if (Fo->Why.empty()) {
      for (const WriteSite &S : Fo->Sites)
        if (Seen.insert({S.File, S.Offset}).second)
          B.Sites.push_back(S);
      continue;
    }
    // A value a system header defines: the argument would lose its link to
    // it without the user saying so.
    if (Fo->System)
      return makeError("{0}:{1}: cannot write {2}, template argument {3} of this launch of "
                       "{4}: {5}{6}",
                       L.Loc.File, L.Loc.Line, Name, P.Name, K.Name, Fo->Why,
                       Fo->FixIt.empty() ? std::string() : "; " + Fo->FixIt);
    // Anything else: the argument becomes the value.
    auto S = siteAt("template-arg", L.Loc.File, R.B, R.E - R.B);
    if (!S)
      return S.takeError();
    S->Launch = I;
    B.Sites.push_back(*S);
  }
  if (NeedDefault || B.Sites.empty()) {
    auto S = templateDefault(P.Name);
    if (!S) {
      consumeError(S.takeError());
      if (B.Sites.empty() && Missing.empty())
        return makeError("no launch of {0} in {1} writes template argument {2}, and it has "
                         "no default to write instead",
                         K.QualifiedName, Index.File, P.Name);
      return makeError("{0}: the launch of {1} does not write template argument {2} (it is "
                       "deduced) and the parameter has no default; write the argument out",
                       Missing, K.Name, P.Name);
    }
    B.Sites.push_back(*S);
  }
  return std::optional<TunableBinding>(std::move(B));
}

/// The sites of a macro or constant named after the tunable: its literal,
/// or, for a chain, where the chain leads (the named definition's own uses
/// are what is tuned; the links after it are checked for other uses).
Expected<std::vector<WriteSite>> Binder::namedSites(const Link &L, StringRef Name) {
  if (L.D.Chain.empty()) {
    auto S = siteAt(L.D.Kind == "macro" ? "macro" : "constexpr", L.File, L.D.Lit, L.D.LitLen);
    if (!S)
      return S.takeError();
    S->Symbol = L.D.Id;
    return std::vector<WriteSite>{*S};
  }
  auto C = chainFrom({L}, L.File, L.D.Lit, L.D.Chain, Name);
  if (!C)
    return C.takeError();
  if (!C->Why.empty())
    return makeError("{0}: cannot write {1}: {2}{3}", whereOf(L), Name, C->Why,
                     C->FixIt.empty() ? std::string() : "; " + C->FixIt);
  auto Fo = sitesOf(*C, std::nullopt, Name, /*CheckFirst=*/false);
  if (!Fo)
    return Fo.takeError();
  return std::move(Fo->Sites);
}

Expected<std::optional<TunableBinding>> Binder::bindMacro(StringRef Name, StringRef Symbol) {
  // The file and its project headers (those the index found macros in
  // among them).
  std::vector<Link> Defs;
  for (const std::string &File : projectFiles()) {
    auto FT = F.get(File);
    if (!FT) {
      consumeError(FT.takeError());
      continue;
    }
    for (ValueDef &D : definitionsOf((*FT)->Code, (*FT)->Text, Symbol))
      if (D.Kind == "macro")
        Defs.push_back({File, D});
  }
  if (Defs.empty())
    return std::optional<TunableBinding>();
  if (Defs.size() > 1) {
    std::vector<std::string> Lines;
    for (const Link &L : Defs)
      Lines.push_back(whereOf(L));
    return makeError("macro {0} is defined {1} times ({2}); write-back needs one definition",
                     Symbol, Defs.size(), join(Lines, ", "));
  }
  auto Sites = namedSites(Defs.front(), Name);
  if (!Sites)
    return Sites.takeError();
  TunableBinding B;
  B.Name = Name.str();
  B.Origin = "macro";
  B.Kernel = K.QualifiedName;
  B.Symbol = Symbol.str();
  B.Sites = std::move(*Sites);
  return std::optional<TunableBinding>(std::move(B));
}

Expected<std::optional<TunableBinding>>
Binder::bindVariable(StringRef Name, StringRef Symbol, const TunableInfo *FromIndex) {
  TunableBinding B;
  B.Name = Name.str();
  B.Origin = "constexpr";
  B.Kernel = K.QualifiedName;
  B.Symbol = lastComponent(Symbol).str();
  if (!FromIndex) {
    // A constant the index traced into a launch.
    const TunableInfo *Match = nullptr;
    unsigned N = 0;
    for (const TunableInfo &T : Index.Tunables)
      if ((T.Origin == "constexpr" || (T.Origin == "launch" && !StringRef(T.Name).contains('@'))) &&
          (T.Name == Symbol || lastComponent(T.Name) == Symbol)) {
        Match = &T;
        ++N;
      }
    if (N > 1)
      return makeError("{0} names {1} different constants; use the qualified name that "
                       "`forge-port list` shows",
                       Symbol, N);
    FromIndex = Match;
  }
  if (FromIndex) {
    auto S = siteAtLoc("constexpr", FromIndex->Loc);
    if (!S)
      return S.takeError();
    S->Symbol = B.Symbol;
    B.Sites.push_back(*S);
    return std::optional<TunableBinding>(std::move(B));
  }
  auto FT = F.get(Index.File);
  if (!FT)
    return FT.takeError();
  std::vector<ValueDef> Defs;
  for (ValueDef &D : definitionsOf((*FT)->Code, (*FT)->Text, B.Symbol))
    if (D.Kind == "constexpr")
      Defs.push_back(std::move(D));
  if (Defs.empty())
    return std::optional<TunableBinding>();
  if (Defs.size() > 1) {
    std::string Lines;
    for (const ValueDef &D : Defs)
      Lines += (Lines.empty() ? "" : ", ") + std::to_string(lineOf((*FT)->Text, D.Lit));
    return makeError("{0} is defined as a constant {1} times in {2} (lines {3}); write-back "
                     "needs one definition",
                     Symbol, Defs.size(), Index.File, Lines);
  }
  auto Sites = namedSites(Link{Index.File, Defs.front()}, Name);
  if (!Sites)
    return Sites.takeError();
  B.Sites = std::move(*Sites);
  return std::optional<TunableBinding>(std::move(B));
}

Expected<std::optional<TunableBinding>> Binder::bindBlock(StringRef Name) {
  TunableBinding B;
  B.Name = Name.str();
  B.Kernel = K.QualifiedName;
  std::set<std::pair<std::string, unsigned>> Seen;
  std::vector<size_t> Launches = launches();
  if (Launches.empty())
    return std::optional<TunableBinding>();
  for (size_t I : Launches) {
    const LaunchSiteInfo &L = Index.LaunchSites[I];
    std::string Where = (L.Loc.File + ":" + Twine(L.Loc.Line)).str();
    auto PL = launch(I);
    if (!PL)
      return PL.takeError();
    if ((*PL)->Config.size() < 2)
      return makeError("{0}: the launch has no block argument", Where);
    auto FT = F.get(L.Loc.File);
    if (!FT)
      return FT.takeError();
    StringRef Code = (*FT)->Code;
    Range R = (*PL)->Config[1];
    StringRef Arg = Code.slice(R.B, R.E);
    // dim3(X), dim3(X, 1), dim3(X, 1, 1), dim3{X}: X.
    if (Arg.starts_with("dim3")) {
      size_t Open = skipSpace(Code, R.B + 4);
      if (Open < R.E && (Code[Open] == '(' || Code[Open] == '{')) {
        size_t Close = matchBracket(Code, Open);
        if (Close == StringRef::npos || Close + 1 != R.E)
          return makeError("{0}: cannot read the block argument `{1}`", Where, Arg);
        std::vector<Range> Parts = splitArgs(Code, Open + 1, Close, false);
        for (size_t P = 1; P < Parts.size(); ++P)
          if (Code.slice(Parts[P].B, Parts[P].E) != "1")
            return makeError("{0}: the block `{1}` has several dimensions; tune its "
                             "components through the names they use",
                             Where, Arg);
        if (Parts.empty())
          return makeError("{0}: the block `{1}` has no size to tune", Where, Arg);
        R = Parts[0];
        Arg = Code.slice(R.B, R.E);
      }
    }
    if (literalLength(Code, R.B) == Arg.size() && literalValue(Arg)) {
      auto S = siteAt("launch-literal", L.Loc.File, R.B, R.E - R.B);
      if (!S)
        return S.takeError();
      S->Launch = I;
      B.Sites.push_back(*S);
      if (Error E = gridCompanions(I, *S, B.Sites))
        return std::move(E);
      continue;
    }
    // A macro or a constant: bind to its definition (once).
    bool Ident = !Arg.empty() && llvm::all_of(Arg, [](char C) {
      return isIdentChar(C) || C == ':';
    });
    if (!Ident)
      return makeError("{0}: the block size of the launch is `{1}`, neither a literal nor a "
                       "macro or constant; tune the names it uses instead",
                       Where, Arg);
    auto M = bindMacro(Name, lastComponent(Arg));
    if (!M)
      return M.takeError();
    if (!*M) {
      M = bindVariable(Name, Arg, nullptr);
      if (!M)
        return M.takeError();
    }
    if (!*M) {
      // A chain of constants, or a local.
      auto Fo = follow(L.Loc.File, R, I, "launch-literal", Name);
      if (!Fo)
        return Fo.takeError();
      if (!Fo->Why.empty())
        return makeError("{0}: the block size `{1}` cannot be written: {2}{3}", Where, Arg,
                         Fo->Why, Fo->FixIt.empty() ? std::string() : "; " + Fo->FixIt);
      TunableBinding T;
      T.Sites = std::move(Fo->Sites);
      M = std::optional<TunableBinding>(std::move(T));
    }
    for (WriteSite &S : (*M)->Sites)
      if (Seen.insert({S.File, S.Offset}).second)
        B.Sites.push_back(S);
  }
  B.Origin = llvm::any_of(B.Sites, [](const WriteSite &S) { return S.Kind == "launch-literal"; })
                 ? "launch"
                 : B.Sites.front().Kind;
  if (B.Origin != "launch") {
    std::set<std::string> Symbols;
    for (const WriteSite &S : B.Sites)
      Symbols.insert(S.Symbol);
    if (Symbols.size() == 1)
      B.Symbol = *Symbols.begin();
  }
  return std::optional<TunableBinding>(std::move(B));
}

/// All unroll pragmas or the launch bounds of the kernel, literal or
/// through a macro.
Expected<std::optional<TunableBinding>> Binder::bindOrigin(StringRef Name, StringRef Origin,
                                                           StringRef Role) {
  TunableBinding B;
  B.Name = Name.str();
  B.Origin = Origin.str();
  B.Kernel = K.QualifiedName;
  for (const TunableInfo &T : Index.Tunables)
    if (T.Origin == Origin && T.Kernel == K.QualifiedName) {
      auto S = siteAtLoc(Origin, T.Loc);
      if (!S)
        return S.takeError();
      B.Sites.push_back(*S);
    }
  if (!B.Sites.empty())
    return std::optional<TunableBinding>(std::move(B));
  for (const TunableInfo &T : Index.Tunables)
    if (T.Origin == "macro" && T.Role == Role && T.Kernel == K.QualifiedName)
      return bindMacro(Name, T.Name);
  return std::optional<TunableBinding>();
}

Expected<Range> Binder::kernelRange() {
  auto FT = F.get(K.Loc.File);
  if (!FT)
    return FT.takeError();
  auto Off = patch::offsetForLineColumn((*FT)->Text, K.Loc.Line, K.Loc.Column);
  if (!Off)
    return Off.takeError();
  for (const DeviceFunction &D : deviceFunctions((*FT)->Code))
    if (*Off >= D.DeclBegin && *Off <= D.BodyEnd)
      return Range{D.DeclBegin, D.BodyEnd};
  return Range{*Off, *Off};
}

/// The declaration of Ident nearest before Use that its scope shows, with
/// `=`, `(` or `{` after the name and a type before it: the offset of the
/// name, or npos.
size_t declarationOf(StringRef Code, StringRef Ident, size_t Use) {
  size_t Best = StringRef::npos;
  for (size_t P : occurrences(Code, Ident)) {
    if (P >= Use)
      break;
    if (P > 0 && (Code[P - 1] == '.' || Code[P - 1] == ':' || Code[P - 1] == '>'))
      continue;
    size_t N = skipSpace(Code, P + Ident.size());
    if (N >= Code.size() || !StringRef("=({").contains(Code[N]) ||
        Code.substr(N, 2) == "==")
      continue;
    StringRef Decl = Code.slice(declStart(Code, P), P).trim();
    if (Decl.empty() || !isIdentChar(Decl.back()) || containsWord(Decl, "return"))
      continue;
    Range Blk = enclosingBlock(Code, P);
    if (Blk.B <= Use && Use <= Blk.E)
      Best = P;
  }
  return Best;
}

/// The initialiser of the variable Ident that a use at Use sees
/// (`int blocks = (n + 255) / 256;`), or an empty range.
Range initializerOf(StringRef Code, StringRef Ident, size_t Use) {
  size_t P = declarationOf(Code, Ident, Use);
  if (P == StringRef::npos)
    return {};
  size_t N = skipSpace(Code, P + Ident.size());
  if (Code[N] != '=')
    return {};
  size_t E = N + 1;
  int Depth = 0;
  for (; E < Code.size(); ++E) {
    char C = Code[E];
    if (C == '(' || C == '[' || C == '{')
      ++Depth;
    else if (C == ')' || C == ']' || C == '}')
      --Depth;
    else if ((C == ';' || C == ',') && Depth == 0)
      break;
  }
  return trimmed(Code, N + 1, E);
}

/// Statements before the launch that declare a variable its configuration
/// reads (`int blocks = (n + B - 1) / B;`, `dim3 block(B);`): they are part
/// of the launch for the uses of a constant.
std::vector<Range> Binder::derivedStatements(StringRef Code, size_t I) {
  std::vector<Range> Out;
  auto PL = launch(I);
  if (!PL) {
    consumeError(PL.takeError());
    return Out;
  }
  for (Range C : (*PL)->Config)
    for (size_t J = C.B; J < C.E;) {
      if (!isIdentChar(Code[J]) || isDigit(Code[J]) || (J > 0 && isIdentChar(Code[J - 1]))) {
        ++J;
        continue;
      }
      size_t E = J;
      while (E < C.E && isIdentChar(Code[E]))
        ++E;
      size_t P = declarationOf(Code, Code.slice(J, E), (*PL)->Stmt.B);
      if (P != StringRef::npos)
        Out.push_back({declStart(Code, P), statementEnd(Code, P)});
      J = E;
    }
  return Out;
}

const std::vector<std::string> &Binder::projectFiles() {
  if (ProjectRead)
    return Project;
  ProjectRead = true;
  auto Add = [&](StringRef P) {
    if (P.empty() || llvm::any_of(Project, [&](const std::string &Q) { return sameFile(P, Q); }))
      return false;
    Project.push_back(P.str());
    return true;
  };
  Add(Index.File);
  for (size_t I = 0; I < Project.size() && Project.size() < 64; ++I) {
    auto FT = F.get(Project[I]);
    if (!FT) {
      consumeError(FT.takeError());
      continue;
    }
    for (const auto &[Name, IsAngled] : includesOf(**FT)) {
      if (IsAngled) {
        Angled.push_back(Name);
        continue;
      }
      SmallString<256> P(sys::path::parent_path(Project[I]));
      sys::path::append(P, Name);
      sys::path::remove_dots(P, /*remove_dot_dot=*/true);
      if (llvm::any_of(Opt.SystemDirs, [&](const std::string &D) {
            SmallString<256> A(P), DA(D);
            sys::fs::make_absolute(A);
            sys::fs::make_absolute(DA);
            return StringRef(A).starts_with(DA);
          }))
        continue;
      auto HT = F.get(P);
      if (!HT) {
        consumeError(HT.takeError());
        Angled.push_back(Name); // maybe a system header found through -isystem
        continue;
      }
      Add(P);
    }
  }
  // What the index found in headers reached through -I.
  for (const TunableInfo &T : Index.Tunables)
    if (T.Origin == "macro" || T.Origin == "constexpr")
      Add(T.Loc.File);
  Add(K.Loc.File);
  return Project;
}

const std::vector<std::string> &Binder::systemFiles() {
  if (SystemRead)
    return System;
  SystemRead = true;
  projectFiles();
  std::vector<std::string> Todo = Angled;
  std::set<std::string> Seen;
  for (size_t I = 0; I < Todo.size() && System.size() < 100; ++I) {
    if (!Seen.insert(Todo[I]).second)
      continue;
    for (const std::string &Dir : Opt.SystemDirs) {
      SmallString<256> P(Dir);
      sys::path::append(P, Todo[I]);
      if (!sys::fs::is_regular_file(P))
        continue;
      std::string Path = P.str().str();
      if (!is_contained(System, Path)) {
        System.push_back(Path);
        if (auto FT = F.get(Path)) {
          for (const auto &Inc : includesOf(**FT))
            Todo.push_back(Inc.first);
        } else {
          consumeError(FT.takeError());
        }
      }
      break;
    }
  }
  return System;
}

std::string Binder::whereOf(const Link &L) {
  auto FT = F.get(L.File);
  if (!FT) {
    consumeError(FT.takeError());
    return L.File;
  }
  return (L.File + ":" + Twine(lineOf((*FT)->Text, L.D.Name))).str();
}

Expected<std::optional<Binder::Link>> Binder::resolve(StringRef File, size_t Use,
                                                      StringRef Qual) {
  StringRef Sym = lastComponent(Qual);
  StringRef Qualifier =
      Qual.size() > Sym.size() + 2 ? lastComponent(Qual.drop_back(Sym.size() + 2)) : "";
  auto Lines = [&](ArrayRef<Link> Ls) {
    std::vector<std::string> Out;
    for (const Link &L : Ls)
      Out.push_back(whereOf(L));
    return join(Out, ", ");
  };
  // A name the class or namespace qualifies: its definitions there, when
  // there are any.
  auto Qualified = [&](std::vector<Link> Ls) {
    if (Qualifier.empty())
      return Ls;
    std::vector<Link> In;
    for (const Link &L : Ls)
      if (L.D.Scope == Qualifier)
        In.push_back(L);
    return In.empty() ? Ls : In;
  };
  std::vector<Link> Macros, Others;
  std::vector<ValueDef> Here;
  for (const std::string &PF : projectFiles()) {
    auto FT = F.get(PF);
    if (!FT) {
      consumeError(FT.takeError());
      continue;
    }
    bool Own = sameFile(PF, File);
    for (ValueDef &D : definitionsOf((*FT)->Code, (*FT)->Text, Sym)) {
      if (D.Kind == "macro")
        Macros.push_back({PF, D});
      else if (Own)
        Here.push_back(D);
      else if (D.Kind != "local")
        Others.push_back({PF, D});
    }
  }
  if (Macros.size() > 1)
    return makeError("macro {0} is defined {1} times ({2}); write-back needs one definition",
                     Sym, Macros.size(), Lines(Macros));
  if (Macros.size() == 1)
    return std::optional<Link>(Macros.front());
  auto FT = F.get(File);
  if (!FT)
    return FT.takeError();
  if (!Qualifier.empty()) {
    std::vector<ValueDef> In;
    for (const ValueDef &D : Here)
      if (D.Scope == Qualifier)
        In.push_back(D);
    if (!In.empty())
      Here = std::move(In);
  }
  if (const ValueDef *D = visibleDefinition((*FT)->Code, Here, Use))
    return std::optional<Link>(Link{File.str(), *D});
  Others = Qualified(std::move(Others));
  if (Others.size() > 1)
    return makeError("{0} is defined {1} times ({2}); write-back needs one definition", Qual,
                     Others.size(), Lines(Others));
  if (Others.size() == 1)
    return std::optional<Link>(Others.front());
  std::vector<Link> Sys;
  for (const std::string &SF : systemFiles()) {
    auto ST = F.get(SF);
    if (!ST) {
      consumeError(ST.takeError());
      continue;
    }
    for (ValueDef &D : definitionsOf((*ST)->Code, (*ST)->Text, Sym))
      if (D.Kind != "local")
        Sys.push_back({SF, D, /*System=*/true});
  }
  Sys = Qualified(std::move(Sys));
  if (!Sys.empty())
    return std::optional<Link>(Sys.front());
  return std::optional<Link>();
}

Expected<Binder::Chain> Binder::chainFrom(std::vector<Link> Start, StringRef File, size_t Use,
                                          StringRef Qual, StringRef Name) {
  Chain C;
  C.Links = std::move(Start);
  std::string CurFile = File.str(), Cur = Qual.str();
  size_t CurUse = Use;
  auto Value = [&](const Link &L) {
    if (L.D.Chain.empty()) {
      auto FT = F.get(L.File);
      if (FT)
        return (*FT)->Text.substr(L.D.Lit, L.D.LitLen);
      consumeError(FT.takeError());
    }
    auto D = Opt.Defaults.find(Name.str());
    return D == Opt.Defaults.end() ? std::string("<its value>") : std::to_string(D->second);
  };
  // The edit that gives the name at Off of InFile (Len long) its value.
  auto FixAt = [&](StringRef InFile, size_t Off, size_t Len, StringRef V) {
    auto FT = F.get(InFile);
    if (!FT) {
      consumeError(FT.takeError());
      return std::string();
    }
    std::string Of = sameFile(InFile, Index.File) ? "" : (" of " + InFile).str();
    return formatv("fix-it: replace '{0}' in line {1}{2} by '{3}'",
                   StringRef((*FT)->Text).substr(Off, Len), lineOf((*FT)->Text, Off), Of, V)
        .str();
  };
  if (!C.Links.empty()) {
    const Link &L = C.Links.back();
    if (L.D.Chain.empty())
      return C;
    CurFile = L.File;
    CurUse = L.D.Lit;
    Cur = L.D.Chain;
  }
  for (unsigned Depth = 0;; ++Depth) {
    if (Depth == 8) {
      C.Why = ("`" + Qual + "` goes through more than 8 definitions").str();
      return C;
    }
    auto L = resolve(CurFile, CurUse, Cur);
    if (!L)
      return L.takeError();
    if (!*L) {
      if (C.Links.empty()) {
        C.NotFound = true;
        C.Why = ("`" + Qual + "` is not a macro, constant, enumerator or local variable " +
                 "initialised with an integer literal")
                    .str();
        return C;
      }
      const Link &P = C.Links.back();
      C.Why = formatv("`{0}` ({1}) is defined as `{2}`, and neither the file nor its "
                      "project headers define `{2}` as an integer literal or another name",
                      P.D.Id, whereOf(P), Cur)
                  .str();
      C.FixIt = FixAt(P.File, P.D.Lit, P.D.LitLen, Value(P));
      return C;
    }
    for (const Link &Seen : C.Links)
      if (sameFile(Seen.File, (*L)->File) && Seen.D.Name == (*L)->D.Name) {
        C.Why = "`" + Cur + "` is defined in terms of itself";
        return C;
      }
    C.Links.push_back(**L);
    const Link &N = C.Links.back();
    if (N.System) {
      C.System = true;
      C.Why = formatv("its value comes from `{0}`, which the system header {1} defines; a "
                      "system header is not written",
                      N.D.Id, whereOf(N))
                  .str();
      std::string V = Value(N);
      if (C.Links.size() > 1) {
        const Link &P = C.Links[C.Links.size() - 2];
        C.FixIt = FixAt(P.File, P.D.Lit, P.D.LitLen, V);
      } else {
        C.FixIt = FixAt(File, Use, Qual.size(), V);
      }
      return C;
    }
    if (!N.D.Written.empty()) {
      C.Why = "`" + N.D.Id + "` is " + N.D.Written + ", so its value is not known before the run";
      return C;
    }
    if (N.D.Chain.empty())
      return C;
    CurFile = N.File;
    CurUse = N.D.Lit;
    Cur = N.D.Chain;
  }
}

Expected<Binder::Uses> Binder::usesOf(const Link &L, const Link *Prev) {
  Uses U;
  bool Macro = L.D.Kind == "macro";
  StringRef Symbol = L.D.Id;
  // A definition of the file itself (or a local) is only read there; one
  // of a header anywhere that includes it.
  std::vector<std::string> Scan = {L.File};
  if (L.D.Kind != "local" && !sameFile(L.File, Index.File))
    for (const std::string &PF : projectFiles())
      if (!sameFile(PF, L.File))
        Scan.push_back(PF);
  for (const std::string &File : Scan) {
    auto FTE = F.get(File);
    if (!FTE) {
      consumeError(FTE.takeError());
      continue;
    }
    const FileText &FT = **FTE;
    StringRef Code = FT.Code, Text = FT.Text;
    bool Own = sameFile(File, L.File);
    std::vector<Range> Launches, Derived;
    for (size_t I : launches()) {
      if (!sameFile(Index.LaunchSites[I].Loc.File, File))
        continue;
      auto PL = launch(I);
      if (!PL)
        return PL.takeError();
      Launches.push_back((*PL)->Stmt);
      for (Range R : derivedStatements(Code, I))
        Derived.push_back(R);
    }
    auto In = [](ArrayRef<Range> Rs, size_t Off) {
      return llvm::any_of(Rs, [&](Range R) { return Off >= R.B && Off < R.E; });
    };
    Range KR{0, 0};
    if (sameFile(K.Loc.File, File)) {
      auto R = kernelRange();
      if (!R)
        return R.takeError();
      KR = *R;
    }
    Range PrevInit{0, 0};
    if (Prev && sameFile(Prev->File, File))
      PrevInit = {Prev->D.Lit, Prev->D.Lit + Prev->D.LitLen};
    // A variable's uses are in its scope and not under a declaration of the
    // same name (a parameter or local elsewhere); a macro has no scope, nor
    // has a static member (its uses are qualified).
    size_t DefName = Own && !Macro ? L.D.Name : StringRef::npos;
    Range Scope = DefName == StringRef::npos || L.D.Member ? Range{0, Code.size()}
                                                           : enclosingBlock(Code, DefName);
    std::vector<DeviceFunction> DevFns = deviceFunctions(Code);
    auto Shadowed = [&](size_t Occ) {
      if (DefName == StringRef::npos)
        return false;
      size_t P = declarationOf(Code, Symbol, Occ + 1);
      if (P != StringRef::npos && P != DefName && P > DefName)
        return true;
      // A parameter of the function around Occ.
      for (const DeviceFunction &D : DevFns)
        if (Occ > D.BodyBegin && Occ < D.BodyEnd &&
            containsWord(Code.slice(D.DeclBegin, D.BodyBegin), Symbol))
          return true;
      Range Blk = enclosingBlock(Code, Occ);
      while (Blk.B > Scope.B) {
        size_t Close = prevNonSpace(Code, Blk.B);
        if (Close != StringRef::npos && Code[Close] == ')') {
          int Depth = 0;
          for (size_t I = Close + 1; I-- > 0;) {
            if (Code[I] == ')')
              ++Depth;
            else if (Code[I] == '(' && --Depth == 0) {
              if (containsWord(Code.slice(I, Close), Symbol))
                return true;
              break;
            }
          }
        }
        Blk = enclosingBlock(Code, Blk.B);
      }
      return false;
    };
    for (size_t Occ : occurrences(Code, Symbol)) {
      if (Own && Occ >= L.D.Stmt.B && Occ < L.D.Stmt.E)
        continue;
      if (Occ >= PrevInit.B && Occ < PrevInit.E) {
        U.Renames[File].push_back({unsigned(Occ), unsigned(Symbol.size())});
        continue;
      }
      if (Occ < Scope.B || Occ > Scope.E || Shadowed(Occ))
        continue;
      if (Occ >= 1 && (Code[Occ - 1] == '.' || (Occ >= 2 && Code.slice(Occ - 2, Occ) == "->")))
        continue;
      size_t LB = lineStartOf(Code, Occ);
      if (Regex("^[ \t]*#[ \t]*(ifdef|ifndef|undef|define)[ \t]").match(Code.slice(LB, Occ)) ||
          Regex("defined[ \t]*\\(?[ \t]*$").match(Code.slice(LB, Occ)))
        continue;
      if (In(Launches, Occ) || In(Derived, Occ)) {
        U.Renames[File].push_back({unsigned(Occ), unsigned(Symbol.size())});
        continue;
      }
      if (Occ >= KR.B && Occ < KR.E) {
        U.InKernel = true;
        continue;
      }
      std::string Line = std::to_string(lineOf(Text, Occ));
      U.Other.push_back(Own ? Line : File + ":" + Line);
    }
  }
  U.Other.erase(std::unique(U.Other.begin(), U.Other.end()), U.Other.end());
  return U;
}

Error Binder::ownConstant(const Link &L, const Uses &U, WriteSite S,
                          std::vector<WriteSite> &Out, StringRef Via) {
  auto FTE = F.get(L.File);
  if (!FTE)
    return FTE.takeError();
  StringRef Code = (*FTE)->Code, Text = (*FTE)->Text;
  bool Macro = L.D.Kind == "macro";
  StringRef Symbol = L.D.Id;
  Range DefStmt = L.D.Stmt;
  std::string Where = whereOf(L);
  std::string New = (Symbol + "_" + K.Name).str();
  while (containsWord(Code, New))
    New += "_tuned";
  size_t EOL = lineEndOf(Code, DefStmt.E);
  bool Rest = !Macro && !Code.slice(DefStmt.E, EOL).trim().empty();
  size_t LB = lineStartOf(Text, DefStmt.B), I = LB;
  while (I < Text.size() && (Text[I] == ' ' || Text[I] == '\t'))
    ++I;
  std::string Indent = Text.slice(LB, I).str();
  if (Macro) {
    S.Decl = "#define " + New + " ";
    S.DeclEnd = "\n";
    EOL = DefStmt.E;
  } else {
    S.Decl = L.D.Type + " " + New + " = ";
    S.DeclEnd = ";";
  }
  if (Rest) {
    S.Offset = DefStmt.E;
    S.Decl = " " + S.Decl;
  } else if (EOL >= Code.size()) {
    S.Offset = Code.size();
    S.Decl = "\n" + Indent + S.Decl;
    if (Macro)
      S.DeclEnd = "";
  } else {
    S.Offset = EOL + 1;
    S.Decl = Indent + S.Decl;
    if (!Macro)
      S.DeclEnd = ";\n";
  }
  S.Kind = "new-constant";
  S.File = L.File;
  S.Line = lineOf(Text, L.D.Name);
  S.Length = 0;
  S.Symbol = New;
  S.Renames.clear();
  S.RenameFile.clear();
  S.Times.clear();
  bool First = true;
  for (const auto &[File, Rs] : U.Renames) {
    if (First) {
      S.Renames = Rs;
      if (!sameFile(File, L.File))
        S.RenameFile = File;
      Out.push_back(S);
      First = false;
      continue;
    }
    // Uses in another file: renamed, nothing declared there.
    WriteSite R = S;
    R.File = File;
    R.RenameFile.clear();
    R.Offset = Rs.front().first;
    R.Decl.clear();
    R.DeclEnd.clear();
    R.Renames = Rs;
    Out.push_back(R);
  }
  if (First)
    Out.push_back(S);
  note(formatv("{0}: {1} is also used at line(s) {2}; it is left as it is, and the "
               "launch(es) of {3} get a constant of their own, {4}{5}",
               Where, Symbol, join(U.Other, ", "), K.QualifiedName, New,
               Via.empty() ? std::string() : (", which " + Via + " now names").str())
           .str());
  return Error::success();
}

Expected<Followed> Binder::sitesOf(const Chain &C, std::optional<size_t> Launch,
                                   StringRef Name, bool CheckFirst) {
  Followed Out;
  const Link &Last = C.Links.back();
  auto S = siteAt(Last.D.Kind == "macro" ? "macro" : "constexpr", Last.File, Last.D.Lit,
                  Last.D.LitLen);
  if (!S)
    return S.takeError();
  S->Symbol = Last.D.Id;
  if (Launch && isIntLiteral(S->Current))
    LaunchValues[*Launch][Name.str()] = *literalValue(S->Current);
  // The names as the chain spells them: B -> BLOCK_SIZE, Tile -> CFG::kTile.
  std::vector<std::string> Path = {C.Links.front().D.Id};
  for (size_t I = 0; I + 1 < C.Links.size(); ++I)
    Path.push_back(C.Links[I].D.Chain);
  for (size_t I = CheckFirst ? 0 : 1; I < C.Links.size(); ++I) {
    const Link &L = C.Links[I];
    auto U = usesOf(L, I ? &C.Links[I - 1] : nullptr);
    if (!U)
      return U.takeError();
    if (U->Other.empty())
      continue;
    if (U->InKernel) {
      note(formatv("{0}: {1} is also used at line(s) {2}, and {3} reads it too, so it "
                   "cannot take a value of its own: the tuned value changes it there as well",
                   whereOf(L), L.D.Id, join(U->Other, ", "), K.QualifiedName)
               .str());
      continue;
    }
    if (Error E = ownConstant(L, *U, *S, Out.Sites, I ? C.Links[I - 1].D.Id : ""))
      return std::move(E);
    return Out;
  }
  bool Header = !sameFile(Last.File, Index.File);
  if (C.Links.size() > 1 || Header)
    note(formatv("{0}: {1} is written here{2}{3}", whereOf(Last), Name,
                 C.Links.size() > 1 ? ", through " + join(Path, " -> ") : std::string(),
                 Header ? "; the project header " + Last.File + " changes"
                        : std::string())
             .str());
  Out.Sites.push_back(*S);
  return Out;
}

Expected<Followed> Binder::follow(StringRef File, Range R, std::optional<size_t> Launch,
                                  StringRef LiteralKind, StringRef Name) {
  auto FT = F.get(File);
  if (!FT)
    return FT.takeError();
  StringRef Code = (*FT)->Code;
  // (256) and (B) are 256 and B.
  while (R.E > R.B + 1 && Code[R.B] == '(' && matchBracket(Code, R.B) == R.E - 1)
    R = trimmed(Code, R.B + 1, R.E - 1);
  StringRef Arg = Code.slice(R.B, R.E);
  Followed Out;
  if (literalLength(Code, R.B) == Arg.size() && literalValue(Arg)) {
    auto S = siteAt(LiteralKind, File, R.B, R.E - R.B);
    if (!S)
      return S.takeError();
    S->Launch = Launch;
    if (Launch)
      LaunchValues[*Launch][Name.str()] = *literalValue(S->Current) - S->Delta;
    Out.Sites.push_back(*S);
    return Out;
  }
  bool Ident = !Arg.empty() && !isDigit(Arg[0]) &&
               llvm::all_of(Arg, [](char C) { return isIdentChar(C) || C == ':'; });
  if (!Ident) {
    Out.Why = ("`" + Arg + "` is an expression, not a literal or a name").str();
    return Out;
  }
  auto C = chainFrom({}, File, R.B, Arg, Name);
  if (!C)
    return C.takeError();
  if (C->NotFound) {
    // A constant of a header that the index traced.
    auto V = bindVariable(Name, Arg, nullptr);
    if (!V)
      return V.takeError();
    if (*V && (*V)->Sites.front().File != File) {
      Out.Sites = (*V)->Sites;
      return Out;
    }
  }
  if (!C->Why.empty()) {
    Out.Why = C->Why;
    Out.FixIt = C->FixIt;
    Out.System = C->System;
    return Out;
  }
  return sitesOf(*C, Launch, Name, /*CheckFirst=*/true);
}

const char *dimName(unsigned D) { return D == 0 ? "x" : D == 1 ? "y" : "z"; }

/// The expression of dimension Dim of launch argument Pos (0 grid, 1 block,
/// 2 shared memory): a component of an inline `dim3(...)` or of the `dim3`
/// variable the argument names, else the whole argument for x.
Expected<std::pair<Range, std::string>> Binder::component(size_t I, size_t Pos, unsigned Dim) {
  auto PL = launch(I);
  if (!PL)
    return PL.takeError();
  const char *What = Pos == 0 ? "grid" : Pos == 1 ? "block" : "shared-memory";
  if (Pos >= (*PL)->Config.size())
    return std::make_pair(Range{}, std::string("the launch has no ") + What + " argument");
  const LaunchSiteInfo &L = Index.LaunchSites[I];
  auto FT = F.get(L.Loc.File);
  if (!FT)
    return FT.takeError();
  StringRef Code = (*FT)->Code, Text = (*FT)->Text;
  Range R = (*PL)->Config[Pos];
  StringRef Arg = Code.slice(R.B, R.E);
  size_t Open = StringRef::npos;
  if (Arg.starts_with("dim3")) {
    size_t O = skipSpace(Code, R.B + 4);
    if (O < R.E && (Code[O] == '(' || Code[O] == '{'))
      Open = O;
  } else if (!Arg.empty() && !isDigit(Arg[0]) && llvm::all_of(Arg, isIdentChar)) {
    size_t P = declarationOf(Code, Arg, R.B);
    if (P != StringRef::npos &&
        containsWord(Code.slice(declStart(Code, P), P), "dim3")) {
      size_t N = skipSpace(Code, P + Arg.size());
      if (Code[N] == '=') {
        N = skipSpace(Code, N + 1);
        if (Code.substr(N, 4) == "dim3")
          N = skipSpace(Code, N + 4);
      }
      if (N < Code.size() && (Code[N] == '(' || Code[N] == '{'))
        Open = N;
      // block.x = 32; after the declaration changes it at run time.
      for (size_t Q : occurrences(Code, Arg)) {
        if (Q <= P || Q >= R.B)
          continue;
        size_t M = skipSpace(Code, Q + Arg.size());
        if (M < Code.size() && Code[M] == '.') {
          size_t E = skipSpace(Code, M + 2);
          if (E < Code.size() && Code[E] == '=' && Code.substr(E, 2) != "==")
            return std::make_pair(Range{}, ("`" + Arg + "` is assigned at line " +
                                            Twine(lineOf(Text, Q)))
                                               .str());
        } else if (M < Code.size() && Code[M] == '=' && Code.substr(M, 2) != "==") {
          return std::make_pair(Range{}, ("`" + Arg + "` is assigned at line " +
                                          Twine(lineOf(Text, Q)))
                                             .str());
        }
      }
    }
  }
  if (Open == StringRef::npos) {
    if (Dim == 0)
      return std::make_pair(R, std::string());
    return std::make_pair(Range{}, ("the " + Twine(What) + " `" + Arg + "` has no " +
                                    dimName(Dim) + " component to write")
                                       .str());
  }
  size_t Close = matchBracket(Code, Open);
  if (Close == StringRef::npos)
    return std::make_pair(Range{}, ("cannot read the " + Twine(What) + " `" + Arg + "`").str());
  std::vector<Range> Parts = splitArgs(Code, Open + 1, Close, false);
  if (Dim >= Parts.size())
    return std::make_pair(Range{}, ("the " + Twine(What) + " `" +
                                    Code.slice(Open > R.B && Open < R.E ? R.B : Open, Close + 1) +
                                    "` has no " + dimName(Dim) + " component (it is 1)")
                                       .str());
  return std::make_pair(Parts[Dim], std::string());
}

/// The edit that would make a value at [B, E) of File bindable as Name.
std::string fixItText(StringRef Text, size_t B, size_t E, StringRef Name,
                      std::optional<int64_t> Value) {
  unsigned Line = lineOf(Text, B);
  return formatv("fix-it: replace '{0}' in line {1} by '{2}' and add '#define {2} {3}' above "
                 "line {1}",
                 Text.slice(B, E), Line, Name,
                 Value ? std::to_string(*Value) : std::string("<its value>"))
      .str();
}

std::string Binder::fixItFor(StringRef Name) {
  auto It = Opt.Defaults.find(Name.str());
  if (It == Opt.Defaults.end())
    return "";
  for (size_t I : launches()) {
    auto PL = launch(I);
    if (!PL) {
      consumeError(PL.takeError());
      continue;
    }
    auto FT = F.get(Index.LaunchSites[I].Loc.File);
    if (!FT) {
      consumeError(FT.takeError());
      return "";
    }
    StringRef Code = (*FT)->Code;
    std::vector<Range> Args = (*PL)->TemplateArgs;
    for (size_t P = 0; P < (*PL)->Config.size() && P < 2; ++P)
      for (unsigned D = 0; D < 3; ++D) {
        auto C = component(I, P, D);
        if (!C) {
          consumeError(C.takeError());
          continue;
        }
        if (C->second.empty())
          Args.push_back(C->first);
      }
    for (Range R : Args) {
      StringRef A = Code.slice(R.B, R.E);
      if (isIntLiteral(A) && literalValue(A) == It->second)
        return fixItText((*FT)->Text, R.B, R.E, Name, It->second);
    }
  }
  return "";
}

Expected<std::optional<TunableBinding>> Binder::bindHinted(StringRef Name) {
  std::string N = Name.str();
  auto TA = Opt.TemplateArgs.find(N);
  auto BD = Opt.BlockDims.find(N);
  auto GD = Opt.GridDims.find(N);
  bool Smem = is_contained(Opt.SharedMem, N);
  if (TA == Opt.TemplateArgs.end() && BD == Opt.BlockDims.end() &&
      GD == Opt.GridDims.end() && !Smem)
    return std::optional<TunableBinding>();
  TunableBinding B;
  B.Name = N;
  B.Kernel = K.QualifiedName;
  std::set<std::pair<std::string, unsigned>> Seen;
  auto Add = [&](const WriteSite &S) {
    if (Seen.insert({S.File, S.Offset}).second)
      B.Sites.push_back(S);
  };
  if (TA != Opt.TemplateArgs.end())
    for (unsigned PI : TA->second) {
      if (PI >= K.TemplateParams.size())
        return makeError("the spec gives {0} as template argument {1} of {2}, which has {3} "
                         "template parameter(s)",
                         N, PI + 1, K.QualifiedName, K.TemplateParams.size());
      auto T = bindTemplate(Name, PI);
      if (!T)
        return T.takeError();
      if (*T)
        for (const WriteSite &S : (*T)->Sites)
          Add(S);
    }
  auto Dims = [&](size_t Pos, ArrayRef<unsigned> Ds) -> Error {
    for (size_t I : launches()) {
      const LaunchSiteInfo &L = Index.LaunchSites[I];
      auto PL = launch(I);
      if (!PL)
        return PL.takeError();
      auto FT = F.get(L.Loc.File);
      if (!FT)
        return FT.takeError();
      for (unsigned D : Ds) {
        std::string What = Pos == 2 ? std::string("shared-memory size")
                                    : std::string(Pos == 0 ? "grid " : "block ") + dimName(D);
        auto Fail = [&](Range R, StringRef Why, StringRef FixIt = "") {
          if (!FixIt.empty())
            return makeError("{0}:{1}: cannot write {2}, the {3} of this launch of {4}: {5}; {6}",
                             L.Loc.File, L.Loc.Line, N, What, K.Name, Why, FixIt);
          std::string Fix = R.E > R.B ? "; " + fixItText((*FT)->Text, R.B, R.E, Name,
                                                           Opt.Defaults.count(N)
                                                               ? std::optional<int64_t>(
                                                                     Opt.Defaults.at(N))
                                                               : std::nullopt)
                                      : "";
          return makeError("{0}:{1}: cannot write {2}, the {3} of this launch of {4}: {5}{6}",
                           L.Loc.File, L.Loc.Line, N, What, K.Name, Why, Fix);
        };
        auto C = component(I, Pos, D);
        if (!C)
          return C.takeError();
        if (!C->second.empty())
          return Fail((*PL)->Config.size() > Pos ? (*PL)->Config[Pos] : Range{}, C->second);
        Range Cfg = (*PL)->Config[Pos];
        bool AtLaunch = C->first.B >= Cfg.B && C->first.E <= Cfg.E;
        StringRef Kind = Pos == 1 ? (AtLaunch ? "launch-literal" : "dim3-literal")
                                  : (AtLaunch ? "grid-literal" : "dim3-literal");
        auto Fo = follow(L.Loc.File, C->first, I, Kind, Name);
        if (!Fo)
          return Fo.takeError();
        if (!Fo->Why.empty())
          return Fail(C->first, Fo->Why, Fo->FixIt);
        std::vector<WriteSite> Sites = Fo->Sites;
        if (Pos == 1)
          for (const WriteSite &S : Fo->Sites) {
            if (S.Kind != "launch-literal" && S.Kind != "dim3-literal")
              continue;
            auto G = component(I, 0, D);
            if (!G)
              return G.takeError();
            if (!G->second.empty())
              continue;
            Range GR = G->first;
            StringRef GText = StringRef((*FT)->Code).slice(GR.B, GR.E);
            if (!GText.empty() && !isDigit(GText[0]) && llvm::all_of(GText, isIdentChar))
              GR = initializerOf((*FT)->Code, GText, GR.B);
            if (Error E = companionsIn(GR, I, S, Sites))
              return E;
          }
        for (const WriteSite &S : Sites)
          Add(S);
      }
    }
    return Error::success();
  };
  if (GD != Opt.GridDims.end())
    if (Error E = Dims(0, GD->second))
      return std::move(E);
  if (BD != Opt.BlockDims.end())
    if (Error E = Dims(1, BD->second))
      return std::move(E);
  if (Smem)
    if (Error E = Dims(2, {0}))
      return std::move(E);
  if (B.Sites.empty())
    return std::optional<TunableBinding>();
  StringRef First = B.Sites.front().Kind;
  B.Origin = llvm::any_of(B.Sites, [](const WriteSite &S) {
               return S.Kind == "launch-literal" || S.Kind == "dim3-literal";
             })
                 ? "launch"
             : First == "template-arg" || First == "template-default" ? "template"
             : First == "macro"                                      ? "macro"
                                                                     : "constexpr";
  std::set<std::string> Symbols;
  for (const WriteSite &S : B.Sites)
    Symbols.insert(S.Symbol);
  if (Symbols.size() == 1)
    B.Symbol = *Symbols.begin();
  return std::optional<TunableBinding>(std::move(B));
}

Expected<std::optional<TunableBinding>> Binder::fromIndex(StringRef Name, const TunableInfo &T) {
  if (T.Origin == "macro")
    return bindMacro(Name, T.Name);
  if (T.Origin == "constexpr" || (T.Origin == "launch" && !StringRef(T.Name).contains('@')))
    return bindVariable(Name, T.Name, &T);
  if (!T.Kernel.empty() && T.Kernel != K.QualifiedName)
    return makeError("{0} is a tunable of kernel {1}, not {2}", T.Name, T.Kernel,
                     K.QualifiedName);
  if (T.Origin == "template") {
    StringRef Param = lastComponent(T.Name);
    for (size_t I = 0; I < K.TemplateParams.size(); ++I)
      if (K.TemplateParams[I].Name == Param)
        return bindTemplate(Name, I);
    return std::optional<TunableBinding>();
  }
  if (T.Origin == "launch" || T.Origin == "unroll" || T.Origin == "launch_bounds") {
    StringRef Kind = T.Origin == "launch" ? "launch-literal" : StringRef(T.Origin);
    auto S = siteAtLoc(Kind, T.Loc);
    if (!S)
      return S.takeError();
    if (T.Origin == "launch")
      for (size_t I : launches())
        if (is_contained(T.UsedAt, Index.LaunchSites[I].Loc))
          S->Launch = I;
    TunableBinding B;
    B.Name = Name.str();
    B.Origin = T.Origin;
    B.Kernel = K.QualifiedName;
    B.Sites.push_back(*S);
    if (S->Launch)
      if (Error E = gridCompanions(*S->Launch, *S, B.Sites))
        return std::move(E);
    return std::optional<TunableBinding>(std::move(B));
  }
  // An annotation: its value may still be a macro or constant of the file.
  auto M = bindMacro(Name, T.Name);
  if (!M || *M)
    return M;
  return bindVariable(Name, T.Name, nullptr);
}

/// Grid literals equal to the product of the tunables that the spec's grid
/// divides by (or one less): `(n + 1023) / 1024` for BLOCK * ITEMS at
/// 256 * 4. They follow the product.
Error Binder::productCompanions(std::vector<TunableBinding> &Bindings) {
  for (const auto &[Dim, Factors] : Opt.GridFactors) {
    if (Factors.size() < 2)
      continue;
    TunableBinding *First = nullptr;
    for (TunableBinding &B : Bindings)
      if (B.Name == Factors.front())
        First = &B;
    if (!First)
      continue;
    std::set<std::pair<std::string, unsigned>> Seen;
    for (const TunableBinding &B : Bindings)
      for (const WriteSite &S : B.Sites)
        Seen.insert({S.File, S.Offset});
    for (size_t I : launches()) {
      auto LV = LaunchValues.find(I);
      if (LV == LaunchValues.end())
        continue;
      int64_t P = 1;
      bool Known = true;
      for (const std::string &N : Factors) {
        auto V = LV->second.find(N);
        if (V == LV->second.end() || V->second <= 0)
          Known = false;
        else
          P *= V->second;
      }
      if (!Known || P <= 2)
        continue;
      auto G = component(I, 0, Dim);
      if (!G)
        return G.takeError();
      if (!G->second.empty())
        continue;
      const LaunchSiteInfo &L = Index.LaunchSites[I];
      auto FT = F.get(L.Loc.File);
      if (!FT)
        return FT.takeError();
      StringRef Code = (*FT)->Code;
      Range GR = G->first;
      StringRef GText = Code.slice(GR.B, GR.E);
      if (!GText.empty() && !isDigit(GText[0]) && llvm::all_of(GText, isIdentChar))
        GR = initializerOf(Code, GText, GR.B);
      for (size_t J = GR.B; J < GR.E; ++J) {
        if (!isDigit(Code[J]) || (J > 0 && (isIdentChar(Code[J - 1]) || Code[J - 1] == '.')))
          continue;
        size_t Len = literalLength(Code, J);
        auto V = literalValue(Code.substr(J, Len));
        // A block companion there (BLOCK=64 with ITEMS=1) is the product.
        if (V && (*V == P || *V == P - 1) && Seen.count({L.Loc.File, unsigned(J)}))
          for (TunableBinding &B : Bindings)
            for (size_t X = 0; X < B.Sites.size(); ++X)
              if (B.Sites[X].File == L.Loc.File && B.Sites[X].Offset == J &&
                  B.Sites[X].Kind == "grid-literal" && B.Sites[X].Times.empty()) {
                B.Sites.erase(B.Sites.begin() + X);
                Seen.erase({L.Loc.File, unsigned(J)});
                break;
              }
        if (V && (*V == P || *V == P - 1) && !Seen.count({L.Loc.File, unsigned(J)})) {
          auto S = siteAt("grid-literal", L.Loc.File, J, Len);
          if (!S)
            return S.takeError();
          S->Delta = *V - P;
          S->Launch = I;
          S->Times.assign(Factors.begin() + 1, Factors.end());
          First->Sites.push_back(*S);
        }
        J += Len;
      }
    }
  }
  return Error::success();
}

Expected<std::optional<TunableBinding>> Binder::bindNamed(StringRef Name) {
  for (const TunableInfo &T : Index.Tunables)
    if (T.Name == Name)
      return fromIndex(Name, T);
  for (size_t I = 0; I < K.TemplateParams.size(); ++I)
    if (K.TemplateParams[I].Name == Name)
      return bindTemplate(Name, I);
  auto M = bindMacro(Name, Name);
  if (!M || *M)
    return M;
  return bindVariable(Name, Name, nullptr);
}

Expected<std::optional<TunableBinding>> Binder::bind(StringRef Name) {
  // A template parameter, macro or constant named after the tunable, and
  // where the spec puts it (a template argument, a launch dimension): both.
  auto M = bindNamed(Name);
  if (!M)
    return M;
  size_t NotesBefore = Notes.size();
  auto H = bindHinted(Name);
  if (*M) {
    // The named macro or constant is what changes: notes of a launch
    // constant of its own do not apply.
    if ((*M)->Origin == "macro" || (*M)->Origin == "constexpr")
      Notes.resize(NotesBefore);
    if (!H) {
      consumeError(H.takeError()); // the named binding stands on its own
      return M;
    }
    if (*H) {
      std::set<std::pair<std::string, unsigned>> Seen;
      for (const WriteSite &S : (*M)->Sites)
        Seen.insert({S.File, S.Offset});
      bool Named = (*M)->Origin == "macro" || (*M)->Origin == "constexpr";
      for (const WriteSite &S : (*H)->Sites)
        if (!(Named && S.Kind == "new-constant") && Seen.insert({S.File, S.Offset}).second)
          (*M)->Sites.push_back(S);
    }
    return M;
  }
  if (!H || *H)
    return H;
  if (isConventional(Name, {"BLOCK", "BLOCK_SIZE", "BLOCKSIZE", "THREADS", "NUM_THREADS"}))
    return bindBlock(Name);
  if (isConventional(Name, {"UNROLL", "UNROLL_FACTOR"}))
    return bindOrigin(Name, "unroll", "unroll");
  if (isConventional(Name, {"LAUNCH_BOUNDS", "MAX_THREADS", "MAX_THREADS_PER_BLOCK"}))
    return bindOrigin(Name, "launch_bounds", "launch_bounds");
  return std::optional<TunableBinding>();
}

std::string Binder::offers() {
  std::vector<std::string> Parts;
  std::vector<std::string> Params;
  for (const auto &P : K.TemplateParams)
    if (P.Kind == "non-type")
      Params.push_back(P.Name);
  if (!Params.empty())
    Parts.push_back("template parameters of " + K.QualifiedName + ": " + join(Params, ", "));
  std::set<std::string> Macros, Consts;
  for (const TunableInfo &T : Index.Tunables) {
    if (T.Origin == "macro")
      Macros.insert(T.Name);
    else if (T.Origin == "constexpr" ||
             (T.Origin == "launch" && !StringRef(T.Name).contains('@')))
      Consts.insert(T.Name);
  }
  if (auto FT = F.get(Index.File)) {
    for (const ValueDef &D : definitionsOf((*FT)->Code, (*FT)->Text))
      if (D.Kind == "macro")
        Macros.insert(D.Id);
      else if (D.Kind == "constexpr")
        Consts.insert(D.Id);
  } else {
    consumeError(FT.takeError());
  }
  if (!Macros.empty())
    Parts.push_back("macros: " + join(Macros, ", "));
  if (!Consts.empty())
    Parts.push_back("constants: " + join(Consts, ", "));
  std::vector<std::string> Lines;
  for (size_t I : launchesOf(Index, K))
    Lines.push_back(std::to_string(Index.LaunchSites[I].Loc.Line));
  if (!Lines.empty())
    Parts.push_back("BLOCK (the block size of the launches at lines " + join(Lines, ", ") + ")");
  std::vector<std::string> Other;
  for (const TunableInfo &T : Index.Tunables)
    if (T.Kernel == K.QualifiedName &&
        (T.Origin == "unroll" || T.Origin == "launch_bounds" || T.Origin == "launch" ||
         T.Origin == "template"))
      Other.push_back(T.Name);
  bool Unroll = llvm::any_of(Index.Tunables, [&](const TunableInfo &T) {
    return T.Kernel == K.QualifiedName && (T.Origin == "unroll" || T.Role == "unroll");
  });
  bool Bounds = llvm::any_of(Index.Tunables, [&](const TunableInfo &T) {
    return T.Kernel == K.QualifiedName &&
           (T.Origin == "launch_bounds" || T.Role == "launch_bounds");
  });
  if (Unroll)
    Parts.push_back("UNROLL (its #pragma unroll)");
  if (Bounds)
    Parts.push_back("LAUNCH_BOUNDS (its __launch_bounds__)");
  if (!Other.empty())
    Parts.push_back("index names: " + join(Other, ", "));
  return Parts.empty() ? "nothing tunable" : join(Parts, "; ");
}

} // namespace

namespace {
Expected<BindResult> bindOnce(const FileIndex &Index, const KernelInfo *K,
                              ArrayRef<std::string> Names, const BindOptions &Opt,
                              const std::set<size_t> &Excluded,
                              const patch::ContentsProvider &Contents,
                              std::map<size_t, std::map<std::string, int64_t>> *Values);
} // namespace

Expected<std::vector<TunableBinding>> bindTunables(const FileIndex &Index, StringRef Kernel,
                                                   ArrayRef<std::string> Names,
                                                   const patch::ContentsProvider &Contents) {
  auto R = bindTunables(Index, Kernel, Names, BindOptions(), Contents);
  if (!R)
    return R.takeError();
  return std::move(R->Bindings);
}

Expected<BindResult> bindTunables(const FileIndex &Index, StringRef Kernel,
                                  ArrayRef<std::string> Names, const BindOptions &Opt,
                                  const patch::ContentsProvider &Contents) {
  const KernelInfo *K = findKernel(Index, Kernel);
  if (!K) {
    std::vector<std::string> Known;
    for (const KernelInfo &KI : Index.Kernels)
      Known.push_back(KI.QualifiedName);
    return makeError("no kernel {0} in {1} (kernels: {2})", Kernel, Index.File,
                     Known.empty() ? std::string("none") : join(Known, ", "));
  }
  std::vector<size_t> All = launchesOf(Index, *K);
  auto Line = [&](size_t I) {
    return (sys::path::filename(Index.LaunchSites[I].Loc.File) + ":" +
            Twine(Index.LaunchSites[I].Loc.Line))
        .str();
  };
  std::set<size_t> Picked;
  if (Opt.LaunchLine) {
    Files PF(Contents);
    Binder Probe(Index, *K, PF, Opt);
    for (size_t I : Probe.launches())
      Picked.insert(I);
    if (Picked.empty()) {
      std::vector<std::string> Lines;
      for (size_t I : All)
        Lines.push_back(Line(I));
      return makeUsageError("--launch {0}:{1}: no launch of {2} there (its launches: {3})",
                            Opt.LaunchFile.empty() ? Index.File : Opt.LaunchFile,
                            Opt.LaunchLine, K->QualifiedName,
                            Lines.empty() ? std::string("none") : join(Lines, ", "));
    }
  }
  std::map<size_t, std::map<std::string, int64_t>> Values;
  auto R = bindOnce(Index, K, Names, Opt, {}, Contents, &Values);
  if (!R)
    return R.takeError();
  std::vector<SkippedLaunch> Skipped;
  for (size_t I : All)
    if (Opt.LaunchLine && !Picked.count(I))
      Skipped.push_back({I, "not the launch --launch names"});
  // Several launches: those that hold other values than the spec's
  // defaults are not what the spec describes; they are left alone.
  std::vector<size_t> Written;
  for (size_t I : All)
    if (!Opt.LaunchLine || Picked.count(I))
      Written.push_back(I);
  if (Written.size() > 1) {
    std::set<size_t> Differ;
    std::map<size_t, std::string> Why;
    for (size_t I : Written)
      for (const auto &[Name, V] : Values[I]) {
        auto D = Opt.Defaults.find(Name);
        if (D != Opt.Defaults.end() && D->second != V) {
          Differ.insert(I);
          Why[I] += (Why[I].empty() ? "" : ", ") + Name + "=" + std::to_string(V) +
                    " (the spec's default is " + std::to_string(D->second) + ")";
        }
      }
    if (!Differ.empty() && Differ.size() < Written.size()) {
      for (size_t I : Differ) {
        Skipped.push_back({I, "holds " + Why[I]});
        R->Notes.push_back(formatv("{0}: this launch of {1} holds {2}; it is not the launch "
                                   "the spec describes and is left alone (--launch picks "
                                   "one launch)",
                                   Line(I), K->QualifiedName, Why[I])
                               .str());
      }
      auto Again = bindOnce(Index, K, Names, Opt, Differ, Contents, nullptr);
      if (!Again)
        return Again.takeError();
      Again->Notes.insert(Again->Notes.end(), R->Notes.begin(), R->Notes.end());
      R = std::move(Again);
    } else if (!Differ.empty()) {
      std::vector<std::string> Lines;
      for (size_t I : Written)
        Lines.push_back(Line(I) + ": " + Why[I]);
      return makeError("no launch of {0} holds the spec's defaults ({1}); pick the one to "
                       "write with --launch FILE:LINE",
                       K->QualifiedName, join(Lines, "; "));
    }
  }
  R->Skipped = std::move(Skipped);
  return R;
}

namespace {
Expected<BindResult> bindOnce(const FileIndex &Index, const KernelInfo *K,
                              ArrayRef<std::string> Names, const BindOptions &Opt,
                              const std::set<size_t> &Excluded,
                              const patch::ContentsProvider &Contents,
                              std::map<size_t, std::map<std::string, int64_t>> *LValues) {
  Files F(Contents);
  Binder B(Index, *K, F, Opt);
  B.Excluded = Excluded;
  std::vector<TunableBinding> Out;
  std::vector<std::string> Unbound, Problems;
  for (const std::string &Name : Names) {
    auto R = B.bind(Name);
    if (!R) {
      Problems.push_back(Name + ": " + toString(R.takeError()));
      continue;
    }
    if (!*R) {
      Unbound.push_back(Name);
      continue;
    }
    TunableBinding &TB = **R;
    std::set<int64_t> Values;
    bool AllKnown = true;
    for (const WriteSite &S : TB.Sites) {
      if (!S.Times.empty())
        continue;
      if (auto V = isIntLiteral(S.Current) ? literalValue(S.Current) : std::nullopt)
        Values.insert(*V - S.Delta);
      else
        AllKnown = false;
    }
    if (AllKnown && Values.size() == 1)
      TB.Current = *Values.begin();
    Out.push_back(std::move(TB));
  }
  if (!Unbound.empty()) {
    std::string Fix;
    for (const std::string &N : Unbound)
      if (std::string T = B.fixItFor(N); !T.empty())
        Fix += "\n" + N + ": " + T;
    Problems.insert(Problems.begin(),
                    formatv("cannot bind tunable{0} {1} of {2} to the source of {3}; it offers {4}{5}",
                            Unbound.size() > 1 ? "s" : "", join(Unbound, ", "),
                            K->QualifiedName, Index.File, B.offers(), Fix)
                        .str());
  }
  if (!Problems.empty())
    return makeError("{0}", join(Problems, "\n"));
  if (Error E = B.productCompanions(Out))
    return std::move(E);
  if (LValues)
    *LValues = B.LaunchValues;
  BindResult R;
  R.Bindings = std::move(Out);
  R.Notes = std::move(B.Notes);
  const std::vector<std::string> &Project = B.projectFiles();
  R.ProjectHeaders.assign(Project.begin() + 1, Project.end());
  return R;
}
} // namespace

//===----------------------------------------------------------------------===//
// Single-target write-back
//===----------------------------------------------------------------------===//

namespace {

Error checkValues(ArrayRef<TunableBinding> Bindings, const std::map<std::string, int64_t> &Values,
                  StringRef For) {
  std::vector<std::string> Missing, Unknown;
  for (const TunableBinding &B : Bindings)
    if (!Values.count(B.Name))
      Missing.push_back(B.Name);
  for (const auto &[Name, V] : Values)
    if (!llvm::any_of(Bindings, [&](const TunableBinding &B) { return B.Name == Name; }))
      Unknown.push_back(Name);
  std::string Msg;
  if (!Missing.empty())
    Msg += "no value" + For.str() + " for " + join(Missing, ", ");
  if (!Unknown.empty())
    Msg += (Msg.empty() ? "" : "; ") + ("value" + For + " for unbound tunable" +
                                        (Unknown.size() > 1 ? "s " : " ") + join(Unknown, ", "))
                                           .str();
  return Msg.empty() ? Error::success() : makeError("{0}", Msg);
}

/// A block size above the kernel's literal __launch_bounds__ (which is not
/// tuned alongside) would make every launch fail.
Error checkLaunchBounds(const FileIndex &Index, ArrayRef<TunableBinding> Bindings,
                        const std::map<std::string, int64_t> &Values, StringRef For) {
  for (const TunableBinding &B : Bindings) {
    const KernelInfo *K = findKernel(Index, B.Kernel);
    if (!K || !K->MaxThreads || !K->MaxThreads->Value)
      continue;
    bool BoundsTuned = llvm::any_of(Bindings, [&](const TunableBinding &O) {
      return O.Kernel == B.Kernel && llvm::any_of(O.Sites, [](const WriteSite &S) {
               return S.Kind == "launch_bounds";
             });
    });
    if (BoundsTuned)
      continue;
    bool IsBlock = llvm::any_of(B.Sites, [](const WriteSite &S) {
      return S.Kind == "launch-literal";
    });
    for (const TunableInfo &T : Index.Tunables)
      if ((T.Origin == "macro" || T.Origin == "constexpr") && T.Role == "block" &&
          !B.Symbol.empty() && lastComponent(T.Name) == B.Symbol && T.Kernel == B.Kernel)
        IsBlock = true;
    auto It = Values.find(B.Name);
    if (IsBlock && It != Values.end() && It->second > *K->MaxThreads->Value)
      return makeError("{0}={1}{2} exceeds __launch_bounds__({3}) of {4}; tune the launch "
                       "bounds with it or keep the block at most {3}",
                       B.Name, It->second, For, *K->MaxThreads->Value, K->QualifiedName);
  }
  return Error::success();
}

/// Checks that the site still holds the text it was bound to.
Error checkSite(Files &F, const WriteSite &S) {
  if (S.Kind == "new-constant")
    return Error::success();
  auto FT = F.get(S.File);
  if (!FT)
    return FT.takeError();
  if (StringRef((*FT)->Text).substr(S.Offset, S.Length) != S.Current)
    return makeError("{0}:{1}: the file changed since the tunables were bound (expected `{2}`)",
                     S.File, S.Line, S.Current);
  return Error::success();
}

} // namespace

Expected<patch::PatchSet> writeBackEdits(const FileIndex &Index,
                                         ArrayRef<TunableBinding> Bindings,
                                         const std::map<std::string, int64_t> &Values,
                                         const patch::ContentsProvider &Contents) {
  if (Error E = checkValues(Bindings, Values, ""))
    return std::move(E);
  if (Error E = checkLaunchBounds(Index, Bindings, Values, ""))
    return std::move(E);
  Files F(Contents);
  patch::PatchSet P;
  // Constants of their own for the launches, one insertion per place.
  std::map<std::pair<std::string, unsigned>, std::string> Inserts;
  for (const TunableBinding &B : Bindings) {
    int64_t V = Values.at(B.Name);
    for (const WriteSite &S : B.Sites) {
      if (S.Kind == "new-constant") {
        if (!S.Decl.empty())
          Inserts[{S.File, S.Offset}] += S.Decl + formatValue(V, S.Current) + S.DeclEnd;
        for (auto [Off, Len] : S.Renames)
          if (Error E = P.add(patch::makeReplacement(S.RenameFile.empty() ? S.File
                                                                          : S.RenameFile,
                                                     Off, Len, S.Symbol),
                              WriteBackOrigin))
            return std::move(E);
        continue;
      }
      if (Error E = checkSite(F, S))
        return std::move(E);
      int64_t W = V;
      for (const std::string &T : S.Times)
        W *= Values.count(T) ? Values.at(T) : 1;
      std::string Text = formatValue(W + S.Delta, S.Current);
      if (Text == S.Current)
        continue;
      if (Error E = P.add(patch::makeReplacement(S.File, S.Offset, S.Length, Text),
                          WriteBackOrigin))
        return std::move(E);
    }
  }
  for (const auto &[At, Text] : Inserts)
    if (Error E = P.add(patch::makeReplacement(At.first, At.second, 0, Text), WriteBackOrigin))
      return std::move(E);
  return P;
}

//===----------------------------------------------------------------------===//
// Multi-target dispatch
//===----------------------------------------------------------------------===//

std::string targetLabel(const TargetValues &T) {
  std::string S = T.Target->Name + std::string(T.Measured ? " measured" : " predicted");
  if (T.Measured && !T.Device.empty())
    S += " on " + T.Device;
  std::vector<std::string> Vals;
  for (const auto &[N, V] : T.Values)
    Vals.push_back(N + "=" + std::to_string(V));
  if (!Vals.empty())
    S += " (" + join(Vals, ", ") + ")";
  return S;
}

namespace {

struct Target {
  const TargetValues *Values;
  unsigned CC;
};

std::string archCondition(unsigned CC) {
  return "defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= " + std::to_string(CC * 10);
}

/// "#if c1\nLINE(0)\n#elif c2\nLINE(1)\n#else\nLINE(last)\n#endif"
std::string archGuards(ArrayRef<Target> Ts, function_ref<std::string(const Target &)> Line) {
  std::string S;
  for (size_t I = 0; I + 1 < Ts.size(); ++I)
    S += (I == 0 ? "#if " : "#elif ") + archCondition(Ts[I].CC) + "\n" + Line(Ts[I]) + "\n";
  S += "#else\n" + Line(Ts.back()) + "\n#endif";
  return S;
}

std::string labels(ArrayRef<Target> Ts) {
  std::vector<std::string> L;
  for (const Target &T : Ts)
    L.push_back(targetLabel(*T.Values));
  return join(L, "; ");
}

std::string shortLabels(ArrayRef<Target> Ts) {
  std::vector<std::string> L;
  for (const Target &T : Ts) {
    std::string S = T.Values->Target->Name + std::string(T.Values->Measured ? " measured" : " predicted");
    if (T.Values->Measured && !T.Values->Device.empty())
      S += " on " + T.Values->Device;
    L.push_back(S);
  }
  return join(L, ", ");
}

std::string sanitize(StringRef Name) {
  std::string S;
  for (char C : Name)
    S += isIdentChar(C) ? C : '_';
  return S;
}

std::string helperText() {
  return R"(// forge-port tune: the compute capability of the current device (major*10+minor),
// queried once per device, for the per-target launch dispatch below.
#ifndef FORGE_TUNED_CC_DEFINED
#define FORGE_TUNED_CC_DEFINED
static inline int forge_tuned_cc() {
  struct forge_cc_table { int cc[64]; };
  static const forge_cc_table table = [] {
    forge_cc_table t = {};
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
      count = 0;
    for (int d = 0; d < count && d < 64; ++d) {
      int major = 0, minor = 0;
      if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d) == cudaSuccess &&
          cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d) == cudaSuccess)
        t.cc[d] = major * 10 + minor;
    }
    return t;
  }();
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64)
    return 0;
  return table.cc[dev];
}
#endif)";
}

/// Where the helper goes in a file: at the end of the last top-level
/// #include line before Before (an insertion at that newline), or at the
/// start of the file.
size_t helperOffset(StringRef Code, size_t Before) {
  size_t Pos = 0, Best = StringRef::npos;
  int Depth = 0;
  bool SawInclude = false;
  Regex Directive("^[ \t]*#[ \t]*([a-z]+)");
  while (Pos < Before && Pos < Code.size()) {
    size_t E = lineEndOf(Code, Pos);
    SmallVector<StringRef, 2> M;
    if (Directive.match(Code.slice(Pos, E), &M)) {
      StringRef D = M[1];
      if (D == "if" || D == "ifdef" || D == "ifndef")
        ++Depth;
      else if (D == "endif")
        --Depth;
      else if (D == "include")
        SawInclude = true;
    }
    if (Depth == 0 && SawInclude && E < Code.size()) {
      Best = E;
      SawInclude = false;
    }
    Pos = E + 1;
  }
  return Best;
}

struct LaunchStmt {
  size_t Launch; ///< index into FileIndex::LaunchSites
  std::string File;
  Range Stmt;
};

/// A substitution inside a launch statement: [B, E) -> per-target text.
struct Subst {
  size_t B, E;
  const TunableBinding *Binding;
  std::string Current; ///< a site's text; empty for an identifier use
  int64_t Delta = 0;
  const std::vector<std::string> *Times = nullptr; ///< a product's other factors
};

} // namespace

Expected<patch::PatchSet> dispatchEdits(const FileIndex &Index, StringRef Kernel,
                                        ArrayRef<TunableBinding> Bindings,
                                        const std::vector<TargetValues> &PerTarget,
                                        const patch::ContentsProvider &Contents) {
  if (PerTarget.empty())
    return makeError("no targets to write back");
  if (PerTarget.size() == 1)
    return writeBackEdits(Index, Bindings, PerTarget.front().Values, Contents);
  std::vector<Target> Ts;
  for (const TargetValues &T : PerTarget) {
    unsigned CC = unsigned(T.Target->ccNumber());
    for (const Target &O : Ts)
      if (O.CC == CC)
        return makeError("targets {0} and {1} have the same compute capability; a run-time "
                         "dispatch cannot tell them apart",
                         O.Values->Target->Name, T.Target->Name);
    std::string For = std::string(" for ") + T.Target->Name;
    if (Error E = checkValues(Bindings, T.Values, For.c_str()))
      return std::move(E);
    if (Error E = checkLaunchBounds(Index, Bindings, T.Values, For.c_str()))
      return std::move(E);
    Ts.push_back({&T, CC});
  }
  llvm::sort(Ts, [](const Target &A, const Target &B) { return A.CC > B.CC; });
  const KernelInfo *K = findKernel(Index, Kernel);
  if (!K)
    return makeError("no kernel {0} in {1}", Kernel, Index.File);

  Files F(Contents);
  for (const TunableBinding &B : Bindings)
    for (const WriteSite &S : B.Sites)
      if (Error E = checkSite(F, S))
        return std::move(E);

  // The launch statements to rewrite.
  std::vector<LaunchStmt> Stmts;
  for (size_t I : launchesOf(Index, *K)) {
    const LaunchSiteInfo &L = Index.LaunchSites[I];
    std::string Where = (L.Loc.File + ":" + Twine(L.Loc.Line)).str();
    if (L.Syntax != "chevron")
      return makeError("{0}: the launch of {1} goes through {2}; only <<<>>> launch statements "
                       "can be rewritten into a dispatch",
                       Where, K->Name, L.Syntax);
    if (L.DeviceSide)
      return makeError("{0}: a device-side launch of {1} cannot dispatch on the device's "
                       "compute capability at run time",
                       Where, K->Name);
    auto FT = F.get(L.Loc.File);
    if (!FT)
      return FT.takeError();
    auto Off = patch::offsetForLineColumn((*FT)->Text, L.Loc.Line, L.Loc.Column);
    if (!Off)
      return Off.takeError();
    auto P = parseChevron((*FT)->Code, *Off, Where);
    if (!P)
      return P.takeError();
    if (!P->Statement)
      return makeError("{0}: the launch of {1} is part of a larger expression or statement; "
                       "only a launch statement of its own (`k<<<...>>>(...);`) can become a "
                       "dispatch",
                       Where, K->Name);
    Stmts.push_back({I, L.Loc.File, P->Stmt});
  }
  if (Stmts.empty())
    return makeError("no launch of {0} in {1} to dispatch", K->QualifiedName, Index.File);
  auto InStmt = [&](StringRef File, size_t Off) -> const LaunchStmt * {
    for (const LaunchStmt &S : Stmts)
      if (S.File == File && Off >= S.Stmt.B && Off < S.Stmt.E)
        return &S;
    return nullptr;
  };

  patch::PatchSet P;
  auto Add = [&](StringRef File, size_t Off, size_t Len, StringRef Text) -> Error {
    return P.add(patch::makeReplacement(File, Off, Len, Text), WriteBackOrigin);
  };
  std::map<const LaunchStmt *, std::vector<Subst>> Substs;
  std::set<const TunableBinding *> KeepInFallback;
  std::string Comment = "forge-port tune: " + labels(Ts);

  for (const TunableBinding &B : Bindings) {
    for (const WriteSite &S : B.Sites) {
      std::string Where = S.File + ":" + std::to_string(S.Line);
      if (S.Kind == "template-arg" || S.Kind == "launch-literal" || S.Kind == "grid-literal") {
        const LaunchStmt *LS = InStmt(S.File, S.Offset);
        if (!LS)
          return makeError("{0}: the value of {1} is not inside a launch statement of {2}",
                           Where, B.Name, K->Name);
        Substs[LS].push_back({S.Offset, S.Offset + S.Length, &B, S.Current, S.Delta, &S.Times});
        continue;
      }
      if (S.Kind == "new-constant") {
        // The launch's own constant: its uses in the launch statements
        // take each target's value.
        for (auto [Off, Len] : S.Renames) {
          const LaunchStmt *LS = InStmt(S.RenameFile.empty() ? S.File : S.RenameFile, Off);
          if (!LS)
            return makeError("{0}: {1} ({2}) is read outside the launch statements of {3} "
                             "(line {4}); it cannot be dispatched per target",
                             Where, B.Name, S.Symbol, K->Name, lineOf((*F.get(S.File))->Text, Off));
          Substs[LS].push_back({Off, Off + Len, &B, "", 0});
        }
        continue;
      }
      if (S.Kind == "template-default")
        return makeError("{0}: {1} is the default of template parameter {2}, which some launch "
                         "of {3} does not write; write the argument at every launch so that "
                         "each dispatch branch can set it",
                         Where, B.Name, B.Symbol, K->Name);
      auto FT = F.get(S.File);
      if (!FT)
        return FT.takeError();
      StringRef Text = (*FT)->Text, Code = (*FT)->Code;
      size_t LineB = lineStartOf(Text, S.Offset);
      std::string Indent = Text.slice(LineB, LineB).str();
      {
        size_t I = LineB;
        while (I < Text.size() && (Text[I] == ' ' || Text[I] == '\t'))
          ++I;
        Indent = Text.slice(LineB, I).str();
      }
      auto Continued = [&]() {
        size_t Prev = LineB ? prevNonSpace(Text, LineB) : StringRef::npos;
        return LineB > 0 && Prev != StringRef::npos && Text[Prev] == '\\' &&
               lineOf(Text, Prev) + 1 == lineOf(Text, LineB);
      };
      std::string GuardComment = Indent + "// forge-port tune: per-arch " + B.Name + " (" +
                                 shortLabels(Ts) + ")\n";
      if (S.Kind == "unroll") {
        // The whole pragma line, once per target.
        size_t DirEnd = lineEndOf(Code, S.Offset);
        while (DirEnd > S.Offset + S.Length && isSpace(Code[DirEnd - 1]))
          --DirEnd;
        StringRef Dir = Text.slice(LineB, DirEnd);
        if (!Dir.ltrim().starts_with("#"))
          return makeError("{0}: the unroll count of {1} is not on a #pragma line of its own",
                           Where, B.Name);
        auto Line = [&](const Target &T) {
          return (Text.slice(LineB, S.Offset) + formatValue(T.Values->Values.at(B.Name), S.Current) +
                  Text.slice(S.Offset + S.Length, DirEnd))
              .str();
        };
        if (Error E = Add(S.File, LineB, DirEnd - LineB, GuardComment + archGuards(Ts, Line)))
          return std::move(E);
        continue;
      }
      if (S.Kind == "launch_bounds") {
        if (Continued())
          return makeError("{0}: the launch bounds of {1} are inside a multi-line macro", Where,
                           K->Name);
        std::string Macro = "FORGE_TUNED_" + sanitize(K->QualifiedName) + "_LAUNCH_BOUNDS";
        auto Line = [&](const Target &T) {
          return "#define " + Macro + " " + formatValue(T.Values->Values.at(B.Name), S.Current);
        };
        if (Error E = Add(S.File, LineB, 0, GuardComment + archGuards(Ts, Line) + "\n"))
          return std::move(E);
        if (Error E = Add(S.File, S.Offset, S.Length, Macro))
          return std::move(E);
        continue;
      }
      // A macro or a constant: substitute it in the launch statements;
      // device code that reads it gets per-arch guards; anything else is
      // host code that would see one value for all targets.
      std::vector<std::string> FilesToScan = {S.File};
      if (S.File != Index.File)
        FilesToScan.push_back(Index.File);
      bool DeviceUse = false;
      for (const std::string &File : FilesToScan) {
        auto UT = F.get(File);
        if (!UT)
          return UT.takeError();
        StringRef UCode = (*UT)->Code, UText = (*UT)->Text;
        std::vector<DeviceFunction> Dev = deviceFunctions(UCode);
        for (size_t Occ : occurrences(UCode, S.Symbol)) {
          size_t OLine = lineStartOf(UCode, Occ);
          if (File == S.File && OLine == LineB)
            continue; // the definition
          StringRef LineText = UCode.slice(OLine, lineEndOf(UCode, Occ));
          if (Regex("^[ \t]*#[ \t]*(ifdef|ifndef|undef)[ \t]").match(LineText) ||
              Regex("defined[ \t]*\\(?[ \t]*$").match(UCode.slice(OLine, Occ)))
            continue; // #ifndef NAME guarding the definition
          if (Occ >= 1 && (UCode[Occ - 1] == '.' || (Occ >= 2 && UCode.slice(Occ - 2, Occ) == "->")))
            continue; // a member of the same name
          std::string UWhere = File + ":" + std::to_string(lineOf(UText, Occ));
          if (const LaunchStmt *LS = InStmt(File, Occ)) {
            size_t B0 = Occ;
            // A qualified use: ns::kTile.
            while (B0 >= 2 && UCode.slice(B0 - 2, B0) == "::") {
              size_t W = B0 - 2;
              while (W > 0 && isIdentChar(UCode[W - 1]))
                --W;
              B0 = W;
            }
            Substs[LS].push_back({B0, Occ + S.Symbol.size(), &B, "", 0});
            continue;
          }
          const DeviceFunction *D = nullptr;
          for (const DeviceFunction &DF : Dev)
            if (Occ >= DF.DeclBegin && Occ <= DF.BodyEnd)
              D = &DF;
          if (!D)
            return makeError("{0}: {1} ({2}) is used in host code outside the launch statements "
                             "of {3}; host code sees one value for all targets, so it cannot be "
                             "dispatched per target (inline it into the launch, or tune it for "
                             "one target)",
                             UWhere, B.Name, S.Symbol, K->Name);
          if (D->AlsoHost)
            return makeError("{0}: {1} ({2}) is used in a __host__ __device__ function, whose "
                             "host side would see one value for all targets",
                             UWhere, B.Name, S.Symbol);
          if (Occ < D->BodyBegin) {
            size_t LB = UCode.slice(D->DeclBegin, Occ).rfind("__launch_bounds__");
            bool InBounds = false;
            if (LB != StringRef::npos) {
              size_t Open = skipSpace(UCode, D->DeclBegin + LB + 17);
              size_t Close = Open < UCode.size() && UCode[Open] == '('
                                 ? matchBracket(UCode, Open)
                                 : StringRef::npos;
              InBounds = Close != StringRef::npos && Occ > Open && Occ < Close;
            }
            if (!InBounds)
              return makeError("{0}: {1} ({2}) appears in a kernel's declaration, which host "
                               "and device must agree on; it cannot take per-arch values",
                               UWhere, B.Name, S.Symbol);
          }
          DeviceUse = true;
        }
      }
      if (!DeviceUse) {
        // Only the launch statements read it. A macro is substituted and
        // left alone; a constant would be left unreferenced (a warning), so
        // it takes the lowest target's value and the fallback branch keeps
        // naming it.
        if (S.Kind == "constexpr") {
          KeepInFallback.insert(&B);
          std::string Low = formatValue(Ts.back().Values->Values.at(B.Name), S.Current);
          if (Low != S.Current)
            if (Error E = Add(S.File, S.Offset, S.Length, Low))
              return std::move(E);
        }
        continue;
      }
      if (S.File != Index.File)
        return makeError("{0}: {1} ({2}) is read by device code and defined in another file; "
                         "per-arch values there would change every file that includes it",
                         Where, B.Name, S.Symbol);
      if (Continued())
        return makeError("{0}: {1} is defined inside a multi-line macro", Where, B.Name);
      if (S.Kind == "macro") {
        size_t DirEnd = lineEndOf(Code, S.Offset);
        while (DirEnd > S.Offset + S.Length && isSpace(Code[DirEnd - 1]))
          --DirEnd;
        if (DirEnd > 0 && Code[DirEnd - 1] == '\\')
          return makeError("{0}: macro {1} continues on the next line", Where, S.Symbol);
        auto Line = [&](const Target &T) {
          return (Text.slice(LineB, S.Offset) + formatValue(T.Values->Values.at(B.Name), S.Current) +
                  Text.slice(S.Offset + S.Length, DirEnd))
              .str();
        };
        if (Error E = Add(S.File, LineB, DirEnd - LineB, GuardComment + archGuards(Ts, Line)))
          return std::move(E);
      } else {
        std::string Macro = "FORGE_TUNED_" + sanitize(S.Symbol);
        auto Line = [&](const Target &T) {
          return "#define " + Macro + " " + formatValue(T.Values->Values.at(B.Name), S.Current);
        };
        if (Error E = Add(S.File, LineB, 0, GuardComment + archGuards(Ts, Line) + "\n"))
          return std::move(E);
        if (Error E = Add(S.File, S.Offset, S.Length, Macro))
          return std::move(E);
      }
    }
  }

  // The dispatch statements.
  std::map<std::string, size_t> FirstStmt;
  for (const LaunchStmt &LS : Stmts) {
    auto FT = F.get(LS.File);
    if (!FT)
      return FT.takeError();
    StringRef Text = (*FT)->Text;
    std::vector<Subst> Subs = Substs[&LS];
    llvm::sort(Subs, [](const Subst &A, const Subst &B) { return A.B < B.B; });
    // Identifier uses inside a written template argument or literal site
    // are covered by that site.
    std::vector<Subst> Kept;
    for (const Subst &S : Subs) {
      if (!Kept.empty() && S.B < Kept.back().E) {
        if (S.E <= Kept.back().E && !Kept.back().Current.empty())
          continue;
        if (!S.Current.empty() && Kept.back().Current.empty() && S.B <= Kept.back().B) {
          Kept.back() = S;
          continue;
        }
        return makeError("{0}:{1}: {2} and {3} overlap in the launch statement",
                         LS.File, lineOf(Text, S.B), Kept.back().Binding->Name, S.Binding->Name);
      }
      Kept.push_back(S);
    }
    auto Branch = [&](const Target &T) {
      std::string Out;
      size_t Pos = LS.Stmt.B;
      bool Fallback = &T == &Ts.back();
      for (const Subst &S : Kept) {
        if (Fallback && S.Current.empty() && KeepInFallback.count(S.Binding))
          continue;
        Out += Text.slice(Pos, S.B).str();
        int64_t V = T.Values->Values.at(S.Binding->Name);
        if (S.Times)
          for (const std::string &N : *S.Times)
            V *= T.Values->Values.count(N) ? T.Values->Values.at(N) : 1;
        Out += S.Current.empty() ? exprValue(V) : formatValue(V + S.Delta, S.Current);
        Pos = S.E;
      }
      Out += Text.slice(Pos, LS.Stmt.E).str();
      return Out;
    };
    size_t LineB = lineStartOf(Text, LS.Stmt.B);
    size_t I = LineB;
    while (I < Text.size() && (Text[I] == ' ' || Text[I] == '\t'))
      ++I;
    std::string Indent = Text.slice(LineB, I).str();
    bool AtLineStart = I == LS.Stmt.B;
    std::string Out = AtLineStart ? "// " + Comment + "\n" + Indent : "/* " + Comment + " */ ";
    Out += "{ int forge_cc = " + std::string(DispatchHelperName) + "();\n";
    for (size_t T = 0; T < Ts.size(); ++T) {
      Out += Indent + "  ";
      if (T + 1 < Ts.size())
        Out += (T ? "else if (forge_cc >= " : "if (forge_cc >= ") + std::to_string(Ts[T].CC) +
               ") ";
      else
        Out += "else ";
      Out += Branch(Ts[T]);
      Out += T + 1 < Ts.size() ? "\n" : " }";
    }
    if (Error E = Add(LS.File, LS.Stmt.B, LS.Stmt.E - LS.Stmt.B, Out))
      return std::move(E);
    auto It = FirstStmt.find(LS.File);
    if (It == FirstStmt.end() || LS.Stmt.B < It->second)
      FirstStmt[LS.File] = LS.Stmt.B;
  }

  // The helper, once per file with a dispatch (guarded against a second
  // copy through an include).
  for (const auto &[File, First] : FirstStmt) {
    auto FT = F.get(File);
    if (!FT)
      return FT.takeError();
    if (!occurrences((*FT)->Code, DispatchHelperName).empty() &&
        StringRef((*FT)->Code).contains("FORGE_TUNED_CC_DEFINED"))
      continue;
    size_t At = helperOffset((*FT)->Code, lineStartOf((*FT)->Code, First));
    Error E = At == StringRef::npos ? Add(File, 0, 0, helperText() + "\n\n")
                                    : Add(File, At, 0, "\n\n" + helperText() + "\n");
    if (E)
      return std::move(E);
  }
  return P;
}

} // namespace forge::tune

llvm::Expected<forge::tune::SourceVariantFn>
forge::tune::sourceVariants(frontend::FileIndex Index, llvm::StringRef Kernel,
                            llvm::ArrayRef<std::string> Names, std::string Text,
                            std::string Dir) {
  auto Bindings = bindTunables(Index, Kernel, Names);
  if (!Bindings)
    return makeError("{0} set(s) no template argument, launch dimension or scalar of the spec, "
                     "so each configuration needs its own copy of the source, but: {1}",
                     llvm::join(Names, ", "), llvm::toString(Bindings.takeError()));
  // Each configuration is a copy of the file alone: a value another file
  // holds (a chain of constants into a project header) would not vary.
  for (const TunableBinding &B : *Bindings)
    for (const WriteSite &S : B.Sites)
      for (llvm::StringRef File : {llvm::StringRef(S.File), llvm::StringRef(S.RenameFile)})
        if (!File.empty() && !sameFile(File, Index.File))
          return makeError("{0}:{1}: {2} is written in {0}, not in {3}; each configuration "
                           "is a copy of {3} alone, so its value would not change. Define it "
                           "in {3}, or tune it through the spec's template arguments or launch "
                           "dimensions",
                           File, S.Line, B.Name, Index.File);
  if (auto EC = llvm::sys::fs::create_directories(Dir))
    return makeError("cannot create {0}: {1}", Dir, EC.message());
  std::string Name = llvm::sys::path::filename(Index.File).str();
  auto Shared = std::make_shared<std::tuple<frontend::FileIndex, std::vector<TunableBinding>,
                                            std::string>>(std::move(Index), std::move(*Bindings),
                                                          std::move(Text));
  std::vector<std::string> Only(Names.begin(), Names.end());
  return [Shared, Only, Dir, Name](const std::map<std::string, int64_t> &All)
             -> llvm::Expected<std::string> {
    auto &[Idx, Binds, Contents] = *Shared;
    std::map<std::string, int64_t> Values;
    std::string Tag;
    for (const std::string &N : Only) {
      Values[N] = All.at(N);
      Tag += "-" + N + std::to_string(All.at(N));
    }
    auto Edits = writeBackEdits(Idx, Binds, Values);
    if (!Edits)
      return Edits.takeError();
    auto Patched = Edits->applyTo(patch::PatchSet::normalizePath(Idx.File), Contents);
    if (!Patched)
      return Patched.takeError();
    std::string Path = Dir + "/" + llvm::sys::path::stem(Name).str() + Tag +
                       llvm::sys::path::extension(Name).str();
    if (auto E = writeFileAtomically(Path, *Patched))
      return std::move(E);
    return Path;
  };
}
