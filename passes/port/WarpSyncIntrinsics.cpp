//===- WarpSyncIntrinsics.cpp - warp-sync-intrinsics ----------------------===//
#include "WarpSyncIntrinsics.h"
#include "../PortPass.h"
#include "forge/Frontend/Divergence.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringSet.h"

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

  // A template's instantiations share the pattern's calls: decide once, on
  // the pattern, for all of them (its calling contexts cover every
  // instantiation's).
  if (const FunctionDecl *Fn = frontend::enclosingFunction(*R.Context, *Site))
    if (Fn->isTemplateInstantiation())
      return;

  std::string Msg = ("'" + Twine(M->Legacy) + "' was removed in CUDA 13; use '" + M->Sync + "'").str();
  if (!Calls)
    Calls = std::make_unique<frontend::CallSiteIndex>(*R.Context);
  frontend::Uniformity U = frontend::warpUniformAcrossCalls(*R.Context, *Site, *Calls);
  SourceLocation AfterParen;
  if (NameLoc.isFileID())
    AfterParen = Lexer::findLocationAfterToken(NameLoc, tok::l_paren, SM, C.Ctx.getLangOpts(),
                                               /*SkipTrailingWhitespaceAndNewLine=*/false);
  if (!U.Uniform) {
    std::vector<std::pair<SourceLocation, std::string>> Notes;
    BallotFix B = ballotFix(*Site, U, M->Sync, NameLoc, AfterParen, C);
    if (!B.Fixes.empty()) {
      C.Diag.report(name(), Severity::Warning, NameLoc, Msg, B.Fixes, {{B.NoteAt, B.Note}});
      return;
    }
    Notes.push_back({U.Where, "not rewritten: " + U.Reason + "; choose the lane mask by hand"});
    if (!B.Note.empty())
      Notes.push_back({B.NoteAt, B.Note});
    C.Diag.report(name(), Severity::Warning, NameLoc, Msg, {}, Notes);
    return;
  }
  if (NameLoc.isMacroID()) {
    C.Diag.report(name(), Severity::Warning, NameLoc, Msg, {},
                  {{NameLoc, "not rewritten: the call is written inside a macro"}});
    return;
  }
  if (AfterParen.isInvalid()) {
    C.Diag.report(name(), Severity::Warning, NameLoc, Msg, {},
                  {{NameLoc, "not rewritten: the call's argument list was not found"}});
    return;
  }
  C.Diag.report(name(), Severity::Warning, NameLoc, Msg,
                {FixItHint::CreateReplacement(CharSourceRange::getTokenRange(NameLoc), M->Sync),
                 FixItHint::CreateInsertion(AfterParen, "0xffffffff, ")});
}

namespace {
/// A return, break, continue or goto in Branch before the call: some lanes
/// that took the branch may not reach the call.
const Stmt *exitBefore(const Stmt *Branch, SourceLocation Call, const SourceManager &SM) {
  struct Exits : DynamicRecursiveASTVisitor {
    const SourceManager &SM;
    SourceLocation Call;
    const Stmt *Found = nullptr;
    Exits(const SourceManager &SM, SourceLocation Call) : SM(SM), Call(Call) {}
    bool see(Stmt *S) {
      if (SM.isBeforeInTranslationUnit(S->getBeginLoc(), Call))
        Found = S;
      return !Found;
    }
    bool VisitReturnStmt(ReturnStmt *S) override { return see(S); }
    bool VisitBreakStmt(BreakStmt *S) override { return see(S); }
    bool VisitContinueStmt(ContinueStmt *S) override { return see(S); }
    bool VisitGotoStmt(GotoStmt *S) override { return see(S); }
  } X(SM, Call);
  X.TraverseStmt(const_cast<Stmt *>(Branch));
  return X.Found;
}

std::string lineText(const SourceManager &SM, SourceLocation L) {
  return "line " + std::to_string(SM.getExpansionLineNumber(L));
}
} // namespace

