//===- Cuda13RemovedApi.cpp - cuda13-removed-api --------------------------===//
#include "Cuda13RemovedApi.h"
#include "../PortPass.h"
#include "forge/Frontend/CudaParser.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Regex.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::passes {

/// Runtime functions removed in CUDA 13 whose replacement takes the same
/// arguments and does the same (the CUDA 4.0 renames of the per-thread
/// context calls to per-device ones): a use is renamed. CUDA 13's headers
/// do not declare them, so a use is the parse error "use of undeclared
/// identifier", often with Clang's own guess at the replacement.
struct RenameMapping {
  const char *Name;
  const char *Replacement;
  const char *DeprecatedIn;
  const char *RemovedIn;
};
/// Functions whose device-number argument became a cudaMemLocation in CUDA
/// 13; cudaMemPrefetchAsync also gained a flags argument after it.
struct LocationMapping {
  const char *Name;
  unsigned DeviceArg;   ///< index of the old int device argument
  unsigned MinArgs;     ///< the CUDA 12 form's argument counts
  unsigned MaxArgs;
  bool AddsFlags;       ///< ', 0' (flags) goes after the location
  const char *OldForm;
  const char *RemovedIn;
};
namespace {
/// cudaDeviceProp fields removed in CUDA 13 and the attribute that replaces
/// each of them.
struct FieldMapping {
  const char *Field;
  const char *Attribute;
  const char *RemovedIn;
};
const FieldMapping FieldTable[] = {
    {"clockRate", "cudaDevAttrClockRate", "13"},
    {"memoryClockRate", "cudaDevAttrMemoryClockRate", "13"},
    {"deviceOverlap", "cudaDevAttrGpuOverlap", "13"},
    {"kernelExecTimeoutEnabled", "cudaDevAttrKernelExecTimeout", "13"},
    {"computeMode", "cudaDevAttrComputeMode", "13"},
};

const RenameMapping RenameTable[] = {
    {"cudaThreadSynchronize", "cudaDeviceSynchronize", "4.0", "13"},
    {"cudaThreadExit", "cudaDeviceReset", "4.0", "13"},
    {"cudaThreadSetLimit", "cudaDeviceSetLimit", "4.0", "13"},
    {"cudaThreadGetLimit", "cudaDeviceGetLimit", "4.0", "13"},
    {"cudaThreadSetCacheConfig", "cudaDeviceSetCacheConfig", "4.0", "13"},
    {"cudaThreadGetCacheConfig", "cudaDeviceGetCacheConfig", "4.0", "13"},
};

const LocationMapping LocationTable[] = {
    {"cudaMemAdvise", 3, 4, 4, false, "(ptr, count, advice, device)", "13"},
    {"cudaMemPrefetchAsync", 2, 3, 4, true, "(ptr, count, device[, stream])", "13"},
};

/// Vector types deprecated in CUDA 13. The _16a form has the old type's size
/// and 16-byte alignment, so renaming to it changes no layout.
struct VectorMapping {
  const char *Name;
  const char *Aligned16;
  const char *Aligned32;
  const char *DeprecatedIn;
};
const VectorMapping VectorTable[] = {
    {"double4", "double4_16a", "double4_32a", "13"},
    {"long4", "long4_16a", "long4_32a", "13"},
    {"ulong4", "ulong4_16a", "ulong4_32a", "13"},
    {"longlong4", "longlong4_16a", "longlong4_32a", "13"},
    {"ulonglong4", "ulonglong4_16a", "ulonglong4_32a", "13"},
};

/// Templates removed in CUDA 13 (texture and surface references); with CUDA
/// 13 headers a use is the parse error "no template named '<Name>'".
struct TemplateMapping {
  const char *Name;
  const char *Message;
};
const TemplateMapping TemplateTable[] = {
    {"texture", "texture references were removed in CUDA 13; use texture objects "
                "(cudaTextureObject_t, created with cudaCreateTextureObject)"},
    {"surface", "surface references were removed in CUDA 13; use surface objects "
                "(cudaSurfaceObject_t, created with cudaCreateSurfaceObject)"},
};

const FieldMapping *lookupField(StringRef Name) {
  for (const FieldMapping &M : FieldTable)
    if (Name == M.Field)
      return &M;
  return nullptr;
}

const RenameMapping *lookupRename(StringRef Name) {
  for (const RenameMapping &M : RenameTable)
    if (Name == M.Name)
      return &M;
  return nullptr;
}

const LocationMapping *lookupLocation(StringRef Name) {
  for (const LocationMapping &M : LocationTable)
    if (Name == M.Name)
      return &M;
  return nullptr;
}

std::string renameMessage(const RenameMapping &M) {
  return ("'" + Twine(M.Name) + "' was removed in CUDA " + M.RemovedIn +
          " (deprecated since CUDA " + M.DeprecatedIn + "); use '" + M.Replacement +
          "', which does the same")
      .str();
}

std::string locationMessage(const LocationMapping &M) {
  return ("'" + Twine(M.Name) + "' takes a cudaMemLocation instead of a device number since CUDA " +
          M.RemovedIn + (M.AddsFlags ? ", and a flags argument after it" : "") +
          "; pass cudaMemLocation{cudaMemLocationTypeDevice, device} "
          "(cudaMemLocationTypeHost for cudaCpuDeviceId)")
      .str();
}

/// Clang's errors for a use of a renamed function and for a call of a
/// LocationTable function in its CUDA 12 form.
const Regex &undeclaredRegex() {
  static const Regex R("^use of undeclared identifier '([A-Za-z_0-9]+)'");
  return R;
}
const Regex &noMemberRegex() {
  static const Regex R("^no member named '([A-Za-z_0-9]+)' in '(struct )?cudaDeviceProp'");
  return R;
}
const Regex &noMatchingCallRegex() {
  static const Regex R("^no matching function for call to '([A-Za-z_0-9]+)'");
  return R;
}

const VectorMapping *lookupVector(StringRef Name) {
  for (const VectorMapping &M : VectorTable)
    if (Name == M.Name)
      return &M;
  return nullptr;
}

std::string fieldMessage(const FieldMapping &M) {
  return ("'cudaDeviceProp::" + Twine(M.Field) + "' was removed in CUDA " + M.RemovedIn +
          "; use cudaDeviceGetAttribute(&value, " + M.Attribute + ", device)")
      .str();
}

/// The cudaDeviceProp record behind E (an object or a pointer to one).
bool isDeviceProp(const Expr &E) {
  QualType T = E.IgnoreParenImpCasts()->getType();
  if (T.isNull())
    return false;
  if (const auto *PT = T->getAs<PointerType>())
    T = PT->getPointeeType();
  const auto *RD = T->getAsRecordDecl();
  return RD && RD->getName() == "cudaDeviceProp";
}

const VarDecl *referencedVar(const Expr *E) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

bool refersTo(const Expr *E, const VarDecl *V) { return E && referencedVar(E) == V; }

/// The nearest parent of E that is not a parenthesis or an implicit cast.
DynTypedNode semanticParent(ASTContext &Ctx, const Expr &E, const Expr *&Child) {
  DynTypedNode N = DynTypedNode::create(E);
  Child = &E;
  while (true) {
    auto Parents = Ctx.getParents(N);
    if (Parents.empty())
      return DynTypedNode();
    N = Parents[0];
    const auto *PE = N.get<Expr>();
    if (PE && (isa<ParenExpr>(PE) || isa<ImplicitCastExpr>(PE))) {
      Child = PE;
      continue;
    }
    return N;
  }
}

/// Why the value of the field cannot be replaced by a prvalue: it is
/// written, its address is taken, or a non-const reference binds to it.
std::optional<std::string> usedAsLValue(ASTContext &Ctx, const Expr &Use) {
  const Expr *Child = nullptr;
  DynTypedNode P = semanticParent(Ctx, Use, Child);
  if (const auto *UO = P.get<UnaryOperator>())
    if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
      return std::string("the field is modified or its address is taken");
  if (const auto *BO = P.get<BinaryOperator>())
    if (BO->isAssignmentOp() && BO->getLHS() == Child)
      return std::string("the field is assigned to");
  if (const auto *VD = P.get<VarDecl>())
    if (VD->getType()->isReferenceType() &&
        !VD->getType().getNonReferenceType().isConstQualified())
      return std::string("a non-const reference binds to the field");
  return std::nullopt;
}

bool contains(const SourceManager &SM, SourceRange Outer, SourceLocation L) {
  return !SM.isBeforeInTranslationUnit(L, Outer.getBegin()) &&
         !SM.isBeforeInTranslationUnit(Outer.getEnd(), L);
}

/// The innermost loop around S within Fn, if any.
const Stmt *enclosingLoop(ASTContext &Ctx, const Stmt &S) {
  DynTypedNode N = DynTypedNode::create(S);
  while (true) {
    auto Parents = Ctx.getParents(N);
    if (Parents.empty())
      return nullptr;
    N = Parents[0];
    if (N.get<Decl>() && isa<FunctionDecl>(N.get<Decl>()))
      return nullptr;
    if (const auto *St = N.get<Stmt>()) {
      // `do { ... } while (0)`, as statement-like macros are written, runs once.
      if (const auto *Do = dyn_cast<DoStmt>(St)) {
        bool Cond = true;
        if (!Do->getCond()->isValueDependent() &&
            Do->getCond()->EvaluateAsBooleanCondition(Cond, Ctx) && !Cond)
          continue;
      }
      if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(St))
        return St;
    }
  }
}

