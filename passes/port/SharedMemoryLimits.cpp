//===- SharedMemoryLimits.cpp - shared-memory-limits ----------------------===//
#include "SharedMemoryLimits.h"
#include "../PortPass.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/KernelFacts.h"
#include "forge/Frontend/Matchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::passes {

namespace {

/// The function a kernel argument names, through parentheses, casts and '&'.
const DeclRefExpr *kernelRef(const Expr *E) {
  while (E) {
    E = E->IgnoreParenCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf) {
      E = U->getSubExpr();
      continue;
    }
    break;
  }
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E);
  return DRE && isa<FunctionDecl>(DRE->getDecl()) ? DRE : nullptr;
}

const FunctionDecl *kernelOf(const Expr *E) {
  const DeclRefExpr *DRE = kernelRef(E);
  return DRE ? cast<FunctionDecl>(DRE->getDecl()) : nullptr;
}

std::string displayName(const FunctionDecl &FD, const ASTContext &Ctx) {
  std::string S;
  raw_string_ostream OS(S);
  FD.getNameForDiagnostic(OS, Ctx.getPrintingPolicy(), /*Qualified=*/false);
  return S;
}

/// The source text of E as written in the file, or "" when E is not a
/// contiguous file range (part of a macro expansion, say).
std::string fileText(const Expr &E, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E.getSourceRange()), SM, Ctx.getLangOpts());
  if (R.isInvalid())
    return "";
  return Lexer::getSourceText(R, SM, Ctx.getLangOpts()).str();
}

std::optional<uint64_t> constantBytes(const Expr &E, const ASTContext &Ctx) {
  if (E.isValueDependent() || E.containsErrors())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E.EvaluateAsInt(R, Ctx) || R.Val.getInt().isNegative() ||
      R.Val.getInt().getActiveBits() > 63)
    return std::nullopt;
  return R.Val.getInt().getZExtValue();
}

/// The statement of a compound statement that holds Launch, when a call
/// inserted before it runs before the launch in every case: only
/// expressions, declarations, returns and if-conditions lie in between.
const Stmt *enclosingStatement(const Expr &Launch, ASTContext &Ctx) {
  DynTypedNode N = DynTypedNode::create(Launch);
  for (;;) {
    DynTypedNodeList Ps = Ctx.getParents(N);
    if (Ps.size() != 1)
      return nullptr;
    const DynTypedNode &P = Ps[0];
    if (P.get<CompoundStmt>())
      return N.get<Stmt>();
    if (const Stmt *PS = P.get<Stmt>()) {
      if (const auto *If = dyn_cast<IfStmt>(PS)) {
        if (If->getInit() || If->getConditionVariable() || N.get<Expr>() != If->getCond())
          return nullptr;
      } else if (!isa<Expr>(PS) && !isa<DeclStmt>(PS) && !isa<ReturnStmt>(PS)) {
        return nullptr;
      }
    } else if (!P.get<VarDecl>()) {
      return nullptr;
    }
    N = P;
  }
}

/// The amount set in a cudaLaunchConfig_t before a cudaLaunchKernelEx: the
/// last `cfg.dynamicSmemBytes = E` before the launch in the same function,
/// else the variable's initializer.
const Expr *configBytes(const Expr *CfgArg, const FunctionDecl *Fn, const Expr &Launch,
                        ASTContext &Ctx) {
  CfgArg = CfgArg->IgnoreParenCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(CfgArg); U && U->getOpcode() == UO_AddrOf)
    CfgArg = U->getSubExpr()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(CfgArg);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !Fn || !Fn->getBody())
    return nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  const Expr *Found = nullptr;
  auto Assigns = match(
      findAll(binaryOperator(isAssignmentOperator(),
                             hasLHS(memberExpr(member(hasName("dynamicSmemBytes")),
                                               hasObjectExpression(ignoringParenImpCasts(
                                                   declRefExpr(to(varDecl(equalsNode(V)))))))))
                  .bind("set")),
      *Fn->getBody(), Ctx);
  for (const BoundNodes &B : Assigns) {
    const auto *Set = B.getNodeAs<BinaryOperator>("set");
    if (SM.isBeforeInTranslationUnit(Set->getBeginLoc(), Launch.getBeginLoc()) &&
        (!Found || SM.isBeforeInTranslationUnit(Found->getBeginLoc(), Set->getBeginLoc())))
      Found = Set->getRHS();
  }
  if (Found)
    return Found;
  const auto *ILE = dyn_cast_or_null<InitListExpr>(V->getInit() ? V->getInit()->IgnoreImplicit()
                                                                 : nullptr);
  const RecordDecl *RD = V->getType()->getAsRecordDecl();
  if (!ILE || !RD)
    return nullptr;
  if (ILE->isSyntacticForm() && ILE->getSemanticForm())
    ILE = ILE->getSemanticForm();
  unsigned I = 0;
  for (const FieldDecl *F : RD->fields()) {
    if (F->getName() == "dynamicSmemBytes")
      return I < ILE->getNumInits() ? ILE->getInit(I) : nullptr;
    ++I;
  }
  return nullptr;
}

