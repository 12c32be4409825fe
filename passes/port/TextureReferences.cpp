//===- TextureReferences.cpp - texture-references -------------------------===//
#include "TextureReferences.h"
#include "PortEdits.h"
#include "../PortPass.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/Divergence.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"
#include <functional>
#include <map>
#include <optional>
#include <set>

using namespace clang;
using namespace llvm;

namespace forge::passes {

namespace {

/// How the prelude marks the declarations of the removed API.
constexpr llvm::StringLiteral RemovedTag = "forge-removed-in-cuda12";

bool hasRemovedTag(const Decl *D) {
  if (!D)
    return false;
  for (const auto *A : D->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == RemovedTag)
      return true;
  return false;
}

bool isRemovedFunction(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier())
    return false;
  if (hasRemovedTag(FD))
    return true;
  const FunctionTemplateDecl *T = FD->getPrimaryTemplate();
  return T && hasRemovedTag(T->getTemplatedDecl());
}

/// The name of a call's callee when it is one of the removed functions,
/// also for a call in a template that is resolved only when instantiated.
StringRef removedCallee(const CallExpr &Call) {
  if (const FunctionDecl *FD = Call.getDirectCallee())
    return isRemovedFunction(FD) ? FD->getName() : StringRef();
  const auto *U = dyn_cast_or_null<UnresolvedLookupExpr>(
      Call.getCallee() ? Call.getCallee()->IgnoreParenImpCasts() : nullptr);
  if (!U || !U->getName().isIdentifier())
    return {};
  for (const NamedDecl *D : U->decls()) {
    const NamedDecl *X = D->getUnderlyingDecl();
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(X))
      X = FT->getTemplatedDecl();
    if (hasRemovedTag(X))
      return U->getName().getAsIdentifierInfo()->getName();
  }
  return {};
}

/// A texture<T, dim, mode> or surface<T, dim> of the prelude.
struct RefType {
  bool Texture = false;
  QualType Elem;
  int64_t Mode = 0; ///< 1: cudaReadModeNormalizedFloat
};

std::optional<RefType> referenceType(QualType T) {
  if (T.isNull())
    return std::nullopt;
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(T.getNonReferenceType()->getAsCXXRecordDecl());
  if (!Spec)
    return std::nullopt;
  const ClassTemplateDecl *Tmpl = Spec->getSpecializedTemplate();
  if (!Tmpl || !hasRemovedTag(Tmpl->getTemplatedDecl()))
    return std::nullopt;
  RefType R;
  R.Texture = Tmpl->getName() == "texture";
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() >= 1 && Args[0].getKind() == TemplateArgument::Type)
    R.Elem = Args[0].getAsType();
  if (Args.size() >= 3 && Args[2].getKind() == TemplateArgument::Integral)
    R.Mode = Args[2].getAsIntegral().getExtValue();
  return R;
}

/// The fetches and what they became: the same name with the value type as
/// a template argument (CUDA 13's texture_fetch_functions.h).
const char *const Fetches[] = {"tex1Dfetch",   "tex1D",        "tex2D",      "tex3D",
                               "tex1DLayered", "tex2DLayered", "texCubemap", "tex1DLod",
                               "tex2DLod"};

bool isFetch(StringRef N) { return is_contained(Fetches, N); }

/// What a fetch returns: the element type, or for cudaReadModeNormalizedFloat
/// on 8- and 16-bit integers the float type of as many components.
std::string valueType(const RefType &R, ASTContext &Ctx) {
  PrintingPolicy PP = Ctx.getPrintingPolicy();
  PP.SuppressTagKeyword = true;
  QualType T = R.Elem.getCanonicalType().getUnqualifiedType();
  if (R.Mode == 1) {
    if (T->isIntegerType() && !T->isBooleanType() && Ctx.getTypeSize(T) <= 16)
      return "float";
    if (const auto *RD = T->getAsRecordDecl()) {
      StringRef N = RD->getName();
      for (StringRef P : {"uchar", "ushort", "char", "short"})
        if (N.size() == P.size() + 1 && N.starts_with(P) && isDigit(N.back()))
          return ("float" + Twine(N.back())).str();
    }
  }
  return T.getAsString(PP);
}

/// Where an edit for the token at L goes: L itself in a file, or where a
/// macro's argument is written; invalid for a token of a macro's body (the
/// #define is shared by every expansion).
SourceLocation editable(SourceLocation L, const SourceManager &SM) {
  while (L.isValid() && L.isMacroID()) {
    if (!SM.isMacroArgExpansion(L))
      return {};
    L = SM.getImmediateSpellingLoc(L);
  }
  if (L.isInvalid() || SM.isWrittenInScratchSpace(L) || !frontend::isUserLocation(SM, L))
    return {};
  return L;
}

/// The file range of the tokens from B to E, when both are editable and in
/// one file in that order.
std::optional<CharSourceRange> editableRange(SourceRange R, const SourceManager &SM) {
  SourceLocation B = editable(R.getBegin(), SM), E = editable(R.getEnd(), SM);
  if (B.isInvalid() || E.isInvalid() || SM.getFileID(B) != SM.getFileID(E) ||
      SM.getFileOffset(E) < SM.getFileOffset(B))
    return std::nullopt;
  return CharSourceRange::getTokenRange(B, E);
}

std::string textOf(CharSourceRange R, ASTContext &Ctx) {
  return Lexer::getSourceText(R, Ctx.getSourceManager(), Ctx.getLangOpts()).str();
}

const Stmt *parentOf(ASTContext &Ctx, const Stmt &S) {
  auto Ps = Ctx.getParents(S);
  return Ps.empty() ? nullptr : Ps[0].get<Stmt>();
}

/// The function a statement is in (the pattern of a template).
const FunctionDecl *keyOf(const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    FD = P;
  return FD->getCanonicalDecl();
}

unsigned lineOf(ASTContext &Ctx, SourceLocation L) {
  return Ctx.getSourceManager().getExpansionLineNumber(L);
}

/// Everything the pass needs from one walk of the user's code.
struct Collector : DynamicRecursiveASTVisitor {
  const SourceManager &SM;
  std::vector<const VarDecl *> Refs;
  std::map<const VarDecl *, std::vector<const DeclRefExpr *>> Uses;
  std::map<const FunctionDecl *, std::vector<const CallExpr *>> Calls;
  std::map<const FunctionDecl *, std::vector<const DeclRefExpr *>> FunctionRefs;
  DenseSet<const Expr *> Callees;

  explicit Collector(const SourceManager &SM) : SM(SM) {}

  bool VisitVarDecl(VarDecl *V) override {
    // Each texture once, at its first declaration.
    if (!V->getPreviousDecl() && referenceType(V->getType()) &&
        frontend::isUserLocation(SM, V->getLocation()))
      Refs.push_back(V);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    if (const auto *V = dyn_cast<VarDecl>(E->getDecl())) {
      if (referenceType(V->getType()))
        Uses[V->getCanonicalDecl()].push_back(E);
    } else if (const auto *F = dyn_cast<FunctionDecl>(E->getDecl())) {
      FunctionRefs[keyOf(F)].push_back(E);
    }
    return true;
  }
  bool VisitCallExpr(CallExpr *E) override {
    const Expr *Callee = E->getCallee() ? E->getCallee()->IgnoreParenImpCasts() : nullptr;
    if (Callee)
      Callees.insert(Callee);
    if (const FunctionDecl *FD = E->getDirectCallee()) {
      Calls[keyOf(FD)].push_back(E);
    } else if (const auto *U = dyn_cast_or_null<UnresolvedLookupExpr>(Callee)) {
      for (const NamedDecl *D : U->decls()) {
        const NamedDecl *X = D->getUnderlyingDecl();
        if (const auto *FT = dyn_cast<FunctionTemplateDecl>(X))
          X = FT->getTemplatedDecl();
        if (const auto *FD = dyn_cast<FunctionDecl>(X))
          Calls[keyOf(FD)].push_back(E);
      }
    }
    return true;
  }
};

/// A use of a texture reference, as seen from the expression that uses it.
struct Use {
  enum Kind { Fetch, Bind, Unbind, SetField, ReadDesc, Other } K = Other;
  const DeclRefExpr *Ref = nullptr;
  const CallExpr *Call = nullptr;    ///< Fetch, Bind, Unbind
  StringRef Callee;                  ///< the removed function called
  const Expr *Set = nullptr;  ///< SetField: `tex.field[i] = value`
  const Expr *Value = nullptr;
  StringRef Field;
  int64_t Index = 0;
  std::string Why; ///< Other: what it is
};

