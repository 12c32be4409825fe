//===- Build/DiagnosticParser.cpp -----------------------------------------===//
#include "forge/Build/DiagnosticParser.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Regex.h"
#include <algorithm>

using namespace llvm;

namespace forge::build {

namespace {

std::optional<DiagSeverity> frontEndSeverity(StringRef Word) {
  return StringSwitch<std::optional<DiagSeverity>>(Word)
      .Case("error", DiagSeverity::Error)
      .Case("warning", DiagSeverity::Warning)
      .Case("remark", DiagSeverity::Remark)
      .Case("note", DiagSeverity::Note)
      .Case("catastrophic error", DiagSeverity::Fatal)
      .Case("internal error", DiagSeverity::Fatal)
      .Case("command-line error", DiagSeverity::Error)
      .Case("fatal error", DiagSeverity::Fatal)
      .Case("fatal", DiagSeverity::Fatal)
      .Default(std::nullopt);
}

unsigned toUnsigned(StringRef S) {
  unsigned V = 0;
  if (S.getAsInteger(10, V))
    return 0;
  return V;
}

bool isCaretLine(StringRef L) {
  StringRef T = L.trim();
  return !T.empty() && T.find_first_not_of("^~") == StringRef::npos &&
         T.contains('^');
}

/// The log is read one line at a time; lines indented under a front-end
/// diagnostic (continuations, the source echo and its caret, "detected
/// during" notes) are gathered and interpreted when the block ends.
class Parser {
public:
  std::vector<CompilerDiagnostic> run(StringRef Log);

private:
  void flushBlock();
  bool parseFrontEnd(StringRef L);
  bool parseTool(StringRef L);
  bool parseHost(StringRef L);
  void addInstantiationNote(StringRef Text);

  std::vector<CompilerDiagnostic> Diags;
  /// Index of the front-end diagnostic that owns Block, if any.
  std::optional<size_t> Owner;
  /// File of the last primary (non-note) front-end diagnostic; "detected
  /// during" lines without "of FILE" refer to it.
  std::string PrimaryFile;
  SmallVector<StringRef, 8> Block;

