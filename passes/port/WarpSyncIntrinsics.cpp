//===- WarpSyncIntrinsics.cpp - warp-sync-intrinsics ----------------------===//
#include "WarpSyncIntrinsics.h"
#include "../PortPass.h"
#include "forge/Frontend/Divergence.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::passes {

namespace {
struct Mapping {
  const char *Legacy;
  const char *Sync;
};
/// Legacy name -> CUDA 9+ name; the _sync forms take the mask first and the
/// legacy arguments unchanged after it.
const Mapping Table[] = {
    {"__shfl", "__shfl_sync"},         {"__shfl_up", "__shfl_up_sync"},
    {"__shfl_down", "__shfl_down_sync"}, {"__shfl_xor", "__shfl_xor_sync"},
    {"__any", "__any_sync"},           {"__all", "__all_sync"},
    {"__ballot", "__ballot_sync"},
};

const Mapping *lookup(StringRef Name) {
  for (const Mapping &M : Table)
    if (Name == M.Legacy)
      return &M;
  return nullptr;
}
} // namespace

void WarpSyncIntrinsics::registerMatchers(MatchFinder &Finder) {
  // Declared (Clang's own wrapper still has them): a resolved call.
  Finder.addMatcher(
      callExpr(callee(functionDecl(hasAnyName("__shfl", "__shfl_up", "__shfl_down",
                                              "__shfl_xor", "__any", "__all", "__ballot"))
                          .bind("fn")))
          .bind("call"),
      this);
  // Undeclared (CUDA 13 headers): a recovery expression around the name.
  Finder.addMatcher(unresolvedLookupExpr().bind("ule"), this);
}

void WarpSyncIntrinsics::check(const MatchFinder::MatchResult &R, PassContext &C) {
  SourceManager &SM = *R.SourceManager;
  SourceLocation NameLoc;
  StringRef Name;
  const Expr *Site = nullptr;
  if (const auto *Call = R.Nodes.getNodeAs<CallExpr>("call")) {
    const auto *FD = R.Nodes.getNodeAs<FunctionDecl>("fn");
    Name = FD->getName();
    Site = Call;
    NameLoc = Call->getCallee()->IgnoreImplicit()->getExprLoc();
  } else if (const auto *ULE = R.Nodes.getNodeAs<UnresolvedLookupExpr>("ule")) {
    if (!ULE->getName().isIdentifier())
      return;
    Name = ULE->getName().getAsIdentifierInfo()->getName();
    Site = ULE;
    NameLoc = ULE->getNameLoc();
  }
  const Mapping *M = lookup(Name);
  if (!M || !frontend::isUserLocation(SM, NameLoc))
    return;

  std::string Msg = ("'" + Twine(M->Legacy) + "' was removed in CUDA 13; use '" + M->Sync + "'").str();
  frontend::Uniformity U = frontend::warpUniformAt(*R.Context, *Site);
  if (!U.Uniform) {
    C.Diag.report(name(), Severity::Warning, NameLoc, Msg, {},
                  {{U.Where, "not rewritten: " + U.Reason + "; choose the lane mask by hand"}});
    return;
  }
  if (NameLoc.isMacroID()) {
    C.Diag.report(name(), Severity::Warning, NameLoc, Msg, {},
                  {{NameLoc, "not rewritten: the call is written inside a macro"}});
    return;
  }
  SourceLocation AfterParen =
      Lexer::findLocationAfterToken(NameLoc, tok::l_paren, SM, C.Ctx.getLangOpts(),
                                    /*SkipTrailingWhitespaceAndNewLine=*/false);
  if (AfterParen.isInvalid()) {
    C.Diag.report(name(), Severity::Warning, NameLoc, Msg, {},
                  {{NameLoc, "not rewritten: the call's argument list was not found"}});
    return;
  }
  C.Diag.report(name(), Severity::Warning, NameLoc, Msg,
                {FixItHint::CreateReplacement(CharSourceRange::getTokenRange(NameLoc), M->Sync),
                 FixItHint::CreateInsertion(AfterParen, "0xffffffff, ")});
}

} // namespace forge::passes