/// Whether the device argument Dev of Call still holds, at Use, the value
/// that Call saw. Returns the reason when it may not.
std::optional<std::string> deviceStable(ASTContext &Ctx, const FunctionDecl &Fn,
                                        const CallExpr &Call, const Expr &Dev,
                                        const Expr &Use) {
  const SourceManager &SM = Ctx.getSourceManager();
  const Expr *D = Dev.IgnoreParenImpCasts();
  if (isa<IntegerLiteral>(D))
    return std::nullopt;
  const auto *DRE = dyn_cast<DeclRefExpr>(D);
  if (DRE && isa<EnumConstantDecl>(DRE->getDecl()))
    return std::nullopt;
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  std::string Unknown = "the device argument of cudaGetDeviceProperties is not a "
                        "constant or a local variable";
  if (!V || V->getType()->isReferenceType())
    return Unknown;
  if (V->hasGlobalStorage())
    return V->getType().isConstQualified() ? std::nullopt : std::optional(Unknown);
  // A local: it must be in scope at Use, and not written after Call.
  if (!isa<ParmVarDecl>(V)) {
    // Its scope: the block of its declaration, or the for/if/while/switch
    // whose init or condition declares it (`for (int d = 0; ...)`).
    auto Parents = Ctx.getParents(*V);
    const Stmt *Scope = nullptr;
    if (!Parents.empty()) {
      if (const auto *DS = Parents[0].get<DeclStmt>()) {
        auto PP = Ctx.getParents(*DS);
        if (!PP.empty())
          Scope = PP[0].get<Stmt>();
      } else {
        Scope = Parents[0].get<Stmt>();
      }
    }
    if (Scope && !isa<CompoundStmt, ForStmt, IfStmt, WhileStmt, SwitchStmt, CXXForRangeStmt>(Scope))
      Scope = nullptr;
    if (!Scope || !contains(SM, Scope->getSourceRange(), Use.getBeginLoc()))
      return "'" + V->getName().str() + "' is not in scope at this use";
  }
  auto ToV = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(V)))));
  auto Writes = match(
      findAll(expr(anyOf(binaryOperator(isAssignmentOperator(), hasLHS(ToV)),
                         unaryOperator(hasAnyOperatorName("++", "--", "&"),
                                       hasUnaryOperand(ToV))))
                  .bind("w")),
      *Fn.getBody(), Ctx);
  for (const auto &W : Writes)
    if (SM.isBeforeInTranslationUnit(Call.getBeginLoc(), W.getNodeAs<Expr>("w")->getBeginLoc()))
      return "'" + V->getName().str() + "' may change after cudaGetDeviceProperties";
  if (const Stmt *Loop = enclosingLoop(Ctx, Call))
    if (!contains(SM, Loop->getSourceRange(), Use.getBeginLoc()))
      return std::string("cudaGetDeviceProperties is called in a loop that does not "
                         "contain this use");
  return std::nullopt;
}
} // namespace

