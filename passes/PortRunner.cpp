//===- passes/PortRunner.cpp ----------------------------------------------===//
#include "PortRunner.h"
#include "clang/AST/ASTContext.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Preprocessor.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::passes {

Error runPortPasses(const frontend::Toolchain &TC, const PortOptions &Opts, StringRef File,
                    PortDiagnostics &Diag, frontend::ParseDiagnostics &ParseDiags) {
  frontend::ParseOptions PO = Opts.Parse;
  PO.Arch = Opts.Target->Name;
  for (frontend::Side S : {frontend::Side::Host, frontend::Side::Device}) {
    std::vector<std::unique_ptr<PortPass>> Passes;
    for (const PassInfo *PI : Opts.Passes) {
      auto P = PI->Create();
      if (P->wantsSide(S))
        Passes.push_back(std::move(P));
    }
    if (Passes.empty())
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
    ParseDiags.OnError = [&](const Diagnostic &Info) {
      SmallString<128> Msg;
      Info.FormatDiagnostic(Msg);
      Errors.push_back({Info.getID(), Info.getLocation(), Msg.str().str()});
    };
    Error E = frontend::parseCuda(
        TC, PO, Req, ParseDiags,
        [&](ASTContext &AST, CompilerInstance &CI, const frontend::PreprocessorFacts &) {
          MatchFinder Finder;
          for (auto &P : Passes)
            P->registerMatchers(Finder);
          Finder.matchAST(AST);
          for (auto &P : Passes)
            P->finish(*Ctx);
        });
    ParseDiags.OnError = nullptr;
    Diag.endFile();
    if (E)
      return E;
  }
  return Error::success();
}

Expected<unsigned> countParseErrors(const frontend::Toolchain &TC,
                                    const frontend::ParseOptions &Opts, StringRef File,
                                    StringRef Contents) {
  frontend::ParseDiagnostics Quiet(nullptr);
  for (frontend::Side S : {frontend::Side::Host, frontend::Side::Device}) {
    frontend::ParseRequest Req;
    Req.File = File.str();
    Req.S = S;
    Req.Contents = Contents.str();
    if (Error E = frontend::parseCuda(TC, Opts, Req, Quiet,
                                      [](ASTContext &, CompilerInstance &,
                                         const frontend::PreprocessorFacts &) {}))
      return std::move(E);
  }
  return Quiet.errors();
}

} // namespace forge::passes
