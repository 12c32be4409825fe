//===- Port/PortDiagnostics.cpp -------------------------------------------===//
#include "forge/Port/PortDiagnostics.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Core/Replacement.h"

using namespace clang;
using namespace llvm;

namespace forge::port {

PortDiagnostics::PortDiagnostics(raw_ostream *OS, bool WarningsAsErrors)
    : WarningsAsErrors(WarningsAsErrors), Opts(std::make_unique<DiagnosticOptions>()) {
  Opts->ShowColors = false;
  if (OS)
    Printer = std::make_unique<TextDiagnosticPrinter>(*OS, *Opts);
}

PortDiagnostics::~PortDiagnostics() = default;

void PortDiagnostics::beginFile(SourceManager &S, const LangOptions &L, const Preprocessor *PP) {
  SM = &S;
  LO = &L;
  IntrusiveRefCntPtr<DiagnosticIDs> IDs(new DiagnosticIDs());
  // Without a stream the findings are only recorded.
  if (!Printer && !Ignore)
    Ignore = std::make_unique<IgnoringDiagConsumer>();
  DiagnosticConsumer *Client = Printer ? static_cast<DiagnosticConsumer *>(Printer.get())
                                       : Ignore.get();
  Engine = std::make_unique<DiagnosticsEngine>(IDs, *Opts, Client,
                                               /*ShouldOwnClient=*/false);
  Engine->setSourceManager(&S);
  if (Printer)
    Printer->BeginSourceFile(L, PP);
}

void PortDiagnostics::endFile() {
  if (Printer)
    Printer->EndSourceFile();
  Engine.reset();
  SM = nullptr;
  LO = nullptr;
}

frontend::Location PortDiagnostics::locOf(SourceLocation L) const {
  frontend::Location Out;
  if (!SM || L.isInvalid())
    return Out;
  PresumedLoc P = SM->getPresumedLoc(SM->getFileLoc(L));
  if (P.isInvalid())
    return Out;
  Out.File = P.getFilename();
  Out.Line = P.getLine();
  Out.Column = P.getColumn();
  return Out;
}

SourceSpan PortDiagnostics::spanOf(CharSourceRange R) const {
  SourceSpan Out;
  if (!SM || R.isInvalid())
    return Out;
  SourceLocation B = R.getBegin(), E = R.getEnd();
  PresumedLoc PB = SM->getPresumedLoc(B), PE = SM->getPresumedLoc(E);
  if (PB.isInvalid() || PE.isInvalid())
    return Out;
  Out.Line = PB.getLine();
  Out.Column = PB.getColumn();
  Out.EndLine = PE.getLine();
  Out.EndColumn = PE.getColumn();
  Out.Offset = SM->getFileOffset(B);
  unsigned EndOffset = SM->getFileOffset(E);
  Out.Length = EndOffset > Out.Offset ? EndOffset - Out.Offset : 0;
  return Out;
}

SourceSpan PortDiagnostics::spanOf(SourceLocation L) const {
  if (!SM || !LO || L.isInvalid())
    return {};
  SourceLocation B = SM->getFileLoc(L);
  unsigned Length = Lexer::MeasureTokenLength(B, *SM, *LO);
  return spanOf(CharSourceRange::getCharRange(B, B.getLocWithOffset(Length)));
}

static DiagnosticsEngine::Level engineLevel(Severity S) {
  switch (S) {
  case Severity::Note:
    return DiagnosticsEngine::Note;
  case Severity::Warning:
    return DiagnosticsEngine::Warning;
  case Severity::Error:
    return DiagnosticsEngine::Error;
  }
  return DiagnosticsEngine::Warning;
}

void PortDiagnostics::report(StringRef Pass, Severity Level, SourceLocation Loc,
                             StringRef Message, ArrayRef<FixItHint> Fixes,
                             ArrayRef<std::pair<SourceLocation, std::string>> Notes) {
  if (!Engine)
    return;
  Finding F;
  F.Pass = Pass.str();
  F.Level = Level == Severity::Warning && WarningsAsErrors ? Severity::Error : Level;
  F.Message = Message.str();
  F.Loc = locOf(Loc);
  F.Span = spanOf(Loc);
  std::string Key = F.Loc.File + ":" + std::to_string(F.Loc.Line) + ":" +
                    std::to_string(F.Loc.Column) + "|" + F.Message;
  if (!Seen.insert(Key).second)
    return;

  // Fix-its become replacements; any that cannot (macro ranges) or that
  // conflict with another pass's edit leave the finding unfixed.
  std::vector<tooling::Replacement> Reps;
  bool Applicable = !Fixes.empty();
  for (const FixItHint &H : Fixes) {
    CharSourceRange R = H.RemoveRange;
    if (R.getBegin().isMacroID() || R.getEnd().isMacroID()) {
      Applicable = false;
      break;
    }
    tooling::Replacement Rep(*SM, R, H.CodeToInsert, *LO);
    if (Rep.getFilePath().empty()) {
      Applicable = false;
      break;
    }
    Reps.push_back(Rep);
    FixIt X;
    X.File = locOf(R.getBegin()).File;
    X.Range = spanOf(Lexer::makeFileCharRange(R, *SM, *LO));
    X.Replacement = H.CodeToInsert;
    F.FixIts.push_back(std::move(X));
  }
  if (!Applicable)
    F.FixIts.clear();
  std::string ConflictNote;
  if (Applicable) {
    patch::PatchSet Mine;
    for (const tooling::Replacement &Rep : Reps)
      if (Error E = Mine.add(Rep, Pass)) {
        ConflictNote = toString(std::move(E));
        break;
      }
    if (ConflictNote.empty()) {
      if (Error E = Patches.add(Mine))
        ConflictNote = toString(std::move(E));
      else
        F.Fixed = true;
    }
  }

  unsigned ID = Engine->getCustomDiagID(engineLevel(F.Level), "%0");
  {
    DiagnosticBuilder B = Engine->Report(Loc, ID);
    B << (F.Message + " [" + F.Pass + "]");
    if (Applicable)
      for (const FixItHint &H : Fixes)
        B << H;
  }
  unsigned NoteID = Engine->getCustomDiagID(DiagnosticsEngine::Note, "%0");
  for (const auto &[NLoc, Text] : Notes) {
    Engine->Report(NLoc.isValid() ? NLoc : Loc, NoteID) << Text;
    Finding N;
    N.Pass = F.Pass;
    N.Level = Severity::Note;
    N.Message = Text;
    N.Loc = locOf(NLoc.isValid() ? NLoc : Loc);
    N.Span = spanOf(NLoc.isValid() ? NLoc : Loc);
    F.Notes.push_back(N);
  }
  if (!ConflictNote.empty()) {
    std::string Text = "fix not applied: " + ConflictNote;
    Engine->Report(Loc, NoteID) << Text;
    F.Notes.push_back({F.Pass, Severity::Note, Text, F.Loc, F.Span, {}, {}, false});
  }
  Findings.push_back(std::move(F));
}

unsigned PortDiagnostics::errors() const {
  return count_if(Findings, [](const Finding &F) { return F.Level == Severity::Error; });
}
unsigned PortDiagnostics::warnings() const {
  return count_if(Findings, [](const Finding &F) { return F.Level == Severity::Warning; });
}

} // namespace forge::port