  Regex FrontEnd{"^(.+)\\(([0-9]+)\\): (error|warning|remark|note|"
                 "catastrophic error|internal error)( #([0-9]+(-D)?))?: (.*)$"};
  Regex CommandLine{"^(command-line error|catastrophic error|internal "
                    "error)( #([0-9]+(-D)?))?: (.*)$"};
  Regex PtxasAtLine{"^ptxas (.+), line ([0-9]+); (error|warning|fatal) *: (.*)$"};
  Regex ToolMsg{"^(nvcc|ptxas|nvlink|fatbinary|cicc|cudafe\\+\\+|nvdisasm|"
                "cuobjdump|nvprune) +(fatal|error|warning|info) *: (.*)$"};
  Regex HostLoc{"^([^:]+):([0-9]+):(([0-9]+):)? (fatal error|error|warning|note): "
                "(.*)$"};
  Regex HostTool{"^([A-Za-z0-9_+./-]+): (fatal error|error|warning|note): (.*)$"};
  Regex AtLine{"^(.*) at line ([0-9]+)( of (.+))?$"};
};

std::vector<CompilerDiagnostic> Parser::run(StringRef Log) {
  SmallVector<StringRef, 64> Lines;
  Log.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.rtrim("\r");
    if (L.trim().empty()) {
      flushBlock();
      Owner.reset();
      continue;
    }
    bool Indented = L.front() == ' ' || L.front() == '\t';
    if (Indented) {
      if (Owner || L.trim().starts_with("detected during"))
        Block.push_back(L);
      // Otherwise a host compiler's source echo, "from ..." include chains
      // and the like: context, not diagnostics.
      continue;
    }
    flushBlock();
    Owner.reset();
    if (parseFrontEnd(L) || parseTool(L) || parseHost(L))
      continue;
    // Summary and context lines ("1 error detected in the compilation of",
    // "compilation terminated.", "Remark: The warnings can be suppressed",
    // "In file included from", "x.cu: In function 'f':") carry no message
    // of their own.
  }
  flushBlock();
  return std::move(Diags);
}

bool Parser::parseFrontEnd(StringRef L) {
  SmallVector<StringRef, 8> M;
  CompilerDiagnostic D;
  D.Tool = "nvcc";
  if (FrontEnd.match(L, &M)) {
    D.File = M[1].str();
    D.Line = toUnsigned(M[2]);
    D.Severity = *frontEndSeverity(M[3]);
    D.Code = M[5].str();
    D.Message = M[7].str();
  } else if (CommandLine.match(L, &M)) {
    D.Severity = *frontEndSeverity(M[1]);
    D.Code = M[3].str();
    D.Message = M[5].str();
  } else {
    return false;
  }
  if (D.Severity != DiagSeverity::Note)
    PrimaryFile = D.File;
  Diags.push_back(std::move(D));
  Owner = Diags.size() - 1;
  return true;
}

bool Parser::parseTool(StringRef L) {
  SmallVector<StringRef, 8> M;
  if (PtxasAtLine.match(L, &M)) {
    CompilerDiagnostic D;
    D.Tool = "ptxas";
    D.PtxFile = M[1].str();
    D.PtxLine = toUnsigned(M[2]);
    D.Severity = *frontEndSeverity(M[3]);
    D.Message = M[4].str();
    Diags.push_back(std::move(D));
    return true;
  }
  if (ToolMsg.match(L, &M)) {
    if (M[2] == "info")
      return true; // Resource usage, parsed by parseResourceUsage.
    CompilerDiagnostic D;
    D.Tool = M[1].str();
    D.Severity = *frontEndSeverity(M[2]);
    D.Message = M[3].str();
    Diags.push_back(std::move(D));
    return true;
  }
  return false;
}

bool Parser::parseHost(StringRef L) {
  SmallVector<StringRef, 8> M;
  CompilerDiagnostic D;
  D.Tool = "host";
  if (HostLoc.match(L, &M)) {
    D.File = M[1].str();
    D.Line = toUnsigned(M[2]);
    D.Column = toUnsigned(M[4]);
    D.Severity = *frontEndSeverity(M[5]);
    D.Message = M[6].str();
  } else if (HostTool.match(L, &M)) {
    D.Severity = *frontEndSeverity(M[2]);
    D.Message = M[3].str();
  } else {
    return false;
  }
  Diags.push_back(std::move(D));
  return true;
}

void Parser::addInstantiationNote(StringRef Text) {
  SmallVector<StringRef, 6> M;
  CompilerDiagnostic D;
  D.Tool = "nvcc";
  D.Severity = DiagSeverity::Note;
  if (AtLine.match(Text, &M)) {
    D.Message = M[1].str();
    D.Line = toUnsigned(M[2]);
    D.File = M[4].empty() ? PrimaryFile : M[4].str();
  } else {
    D.Message = Text.str();
  }
  Diags.push_back(std::move(D));
}

void Parser::flushBlock() {
  if (Block.empty())
    return;
  // The line above the first caret is the source echo; indented lines before
  // it continue the message.
  size_t Caret = Block.size();
  for (size_t I = 0; I < Block.size(); ++I)
    if (isCaretLine(Block[I])) {
      Caret = I;
      break;
    }
  size_t EchoStart = Caret == Block.size() || Caret == 0 ? Caret : Caret - 1;
  SmallVector<StringRef, 4> Continuation;
  bool InDetected = false;
  for (size_t I = 0; I < Block.size(); ++I) {
    StringRef T = Block[I].trim();
    if (T.starts_with("detected during")) {
      StringRef Rest = T.drop_front(strlen("detected during")).trim();
      if (Rest == ":" || Rest.empty()) {
        InDetected = true;
        continue;
      }
      addInstantiationNote(Rest);
      continue;
    }
    if (InDetected) {
      addInstantiationNote(T);
      continue;
    }
    if (I >= EchoStart && I <= Caret)
      continue;
    if (I < EchoStart && Owner)
      Continuation.push_back(T);
  }
  if (Owner && !Continuation.empty()) {
    std::string &Msg = Diags[*Owner].Message;
    for (StringRef C : Continuation)
      Msg += "; " + C.str();
  }
  Block.clear();
}

} // namespace