Use classify(ASTContext &Ctx, const DeclRefExpr &Ref) {
  Use U;
  U.Ref = &Ref;
  const Stmt *Cur = &Ref;
  const Stmt *P = parentOf(Ctx, *Cur);
  bool AddrOf = false;
  while (P) {
    if (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr>(P) ||
        (isa<CXXConstructExpr>(P) && cast<CXXConstructExpr>(P)->getNumArgs() == 1)) {
      Cur = P;
      P = parentOf(Ctx, *P);
      continue;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(P); UO && UO->getOpcode() == UO_AddrOf && !AddrOf) {
      AddrOf = true;
      Cur = P;
      P = parentOf(Ctx, *P);
      continue;
    }
    break;
  }
  if (!P) {
    U.Why = "it is used outside a function";
    return U;
  }
  if (const auto *Call = dyn_cast<CallExpr>(P)) {
    StringRef N = removedCallee(*Call);
    auto ArgIs = [&](unsigned I) { return Call->getNumArgs() > I && Call->getArg(I) == Cur; };
    if (isFetch(N) && ArgIs(0) && !AddrOf) {
      U.K = Use::Fetch;
    } else if ((N == "cudaBindTexture" || N == "cudaBindTexture2D") && ArgIs(1)) {
      U.K = Use::Bind;
    } else if (N == "cudaBindTextureToArray" && ArgIs(0)) {
      U.K = Use::Bind;
    } else if (N == "cudaUnbindTexture" && ArgIs(0)) {
      U.K = Use::Unbind;
    } else {
      U.Why = N.empty() ? "it is passed to a function" : ("it is passed to '" + N + "'").str();
      return U;
    }
    U.Call = Call;
    U.Callee = N;
    return U;
  }
  if (const auto *M = dyn_cast<MemberExpr>(P); M && !AddrOf) {
    U.Field = M->getMemberDecl()->getName();
    U.Why = ("its field '" + U.Field + "' is read").str();
    const Stmt *Lhs = M;
    const Stmt *Up = parentOf(Ctx, *M);
    if (U.Field == "addressMode") {
      // tex.addressMode[i]: decay, then the subscript.
      while (Up && isa<ImplicitCastExpr, ParenExpr>(Up)) {
        Lhs = Up;
        Up = parentOf(Ctx, *Up);
      }
      const auto *Sub = dyn_cast_or_null<ArraySubscriptExpr>(Up);
      Expr::EvalResult Idx;
      if (!Sub || Sub->getBase() != Lhs || !Sub->getIdx()->EvaluateAsInt(Idx, Ctx))
        return U;
      U.Index = Idx.Val.getInt().getExtValue();
      Lhs = Sub;
      Up = parentOf(Ctx, *Sub);
    }
    // Through the implicit conversions of the left side of a class
    // assignment (channelDesc).
    while (Up && isa<ImplicitCastExpr, MaterializeTemporaryExpr>(Up)) {
      Lhs = Up;
      Up = parentOf(Ctx, *Up);
    }
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Up);
        BO && BO->getOpcode() == BO_Assign && BO->getLHS() == Lhs) {
      U.K = Use::SetField;
      U.Set = BO;
      U.Value = BO->getRHS();
    } else if (U.Field == "channelDesc" && !isa_and_nonnull<CXXOperatorCallExpr>(Up)) {
      // Read (its address given to cudaMallocArray, say): the descriptor
      // the texture<T> constructor made, cudaCreateChannelDesc<T>().
      U.K = Use::ReadDesc;
      U.Set = M;
    } else if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Up);
               Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
               Op->getArg(0) == Lhs) {
      U.K = Use::SetField;
      U.Set = Op;
      U.Value = Op->getArg(1);
    }
    return U;
  }
  U.Why = "it is used in an expression the pass does not rewrite";
  return U;
}

/// A shared edit: a range replaced by Prefix and the items of the textures
/// whose fixes are applied, joined by ", " (a parameter or an argument
/// added by several textures), or by one text.
struct SharedEdit {
  CharSourceRange Range;
  std::string Prefix;
  std::vector<std::pair<unsigned, std::string>> Items; ///< (texture, text)
  /// In a macro's body: one text for every expansion, so every texture that
  /// goes through it must be rewritten, to the same text.
  bool MacroBody = false;
  bool List = false; ///< items joined (arguments): they may differ
  SourceLocation Anchor; ///< where a note about the macro points
  std::string MacroName;
};

/// The call C as it is written in the body of the macro it expands from:
/// the range from its callee to its ')' in the #define, and its arguments'
/// texts there (a macro parameter's name where the expansion passes one).
struct BodyCall {
  CharSourceRange Range;
  std::vector<std::string> Args;
  std::string Macro;
};

std::optional<BodyCall> bodyCall(const CallExpr &C, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation B = C.getBeginLoc(), E = C.getRParenLoc();
  if (!B.isMacroID() || !E.isMacroID())
    return std::nullopt;
  SourceLocation SB = SM.getSpellingLoc(B), SE = SM.getSpellingLoc(E);
  if (SB.isInvalid() || SE.isInvalid() || SM.getFileID(SB) != SM.getFileID(SE) ||
      SM.isWrittenInScratchSpace(SB) || !frontend::isUserLocation(SM, SB) ||
      SM.getFileOffset(SE) <= SM.getFileOffset(SB))
    return std::nullopt;
  StringRef Buf = SM.getBufferData(SM.getFileID(SB));
  unsigned Begin = SM.getFileOffset(SB), End = SM.getFileOffset(SE);
  if (End >= Buf.size() || Buf[End] != ')')
    return std::nullopt;
  StringRef Text = Buf.slice(Begin, End);
  size_t Open = Text.find('(');
  if (Open == StringRef::npos)
    return std::nullopt;
  // The callee is one identifier, the arguments split at top-level commas.
  StringRef Callee = Text.take_front(Open).trim();
  if (Callee.empty() || !all_of(Callee, [](char Ch) { return isAlnum(Ch) || Ch == '_'; }))
    return std::nullopt;
  BodyCall R;
  StringRef Args = Text.drop_front(Open + 1);
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I <= Args.size(); ++I) {
    char Ch = I < Args.size() ? Args[I] : ',';
    if (Ch == '(' || Ch == '[' || Ch == '{')
      ++Depth;
    else if (Ch == ')' || Ch == ']' || Ch == '}')
      --Depth;
    else if (Ch == '\\' || Ch == '\n' || Ch == '"' || Ch == '\'')
      return std::nullopt; // continued lines and literals: not split here
    if (Depth < 0)
      return std::nullopt;
    if (Ch == ',' && Depth == 0) {
      R.Args.push_back(Args.slice(Start, I).trim().str());
      Start = I + 1;
    }
  }
  if (R.Args.size() == 1 && R.Args[0].empty())
    R.Args.clear();
  R.Range = CharSourceRange::getTokenRange(SB, SE);
  R.Macro = Lexer::getImmediateMacroName(B, SM, Ctx.getLangOpts()).str();
  return R;
}

struct Plan {
  const VarDecl *Var = nullptr;
  RefType Type;
  std::string Name;
  std::vector<std::pair<SourceLocation, std::string>> Notes;
  std::optional<std::pair<SourceLocation, std::string>> Blocked;
  /// Why the object cannot be a parameter: it goes into a __constant__
  /// variable instead (NAME_dev), written after each bind.
  std::optional<std::pair<SourceLocation, std::string>> Fallback;
  bool Symbol = false;
  std::vector<std::string> EditKeys;
  /// The name as host code outside its namespace spells it.
  std::string HostName;
  std::string devName() const { return Name + "_dev"; }
  std::string hostDevName() const { return HostName + "_dev"; }
  void block(SourceLocation L, const std::string &Why) {
    if (!Blocked)
      Blocked = {{L, Why}};
  }
};