/// ASTMatchers has no matcher for RecoveryExpr.
const internal::VariadicDynCastAllOfMatcher<Stmt, RecoveryExpr> recoveryExpr;

void Cuda13RemovedApi::registerMatchers(MatchFinder &Finder) {
  auto Fn = optionally(hasAncestor(functionDecl(hasBody(stmt())).bind("fn")));
  // CUDA 13 headers: the member does not exist; the base survives in a
  // RecoveryExpr whose range ends at the member name.
  Finder.addMatcher(recoveryExpr(Fn).bind("rec"), this);
  // Older headers: an ordinary member access.
  std::vector<StringRef> Fields, Renamed;
  for (const FieldMapping &M : FieldTable)
    Fields.push_back(M.Field);
  for (const RenameMapping &M : RenameTable)
    Renamed.push_back(M.Name);
  Finder.addMatcher(
      memberExpr(member(fieldDecl(hasAnyName(Fields),
                                  hasParent(recordDecl(hasName("cudaDeviceProp"))))),
                 Fn)
          .bind("member"),
      this);
  // Headers that still declare the renamed functions (CUDA 12 and older).
  Finder.addMatcher(declRefExpr(to(functionDecl(hasAnyName(Renamed)))).bind("renamed"), this);
  Finder.addMatcher(
      typeLoc(loc(qualType(hasDeclaration(namedDecl(
                  hasAnyName("double4", "long4", "ulong4", "longlong4", "ulonglong4"))))))
          .bind("tl"),
      this);
}

