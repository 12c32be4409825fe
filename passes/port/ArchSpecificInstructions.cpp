//===- ArchSpecificInstructions.cpp - arch-specific-instructions ----------===//
#include "ArchSpecificInstructions.h"
#include "../PortPass.h"
#include "forge/Frontend/CudaParser.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/DiagnosticSema.h"
#include "llvm/ADT/SmallSet.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cstring>
#include <map>
#include <optional>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::passes {

using arch::Feature;

namespace {

/// What a feature needs, and how to guard code that uses it. Guard and
/// Fallback drive the fix-it: Guard is the #if condition under which the
/// feature assembles (null: no fix-it), Fallback the statement of the #else
/// branch when the file has no portable path (null: no #else, leaving the
/// code out is correct; "__trap();" becomes asm volatile("trap;") where the
/// parse has no __trap, as with headers that lack it). The rows are in order of strictness: where one
/// guarded unit holds statements of several rows, the first row's guard
/// covers them all.
struct Requirement {
  Feature F;
  const char *Needs; ///< after "; "
  const char *Remedy;
  const char *Guard;
  const char *Fallback;
};
const Requirement Requirements[] = {
    {Feature::WGMMA, "it assembles only for sm_90a",
     "guard it with '#if defined(__CUDA_ARCH_FEAT_SM90_ALL)' or compile for sm_90a",
     "defined(__CUDA_ARCH_FEAT_SM90_ALL)",
     "__trap(); // wgmma assembles only for sm_90a; on Blackwell (sm_100a) port it to tcgen05"},
    {Feature::SetMaxNReg,
     "it needs an arch- or family-specific target (sm_90a, sm_100a/f, sm_120a/f, ...), "
     "never plain sm_90 or sm_100",
     "guard it with '#if defined(__CUDA_ARCH_SPECIFIC__) || "
     "defined(__CUDA_ARCH_FAMILY_SPECIFIC__)' or compile for an 'a' or 'f' target",
     "defined(__CUDA_ARCH_SPECIFIC__) || defined(__CUDA_ARCH_FAMILY_SPECIFIC__)", nullptr},
    {Feature::TCGen05,
     "it needs an arch- or family-specific target of family 10x (sm_100a/f, sm_103a/f, "
     "sm_110a/f)",
     "guard it with '#if defined(__CUDA_ARCH_FEAT_SM100_ALL)' (or the family macro) or "
     "compile for sm_100a or sm_100f",
     nullptr, nullptr},
    {Feature::TMA, "TMA needs sm_90 or later",
     "guard it with '#if __CUDA_ARCH__ >= 900' or compile for sm_90 or later", nullptr, nullptr},
    {Feature::Clusters, "thread-block clusters need sm_90 or later",
     "guard it with '#if __CUDA_ARCH__ >= 900' or compile for sm_90 or later", nullptr, nullptr},
    {Feature::CpAsync, "it needs sm_80 or later",
     "guard it with '#if __CUDA_ARCH__ >= 800' or compile for sm_80 or later", nullptr, nullptr},
};

unsigned indexOf(Feature F) {
  for (unsigned I = 0; I < std::size(Requirements); ++I)
    if (Requirements[I].F == F)
      return I;
  llvm_unreachable("every feature has a requirement");
}

const Requirement &requirementOf(Feature F) { return Requirements[indexOf(F)]; }

/// A PTX mnemonic (or special register) prefix and the feature it needs.
/// Longer prefixes first: the first match wins.
struct Instruction {
  const char *Prefix;
  const char *Display; ///< the name in messages; null: the token itself
  Feature F;
};
const Instruction Instructions[] = {
    {"wgmma", "wgmma", Feature::WGMMA},
    {"tcgen05", "tcgen05", Feature::TCGen05},
    {"setmaxnreg", "setmaxnreg", Feature::SetMaxNReg},
    {"cp.async.bulk.tensor", "cp.async.bulk.tensor", Feature::TMA},
    {"cp.reduce.async.bulk.tensor", "cp.reduce.async.bulk.tensor", Feature::TMA},
    {"cp.async.bulk", "cp.async.bulk", Feature::TMA},
    {"cp.reduce.async.bulk", "cp.reduce.async.bulk", Feature::TMA},
    {"cp.async", "cp.async", Feature::CpAsync},
    {"barrier.cluster", "barrier.cluster", Feature::Clusters},
    {"mapa", "mapa", Feature::Clusters},
};

/// Special registers of clusters (%cluster_ctarank, %clusterid, ...).
const char *const ClusterRegisters[] = {"cluster", "nclusterid", "is_explicit_cluster"};

bool isTokenChar(char Ch) { return isAlnum(Ch) || Ch == '_' || Ch == '.' || Ch == '%'; }

/// The instructions of an asm string that need a feature, each once, in
/// order of appearance.
SmallVector<std::pair<std::string, Feature>, 4> scanPtx(StringRef Asm) {
  SmallVector<std::pair<std::string, Feature>, 4> Found;
  SmallSet<std::string, 4> Seen;
  auto Add = [&](StringRef Name, Feature F) {
    if (Seen.insert(Name.str()).second)
      Found.push_back({Name.str(), F});
  };
  size_t I = 0;
  while (I < Asm.size()) {
    if (!isTokenChar(Asm[I])) {
      ++I;
      continue;
    }
    size_t J = I;
    while (J < Asm.size() && isTokenChar(Asm[J]))
      ++J;
    StringRef Tok = Asm.slice(I, J);
    I = J;
    if (Tok.starts_with("%")) {
      // "%%cluster_ctarank" in an asm with operands.
      StringRef Reg = Tok.ltrim('%');
      for (const char *P : ClusterRegisters)
        if (Reg.starts_with(P))
          Add(("%" + Reg).str(), Feature::Clusters);
      continue;
    }
    for (const Instruction &In : Instructions) {
      StringRef P(In.Prefix);
      if (Tok == P || (Tok.starts_with(P) && Tok[P.size()] == '.')) {
        Add(In.Display, In.F);
        break;
      }
    }
  }
  return Found;
}

/// For wgmma: where Blackwell's tensor-core MMA (tcgen05) is, and the flag
/// that builds it. The target's own 'a' and 'f' variants when they have
/// tcgen05 (sm_100 -> sm_100a / sm_100f), else sm_100a's.
std::string tcgen05Hint(const arch::TargetInfo &T) {
  if (T.hasFeature(Feature::TCGen05))
    return std::string(" (") + T.Name + " uses 'tcgen05')";
  std::string Base = "sm_" + std::to_string(T.ccNumber());
  auto A = arch::lookupTarget(Base + "a");
  if (!A) {
    consumeError(A.takeError());
    return " (sm_100a uses 'tcgen05')";
  }
  if (!A->hasFeature(Feature::TCGen05))
    return " (sm_100a uses 'tcgen05')";
  return " (" + Base + " has 'tcgen05' instead, which needs -arch=" + Base + "a or -arch=" +
         Base + "f)";
}

std::string message(StringRef What, const arch::TargetInfo &T, Feature F) {
  std::string M =
      ("'" + What + "' is not available on " + T.Name + "; " + requirementOf(F).Needs).str();
  if (F == Feature::WGMMA)
    M += tcgen05Hint(T);
  return M;
}

/// The #if condition G as one operand of '&&'.
std::string operand(StringRef G) {
  return G.contains("||") || G.contains('?') ? ("(" + G + ")").str() : G.str();
}

class Callbacks : public PPCallbacks {
public:
  using K = ArchSpecificInstructions::CondBranch::Kind;
  explicit Callbacks(ArchSpecificInstructions &P) : P(P) {}
  void If(SourceLocation Loc, SourceRange, ConditionValueKind) override {
    P.onBranch(K::If, Loc, true);
  }
  void Ifdef(SourceLocation Loc, const Token &, const MacroDefinition &) override {
    P.onBranch(K::Ifdef, Loc, true);
  }
  void Ifndef(SourceLocation Loc, const Token &, const MacroDefinition &) override {
    P.onBranch(K::Ifndef, Loc, true);
  }
  void Elif(SourceLocation Loc, SourceRange, ConditionValueKind, SourceLocation) override {
    P.onBranch(K::Elif, Loc, false);
  }
  void Elifdef(SourceLocation Loc, const Token &, const MacroDefinition &) override {
    P.onBranch(K::Other, Loc, false);
  }
  void Elifdef(SourceLocation Loc, SourceRange, SourceLocation) override {
    P.onBranch(K::Other, Loc, false);
  }
  void Elifndef(SourceLocation Loc, const Token &, const MacroDefinition &) override {
    P.onBranch(K::Other, Loc, false);
  }
  void Elifndef(SourceLocation Loc, SourceRange, SourceLocation) override {
    P.onBranch(K::Other, Loc, false);
  }
  void Else(SourceLocation Loc, SourceLocation) override { P.onBranch(K::Else, Loc, false); }
  void Endif(SourceLocation Loc, SourceLocation) override { P.onEndif(Loc); }

private:
  ArchSpecificInstructions &P;
};

bool isIdentChar(char Ch) { return isAlnum(Ch) || Ch == '_'; }

/// The start of the line that holds offset Off.
size_t lineStart(StringRef Buf, size_t Off) {
  while (Off > 0 && Buf[Off - 1] != '\n')
    --Off;
  return Off;
}
/// The offset of the newline that ends the line holding Off (or the end).
size_t lineEnd(StringRef Buf, size_t Off) {
  size_t E = Buf.find('\n', Off);
  return E == StringRef::npos ? Buf.size() : E;
}
size_t blanksBefore(StringRef Buf, size_t Off) {
  while (Off > 0 && (Buf[Off - 1] == ' ' || Buf[Off - 1] == '\t'))
    --Off;
  return Off;
}
size_t blanksAfter(StringRef Buf, size_t Off) {
  while (Off < Buf.size() && (Buf[Off] == ' ' || Buf[Off] == '\t'))
    ++Off;
  return Off;
}
std::string indentOf(StringRef Buf, size_t LS) {
  size_t I = LS;
  while (I < Buf.size() && (Buf[I] == ' ' || Buf[I] == '\t'))
    ++I;
  return Buf.slice(LS, I).str();
}

/// The condition of the directive whose keyword is at Off: [Begin, End),
/// without a trailing comment. None where it cannot be edited safely (a
/// comment followed by more of the condition).
std::optional<std::pair<size_t, size_t>> conditionOf(StringRef Buf, size_t Off) {
  size_t I = Off;
  while (I < Buf.size() && isIdentChar(Buf[I]))
    ++I;
  while (I < Buf.size() && (Buf[I] == ' ' || Buf[I] == '\t'))
    ++I;
  size_t Begin = I, End = I;
  while (I < Buf.size() && Buf[I] != '\n') {
    if (Buf[I] == '\\' && (Buf.substr(I + 1).starts_with("\n") ||
                           Buf.substr(I + 1).starts_with("\r\n"))) {
      I = Buf.find('\n', I) + 1;
      continue;
    }
    if (Buf.substr(I).starts_with("//"))
      break;
    if (Buf.substr(I).starts_with("/*")) {
      size_t C = Buf.find("*/", I + 2);
      if (C == StringRef::npos)
        return std::nullopt;
      StringRef Rest = Buf.slice(C + 2, lineEnd(Buf, C)).trim();
      if (!Rest.empty() || Buf.slice(I, C).contains('\n'))
        return std::nullopt;
      break;
    }
    if (!isSpace(Buf[I]))
      End = I + 1;
    ++I;
  }
  if (End <= Begin)
    return std::nullopt;
  return std::make_pair(Begin, End);
}

} // namespace