WarpSyncIntrinsics::BallotFix WarpSyncIntrinsics::ballotFix(const Stmt &Site,
                                                            const frontend::Uniformity &U,
                                                            StringRef Sync,
                                                            SourceLocation NameLoc,
                                                            SourceLocation AfterParen,
                                                            PassContext &C) {
  using Cause = frontend::Uniformity::Cause;
  ASTContext &Ctx = C.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  BallotFix B;
  B.NoteAt = U.Where;
  auto No = [&](const Twine &Why) {
    B.Note = ("no ballot fix: " + Why).str();
    return B;
  };
  switch (U.Why) {
  case Cause::Caller:
    return No("the lanes are chosen in a caller; a mask would have to be computed there and "
              "passed down");
  case Cause::Loop:
    return No("which lanes reach the call may change from one iteration to the next");
  case Cause::EarlyReturn:
    return No("which lanes reach the call depends on the return at " +
              lineText(SM, U.Where) + ", not on one condition");
  case Cause::Branch:
    break;
  default:
    return B;
  }
  const auto *If = dyn_cast_or_null<IfStmt>(U.Construct);
  if (!If)
    return No("only the condition of an 'if' statement can be balloted before it");
  if (If->getInit() || If->getConditionVariable())
    return No("the 'if' declares a variable");
  if (If->getBeginLoc().isMacroID() || NameLoc.isMacroID() || AfterParen.isInvalid())
    return No("the 'if' or the call is written inside a macro");
  auto Parents = Ctx.getParents(*If);
  if (Parents.empty() || !Parents[0].get<CompoundStmt>())
    return No("the 'if' is not a statement of a block (an 'else if' or an unbraced body), "
              "where a declaration could go before it");
  const Expr *Cond = If->getCond();
  if (Cond->HasSideEffects(Ctx))
    return No("the condition has side effects, and a ballot would evaluate it a second time");
  CharSourceRange CondRange = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Cond->getSourceRange()), SM, LO);
  if (CondRange.isInvalid())
    return No("the condition is written inside a macro");
  const Stmt *Then = If->getThen(), *Else = If->getElse();
  bool InThen = Then && Then->getSourceRange().fullyContains(Site.getSourceRange());
  const Stmt *Branch = InThen ? Then : Else;
  if (!Branch)
    return No("the call is not inside a branch of the 'if'");
  if (const Stmt *Exit = exitBefore(Branch, Site.getBeginLoc(), SM))
    return No("some lanes may leave the branch at " + lineText(SM, Exit->getBeginLoc()) +
              " before the call");
  frontend::Uniformity AtIf = frontend::warpUniformAcrossCalls(Ctx, *If, *Calls);
  switch (AtIf.Why) {
  case Cause::None:
    break;
  case Cause::Branch:
    return No("the 'if' is itself under divergent control flow (" +
              lineText(SM, AtIf.Where) + ")");
  case Cause::Loop:
    return No("the 'if' is itself in a loop whose trip count may differ between threads (" +
              lineText(SM, AtIf.Where) + ")");
  case Cause::EarlyReturn:
    return No("some lanes may have returned before the 'if' (" + lineText(SM, AtIf.Where) +
              ")");
  default:
    return No("not every lane is known to reach the 'if' itself: " + AtIf.Reason);
  }

  // One mask per 'if', named so that it hides nothing: not spelled in the
  // function, not a macro, not declared at file scope, not another mask.
  auto [It, New] = Masks.try_emplace(If);
  if (New) {
    llvm::StringSet<> Taken;
    for (const auto &KV : Masks)
      Taken.insert(KV.second);
    // The identifiers the function spells (comments aside), raw-lexed.
    llvm::StringSet<> Spelled;
    if (const FunctionDecl *Fn = frontend::enclosingFunction(Ctx, *If)) {
      CharSourceRange R = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(Fn->getSourceRange()), SM, LO);
      if (R.isValid()) {
        StringRef Buf = SM.getBufferData(SM.getFileID(R.getBegin()));
        unsigned Begin = SM.getFileOffset(R.getBegin()), End = SM.getFileOffset(R.getEnd());
        Lexer Raw(SM.getLocForStartOfFile(SM.getFileID(R.getBegin())), LO, Buf.begin(),
                  Buf.begin() + Begin, Buf.end());
        Token Tok;
        while (!Raw.LexFromRawLexer(Tok) && SM.getFileOffset(Tok.getLocation()) < End)
          if (Tok.is(tok::raw_identifier))
            Spelled.insert(Tok.getRawIdentifier());
        if (Tok.is(tok::raw_identifier))
          Spelled.insert(Tok.getRawIdentifier());
      }
    }
    for (unsigned N = 1;; ++N) {
      std::string Name = N == 1 ? "forge_mask" : "forge_mask" + std::to_string(N);
      if (Taken.count(Name) || Spelled.count(Name) || C.CI.getPreprocessor().isMacroDefined(Name) ||
          !Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get(Name)).empty())
        continue;
      It->second = Name;
      break;
    }
  }
  const std::string &Mask = It->second;
  std::string CondText = Lexer::getSourceText(CondRange, SM, LO).str();
  std::string Indent = Lexer::getIndentationForLine(If->getBeginLoc(), SM).str();
  // Every lane is at the 'if', so the else branch's lanes are the complement
  // (one declaration serves both branches: the same edit merges).
  std::string Arg = InThen ? Mask : "~" + Mask;
  B.Fixes = {FixItHint::CreateInsertion(If->getBeginLoc(),
                                        "unsigned " + Mask + " = __ballot_sync(0xffffffff, " +
                                            CondText + ");\n" + Indent),
             FixItHint::CreateReplacement(CharSourceRange::getTokenRange(NameLoc), Sync),
             FixItHint::CreateInsertion(AfterParen, Arg + ", ")};
  B.NoteAt = If->getBeginLoc();
  B.Note = "the lanes that reach the call are those for which '" + CondText + "' is " +
           (InThen ? "true" : "false") + ": '" + Mask +
           "' is the ballot of the condition, taken just before the 'if', which every lane of "
           "the warp reaches" +
           (InThen ? "" : ", and '" + Arg + "' its complement");
  return B;
}

} // namespace forge::passes