void Cuda13RemovedApi::check(const MatchFinder::MatchResult &R, PassContext &C) {
  SourceManager &SM = *R.SourceManager;
  const auto *Fn = R.Nodes.getNodeAs<FunctionDecl>("fn");
  if (const auto *TL = R.Nodes.getNodeAs<TypeLoc>("tl")) {
    checkVectorType(*TL, C);
    return;
  }
  if (C.S != frontend::Side::Host)
    return;
  if (const auto *ME = R.Nodes.getNodeAs<MemberExpr>("member")) {
    checkField(*ME, *ME->getBase(), ME->getMemberLoc(), ME->getMemberDecl()->getName(), Fn,
               Severity::Warning, C);
    return;
  }
  if (const auto *DRE = R.Nodes.getNodeAs<DeclRefExpr>("renamed")) {
    if (const RenameMapping *M = lookupRename(DRE->getDecl()->getName()))
      checkRename(*M, DRE->getLocation(), C);
    return;
  }
  const auto *RE = R.Nodes.getNodeAs<RecoveryExpr>("rec");
  if (!RE || RE->subExpressions().empty() || !RE->subExpressions()[0])
    return;
  // A call whose overload resolution failed: the callee, then the arguments.
  if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(RE->subExpressions()[0])) {
    if (const LocationMapping *M = lookupLocation(ULE->getName().getAsString()))
      checkLocationCall(*M, *RE, C);
    return;
  }
  if (RE->subExpressions().size() != 1)
    return;
  const Expr &Base = *RE->subExpressions()[0];
  if (!isDeviceProp(Base))
    return;
  SourceLocation NameLoc = RE->getEndLoc();
  if (NameLoc.isInvalid())
    return;
  StringRef Name = Lexer::getSourceText(CharSourceRange::getTokenRange(SM.getSpellingLoc(NameLoc)),
                                        SM, C.Ctx.getLangOpts());
  checkField(*RE, Base, NameLoc, Name, Fn, Severity::Error, C);
}