void ArchSpecificInstructions::onBranch(CondBranch::Kind K, SourceLocation Loc, bool Opens) {
  if (!SM || !Loc.isFileID())
    return;
  auto [FID, Off] = SM->getDecomposedLoc(Loc);
  if (Opens) {
    Open.push_back(Chains.size());
    Chains.push_back({FID, {}, 0, false});
  }
  if (Open.empty())
    return;
  CondChain &Ch = Chains[Open.back()];
  if (Ch.FID == FID)
    Ch.Branches.push_back({K, Off, Loc});
}

void ArchSpecificInstructions::onEndif(SourceLocation Loc) {
  if (!SM || Open.empty())
    return;
  CondChain &Ch = Chains[Open.back()];
  Open.pop_back();
  if (!Loc.isFileID() || SM->getFileID(Loc) != Ch.FID)
    return;
  Ch.EndOffset = SM->getFileOffset(Loc);
  Ch.Closed = true;
}

void ArchSpecificInstructions::registerPPCallbacks(Preprocessor &PP, PassContext &C) {
  SM = &PP.getSourceManager();
  Chains.clear();
  Open.clear();
  Found.clear();
  PP.addPPCallbacks(std::make_unique<Callbacks>(*this));
}

void ArchSpecificInstructions::registerMatchers(MatchFinder &Finder) {
  // Only code that is compiled for the device: asm in a host-only function
  // is host assembly.
  auto InDeviceCode = hasAncestor(
      functionDecl(anyOf(hasAttr(attr::CUDADevice), hasAttr(attr::CUDAGlobal))));
  Finder.addMatcher(asmStmt(InDeviceCode).bind("asm"), this);
  Finder.addMatcher(functionDecl(hasAttr(attr::CUDAClusterDims)).bind("cluster-dims"), this);
  Finder.addMatcher(
      callExpr(callee(functionDecl(hasName("::cooperative_groups::this_cluster")))).bind("cg"),
      this);
}