/// Whether Fn calls cudaFuncSetAttribute(Kernel, MaxDynamicSharedMemorySize,
/// ...) before Launch.
bool raisesLimitBefore(const FunctionDecl *Fn, const FunctionDecl &Kernel, const Expr &Launch,
                       ASTContext &Ctx) {
  if (!Fn || !Fn->getBody())
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  auto Calls = match(
      findAll(callExpr(callee(functionDecl(hasName("cudaFuncSetAttribute")))).bind("set")),
      *Fn->getBody(), Ctx);
  for (const BoundNodes &B : Calls) {
    const auto *Set = B.getNodeAs<CallExpr>("set");
    if (Set->getNumArgs() < 2 ||
        !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Set->getBeginLoc()),
                                      SM.getExpansionLoc(Launch.getBeginLoc())))
      continue;
    const FunctionDecl *K = kernelOf(Set->getArg(0));
    if (!K || K->getCanonicalDecl() != Kernel.getCanonicalDecl())
      continue;
    if (const auto *A = dyn_cast<DeclRefExpr>(Set->getArg(1)->IgnoreParenCasts()))
      if (isa<EnumConstantDecl>(A->getDecl()) &&
          A->getDecl()->getName() != "cudaFuncAttributeMaxDynamicSharedMemorySize")
        continue;
    return true;
  }
  return false;
}

} // namespace

void SharedMemoryLimits::registerMatchers(MatchFinder &Finder) {
  Finder.addMatcher(functionDecl(isDefinition(), frontend::matchers::kernelDecl()), this);
  Finder.addMatcher(frontend::matchers::chevronLaunch(), this);
  Finder.addMatcher(frontend::matchers::runtimeLaunch(), this);
}

void SharedMemoryLimits::check(const MatchFinder::MatchResult &R, PassContext &C) {
  if (const auto *K = R.Nodes.getNodeAs<FunctionDecl>("kernel")) {
    if (C.S == frontend::Side::Device)
      checkStaticShared(*K, C);
    return;
  }
  if (C.S != frontend::Side::Host)
    return;
  const auto *Fn = R.Nodes.getNodeAs<FunctionDecl>("fn");
  // A device-side launch cannot raise the limit; leave it alone.
  if (Fn && (Fn->hasAttr<CUDAGlobalAttr>() ||
             (Fn->hasAttr<CUDADeviceAttr>() && !Fn->hasAttr<CUDAHostAttr>())))
    return;
  if (const auto *K = R.Nodes.getNodeAs<CUDAKernelCallExpr>("launch")) {
    const CallExpr *Config = K->getConfig();
    if (!Config || Config->getNumArgs() < 3 || isa<CXXDefaultArgExpr>(Config->getArg(2)))
      return;
    checkLaunch(*K, *K->getCallee(), *Config->getArg(2), Fn, C);
    return;
  }
  const auto *Call = R.Nodes.getNodeAs<CallExpr>("launch");
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getIdentifier())
    return;
  StringRef N = Callee->getName();
  if (N == "cudaLaunchKernel" || N == "cudaLaunchCooperativeKernel") {
    if (Call->getNumArgs() < 5 || isa<CXXDefaultArgExpr>(Call->getArg(4)))
      return;
    checkLaunch(*Call, *Call->getArg(0), *Call->getArg(4), Fn, C);
  } else if (N == "cudaLaunchKernelEx" || N == "cudaLaunchKernelExC") {
    if (Call->getNumArgs() < 2)
      return;
    if (const Expr *Bytes = configBytes(Call->getArg(0), Fn, *Call, C.Ctx))
      checkLaunch(*Call, *Call->getArg(1), *Bytes, Fn, C);
  }
}