std::vector<CompilerDiagnostic> parseDiagnostics(StringRef Log) {
  return Parser().run(Log);
}

//===----------------------------------------------------------------------===//
// PTX line mapping
//===----------------------------------------------------------------------===//

PtxLineMap::PtxLineMap(StringRef PtxText) {
  SmallVector<StringRef, 256> Lines;
  PtxText.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    unsigned LineNo = I + 1;
    StringRef T = Lines[I].trim();
    if (T.consume_front(".loc")) {
      if (T.empty() || !isSpace(T.front()))
        continue;
      // ".loc 1 42 7" or ".loc 1 42 7, function_name $L__x, inlined_at 1 9 3":
      // the first triple is the instruction's own (innermost) location.
      std::string Clean = T.str();
      std::replace(Clean.begin(), Clean.end(), '\t', ' ');
      SmallVector<StringRef, 8> Words;
      StringRef(Clean).split(Words, ' ', -1, /*KeepEmpty=*/false);
      if (Words.size() < 2)
        continue;
      Loc L{LineNo, toUnsigned(Words[0]), toUnsigned(Words[1]),
            Words.size() > 2 ? toUnsigned(Words[2].rtrim(",")) : 0};
      if (L.Line)
        Locs.push_back(L);
      continue;
    }
    if (T.consume_front(".file")) {
      // .file 1 "/path/x.cu"   or   .file 1 "/path/x.cu", 1700000000, 1234
      T = T.trim();
      size_t Sp = T.find_first_of(" \t");
      if (Sp == StringRef::npos)
        continue;
      unsigned Index = toUnsigned(T.take_front(Sp));
      StringRef Rest = T.drop_front(Sp).trim();
      if (!Rest.consume_front("\""))
        continue;
      size_t Q = Rest.find('"');
      if (Q == StringRef::npos)
        continue;
      Files[Index] = Rest.take_front(Q).str();
      continue;
    }
    // A function header (.entry or .func, possibly after .visible/.weak).
    if (T.contains(".entry ") || T.contains(".func ") ||
        T.contains(".entry\t") || T.contains(".func\t"))
      if (!T.starts_with("//") && !T.contains(".extern"))
        FunctionStarts.push_back(LineNo);
  }
}

std::optional<PtxSourceLocation> PtxLineMap::lookup(unsigned PtxLine) const {
  auto It = std::upper_bound(
      Locs.begin(), Locs.end(), PtxLine,
      [](unsigned L, const Loc &X) { return L < X.PtxLine; });
  if (It == Locs.begin())
    return std::nullopt;
  const Loc &L = *std::prev(It);
  // A .loc in an earlier function says nothing about this line.
  auto F = std::upper_bound(FunctionStarts.begin(), FunctionStarts.end(),
                            PtxLine);
  if (F != FunctionStarts.begin() && *std::prev(F) > L.PtxLine)
    return std::nullopt;
  PtxSourceLocation Out;
  auto FileIt = Files.find(L.FileIndex);
  if (FileIt == Files.end())
    return std::nullopt;
  Out.File = FileIt->second;
  Out.Line = L.Line;
  Out.Column = L.Column;
  return Out;
}

unsigned mapPtxDiagnostics(
    std::vector<CompilerDiagnostic> &Diags,
    function_ref<std::optional<std::string>(StringRef)> ReadPtx) {
  StringMap<std::optional<PtxLineMap>> Maps;
  unsigned Mapped = 0;
  for (CompilerDiagnostic &D : Diags) {
    if (D.PtxFile.empty() || !D.PtxLine)
      continue;
    auto It = Maps.find(D.PtxFile);
    if (It == Maps.end()) {
      std::optional<PtxLineMap> Map;
      if (std::optional<std::string> Text = ReadPtx(D.PtxFile))
        Map.emplace(*Text);
      It = Maps.try_emplace(D.PtxFile, std::move(Map)).first;
    }
    if (!It->second)
      continue;
    if (auto Loc = It->second->lookup(D.PtxLine)) {
      D.File = Loc->File;
      D.Line = Loc->Line;
      D.Column = Loc->Column;
      ++Mapped;
    }
  }
  return Mapped;
}

} // namespace forge::build