const char *const Helpers =
    "// forge-port (texture-references): texture references were removed in CUDA 12;\n"
    "// these create the texture objects that replace them.\n"
    "#ifndef FORGE_TEXTURE_OBJECT_HELPERS\n"
    "#define FORGE_TEXTURE_OBJECT_HELPERS\n"
    "static inline __attribute__((unused)) cudaTextureDesc forgeTextureDesc(cudaTextureReadMode readMode,\n"
    "    cudaTextureFilterMode filterMode = cudaFilterModePoint, int normalizedCoords = 0,\n"
    "    cudaTextureAddressMode a0 = cudaAddressModeClamp,\n"
    "    cudaTextureAddressMode a1 = cudaAddressModeClamp,\n"
    "    cudaTextureAddressMode a2 = cudaAddressModeClamp) {\n"
    "  cudaTextureDesc d;\n"
    "  __builtin_memset(&d, 0, sizeof d);\n"
    "  d.readMode = readMode;\n"
    "  d.filterMode = filterMode;\n"
    "  d.normalizedCoords = normalizedCoords;\n"
    "  d.addressMode[0] = a0;\n"
    "  d.addressMode[1] = a1;\n"
    "  d.addressMode[2] = a2;\n"
    "  return d;\n"
    "}\n"
    "static inline __attribute__((unused)) cudaError_t forgeBindTexture(cudaTextureObject_t *tex, const void *ptr,\n"
    "    cudaChannelFormatDesc desc, size_t size, cudaTextureDesc td) {\n"
    "  cudaResourceDesc r;\n"
    "  __builtin_memset(&r, 0, sizeof r);\n"
    "  r.resType = cudaResourceTypeLinear;\n"
    "  r.res.linear.devPtr = const_cast<void *>(ptr);\n"
    "  r.res.linear.desc = desc;\n"
    "  r.res.linear.sizeInBytes = size;\n"
    "  return cudaCreateTextureObject(tex, &r, &td, 0);\n"
    "}\n"
    "static inline __attribute__((unused)) cudaError_t forgeBindTexture2D(cudaTextureObject_t *tex, const void *ptr,\n"
    "    cudaChannelFormatDesc desc, size_t width, size_t height, size_t pitch,\n"
    "    cudaTextureDesc td) {\n"
    "  cudaResourceDesc r;\n"
    "  __builtin_memset(&r, 0, sizeof r);\n"
    "  r.resType = cudaResourceTypePitch2D;\n"
    "  r.res.pitch2D.devPtr = const_cast<void *>(ptr);\n"
    "  r.res.pitch2D.desc = desc;\n"
    "  r.res.pitch2D.width = width;\n"
    "  r.res.pitch2D.height = height;\n"
    "  r.res.pitch2D.pitchInBytes = pitch;\n"
    "  return cudaCreateTextureObject(tex, &r, &td, 0);\n"
    "}\n"
    "static inline __attribute__((unused)) cudaError_t forgeBindTextureToArray(cudaTextureObject_t *tex,\n"
    "    cudaArray_const_t array, cudaTextureDesc td) {\n"
    "  cudaResourceDesc r;\n"
    "  __builtin_memset(&r, 0, sizeof r);\n"
    "  r.resType = cudaResourceTypeArray;\n"
    "  r.res.array.array = const_cast<cudaArray_t>(array);\n"
    "  return cudaCreateTextureObject(tex, &r, &td, 0);\n"
    "}\n"
    "template <class Symbol>\n"
    "static inline __attribute__((unused)) cudaError_t forgeUpload(const Symbol &symbol,\n"
    "    const cudaTextureObject_t *object, cudaError_t created) {\n"
    "  if (created != cudaSuccess)\n"
    "    return created;\n"
    "  return cudaMemcpyToSymbol(symbol, object, sizeof *object);\n"
    "}\n"
    "template <class T>\n"
    "static inline __attribute__((unused)) cudaChannelFormatDesc &forgeChannelDesc() {\n"
    "  static cudaChannelFormatDesc d = cudaCreateChannelDesc<T>();\n"
    "  return d;\n"
    "}\n"
    "static inline __attribute__((unused)) cudaError_t forgeUnbindTexture(cudaTextureObject_t *tex) {\n"
    "  if (!*tex)\n"
    "    return cudaSuccess;\n"
    "  cudaError_t e = cudaDestroyTextureObject(*tex);\n"
    "  *tex = 0;\n"
    "  return e;\n"
    "}\n"
    "#endif\n";

class Planner {
public:
  Planner(PassContext &C, Collector &Col) : C(C), Ctx(C.Ctx), SM(Ctx.getSourceManager()), Col(Col) {}

  void run(StringRef PassName);
  /// Where the texture's name is written outside what the parse saw.
  struct Unseen {
    SourceLocation Loc;
    bool DeviceBranch; ///< under an #if on __CUDA_ARCH__
  };
  std::vector<Unseen> unseenUses(const Plan &P, const std::vector<Use> &Uses);
  const FunctionDecl *dependentBindOverload(const CallExpr &Call, const Use &U);

private:
  std::string key(CharSourceRange R) {
    return std::to_string(R.getBegin().getRawEncoding()) + ":" +
           std::to_string(R.getEnd().getRawEncoding()) + (R.isTokenRange() ? "t" : "c");
  }
  /// Adds Item to the shared edit of range R (created with Prefix).
  void edit(Plan &P, unsigned Tex, CharSourceRange R, StringRef Prefix, std::string Item,
            StringRef Macro = "", SourceLocation Anchor = {}) {
    std::string K = key(R);
    auto [It, New] = Edits.try_emplace(K);
    if (New) {
      It->second.Range = R;
      It->second.Prefix = Prefix.str();
    }
    if (!Macro.empty()) {
      It->second.MacroBody = true;
      It->second.MacroName = Macro.str();
      It->second.Anchor = Anchor.isValid() ? Anchor : R.getBegin();
    }
    for (const auto &Old : It->second.Items)
      if (Old.first == Tex && Old.second == Item)
        return;
    It->second.Items.push_back({Tex, std::move(Item)});
    if (!is_contained(P.EditKeys, K))
      P.EditKeys.push_back(K);
  }
  CharSourceRange insertionAt(SourceLocation L) { return CharSourceRange::getCharRange(L, L); }

  void planTexture(Plan &P, unsigned Tex, std::vector<Use> &Uses);
  void planFetch(Plan &P, unsigned Tex, const Use &U);
  /// In the __constant__ fallback, the fetch reads NAME_dev.
  void renameToSymbol(Plan &P, unsigned Tex, const Use &U);
  void planBind(Plan &P, unsigned Tex, const Use &U, const std::map<std::string, std::string> &Fields,
                bool ChannelDescSet);
  void planFunctions(Plan &P, unsigned Tex, std::set<const FunctionDecl *> Readers,
                     std::map<const FunctionDecl *, SourceLocation> WhereRead);
  /// Adds NAME as the last argument of a call (a launch or a helper call).
  bool addArgument(Plan &P, unsigned Tex, const CallExpr &Call, bool FromHost);

  PassContext &C;
  ASTContext &Ctx;
  SourceManager &SM;
  Collector &Col;
  std::map<std::string, SharedEdit> Edits;
  struct BodyUse {
    std::string Macro;
    SourceLocation At;
    std::set<unsigned> Textures;
  };
  std::map<unsigned, BodyUse> BodyUsers;
};

void Planner::planFetch(Plan &P, unsigned Tex, const Use &U) {
  const Expr *Callee = U.Call->getCallee()->IgnoreParenImpCasts();
  SourceLocation NameLoc;
  bool Explicit = false;
  if (const auto *D = dyn_cast<DeclRefExpr>(Callee)) {
    NameLoc = D->getNameInfo().getLoc();
    Explicit = D->hasExplicitTemplateArgs();
  } else if (const auto *O = dyn_cast<OverloadExpr>(Callee)) {
    NameLoc = O->getNameLoc();
    Explicit = O->hasExplicitTemplateArgs();
  }
  SourceLocation L = editable(NameLoc, SM);
  if (!Explicit && L.isInvalid() && NameLoc.isMacroID()) {
    // Written in a macro's body: the fix goes into the #define, if every
    // texture read through it is rewritten to the same value type.
    SourceLocation S = SM.getSpellingLoc(NameLoc);
    std::string Macro =
        Lexer::getImmediateMacroName(NameLoc, SM, Ctx.getLangOpts()).str();
    if (S.isValid() && !SM.isWrittenInScratchSpace(S) && frontend::isUserLocation(SM, S) &&
        !Macro.empty()) {
      SourceLocation After = Lexer::getLocForEndOfToken(S, 0, SM, Ctx.getLangOpts());
      edit(P, Tex, insertionAt(After), "", "<" + valueType(P.Type, Ctx) + ">", Macro, S);
      renameToSymbol(P, Tex, U);
      return;
    }
  }
  if (Explicit || L.isInvalid()) {
    P.block(U.Call->getBeginLoc(), "not rewritten: '" + U.Callee.str() + "' is written " +
                                       (Explicit ? "with template arguments"
                                                 : "inside a macro's body") +
                                       "; no fix is applied to '" + P.Name + "'");
    return;
  }
  SourceLocation After = Lexer::getLocForEndOfToken(L, 0, SM, Ctx.getLangOpts());
  edit(P, Tex, insertionAt(After), "", "<" + valueType(P.Type, Ctx) + ">");
  renameToSymbol(P, Tex, U);
}