void ArchSpecificInstructions::check(const MatchFinder::MatchResult &R, PassContext &C) {
  SourceManager &SM = *R.SourceManager;
  const arch::TargetInfo &T = C.Target;
  if (const auto *Asm = dyn_cast_or_null<GCCAsmStmt>(R.Nodes.getNodeAs<AsmStmt>("asm"))) {
    SourceLocation Loc = Asm->getAsmLoc();
    if (!frontend::isUserLocation(SM, Loc))
      return;
    // A C++26 constant-expression asm string is not a literal; leave it.
    const auto *Lit = dyn_cast_or_null<clang::StringLiteral>(Asm->getAsmStringExpr());
    if (!Lit)
      return;
    for (const auto &[What, F] : scanPtx(Lit->getString()))
      if (!T.hasFeature(F))
        Found.push_back({Loc, message(What, T, F), F, Asm});
    return;
  }
  if (T.hasFeature(Feature::Clusters))
    return;
  if (const auto *FD = R.Nodes.getNodeAs<FunctionDecl>("cluster-dims")) {
    const auto *A = FD->getAttr<CUDAClusterDimsAttr>();
    SourceLocation Loc = A->getLocation();
    if (!frontend::isUserLocation(SM, Loc))
      return;
    Found.push_back({Loc, message("__cluster_dims__", T, Feature::Clusters), Feature::Clusters});
    return;
  }
  if (const auto *Call = R.Nodes.getNodeAs<CallExpr>("cg")) {
    SourceLocation Loc = Call->getBeginLoc();
    if (!frontend::isUserLocation(SM, Loc))
      return;
    Found.push_back({Loc, message("cooperative_groups::this_cluster", T, Feature::Clusters),
                     Feature::Clusters});
  }
}