void Cuda13RemovedApi::checkField(const Expr &Use, const Expr &Base, SourceLocation NameLoc,
                                  StringRef Field, const FunctionDecl *Fn, Severity Level,
                                  PassContext &C) {
  const FieldMapping *M = lookupField(Field);
  SourceManager &SM = C.Ctx.getSourceManager();
  if (!M || !frontend::isUserLocation(SM, NameLoc))
    return;
  FieldSeen.insert(NameLoc);
  std::string Msg = fieldMessage(*M);
  auto NoFix = [&](const Twine &Why) {
    C.Diag.report(name(), Level, NameLoc, Msg, {}, {{NameLoc, ("not rewritten: " + Why).str()}});
  };

  // A use in a macro's argument (CUDA_SAFE_CALL(...)) is rewritten where it
  // is written; one in a macro's body is not.
  SourceRange Written = Use.getSourceRange();
  CharSourceRange UseRange = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Written), SM, C.Ctx.getLangOpts());
  if (UseRange.isInvalid() || SM.isMacroBodyExpansion(Written.getBegin()) ||
      SM.isMacroBodyExpansion(Written.getEnd()))
    return NoFix("the expression is written inside a macro");
  SourceRange Range = UseRange.getAsRange();
  const VarDecl *Prop = referencedVar(&Base);
  if (!Prop)
    return NoFix("the cudaDeviceProp is not a named variable, so the device it describes is "
                 "not known; query the attribute by hand");
  if (auto Why = usedAsLValue(C.Ctx, Use))
    return NoFix(*Why + "; cudaDeviceGetAttribute yields a value");
  std::string NotFilled = ("no cudaGetDeviceProperties(" +
                           Twine(Prop->getType()->isPointerType() ? "" : "&") +
                           Prop->getName() + ", device) call before this use in the same "
                           "function says which device '" + Prop->getName() +
                           "' describes; pass that device to cudaDeviceGetAttribute by hand")
                              .str();
  if (!Fn || !Fn->getBody())
    return NoFix(NotFilled);

  // The calls that filled Prop earlier in this function.
  bool IsPtr = Prop->getType()->isPointerType();
  const CallExpr *Filler = nullptr;
  std::string DevText;
  auto Calls = match(findAll(callExpr(callee(functionDecl(hasName("cudaGetDeviceProperties"))),
                                      argumentCountIs(2))
                                 .bind("gdp")),
                     *Fn->getBody(), C.Ctx);
  for (const auto &N : Calls) {
    const auto *Call = N.getNodeAs<CallExpr>("gdp");
    const Expr *Arg0 = Call->getArg(0)->IgnoreParenImpCasts();
    bool Fills = false;
    if (IsPtr)
      Fills = refersTo(Arg0, Prop);
    else if (const auto *UO = dyn_cast<UnaryOperator>(Arg0))
      Fills = UO->getOpcode() == UO_AddrOf && refersTo(UO->getSubExpr(), Prop);
    if (!Fills ||
        !SM.isBeforeInTranslationUnit(SM.getFileLoc(Call->getBeginLoc()), Range.getBegin()))
      continue;
    const Expr *Dev = Call->getArg(1);
    CharSourceRange DR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Dev->getSourceRange()), SM, C.Ctx.getLangOpts());
    if (DR.isInvalid())
      return NoFix("the device argument of cudaGetDeviceProperties is written in a macro");
    std::string Text = Lexer::getSourceText(DR, SM, C.Ctx.getLangOpts()).str();
    if (Filler && Text != DevText)
      return NoFix("'" + Prop->getName() + "' is filled for more than one device");
    Filler = Call;
    DevText = Text;
  }
  if (!Filler || DevText.empty())
    return NoFix(NotFilled);
  if (auto Why = deviceStable(C.Ctx, *Fn, *Filler, *Filler->getArg(1), Use))
    return NoFix(*Why);

  std::string Replacement = ("[&] { int v_ = 0; cudaDeviceGetAttribute(&v_, " +
                             Twine(M->Attribute) + ", " + DevText + "); return v_; }()")
                                .str();
  C.Diag.report(name(), Level, NameLoc, Msg, {FixItHint::CreateReplacement(UseRange, Replacement)});
}