void Planner::renameToSymbol(Plan &P, unsigned Tex, const Use &U) {
  if (!P.Symbol) {
    // `ns::tex` would name the host handle; the parameter is `tex`.
    if (U.Ref->hasQualifier()) {
      std::optional<CharSourceRange> R = editableRange(
          SourceRange(U.Ref->getQualifierLoc().getBeginLoc(), U.Ref->getLocation()), SM);
      if (!R) {
        P.block(U.Ref->getLocation(), "not rewritten: '" + P.Name +
                                          "' is named with a qualifier inside a macro");
        return;
      }
      edit(P, Tex, *R, "", P.Name);
    }
    return;
  }
  SourceLocation R = U.Ref->getLocation();
  SourceLocation E = editable(R, SM);
  if (E.isValid()) {
    edit(P, Tex, CharSourceRange::getTokenRange(E, E), "", P.devName());
    return;
  }
  SourceLocation S = R.isMacroID() ? SM.getSpellingLoc(R) : SourceLocation();
  std::string Macro =
      R.isMacroID() ? Lexer::getImmediateMacroName(R, SM, Ctx.getLangOpts()).str() : "";
  if (S.isInvalid() || SM.isWrittenInScratchSpace(S) || !frontend::isUserLocation(SM, S) ||
      Macro.empty()) {
    P.block(R, "not rewritten: '" + P.Name + "' is written inside a macro");
    return;
  }
  edit(P, Tex, CharSourceRange::getTokenRange(S, S), "", P.devName(), Macro);
}

/// In a template whose arguments make the call dependent (a bind of a
/// `floatType *` in SHOC's Spmv runTest<floatType>), the removed overload the
/// call will resolve to: the one candidate with as many parameters as the
/// call has arguments that takes the texture as the call gives it (`&tex` a
/// pointer, `tex` a reference). Null when that is not one function.
const FunctionDecl *Planner::dependentBindOverload(const CallExpr &Call, const Use &U) {
  const auto *ULE =
      dyn_cast_or_null<UnresolvedLookupExpr>(Call.getCallee()->IgnoreParenImpCasts());
  if (!ULE)
    return nullptr;
  unsigned TexArg = U.Callee == "cudaBindTextureToArray" ? 0 : 1;
  if (TexArg >= Call.getNumArgs())
    return nullptr;
  const auto *A = dyn_cast<UnaryOperator>(Call.getArg(TexArg)->IgnoreParenImpCasts());
  bool ByPointer = A && A->getOpcode() == UO_AddrOf;
  const FunctionDecl *Found = nullptr;
  for (const NamedDecl *D : ULE->decls()) {
    const NamedDecl *X = D->getUnderlyingDecl();
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(X))
      X = FT->getTemplatedDecl();
    const auto *FD = dyn_cast<FunctionDecl>(X);
    if (!FD || FD->getNumParams() != Call.getNumArgs() || !hasRemovedTag(FD))
      continue;
    if (FD->getParamDecl(TexArg)->getType()->isPointerType() != ByPointer)
      continue;
    if (Found)
      return nullptr; // two candidates: overload resolution decides
    Found = FD;
  }
  return Found;
}

void Planner::planBind(Plan &P, unsigned Tex, const Use &U,
                       const std::map<std::string, std::string> &Fields, bool ChannelDescSet) {
  const CallExpr &Call = *U.Call;
  const FunctionDecl *FD = Call.getDirectCallee();
  auto Block = [&](const std::string &Why) {
    P.block(Call.getBeginLoc(), "not rewritten: " + Why + "; no fix is applied to '" + P.Name + "'");
  };
  if (!FD)
    FD = dependentBindOverload(Call, U);
  if (!FD) {
    Block("the call is resolved only when its template is instantiated");
    return;
  }
  std::optional<CharSourceRange> Range = editableRange(Call.getSourceRange(), SM);
  auto Written = [&](unsigned I) {
    return I < Call.getNumArgs() && !isa<CXXDefaultArgExpr>(Call.getArg(I));
  };
  // A bind in a macro's body is rewritten in the #define, from the
  // arguments as the body writes them.
  std::optional<BodyCall> Body;
  if (!Range) {
    Body = bodyCall(Call, Ctx);
    unsigned NWritten = 0;
    while (Written(NWritten))
      ++NWritten;
    if (!Body || Body->Macro.empty() || Body->Args.size() != NWritten) {
      Block("the call is written inside a macro's body");
      return;
    }
    Range = Body->Range;
  }
  auto Text = [&](unsigned I) -> std::optional<std::string> {
    if (Body)
      return I < Body->Args.size() ? std::optional<std::string>(Body->Args[I]) : std::nullopt;
    std::optional<CharSourceRange> R = editableRange(Call.getArg(I)->getSourceRange(), SM);
    if (!R)
      return std::nullopt;
    return textOf(*R, Ctx);
  };
  auto IsPointerParam = [&](unsigned I) {
    return I < FD->getNumParams() && FD->getParamDecl(I)->getType()->isPointerType();
  };
  // A descriptor argument as a value: `&d` is `d`, a pointer p is `*p`.
  auto DescText = [&](unsigned I) -> std::optional<std::string> {
    if (!IsPointerParam(I))
      return Text(I);
    const Expr *A = Call.getArg(I)->IgnoreParenImpCasts();
    if (Body) {
      std::optional<std::string> T = Text(I);
      if (T && StringRef(*T).starts_with("&"))
        return StringRef(*T).drop_front().trim().str();
      return T ? std::optional<std::string>("*(" + *T + ")") : std::nullopt;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(A); UO && UO->getOpcode() == UO_AddrOf) {
      std::optional<CharSourceRange> R = editableRange(UO->getSubExpr()->getSourceRange(), SM);
      if (!R)
        return std::nullopt;
      return textOf(*R, Ctx);
    }
    std::optional<std::string> T = Text(I);
    return T ? std::optional<std::string>("*(" + *T + ")") : std::nullopt;
  };
  auto NoteDesc = [&]() -> std::optional<std::string> {
    if (ChannelDescSet) {
      Block("the bind takes no channel descriptor and '" + P.Name +
            ".channelDesc' is set; pass the descriptor to the bind");
      return std::nullopt;
    }
    PrintingPolicy PP = Ctx.getPrintingPolicy();
    PP.SuppressTagKeyword = true;
    return "cudaCreateChannelDesc<" +
           P.Type.Elem.getCanonicalType().getUnqualifiedType().getAsString(PP) + ">()";
  };

  // The texture descriptor: read mode, then what the code set, trailing
  // defaults left out.
  std::vector<std::string> Desc = {P.Type.Mode == 1 ? "cudaReadModeNormalizedFloat"
                                                    : "cudaReadModeElementType"};
  std::vector<std::pair<std::string, std::string>> Settable = {
      {"filterMode", "cudaFilterModePoint"}, {"normalized", "0"},
      {"addressMode0", "cudaAddressModeClamp"}, {"addressMode1", "cudaAddressModeClamp"},
      {"addressMode2", "cudaAddressModeClamp"}};
  std::vector<std::string> Values;
  for (auto &[Field, Default] : Settable) {
    auto It = Fields.find(Field);
    Values.push_back(It == Fields.end() ? Default : It->second);
  }
  size_t Keep = Values.size();
  while (Keep > 0 && Values[Keep - 1] == Settable[Keep - 1].second)
    --Keep;
  Desc.insert(Desc.end(), Values.begin(), Values.begin() + Keep);
  std::string TexDesc = "forgeTextureDesc(" + join(Desc, ", ") + ")";

  std::string New;
  std::string Obj = "&" + P.HostName;
  if (Body) {
    // The texture as the body names it (a parameter, usually), as a pointer.
    std::optional<std::string> T = Text(U.Callee == "cudaBindTextureToArray" ? 0 : 1);
    if (!T) {
      Block("the call is written inside a macro's body");
      return;
    }
    Obj = StringRef(*T).starts_with("&") ? *T : "&" + *T;
  }
  if (U.Callee == "cudaBindTextureToArray") {
    std::optional<std::string> Arr = Written(1) ? Text(1) : std::nullopt;
    if (!Arr) {
      Block("an argument is written inside a macro's body");
      return;
    }
    New = "forgeBindTextureToArray(" + Obj + ", " + *Arr + ", " + TexDesc + ")";
  } else {
    // cudaBindTexture(offset, tex, ptr, [desc,] size) and
    // cudaBindTexture2D(offset, tex, ptr, [desc,] width, height, pitch).
    const Expr *Offset = Call.getArg(0);
    if (!Offset->IgnoreParenImpCasts()->isNullPointerConstant(
            Ctx, Expr::NPC_ValueDependentIsNotNull)) {
      Block("the bind returns an offset ('" +
            Lexer::getSourceText(CharSourceRange::getTokenRange(Offset->getSourceRange()), SM,
                                 Ctx.getLangOpts())
                .str() +
            "'); a texture object has none, its pointer must be aligned: pass 0 and "
            "align the pointer, or read at ptr + offset");
      return;
    }
    bool Is2D = U.Callee == "cudaBindTexture2D";
    unsigned Params = FD->getNumParams();
    bool HasDesc = Is2D ? Params == 7 : Params == 5;
    unsigned First = HasDesc ? 4 : 3, Count = Is2D ? 3 : 1;
    std::optional<std::string> Ptr = Text(2);
    std::optional<std::string> D = HasDesc ? DescText(3) : NoteDesc();
    if (!D)
      return;
    std::vector<std::string> Sizes;
    for (unsigned I = First; I < First + Count; ++I) {
      if (!Written(I)) {
        Block("the bind gives no size (the reference covered the whole address space); a "
              "texture object needs the size in bytes");
        return;
      }
      std::optional<std::string> S = Text(I);
      if (!S) {
        Block("an argument is written inside a macro's body");
        return;
      }
      Sizes.push_back(*S);
    }
    if (!Ptr) {
      Block("an argument is written inside a macro's body");
      return;
    }
    New = std::string(Is2D ? "forgeBindTexture2D(" : "forgeBindTexture(") + Obj + ", " + *Ptr +
          ", " + *D + ", " + join(Sizes, ", ") + ", " + TexDesc + ")";
  }
  if (P.Symbol) {
    if (Body) {
      Block("the object goes into a __constant__ variable, and the bind is written inside a "
            "macro's body");
      return;
    }
    New = "forgeUpload(" + P.hostDevName() + ", &" + P.HostName + ", " + New + ")";
  }
  edit(P, Tex, *Range, "", New, Body ? StringRef(Body->Macro) : StringRef());
  P.Notes.push_back({Call.getBeginLoc(), Body ? "bound here: the bind in the body of macro '" +
                                                    Body->Macro +
                                                    "' becomes the creation of the texture object"
                                              : "bound here: becomes the creation of the texture "
                                                "object"});
}