namespace {

/// Builds the fix-it of one flagged asm statement: see the file comment.
class GuardFixer {
public:
  GuardFixer(ASTContext &Ctx, const arch::TargetInfo &T,
             ArrayRef<ArchSpecificInstructions::CondChain> Chains)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), T(T), Chains(Chains) {}

  /// A statement that needs guard Requirements[Idx].
  void flag(const GCCAsmStmt *S, unsigned Idx) {
    SourceLocation L = S->getBeginLoc();
    if (!L.isFileID())
      return;
    auto [FID, Off] = SM.getDecomposedLoc(L);
    auto &Slot = Flagged[{FID, Off}];
    Slot = Slot ? std::min(*Slot, Idx) : Idx;
  }

  /// The fix-its for S, and a note that says what they do (or why there are
  /// none).
  /// Adds the guard's fix-its; true when, for want of a portable path, the
  /// guarded code traps on the target (the code still does not run there).
  bool fix(const GCCAsmStmt *S, SmallVectorImpl<FixItHint> &Fixes,
           SmallVectorImpl<std::pair<SourceLocation, std::string>> &Notes);

private:
  std::optional<unsigned> guardAt(FileID FID, unsigned Off) const {
    auto It = Flagged.find({FID, Off});
    if (It == Flagged.end())
      return std::nullopt;
    return It->second;
  }
  /// The strictest guard among flagged statements in [B, E) of FID.
  unsigned guardIn(FileID FID, unsigned B, unsigned E, unsigned Default) const {
    unsigned G = Default;
    for (const auto &[Key, Idx] : Flagged)
      if (Key.first == FID && Key.second >= B && Key.second < E && Idx)
        G = std::min(G, *Idx);
    return G;
  }
  bool declares(StringRef Name) const {
    return !Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get(Name)).empty();
  }
  SourceLocation at(FileID FID, size_t Off) const {
    return SM.getLocForStartOfFile(FID).getLocWithOffset(Off);
  }
  void insert(SmallVectorImpl<FixItHint> &Fixes, FileID FID, size_t Off, std::string Text) {
    Fixes.push_back(FixItHint::CreateInsertion(at(FID, Off), Text));
  }
  /// Puts Text where the blanks between B and E are (a directive needs a
  /// line of its own; the blanks would be left trailing).
  void replace(SmallVectorImpl<FixItHint> &Fixes, FileID FID, size_t B, size_t E,
               std::string Text) {
    Fixes.push_back(FixItHint::CreateReplacement(
        CharSourceRange::getCharRange(at(FID, B), at(FID, E)), Text));
  }
  /// Offset just past the ';' that ends S, or none.
  std::optional<unsigned> endOf(const Stmt *S) const {
    SourceLocation E = S->getEndLoc();
    if (!E.isFileID())
      return std::nullopt;
    std::optional<Token> Semi = Lexer::findNextToken(E, SM, Ctx.getLangOpts());
    if (!Semi || !Semi->is(tok::semi) || !Semi->getLocation().isFileID())
      return std::nullopt;
    return SM.getFileOffset(Semi->getLocation()) + 1;
  }

  ASTContext &Ctx;
  SourceManager &SM;
  const arch::TargetInfo &T;
  ArrayRef<ArchSpecificInstructions::CondChain> Chains;
  std::map<std::pair<FileID, unsigned>, std::optional<unsigned>> Flagged;
};