void Cuda13RemovedApi::checkRename(const RenameMapping &M, SourceLocation Loc, PassContext &C) {
  SourceManager &SM = C.Ctx.getSourceManager();
  // The name as written: in a macro's argument or body it is renamed where
  // it is spelled, which renames every expansion.
  SourceLocation Spelled = SM.getSpellingLoc(Loc);
  if (!frontend::isUserLocation(SM, Spelled) || !RenameSeen.insert(Spelled).second)
    return;
  StringRef Text = Lexer::getSourceText(CharSourceRange::getTokenRange(Spelled), SM,
                                        C.Ctx.getLangOpts());
  std::string Msg = renameMessage(M);
  if (Text != M.Name) {
    C.Diag.report(name(), Severity::Error, Spelled, Msg, {},
                  {{Spelled, "not rewritten: the name is formed by the preprocessor"}});
    return;
  }
  C.Diag.report(name(), Severity::Error, Spelled, Msg,
                {FixItHint::CreateReplacement(CharSourceRange::getTokenRange(Spelled),
                                              M.Replacement)});
}

void Cuda13RemovedApi::checkLocationCall(const LocationMapping &M, const RecoveryExpr &Call,
                                         PassContext &C) {
  SourceManager &SM = C.Ctx.getSourceManager();
  const LangOptions &LO = C.Ctx.getLangOpts();
  SourceLocation Loc = SM.getFileLoc(Call.getBeginLoc());
  if (!frontend::isUserLocation(SM, Loc) || !LocationSeen.insert(Loc).second)
    return;
  std::string Msg = locationMessage(M);
  auto NoFix = [&](const Twine &Why) {
    C.Diag.report(name(), Severity::Error, Loc, Msg, {}, {{Loc, ("not rewritten: " + Why).str()}});
  };
  ArrayRef<const Expr *> Args = Call.subExpressions().drop_front();
  if (Args.size() < M.MinArgs || Args.size() > M.MaxArgs || !Args[M.DeviceArg] ||
      !Args[M.DeviceArg]->getType()->isIntegralOrUnscopedEnumerationType())
    return NoFix(("the call has neither the CUDA 12 form " + Twine(M.OldForm) +
                  " nor CUDA 13's; see its declaration in cuda_runtime_api.h")
                     .str());
  const Expr *Dev = Args[M.DeviceArg];
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Dev->getSourceRange()), SM, LO);
  if (Range.isInvalid() || !frontend::isUserLocation(SM, Range.getBegin()))
    return NoFix("the device argument is written inside a macro");
  std::string Text = Lexer::getSourceText(Range, SM, LO).str();
  std::string Location;
  Expr::EvalResult V;
  if (!Dev->isValueDependent() && Dev->EvaluateAsInt(V, C.Ctx)) {
    int64_t D = V.Val.getInt().getSExtValue();
    if (D == -1) // cudaCpuDeviceId
      Location = "cudaMemLocation{cudaMemLocationTypeHost, 0}";
    else if (D >= 0)
      Location = "cudaMemLocation{cudaMemLocationTypeDevice, " + Text + "}";
    else
      return NoFix("the device argument is " + std::to_string(D) +
                   ", neither a device number nor cudaCpuDeviceId");
  } else if (Dev->HasSideEffects(C.Ctx)) {
    return NoFix("the device argument has side effects; the location needs it twice "
                 "(device or cudaCpuDeviceId)");
  } else {
    // Not a constant: it may be cudaCpuDeviceId at run time.
    Location = "cudaMemLocation{(" + Text + ") == cudaCpuDeviceId ? cudaMemLocationTypeHost : "
               "cudaMemLocationTypeDevice, " + Text + "}";
  }
  if (M.AddsFlags)
    Location += ", 0";
  C.Diag.report(name(), Severity::Error, Loc, Msg,
                {FixItHint::CreateReplacement(Range, Location)});
}