bool Planner::addArgument(Plan &P, unsigned Tex, const CallExpr &Call, bool FromHost) {
  SourceLocation R = editable(Call.getRParenLoc(), SM);
  std::string Macro;
  if (R.isInvalid() && Call.getRParenLoc().isMacroID() && Call.getCallee()) {
    // A call written whole in a macro's body (callee and ')' there): every
    // expansion calls the same function, so the argument goes into the
    // #define; the macro's uses must all be rewritten (see run()).
    SourceLocation RP = Call.getRParenLoc();
    SourceLocation CL = Call.getCallee()->IgnoreParenImpCasts()->getBeginLoc();
    SourceLocation S = SM.getSpellingLoc(RP);
    if (CL.isMacroID() && SM.isMacroBodyExpansion(CL) && SM.isMacroBodyExpansion(RP) &&
        SM.getFileID(SM.getSpellingLoc(CL)) == SM.getFileID(S) && !SM.isWrittenInScratchSpace(S) &&
        frontend::isUserLocation(SM, S)) {
      Macro = Lexer::getImmediateMacroName(RP, SM, Ctx.getLangOpts()).str();
      if (Macro == Lexer::getImmediateMacroName(CL, SM, Ctx.getLangOpts()))
        R = S;
      else
        Macro.clear();
    }
  }
  if (R.isInvalid()) {
    if (!P.Fallback)
      P.Fallback = {{Call.getBeginLoc(), "the call is written inside a macro's body, so '" +
                                             P.Name + "' cannot be added to its arguments"}};
    return false;
  }
  unsigned Written = 0;
  for (const Expr *A : Call.arguments())
    if (!isa<CXXDefaultArgExpr>(A))
      ++Written;
  edit(P, Tex, insertionAt(R), Written ? ", " : "", FromHost ? P.HostName : P.Name, Macro);
  if (!Macro.empty())
    Edits[key(insertionAt(R))].List = true;
  return true;
}

void Planner::planFunctions(Plan &P, unsigned Tex, std::set<const FunctionDecl *> Readers,
                            std::map<const FunctionDecl *, SourceLocation> WhereRead) {
  std::vector<const FunctionDecl *> Work(Readers.begin(), Readers.end());
  std::set<const FunctionDecl *> Done;
  while (!Work.empty() && !P.Blocked) {
    const FunctionDecl *F = Work.back();
    Work.pop_back();
    if (!Done.insert(F).second)
      continue;
    std::string FName = "'" + F->getNameAsString() + "'";
    SourceLocation At = WhereRead.count(F) ? WhereRead[F] : F->getLocation();
    auto Block = [&](SourceLocation L, const std::string &Why) {
      P.block(L, "not rewritten: " + Why + "; no fix is applied to '" + P.Name + "'");
    };
    // The reasons a parameter cannot carry the object, where a __constant__
    // variable still can.
    auto Fall = [&](SourceLocation L, const std::string &Why) {
      if (!P.Fallback)
        P.Fallback = {{L, Why}};
    };
    bool Kernel = F->hasAttr<CUDAGlobalAttr>();
    bool Device = F->hasAttr<CUDADeviceAttr>() && !F->hasAttr<CUDAHostAttr>();
    if (!Kernel && !Device) {
      Block(At, FName + " reads '" + P.Name + "' and is not a kernel or a __device__ function");
      return;
    }
    const auto *M = dyn_cast<CXXMethodDecl>(F);
    if (M || F->isVariadic()) {
      // A member (a functor's operator() that a kernel template takes as a
      // type, SHOC's texReader) is called through objects and template
      // parameters the rewrite cannot follow.
      Fall(At, FName + " is a member function or variadic; its parameters are not changed");
      return;
    }
    for (const ParmVarDecl *Prm : F->parameters())
      if (Prm->hasDefaultArg()) {
        Fall(Prm->getLocation(), FName + " has a default argument; the texture object would "
                                          "follow it as a parameter without one");
        return;
      }
    // Every reference to F must be a call that can pass the object.
    auto Refs = Col.FunctionRefs.find(F);
    if (Refs != Col.FunctionRefs.end())
      for (const DeclRefExpr *R : Refs->second)
        if (!Col.Callees.contains(R)) {
          Fall(R->getBeginLoc(), "the address of " + FName +
                                      " is taken here; a call through it cannot pass the "
                                      "texture object");
          return;
        }
    auto Calls = Col.Calls.find(F);
    if (Kernel && (Calls == Col.Calls.end() || Calls->second.empty())) {
      Fall(F->getLocation(),
            "kernel " + FName + " reads '" + P.Name +
                "' but is not launched in this file: another file may launch it, and its "
                "launches would need the texture object too");
      return;
    }
    if (Calls != Col.Calls.end())
      for (const CallExpr *Call : Calls->second) {
        const FunctionDecl *Caller = keyOf(frontend::enclosingFunction(Ctx, *Call));
        // A call in a template's instantiation is written once for every
        // instantiation: another may call another reader there.
        if (const FunctionDecl *In = frontend::enclosingFunction(Ctx, *Call);
            In && In->isTemplateInstantiation()) {
          Fall(Call->getBeginLoc(), FName + " is called here in a template instantiated for "
                                            "other types as well");
          return;
        }
        if (Kernel) {
          if (!isa<CUDAKernelCallExpr>(Call) || !Caller || Caller->hasAttr<CUDAGlobalAttr>() ||
              (Caller->hasAttr<CUDADeviceAttr>() && !Caller->hasAttr<CUDAHostAttr>())) {
            Fall(Call->getBeginLoc(), FName + " is launched here from device code");
            return;
          }
          if (SM.isBeforeInTranslationUnit(Call->getBeginLoc(), P.Var->getLocation())) {
            Fall(Call->getBeginLoc(), FName + " is launched here, before '" + P.Name +
                                           "' is declared");
            return;
          }
          P.Notes.push_back({Call->getBeginLoc(), "launched here: the launch passes '" + P.Name +
                                                      "'"});
        } else {
          if (!Caller) {
            Block(Call->getBeginLoc(), FName + " is called here outside a function");
            return;
          }
          Work.push_back(Caller);
        }
        if (!addArgument(P, Tex, *Call, Kernel))
          return;
      }
    // The new parameter, in every declaration of F.
    for (const FunctionDecl *R : F->redecls()) {
      if (!frontend::isUserLocation(SM, R->getLocation())) {
        Block(R->getLocation(), FName + " is declared in a system header");
        return;
      }
      FunctionTypeLoc FTL = R->getFunctionTypeLoc();
      SourceLocation RP = FTL ? editable(FTL.getRParenLoc(), SM) : SourceLocation();
      if (RP.isInvalid()) {
        Fall(R->getLocation(), "the parameter list of " + FName +
                                    " is written inside a macro or a typedef");
        return;
      }
      std::string Param = "cudaTextureObject_t " + P.Name;
      if (R->getNumParams() > 0) {
        edit(P, Tex, insertionAt(RP), ", ", Param);
        continue;
      }
      // `f()` or `f(void)`.
      SourceLocation LP = editable(FTL.getLParenLoc(), SM);
      CharSourceRange Inside = CharSourceRange::getCharRange(
          LP.isValid() ? Lexer::getLocForEndOfToken(LP, 0, SM, Ctx.getLangOpts()) : RP, RP);
      if (LP.isValid() && StringRef(textOf(Inside, Ctx)).trim() == "void")
        edit(P, Tex, Inside, "", Param);
      else
        edit(P, Tex, insertionAt(RP), "", Param);
    }
    P.Notes.push_back({F->getLocation(), (Kernel ? "kernel " : "function ") + FName +
                                             " takes the texture object as its new last "
                                             "parameter '" + P.Name + "'"});
  }
}