bool GuardFixer::fix(const GCCAsmStmt *S, SmallVectorImpl<FixItHint> &Fixes,
                     SmallVectorImpl<std::pair<SourceLocation, std::string>> &Notes) {
  SourceLocation Begin = S->getBeginLoc();
  if (Begin.isMacroID()) {
    StringRef Macro = Lexer::getImmediateMacroName(Begin, SM, Ctx.getLangOpts());
    Notes.push_back({SourceLocation(),
                     ("no fix-it: the statement is written in macro '" + Macro +
                      "'; guard the macro's definition or its uses by hand")
                         .str()});
    return false;
  }
  auto [FID, Off] = SM.getDecomposedLoc(Begin);
  std::optional<unsigned> Own = guardAt(FID, Off);
  if (!Own)
    return false;
  StringRef Buf = SM.getBufferData(FID);

  // The enclosing function body and the innermost 'if constexpr' whose
  // then-branch holds S and that has an else.
  const Stmt *Cur = S;
  const CompoundStmt *Body = nullptr, *Parent = nullptr;
  const IfStmt *IfC = nullptr;
  while (true) {
    auto Ps = Ctx.getParents(*Cur);
    if (Ps.empty())
      break;
    const Stmt *P = Ps[0].get<Stmt>();
    if (!P || isa<LambdaExpr>(P))
      break;
    if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
      Body = CS;
      if (Cur == S)
        Parent = CS;
    }
    if (const auto *I = dyn_cast<IfStmt>(P))
      if (!IfC && I->isConstexpr() && I->getThen() == Cur && I->getElse() &&
          I->getIfLoc().isFileID() && I->getElseLoc().isFileID() &&
          SM.getFileID(I->getIfLoc()) == FID && SM.getFileID(I->getElseLoc()) == FID)
        IfC = I;
    Cur = P;
  }
  if (!Body || !Body->getLBracLoc().isFileID() || !Body->getRBracLoc().isFileID() ||
      SM.getFileID(Body->getLBracLoc()) != FID)
    return false;
  unsigned BodyB = SM.getFileOffset(Body->getLBracLoc());
  unsigned BodyE = SM.getFileOffset(Body->getRBracLoc());

  // The innermost #if chain in the body with a later branch than the one
  // that holds S: the later branches are the file's portable path.
  const ArchSpecificInstructions::CondChain *Chain = nullptr;
  size_t BranchIdx = 0;
  for (const auto &Ch : Chains) {
    if (Ch.FID != FID || !Ch.Closed || Ch.Branches.size() < 2 ||
        Ch.Branches.front().Offset <= BodyB || Ch.EndOffset >= BodyE)
      continue;
    for (size_t I = 0; I + 1 < Ch.Branches.size(); ++I) {
      const auto &Br = Ch.Branches[I];
      using K = ArchSpecificInstructions::CondBranch::Kind;
      if (Br.Offset < Off && Off < Ch.Branches[I + 1].Offset &&
          (Br.K == K::If || Br.K == K::Elif || Br.K == K::Ifdef || Br.K == K::Ifndef) &&
          (!Chain || Br.Offset > Chain->Branches[BranchIdx].Offset)) {
        Chain = &Ch;
        BranchIdx = I;
      }
    }
  }
  unsigned IfCOff = IfC ? SM.getFileOffset(IfC->getIfLoc()) : 0;
  if (Chain && IfC && IfCOff > Chain->Branches[BranchIdx].Offset)
    Chain = nullptr;

  if (Chain) {
    const auto &Br = Chain->Branches[BranchIdx];
    const auto &Next = Chain->Branches[BranchIdx + 1];
    const Requirement &R = Requirements[guardIn(FID, Br.Offset, Next.Offset, *Own)];
    if (auto Cond = conditionOf(Buf, Br.Offset)) {
      auto [CB, CE] = *Cond;
      StringRef Text = Buf.slice(CB, CE);
      std::string G = operand(R.Guard);
      using K = ArchSpecificInstructions::CondBranch::Kind;
      bool Ok = true;
      if (Br.K == K::Ifdef || Br.K == K::Ifndef) {
        Ok = all_of(Text, isIdentChar);
        std::string New = std::string("if ") + (Br.K == K::Ifndef ? "!" : "") + "defined(" +
                          Text.str() + ") && " + G;
        Fixes.push_back(FixItHint::CreateReplacement(
            CharSourceRange::getCharRange(at(FID, Br.Offset), at(FID, CE)), New));
      } else if (Text.contains("||") || Text.contains('?')) {
        insert(Fixes, FID, CB, "(");
        insert(Fixes, FID, CE, ") && " + G);
      } else {
        insert(Fixes, FID, CE, " && " + G);
      }
      if (Ok) {
        Notes.push_back(
            {Next.Loc, std::string("fix-it: '") + R.Guard + "' is added to the condition, so " +
                           T.Name + " takes this branch (the file's portable path)"});
        return false;
      }
      Fixes.clear();
    }
  }

  if (IfC) {
    const Requirement &R = Requirements[guardIn(
        FID, IfCOff, SM.getFileOffset(IfC->getElseLoc()), *Own)];
    size_t IfOff = IfCOff, ElseEnd = SM.getFileOffset(IfC->getElseLoc()) + 4;
    size_t LS = lineStart(Buf, IfOff);
    std::string Indent = indentOf(Buf, LS);
    if (Buf.slice(LS, IfOff).trim().empty())
      insert(Fixes, FID, LS, std::string("#if ") + R.Guard + "\n");
    else
      replace(Fixes, FID, blanksBefore(Buf, IfOff), IfOff,
              std::string("\n#if ") + R.Guard + "\n" + Indent);
    replace(Fixes, FID, ElseEnd, blanksAfter(Buf, ElseEnd), "\n#endif\n" + Indent);
    Notes.push_back({IfC->getElseLoc(),
                     std::string("fix-it: the 'if constexpr' is compiled only under '") +
                         R.Guard + "', so " + T.Name +
                         " compiles just this else branch (the file's portable path)"});
    return false;
  }

  // No portable path: guard S, with the flagged asm statements next to it
  // in the same block that need the same guard.
  unsigned First = Off;
  std::optional<unsigned> Last = endOf(S);
  if (!Last)
    return false;
  if (Parent) {
    SmallVector<const Stmt *, 8> Kids(Parent->body_begin(), Parent->body_end());
    auto Sameness = [&](const Stmt *K) -> std::optional<std::pair<unsigned, unsigned>> {
      const auto *A = dyn_cast<GCCAsmStmt>(K);
      if (!A || !A->getBeginLoc().isFileID() || SM.getFileID(A->getBeginLoc()) != FID)
        return std::nullopt;
      unsigned B = SM.getFileOffset(A->getBeginLoc());
      if (guardAt(FID, B) != Own)
        return std::nullopt;
      std::optional<unsigned> E = endOf(A);
      if (!E)
        return std::nullopt;
      return std::make_pair(B, *E);
    };
    // No directive may sit between two statements of the group.
    auto DirectiveIn = [&](unsigned B, unsigned E) {
      for (const auto &Ch : Chains)
        if (Ch.FID == FID) {
          for (const auto &Br : Ch.Branches)
            if (Br.Offset > B && Br.Offset < E)
              return true;
          if (Ch.Closed && Ch.EndOffset > B && Ch.EndOffset < E)
            return true;
        }
      return false;
    };
    auto It = find(Kids, static_cast<const Stmt *>(S));
    if (It != Kids.end()) {
      for (auto L = It; L != Kids.begin();) {
        auto R = Sameness(*--L);
        if (!R || DirectiveIn(R->second, First))
          break;
        First = R->first;
      }
      for (auto N = std::next(It); N != Kids.end(); ++N) {
        auto R = Sameness(*N);
        if (!R || DirectiveIn(*Last, R->first))
          break;
        Last = R->second;
      }
    }
  }
  const Requirement &R = Requirements[*Own];
  std::string Fallback = R.Fallback ? R.Fallback : "";
  if (StringRef(Fallback).starts_with("__trap();") && !declares("__trap"))
    Fallback = "asm volatile(\"trap;\");" + Fallback.substr(strlen("__trap();"));
  size_t LS = lineStart(Buf, First);
  std::string Indent = indentOf(Buf, LS);
  bool AtLineStart = Buf.slice(LS, First).trim().empty();
  std::string StmtIndent = AtLineStart ? Indent : Indent + "  ";
  if (AtLineStart)
    insert(Fixes, FID, LS, std::string("#if ") + R.Guard + "\n");
  else
    replace(Fixes, FID, blanksBefore(Buf, First), First,
            std::string("\n#if ") + R.Guard + "\n" + StmtIndent);
  std::string Close = R.Fallback
                          ? "\n#else\n" + StmtIndent + Fallback + "\n#endif"
                          : std::string("\n#endif");
  size_t LE = lineEnd(Buf, *Last);
  StringRef Rest = Buf.slice(*Last, LE).trim();
  if (Rest.empty() || Rest.starts_with("//"))
    insert(Fixes, FID, LE, Close);
  else
    replace(Fixes, FID, *Last, blanksAfter(Buf, *Last), Close + "\n" + Indent);
  std::string What = featureName(R.F);
  if (R.Fallback)
    Notes.push_back({SourceLocation(),
                     std::string("fix-it: guarded with '#if ") + R.Guard +
                         "'; the file has no portable path here, so on " + T.Name +
                         " the '#else' traps instead of running '" + What +
                         "': supply a fallback, or port it to 'tcgen05' for sm_100a"});
  else
    Notes.push_back({SourceLocation(),
                     std::string("fix-it: guarded with '#if ") + R.Guard + "'; on " + T.Name +
                         " it is left out, which is correct: '" + What +
                         "' only redistributes registers among warps"});
  return R.Fallback != nullptr;
}

} // namespace