bool Cuda13RemovedApi::explainsParseError(StringRef Message) const {
  SmallVector<StringRef, 2> Groups;
  if (undeclaredRegex().match(Message, &Groups))
    return lookupRename(Groups[1]) != nullptr;
  if (noMatchingCallRegex().match(Message, &Groups))
    return lookupLocation(Groups[1]) != nullptr;
  if (noMemberRegex().match(Message, &Groups))
    return lookupField(Groups[1]) != nullptr;
  return false;
}

void Cuda13RemovedApi::checkVectorType(TypeLoc TL, PassContext &C) {
  // `const double4` matches as a whole; its name is on the unqualified part.
  TL = TL.getUnqualifiedLoc();
  SourceLocation NameLoc;
  if (auto T = TL.getAs<TypedefTypeLoc>())
    NameLoc = T.getNameLoc();
  else if (auto T = TL.getAs<UsingTypeLoc>())
    NameLoc = T.getNameLoc();
  else if (auto T = TL.getAs<RecordTypeLoc>()) {
    if (T.isDefinition())
      return;
    NameLoc = T.getNameLoc();
  } else
    return;
  SourceManager &SM = C.Ctx.getSourceManager();
  if (NameLoc.isInvalid() || !frontend::isUserLocation(SM, NameLoc) ||
      !TypeSeen.insert(NameLoc).second)
    return;
  // The name as written: an alias of double4 is diagnosed where it is
  // declared, not at each use.
  StringRef Spelled = Lexer::getSourceText(
      CharSourceRange::getTokenRange(SM.getSpellingLoc(NameLoc)), SM, C.Ctx.getLangOpts());
  const VectorMapping *M = lookupVector(Spelled);
  if (!M)
    return;
  std::string Msg = ("'" + Twine(M->Name) + "' is deprecated in CUDA " + M->DeprecatedIn +
                     "; use '" + M->Aligned16 + "' (16-byte aligned, same layout as before) or '" +
                     M->Aligned32 + "'")
                        .str();
  if (NameLoc.isMacroID()) {
    C.Diag.report(name(), Severity::Warning, NameLoc, Msg, {},
                  {{NameLoc, "not rewritten: the type is written inside a macro"}});
    return;
  }
  C.Diag.report(name(), Severity::Warning, NameLoc, Msg,
                {FixItHint::CreateReplacement(CharSourceRange::getTokenRange(NameLoc),
                                              M->Aligned16)});
}

void Cuda13RemovedApi::finish(PassContext &C) {
  if (C.S != frontend::Side::Host)
    return;
  SourceManager &SM = C.Ctx.getSourceManager();
  static const Regex NoTemplate("^no template named '([A-Za-z_0-9]+)'");
  for (const ParseError &E : C.ParseErrors) {
    if (!frontend::isUserLocation(SM, E.Loc))
      continue;
    SmallVector<StringRef, 3> Groups;
    if (undeclaredRegex().match(E.Message, &Groups)) {
      if (const RenameMapping *M = lookupRename(Groups[1]))
        checkRename(*M, E.Loc, C);
      continue;
    }
    if (noMemberRegex().match(E.Message, &Groups)) {
      // Fields the matchers saw are already reported (with a fix or a reason).
      const FieldMapping *M = lookupField(Groups[1]);
      if (!M || FieldSeen.contains(E.Loc))
        continue;
      C.Diag.report(name(), Severity::Error, E.Loc, fieldMessage(*M), {},
                    {{E.Loc, "not rewritten: the expression was not found in the AST"}});
      continue;
    }
    if (NoTemplate.match(E.Message, &Groups))
      for (const TemplateMapping &T : TemplateTable)
        if (Groups[1] == T.Name)
          C.Diag.report(name(), Severity::Warning, E.Loc, T.Message);
  }
}

} // namespace forge::passes