void Planner::planTexture(Plan &P, unsigned Tex, std::vector<Use> &Uses) {
  const VarDecl *V = P.Var;
  // The declaration.
  if (!V->getDeclContext()->getRedeclContext()->isFileContext()) {
    P.block(V->getLocation(), "not rewritten: only a texture declared at namespace scope is "
                              "rewritten");
    return;
  }
  if (const auto *Init = dyn_cast_or_null<CXXConstructExpr>(V->getInit());
      Init && Init->getParenOrBraceRange().isValid()) {
    P.block(V->getLocation(), "not rewritten: the texture is constructed with arguments; set "
                              "them in forgeTextureDesc by hand");
    return;
  }
  for (const VarDecl *R : V->redecls())
    if (R != V) {
      P.block(R->getLocation(), "not rewritten: '" + P.Name + "' is declared more than once");
      return;
    }
  TypeSourceInfo *TSI = V->getTypeSourceInfo();
  std::optional<CharSourceRange> DeclRange =
      TSI ? editableRange(SourceRange(TSI->getTypeLoc().getBeginLoc(), V->getLocation()), SM)
          : std::nullopt;
  if (!DeclRange) {
    P.block(V->getLocation(), "not rewritten: the declaration is written inside a macro");
    return;
  }

  // The settings written on the reference, each to one value.
  std::map<std::string, std::string> Fields;
  std::map<std::string, SourceLocation> FieldAt;
  bool ChannelDescSet = false;
  for (const Use &U : Uses) {
    if (U.K != Use::SetField)
      continue;
    const Expr *Value = U.Value;
    std::string Key = U.Field.str();
    std::string Text;
    if (U.Field == "channelDesc") {
      ChannelDescSet = true;
      Text = "set";
    } else if (U.Field == "filterMode" || U.Field == "normalized" ||
               (U.Field == "addressMode" && U.Index >= 0 && U.Index < 3)) {
      Expr::EvalResult R;
      if (Value->isValueDependent() || !Value->EvaluateAsInt(R, Ctx)) {
        P.block(U.Set->getBeginLoc(), "not rewritten: '" + P.Name + "." + U.Field.str() +
                                          "' is set from a value known only at run time");
        return;
      }
      int64_t N = R.Val.getInt().getExtValue();
      static const char *const Filter[] = {"cudaFilterModePoint", "cudaFilterModeLinear"};
      static const char *const Address[] = {"cudaAddressModeWrap", "cudaAddressModeClamp",
                                            "cudaAddressModeMirror", "cudaAddressModeBorder"};
      if (U.Field == "normalized") {
        Text = N ? "1" : "0";
      } else if (U.Field == "filterMode" && N >= 0 && N < 2) {
        Text = Filter[N];
      } else if (U.Field == "addressMode" && N >= 0 && N < 4) {
        Text = Address[N];
        Key += std::to_string(U.Index);
      } else {
        P.block(U.Set->getBeginLoc(), "not rewritten: '" + P.Name + "." + U.Field.str() +
                                          "' is set to " + std::to_string(N) +
                                          ", not one of the modes");
        return;
      }
    } else {
      P.block(U.Set->getBeginLoc(), "not rewritten: the field '" + U.Field.str() +
                                        "' of a texture reference has no rewrite");
      return;
    }
    auto [It, New] = Fields.try_emplace(Key, Text);
    if (!New && It->second != Text) {
      P.block(U.Set->getBeginLoc(),
              "not rewritten: '" + P.Name + "." + U.Field.str() +
                  "' is set to different values (also at line " +
                  std::to_string(lineOf(Ctx, FieldAt[Key])) +
                  "); a texture object's settings are fixed when it is created");
      return;
    }
    FieldAt.try_emplace(Key, U.Set->getBeginLoc());
    // The statement goes (with its line when nothing else is on it).
    const Stmt *Parent = parentOf(Ctx, *U.Set);
    std::optional<CharSourceRange> R = editableRange(U.Set->getSourceRange(), SM);
    SourceLocation Semi =
        R ? Lexer::findLocationAfterToken(R->getEnd(), tok::semi, SM, Ctx.getLangOpts(),
                                          /*SkipTrailingWhitespace=*/false)
          : SourceLocation();
    if (!isa_and_nonnull<CompoundStmt>(Parent) || !R || Semi.isInvalid()) {
      P.block(U.Set->getBeginLoc(), "not rewritten: the setting of '" + P.Name + "." +
                                        U.Field.str() +
                                        "' is not a statement of its own outside macros");
      return;
    }
    edit(P, Tex, statementWithLine(SM, R->getBegin(), Semi), "", "");
  }

  // The functions that read the texture take the object as a parameter;
  // where that cannot be, it goes into a __constant__ variable.
  std::set<const FunctionDecl *> Readers;
  std::map<const FunctionDecl *, SourceLocation> WhereRead;
  for (const Use &U : Uses) {
    if (U.K == Use::Other) {
      P.block(U.Ref->getBeginLoc(), "not rewritten: " + U.Why + "; no fix is applied to '" +
                                        P.Name + "'");
      return;
    }
    if (U.K != Use::Fetch)
      continue;
    const FunctionDecl *F = keyOf(frontend::enclosingFunction(Ctx, *U.Call));
    if (!F) {
      P.block(U.Call->getBeginLoc(), "not rewritten: read outside a function");
      return;
    }
    if (Readers.insert(F).second)
      WhereRead[F] = U.Call->getBeginLoc();
  }
  size_t KeysBefore = P.EditKeys.size(), NotesBefore = P.Notes.size();
  planFunctions(P, Tex, Readers, WhereRead);
  if (P.Blocked)
    return;
  if (P.Fallback) {
    // Undo the parameters and arguments planned so far.
    for (size_t I = KeysBefore; I < P.EditKeys.size(); ++I) {
      auto &Items = Edits[P.EditKeys[I]].Items;
      Items.erase(std::remove_if(Items.begin(), Items.end(),
                                 [&](const auto &It) { return It.first == Tex; }),
                  Items.end());
    }
    P.EditKeys.resize(KeysBefore);
    P.Notes.resize(NotesBefore);
    for (const FunctionDecl *F : Readers)
      if (!F->hasAttr<CUDAGlobalAttr>() &&
          !(F->hasAttr<CUDADeviceAttr>() && !F->hasAttr<CUDAHostAttr>())) {
        P.block(WhereRead[F], "not rewritten: '" + F->getNameAsString() + "' reads '" + P.Name +
                                  "' and is not a kernel or a __device__ function");
        return;
      }
    P.Symbol = true;
    for (auto &N : P.Notes)
      if (StringRef(N.second).starts_with("read here")) {
        std::string From = "(" + P.Name + ", ...)";
        size_t At = N.second.find(From);
        if (At != std::string::npos)
          N.second.replace(At, From.size(), "(" + P.devName() + ", ...)");
      }
    P.Notes.push_back({P.Fallback->first,
                       P.Fallback->second + ": the object goes into __constant__ '" +
                           P.devName() + "' instead, written after each bind, and the "
                           "kernels read it there"});
  }
  edit(P, Tex, *DeclRange, "",
       "cudaTextureObject_t " + P.Name +
           (V->getStorageClass() == SC_Extern ? std::string() : std::string(" = 0")) +
           (P.Symbol ? "; static __constant__ cudaTextureObject_t " + P.devName() : ""));

  // Fetches, binds, unbinds.
  for (const Use &U : Uses) {
    if (P.Blocked)
      return;
    switch (U.K) {
    case Use::SetField:
    case Use::Other:
      break;
    case Use::ReadDesc: {
      if (ChannelDescSet) {
        P.block(U.Set->getBeginLoc(), "not rewritten: '" + P.Name + ".channelDesc' is read "
                                      "and also set; no fix is applied to '" + P.Name + "'");
        return;
      }
      std::optional<CharSourceRange> R = editableRange(U.Set->getSourceRange(), SM);
      if (!R) {
        P.block(U.Set->getBeginLoc(), "not rewritten: '" + P.Name + ".channelDesc' is read "
                                      "inside a macro's body; no fix is applied to '" +
                                      P.Name + "'");
        return;
      }
      PrintingPolicy PP = Ctx.getPrintingPolicy();
      PP.SuppressTagKeyword = true;
      edit(P, Tex, *R, "",
           "forgeChannelDesc<" +
               P.Type.Elem.getCanonicalType().getUnqualifiedType().getAsString(PP) + ">()");
      P.Notes.push_back({U.Set->getBeginLoc(),
                         "its channel descriptor read here: becomes the one texture<T> made, "
                         "forgeChannelDesc<T>()"});
      break;
    }
    case Use::Fetch:
      planFetch(P, Tex, U);
      break;
    case Use::Bind:
      planBind(P, Tex, U, Fields, ChannelDescSet);
      break;
    case Use::Unbind: {
      std::optional<CharSourceRange> R = editableRange(U.Call->getSourceRange(), SM);
      if (!R) {
        P.block(U.Call->getBeginLoc(), "not rewritten: the unbind is written inside a "
                                       "macro's body; no fix is applied to '" + P.Name + "'");
        return;
      }
      edit(P, Tex, *R, "", "forgeUnbindTexture(&" + P.HostName + ")");
      break;
    }
    }
  }
}

