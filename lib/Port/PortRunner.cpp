//===- Port/PortRunner.cpp ------------------------------------------------===//
#include "forge/Port/PortRunner.h"
#include "forge/Frontend/CompileDatabase.h"
#include "clang/AST/ASTContext.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"
#include <future>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::port {

PortPass::~PortPass() = default;

/// The passes read Clang's errors as it words them in C++. A C unit (a .c
/// that nvcc hands to gcc) gets some of the same errors worded for C: a
/// removed function is "call to undeclared function 'X'; ISO C99 and later
/// do not support implicit function declarations", not "use of undeclared
/// identifier 'X'", and a call in an old form (cuCtxCreate(&ctx, flags,
/// dev)) is "too few arguments to function call, expected 4, have 3", which
/// names no function, not "no matching function for call to
/// 'cuCtxCreate_v4'". Those are given to the passes in C++'s words, the
/// function named as it is declared (the callee's spelling: cuda.h's macro
/// maps cuCtxCreate to cuCtxCreate_v4), as C++'s message names it. C++'s
/// own "too few arguments" (Clang's guess for a removed name) stays as it
/// is.
static std::string passMessage(StringRef Msg, const Diagnostic &Info, bool IsC) {
  if (!IsC)
    return Msg.str();
  static const Regex Implicit("^call to undeclared function '([A-Za-z_0-9]+)'");
  SmallVector<StringRef, 2> Groups;
  if (Implicit.match(Msg, &Groups))
    return ("use of undeclared identifier '" + Groups[1] + "'").str();
  if ((Msg.starts_with("too few arguments to function call") ||
       Msg.starts_with("too many arguments to function call")) &&
      Info.hasSourceManager() && Info.getNumRanges() > 0) {
    const SourceManager &SM = Info.getSourceManager();
    SourceLocation Callee = SM.getSpellingLoc(Info.getRange(0).getBegin());
    StringRef Name = Lexer::getSourceText(CharSourceRange::getTokenRange(Callee), SM,
                                          LangOptions());
    if (!Name.empty() && all_of(Name, [](char Ch) { return isAlnum(Ch) || Ch == '_'; }) &&
        !isDigit(Name.front()))
      return ("no matching function for call to '" + Name + "'").str();
  }
  return Msg.str();
}

static bool explainedByAny(ArrayRef<std::unique_ptr<PortPass>> Passes, StringRef Msg,
                           const Diagnostic &Info, bool IsC) {
  std::string M = passMessage(Msg, Info, IsC);
  return any_of(Passes, [&](const auto &P) { return P->explainsParseError(M); });
}