void SharedMemoryLimits::checkStaticShared(const FunctionDecl &Kernel, PassContext &C) {
  // Template patterns have no sizes; each instantiation is checked instead.
  if (Kernel.isDependentContext() || !Kernel.getBody())
    return;
  const SourceManager &SM = C.Ctx.getSourceManager();
  if (!frontend::isUserLocation(SM, Kernel.getLocation()))
    return;
  uint64_t Total = 0, Largest = 0;
  const VarDecl *LargestVar = nullptr;
  for (const frontend::SharedVariable &V : frontend::staticSharedVariables(Kernel, C.Ctx)) {
    Total += V.Bytes;
    if (V.Bytes > Largest) {
      Largest = V.Bytes;
      LargestVar = V.Var;
    }
  }
  const arch::SmLimits &L = C.Target.limits();
  if (Total <= static_cast<uint64_t>(L.StaticSharedMemPerBlock))
    return;
  std::string Name = displayName(Kernel, C.Ctx);
  std::string Msg = ("kernel '" + Name + "' declares " + Twine(Total) +
                     " bytes of static shared memory, above the " +
                     Twine(L.StaticSharedMemPerBlock) + "-byte limit per block on " +
                     C.Target.Name +
                     "; allocate it as dynamic shared memory (extern __shared__) and raise "
                     "cudaFuncAttributeMaxDynamicSharedMemorySize")
                        .str();
  std::vector<std::pair<SourceLocation, std::string>> Notes;
  if (LargestVar)
    Notes.push_back({LargestVar->getLocation(), ("largest __shared__ variable '" +
                                                 LargestVar->getName() + "' takes " +
                                                 Twine(Largest) + " bytes")
                                                    .str()});
  if (Kernel.isTemplateInstantiation() && Kernel.getPointOfInstantiation().isValid())
    Notes.push_back({Kernel.getPointOfInstantiation(), "'" + Name + "' instantiated here"});
  C.Diag.report(name(), Severity::Error, Kernel.getLocation(), Msg, {}, Notes);
}

void SharedMemoryLimits::checkLaunch(const Expr &Launch, const Expr &KernelArg,
                                     const Expr &Bytes, const FunctionDecl *Fn,
                                     PassContext &C) {
  if (Launch.isInstantiationDependent())
    return;
  ASTContext &Ctx = C.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = Launch.getBeginLoc();
  if (!frontend::isUserLocation(SM, Loc))
    return;
  const DeclRefExpr *Ref = kernelRef(&KernelArg);
  std::optional<uint64_t> Amount = constantBytes(Bytes, Ctx);
  if (!Ref || !Amount)
    return;
  const auto &Kernel = *cast<FunctionDecl>(Ref->getDecl());
  const arch::SmLimits &L = C.Target.limits();
  if (*Amount <= static_cast<uint64_t>(L.StaticSharedMemPerBlock))
    return;

  std::string KernelText = fileText(*Ref, Ctx);
  std::string ShownName = KernelText.empty() ? displayName(Kernel, Ctx) : KernelText;
  std::string Head = ("launch of '" + ShownName + "' requests " + Twine(*Amount) +
                      " bytes of dynamic shared memory")
                         .str();
  if (*Amount > static_cast<uint64_t>(L.OptInSharedMemPerBlock)) {
    C.Diag.report(name(), Severity::Error, Loc,
                  Head + ", which exceeds the " + std::to_string(L.OptInSharedMemPerBlock) +
                      "-byte maximum per block on " + C.Target.Name +
                      "; reduce the amount or split the work across more blocks");
    return;
  }
  if (raisesLimitBefore(Fn, Kernel, Launch, Ctx))
    return;

  std::string Msg = (Head + ", above the " + Twine(L.StaticSharedMemPerBlock) +
                     "-byte default; call cudaFuncSetAttribute(" + ShownName +
                     ", cudaFuncAttributeMaxDynamicSharedMemorySize, " + Twine(*Amount) +
                     ") first")
                        .str();
  auto Unfixed = [&](StringRef Why) {
    C.Diag.report(name(), Severity::Warning, Loc, Msg, {}, {{Loc, ("not fixed: " + Why).str()}});
  };
  if (Loc.isMacroID() || Launch.getEndLoc().isMacroID())
    return Unfixed("the launch is written inside a macro");
  const Stmt *S = enclosingStatement(Launch, Ctx);
  if (!S || S->getBeginLoc().isMacroID())
    return Unfixed("the launch is not a statement of a braced block; add the call by hand");
  std::string BytesText = fileText(Bytes, Ctx);
  if (KernelText.empty() || BytesText.empty())
    return Unfixed("the kernel or the amount is spelled inside a macro");

  // Same indentation, own line, when the statement starts its line.
  SourceLocation Begin = S->getBeginLoc();
  auto [FID, Offset] = SM.getDecomposedLoc(Begin);
  StringRef Buffer = SM.getBufferData(FID);
  size_t LineStart = Buffer.rfind('\n', Offset ? Offset - 1 : 0);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  if (Offset == 0)
    LineStart = 0;
  StringRef Before = Buffer.slice(LineStart, Offset);
  std::string Call = "cudaFuncSetAttribute(" + KernelText +
                     ", cudaFuncAttributeMaxDynamicSharedMemorySize, " + BytesText + ");";
  std::string Insert = Before.find_first_not_of(" \t") == StringRef::npos
                           ? Call + "\n" + Before.str()
                           : Call + " ";
  C.Diag.report(name(), Severity::Warning, Loc, Msg, {FixItHint::CreateInsertion(Begin, Insert)});
}

} // namespace forge::passes