/// Whether the place At of Text lies in a conditional block whose chain
/// (at any depth) tests __CUDA_ARCH__: code the device side compiles.
static bool underArchConditional(StringRef Text, size_t At) {
  std::vector<bool> Stack; // per open chain: it names __CUDA_ARCH__
  size_t Pos = 0;
  while (Pos < At) {
    size_t End = Text.find('\n', Pos);
    if (End == StringRef::npos)
      End = Text.size();
    StringRef Line = Text.slice(Pos, End).ltrim();
    Pos = End + 1;
    if (!Line.consume_front("#"))
      continue;
    Line = Line.ltrim();
    bool Arch = Line.contains("__CUDA_ARCH__");
    if (Line.starts_with("if")) // #if, #ifdef, #ifndef
      Stack.push_back(Arch);
    else if ((Line.starts_with("elif") || Line.starts_with("else")) && !Stack.empty())
      Stack.back() = Stack.back() || Arch;
    else if (Line.starts_with("endif") && !Stack.empty())
      Stack.pop_back();
  }
  return llvm::is_contained(Stack, true);
}

/// The places where the texture's name is written that no reference of the
/// parse accounts for: code in an #if branch the host side skips. Under an
/// #if on __CUDA_ARCH__ (`#if __CUDA_ARCH__ < 130 ... #else tex1Dfetch(t, i)
/// #endif`, SHOC's MD) the device side compiles it; under another macro
/// (`#ifdef GPU_NEW_CENTER_REDUCTION`, Rodinia's kmeans) this build does not.
/// The files searched are those of the declaration and the references;
/// comments are skipped.
std::vector<Planner::Unseen> Planner::unseenUses(const Plan &P, const std::vector<Use> &Uses) {
  std::set<std::pair<FileID, unsigned>> Seen;
  auto Add = [&](SourceLocation L) {
    SourceLocation S = SM.getSpellingLoc(L);
    Seen.insert({SM.getFileID(S), SM.getFileOffset(S)});
  };
  Add(P.Var->getLocation());
  for (const Use &U : Uses)
    Add(U.Ref->getLocation());
  std::set<FileID> Files;
  for (const auto &[F, Off] : Seen)
    Files.insert(F);
  std::vector<Unseen> Out;
  for (FileID F : Files) {
    if (!frontend::isUserLocation(SM, SM.getLocForStartOfFile(F)))
      continue;
    StringRef Text = SM.getBufferData(F);
    for (size_t At = Text.find(P.Name); At != StringRef::npos;
         At = Text.find(P.Name, At + 1)) {
      auto Ident = [](char Ch) { return isAlnum(Ch) || Ch == '_'; };
      if ((At && Ident(Text[At - 1])) ||
          (At + P.Name.size() < Text.size() && Ident(Text[At + P.Name.size()])))
        continue;
      size_t LineStart = Text.rfind('\n', At);
      LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
      if (Text.slice(LineStart, At).contains("//"))
        continue;
      StringRef Before = Text.take_front(At);
      size_t Open = Before.rfind("/*"), Close = Before.rfind("*/");
      if (Open != StringRef::npos && (Close == StringRef::npos || Close < Open))
        continue;
      if (!Seen.count({F, unsigned(At)}))
        Out.push_back({SM.getComposedLoc(F, unsigned(At)), underArchConditional(Text, At)});
    }
  }
  return Out;
}