void ArchSpecificInstructions::finish(PassContext &C) {
  const arch::TargetInfo &T = C.Target;
  GuardFixer Fixer(C.Ctx, T, Chains);
  for (const Pending &P : Found)
    if (P.Asm && requirementOf(P.F).Guard)
      Fixer.flag(P.Asm, indexOf(P.F));
  for (const Pending &P : Found) {
    SmallVector<FixItHint, 4> Fixes;
    SmallVector<std::pair<SourceLocation, std::string>, 2> Notes;
    Notes.push_back({P.Loc, requirementOf(P.F).Remedy});
    bool Traps = P.Asm && requirementOf(P.F).Guard && Fixer.fix(P.Asm, Fixes, Notes);
    for (auto &N : Notes)
      if (N.first.isInvalid())
        N.first = P.Loc;
    if (!Traps) {
      C.Diag.report(name(), Severity::Error, P.Loc, P.Message, Fixes, Notes);
      continue;
    }
    // The guard lets the file build, but the code still does not run on
    // the target (the '#else' traps): the error stays, and the guard is a
    // warning's fix, so a build step that ports the file still stops.
    auto GuardNote = Notes.pop_back_val();
    C.Diag.report(name(), Severity::Error, P.Loc, P.Message, {}, Notes);
    C.Diag.report(name(), Severity::Warning, P.Loc,
                  std::string("'") + featureName(P.F) + "' guarded so that the file builds for " + T.Name +
                      ", where it traps",
                  Fixes, {GuardNote});
  }
  Found.clear();

  // Clang drops a __cluster_dims__ it rejects for the target, and CUDA's
  // headers declare this_cluster() only for sm_90 and later: both show up
  // as parse errors rather than as AST nodes.
  if (T.hasFeature(Feature::Clusters))
    return;
  SourceManager &SM = C.Ctx.getSourceManager();
  for (const ParseError &E : C.ParseErrors) {
    if (!frontend::isUserLocation(SM, E.Loc))
      continue;
    StringRef What;
    if (E.ID == diag::err_cluster_attr_not_supported)
      What = "__cluster_dims__";
    else if (StringRef(E.Message).contains("'this_cluster'"))
      What = "cooperative_groups::this_cluster";
    else
      continue;
    C.Diag.report(name(), Severity::Error, E.Loc, message(What, T, Feature::Clusters), {},
                  {{E.Loc, requirementOf(Feature::Clusters).Remedy}});
  }
}

} // namespace forge::passes