Error runPortPasses(const frontend::Toolchain &TC, const PassRunOptions &Opts, StringRef File,
                    PortDiagnostics &Diag, frontend::ParseDiagnostics &ParseDiags) {
  frontend::ParseOptions PO = Opts.Parse;
  PO.Target = Opts.Target;
  bool IsC = PO.HostCompiler && frontend::isCSourceName(File);
  for (frontend::Side S : {frontend::Side::Host, frontend::Side::Device}) {
    if (S == frontend::Side::Device && Opts.HostOnly)
      continue;
    std::vector<std::unique_ptr<PortPass>> Passes;
    for (const PassInfo *PI : Opts.Passes) {
      auto P = PI->Create();
      if (P->wantsSide(S))
        Passes.push_back(std::move(P));
    }
    // The index needs the host side (launch sites); the device side is
    // indexed when it is parsed anyway (device-side launches).
    bool WantIndex = Opts.Index && S == frontend::Side::Host;
    if (Passes.empty() && !WantIndex && !Opts.Files)
      continue;
    std::vector<ParseError> Errors;
    std::unique_ptr<PassContext> Ctx;
    frontend::ParseRequest Req;
    Req.File = File.str();
    Req.S = S;
    Req.OnBegin = [&](CompilerInstance &CI) {
      Diag.beginFile(CI.getSourceManager(), CI.getLangOpts(), &CI.getPreprocessor());
      Ctx.reset(new PassContext{*Opts.Target, *Opts.Source, S, CI.getASTContext(), CI, Diag,
                                Errors});
      for (auto &P : Passes) {
        P->setContext(Ctx.get());
        P->registerPPCallbacks(CI.getPreprocessor(), *Ctx);
      }
    };
    ParseDiags.Explains = [&](StringRef Msg, const Diagnostic &Info) {
      return explainedByAny(Passes, Msg, Info, IsC);
    };
    ParseDiags.OnError = [&](const Diagnostic &Info) {
      SmallString<128> Msg;
      Info.FormatDiagnostic(Msg);
      Errors.push_back({Info.getID(), Info.getLocation(), passMessage(Msg, Info, IsC)});
    };
    Error E = frontend::parseCuda(
        TC, PO, Req, ParseDiags,
        [&](ASTContext &AST, CompilerInstance &CI, const frontend::PreprocessorFacts &Facts) {
          if (Opts.Files)
            Opts.Files->insert(Facts.Files.begin(), Facts.Files.end());
          // The passes report on the user's code: declarations in system
          // headers (the toolkit's, the C++ library's, the prelude) are not
          // traversed, which halves the matching on real files. A use in the
          // user's code of a declaration there is still matched.
          MatchFinder::MatchFinderOptions FinderOptions;
          FinderOptions.IgnoreSystemHeaders = true;
          MatchFinder Finder(FinderOptions);
          for (auto &P : Passes)
            P->registerMatchers(Finder);
          Finder.matchAST(AST);
          for (auto &P : Passes)
            P->finish(*Ctx);
          if (Opts.Index)
            Opts.Index->addSide(AST, CI, S, Facts);
        });
    ParseDiags.OnError = nullptr;
    ParseDiags.Explains = nullptr;
    Diag.endFile();
    if (E)
      return E;
  }
  return Error::success();
}

Expected<unsigned> countParseErrors(const frontend::Toolchain &TC,
                                    const frontend::ParseOptions &Opts, StringRef File,
                                    StringRef Contents,
                                    ArrayRef<const PassInfo *> Explaining,
                                    const std::map<std::string, std::string> &Overlay,
                                    std::vector<std::string> *Messages, bool HostOnly) {
  bool IsC = Opts.HostCompiler && frontend::isCSourceName(File);
  // One side's parse, with its own diagnostics and passes: the two sides
  // are independent compiles, parsed at once (each Clang instance is its
  // own, as when the units of a project are ported in parallel).
  struct SideCount {
    std::vector<std::string> Keys, Messages;
  };
  auto Count = [&](frontend::Side S) -> Expected<SideCount> {
    frontend::ParseDiagnostics Quiet(nullptr);
    std::vector<std::unique_ptr<PortPass>> Passes;
    for (const PassInfo *PI : Explaining)
      Passes.push_back(PI->Create());
    Quiet.Explains = [&](StringRef Msg, const Diagnostic &Info) {
      return explainedByAny(Passes, Msg, Info, IsC);
    };
    frontend::ParseRequest Req;
    Req.File = File.str();
    Req.S = S;
    Req.Contents = Contents.str();
    Req.Overlay = Overlay;
    if (Error E = frontend::parseCuda(TC, Opts, Req, Quiet,
                                      [](ASTContext &, CompilerInstance &,
                                         const frontend::PreprocessorFacts &) {}))
      return std::move(E);
    return SideCount{Quiet.errorKeys(), Quiet.errorMessages()};
  };
  std::future<Expected<SideCount>> Device;
  if (!HostOnly)
    Device = std::async(std::launch::async, Count, frontend::Side::Device);
  Expected<SideCount> Host = Count(frontend::Side::Host);
  // An error both sides report is one error (as one consumer for both
  // would count it).
  std::set<std::string> Seen;
  std::vector<std::string> All;
  auto Add = [&](Expected<SideCount> C) -> Error {
    if (!C)
      return C.takeError();
    for (size_t I = 0; I < C->Keys.size(); ++I)
      if (Seen.insert(C->Keys[I]).second)
        All.push_back(C->Messages[I]);
    return Error::success();
  };
  Error E = Add(std::move(Host));
  if (Device.valid())
    E = joinErrors(std::move(E), Add(Device.get()));
  if (E)
    return std::move(E);
  unsigned Errors = unsigned(All.size());
  if (Messages)
    *Messages = std::move(All);
  return Errors;
}

} // namespace forge::port