void Planner::run(StringRef PassName) {
  // Textures first, in the order of the file; surfaces are only reported.
  std::vector<const VarDecl *> Vars = Col.Refs;
  llvm::sort(Vars, [&](const VarDecl *A, const VarDecl *B) {
    return SM.isBeforeInTranslationUnit(A->getLocation(), B->getLocation());
  });
  std::vector<Plan> Plans;
  std::map<SourceLocation, unsigned> TypeStarts;
  // Every finding is reported in the order of the file.
  std::vector<std::pair<SourceLocation, std::function<void()>>> Reports;
  for (const VarDecl *V : Vars) {
    std::optional<RefType> T = referenceType(V->getType());
    if (isa<ParmVarDecl>(V) || V->getType()->isReferenceType()) {
      Reports.push_back({V->getLocation(), [=, this] {
      C.Diag.report(PassName, Severity::Error, V->getLocation(),
                    std::string(T->Texture ? "texture" : "surface") +
                        " references were removed in CUDA 12; '" + V->getNameAsString() +
                        "' takes one: take a " +
                        (T->Texture ? "cudaTextureObject_t" : "cudaSurfaceObject_t") + " instead",
                    {}, {{V->getLocation(), "not rewritten: the texture it is given is reported "
                                            "where it is declared"}});
      }});
      continue;
    }
    if (!T->Texture) {
      Reports.push_back({V->getLocation(), [=, this] {
      C.Diag.report(PassName, Severity::Error, V->getLocation(),
                    "surface reference '" + V->getNameAsString() +
                        "': surface references were removed in CUDA 12; use a surface object "
                        "(cudaSurfaceObject_t, created with cudaCreateSurfaceObject from a "
                        "cudaResourceDesc of the array, passed to the kernels that use it)",
                    {}, {{V->getLocation(), "not rewritten: surface references are reported "
                                            "only"}});
      }});
      continue;
    }
    Plan P;
    P.Var = V;
    P.Type = *T;
    P.Name = V->getNameAsString();
    // Named namespaces qualify it; anonymous ones and extern "C" do not.
    P.HostName = P.Name;
    for (const DeclContext *DC = V->getDeclContext(); DC; DC = DC->getParent())
      if (const auto *NS = dyn_cast<NamespaceDecl>(DC); NS && !NS->isAnonymousNamespace())
        P.HostName = NS->getNameAsString() + "::" + P.HostName;
    Plans.push_back(std::move(P));
  }
  auto Flush = [&] {
    std::stable_sort(Reports.begin(), Reports.end(), [&](const auto &A, const auto &B) {
      return SM.isBeforeInTranslationUnit(A.first, B.first);
    });
    for (auto &R : Reports)
      R.second();
  };
  if (Plans.empty()) {
    Flush();
    return;
  }
  // Declarators that share their type (`texture<float> a, b;`).
  for (Plan &P : Plans)
    if (TypeSourceInfo *TSI = P.Var->getTypeSourceInfo())
      ++TypeStarts[TSI->getTypeLoc().getBeginLoc()];

  for (unsigned I = 0; I < Plans.size(); ++I) {
    Plan &P = Plans[I];
    if (TypeSourceInfo *TSI = P.Var->getTypeSourceInfo();
        TSI && TypeStarts[TSI->getTypeLoc().getBeginLoc()] > 1) {
      P.block(P.Var->getLocation(), "not rewritten: '" + P.Name + "' is declared together "
                                    "with other textures; declare each on its own");
      continue;
    }
    std::vector<Use> Uses;
    auto It = Col.Uses.find(P.Var->getCanonicalDecl());
    if (It != Col.Uses.end())
      for (const DeclRefExpr *R : It->second)
        Uses.push_back(classify(Ctx, *R));
    std::vector<Unseen> Hidden = unseenUses(P, Uses);
    if (auto D = find_if(Hidden, [](const Unseen &U) { return U.DeviceBranch; });
        D != Hidden.end()) {
      P.block(D->Loc, "not rewritten: '" + P.Name + "' is named here in a branch of an #if on "
                      "__CUDA_ARCH__ that the host side of the parse skips and the device "
                      "side compiles; rewriting the rest would leave it naming a texture "
                      "reference");
      continue;
    }
    // The first few; the rest are counted.
    for (size_t H = 0; H < Hidden.size() && H < 3; ++H)
      P.Notes.push_back(
          {Hidden[H].Loc,
           "not rewritten here: this code is not compiled in this configuration (an #if "
           "branch it leaves out); with it, '" +
               P.Name + "' would still be named as a texture reference" +
               (H == 2 && Hidden.size() > 3
                    ? " (" + std::to_string(Hidden.size() - 3) + " more such place(s))"
                    : "")});
    // The macro bodies its binds and fetches are written in, whether or not
    // they are rewritten (a body is rewritten for all its textures or none).
    for (const Use &U : Uses)
      if ((U.K == Use::Fetch || U.K == Use::Bind || U.K == Use::Unbind) &&
          U.Call->getBeginLoc().isMacroID() && editable(U.Call->getBeginLoc(), SM).isInvalid()) {
        SourceLocation S = SM.getSpellingLoc(U.Call->getBeginLoc());
        auto &B = BodyUsers[S.getRawEncoding()];
        B.Macro = Lexer::getImmediateMacroName(U.Call->getBeginLoc(), SM, Ctx.getLangOpts()).str();
        B.At = U.Call->getBeginLoc();
        B.Textures.insert(I);
      }
    for (const Use &U : Uses)
      if (U.K == Use::Fetch)
        P.Notes.push_back({U.Call->getBeginLoc(), "read here: becomes " + U.Callee.str() + "<" +
                                                      valueType(P.Type, Ctx) + ">(" + P.Name +
                                                      ", ...)"});
    planTexture(P, I, Uses);
  }

  // A macro's body is one text for all its expansions: every texture that
  // goes through it is rewritten, to the same text, or none is.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[K, B] : BodyUsers) {
      const Plan *Blocked = nullptr;
      for (unsigned T : B.Textures)
        if (Plans[T].Blocked)
          Blocked = &Plans[T];
      if (!Blocked)
        continue;
      for (unsigned T : B.Textures)
        if (!Plans[T].Blocked) {
          Plans[T].block(B.At, "not rewritten: '" + Blocked->Name +
                                   "', which is not rewritten, also goes through the body of "
                                   "macro '" + B.Macro + "'; no fix is applied to '" +
                                   Plans[T].Name + "'");
          Changed = true;
        }
    }
    for (auto &[K, E] : Edits) {
      if (!E.MacroBody || E.List)
        continue;
      bool Blocked = false;
      std::string Why;
      std::optional<std::string> Text;
      for (const auto &[Tex, T] : E.Items) {
        if (Plans[Tex].Blocked) {
          Blocked = true;
          Why = "'" + Plans[Tex].Name + "', which is not rewritten, also goes through the body "
                "of macro '" + E.MacroName + "'";
        } else if (!E.List && Text && *Text != T) {
          Blocked = true;
          Why = "the body of macro '" + E.MacroName + "' would need a different rewrite for "
                "each texture that goes through it";
        }
        if (!Text)
          Text = T;
      }
      if (!Blocked)
        continue;
      for (const auto &[Tex, T] : E.Items)
        if (!Plans[Tex].Blocked) {
          Plans[Tex].block(E.Anchor, "not rewritten: " + Why + "; no fix is applied to '" +
                                                   Plans[Tex].Name + "'");
          Changed = true;
        }
    }
  }

  // The helpers, once, before the first texture that is rewritten.
  const Plan *First = nullptr;
  for (const Plan &P : Plans)
    if (!P.Blocked) {
      First = &P;
      break;
    }
  std::string HelperKey;
  if (First) {
    // At namespace scope of the translation unit, outside any namespace or
    // extern "C" block, so that every caller finds them (and a template may
    // be declared there).
    const Decl *Top = First->Var;
    for (const DeclContext *DC = Top->getDeclContext(); DC && !isa<TranslationUnitDecl>(DC);
         DC = DC->getParent())
      if (const auto *D = dyn_cast<Decl>(DC))
        Top = D;
    SourceLocation At = editable(Top->getBeginLoc(), SM);
    if (At.isValid()) {
      CharSourceRange R = insertionAt(At);
      HelperKey = key(R);
      Edits[HelperKey].Range = R;
      Edits[HelperKey].Items = {{0, std::string(Helpers) + "\n"}};
    }
  }

  for (unsigned I = 0; I < Plans.size(); ++I) {
    Plan &P = Plans[I];
    std::string Msg = "texture reference '" + P.Name +
                      "': texture references were removed in CUDA 12 (CUDA 13 has none); use a "
                      "texture object (cudaTextureObject_t, created with "
                      "cudaCreateTextureObject and passed to the kernels that read it)";
    std::vector<FixItHint> Fixes;
    std::vector<std::pair<SourceLocation, std::string>> Notes;
    if (P.Blocked || HelperKey.empty()) {
      if (P.Blocked)
        Notes.push_back(*P.Blocked);
      else
        Notes.push_back({P.Var->getLocation(), "not rewritten: the declaration is written "
                                               "inside a macro"});
      for (auto &N : P.Notes)
        if (N.second.rfind("read here", 0) == 0 || N.second.rfind("bound here", 0) == 0)
          Notes.push_back({N.first, N.second.substr(0, N.second.find(':'))});
    } else {
      Notes = P.Notes;
      std::stable_sort(Notes.begin(), Notes.end(), [&](const auto &A, const auto &B) {
        return SM.isBeforeInTranslationUnit(A.first, B.first);
      });
      std::vector<std::string> Keys = P.EditKeys;
      Keys.insert(Keys.begin(), HelperKey);
      for (const std::string &K : Keys) {
        const SharedEdit &E = Edits[K];
        std::vector<std::string> Items;
        for (const auto &[Tex, Text] : E.Items)
          if ((K == HelperKey || !Plans[Tex].Blocked) && (E.List || !is_contained(Items, Text)))
            Items.push_back(Text);
        Fixes.push_back(FixItHint::CreateReplacement(E.Range, E.Prefix + join(Items, ", ")));
      }
    }
    Reports.push_back({P.Var->getLocation(), [=, this] {
      C.Diag.report(PassName, Severity::Error, P.Var->getLocation(), Msg, Fixes, Notes);
    }});
  }
  Flush();
}

} // namespace

void TextureReferences::finish(PassContext &C) {
  if (C.S != frontend::Side::Host)
    return;
  Collector Col(C.Ctx.getSourceManager());
  Col.TraverseDecl(C.Ctx.getTranslationUnitDecl());
  if (Col.Refs.empty())
    return;
  Planner(C, Col).run(name());
}

} // namespace forge::passes
