//===- Agent/SourceCheck.cpp - What an edit may change --------------------===//
#include "forge/Agent/SourceCheck.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Analysis/ModelRender.h"
#include "forge/Experience/Experience.h"
#include "forge/Frontend/CudaParser.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/ADT/StringExtras.h"
#include <functional>
#include <map>
#include <regex>

using namespace clang;
using namespace llvm;

namespace forge::agent {

bool KernelContract::editable(unsigned First, unsigned Last) const {
  return any_of(Editable, [&](const LineSpan &S) { return S.First <= First && Last <= S.Last; });
}

namespace {

/// The type with const, volatile and __restrict__ removed at the top level
/// and on the pointee: adding const or restrict does not change what a
/// caller passes.
std::string looseType(QualType T, const ASTContext &Ctx) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *P = T->getAs<clang::PointerType>()) {
    QualType Pointee = P->getPointeeType().getUnqualifiedType();
    return Pointee.getAsString(Ctx.getPrintingPolicy()) + " *";
  }
  return T.getAsString(Ctx.getPrintingPolicy());
}

std::string signatureOf(const FunctionDecl &F, const ASTContext &Ctx) {
  std::string S;
  if (const FunctionTemplateDecl *T = F.getDescribedFunctionTemplate()) {
    std::vector<std::string> Parts;
    for (const NamedDecl *P : *T->getTemplateParameters()) {
      if (isa<TemplateTypeParmDecl>(P))
        Parts.push_back("typename");
      else if (const auto *N = dyn_cast<NonTypeTemplateParmDecl>(P))
        Parts.push_back(looseType(N->getType(), Ctx));
      else
        Parts.push_back("template");
    }
    S += "template<" + join(Parts, ", ") + "> ";
  }
  std::vector<std::string> Params;
  for (const ParmVarDecl *P : F.parameters())
    Params.push_back(looseType(P->getType(), Ctx));
  return S + looseType(F.getReturnType(), Ctx) + "(" + join(Params, ", ") + ")";
}

class Collector : public DynamicRecursiveASTVisitor {
public:
  Collector(ASTContext &Ctx, StringRef Kernel, StringRef File, KernelContract &Out)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Kernel(Kernel), File(File), Out(Out) {
    ShouldVisitTemplateInstantiations = false;
  }

  bool TraverseFunctionDecl(FunctionDecl *F) override {
    const FunctionDecl *Outer = Enclosing;
    Enclosing = F;
    bool Ok = DynamicRecursiveASTVisitor::TraverseFunctionDecl(F);
    Enclosing = Outer;
    return Ok;
  }

  bool VisitFunctionDecl(FunctionDecl *F) override {
    if (!F->doesThisDeclarationHaveABody() || F->isImplicit())
      return true;
    SourceLocation Begin = F->getBeginLoc();
    if (const FunctionTemplateDecl *T = F->getDescribedFunctionTemplate())
      Begin = T->getBeginLoc();
    if (!inMain(Begin))
      return true;
    bool Device = F->hasAttr<CUDAGlobalAttr>() || F->hasAttr<CUDADeviceAttr>();
    if (Device)
      Out.Editable.push_back({line(Begin), line(F->getEndLoc())});
    if (F->hasAttr<CUDAGlobalAttr>() &&
        (F->getQualifiedNameAsString() == Kernel || F->getNameAsString() == Kernel)) {
      Out.Found = true;
      Out.Signature = signatureOf(*F, Ctx);
      if (F->getBody()) {
        hotLines(*F);
        // The kernel model (`forge-port analyze`), for prompts and reports.
        if (auto M = analysis::analyzeKernel(Ctx, *F)) {
          // Lines named by the file as the user named it, not the parser's
          // absolute path.
          Out.Model = analysis::renderText(*M);
          Out.Pattern = experience::patternKey(*M);
          Out.Family = experience::patternFamily(*M);
          std::string From = M->File + ":", To = File + ":";
          for (size_t At = 0; !M->File.empty() && From != To &&
                              (At = Out.Model.find(From, At)) != std::string::npos;
               At += To.size())
            Out.Model.replace(At, From.size(), To);
        } else
          consumeError(M.takeError());
      }
    }
    return true;
  }

  /// The global accesses per line of Kernel's body (HotLine).
  void hotLines(const FunctionDecl &K) {
    std::map<unsigned, HotLine> Lines;
    std::function<void(const Stmt *, uint64_t, bool)> Walk = [&](const Stmt *S, uint64_t W,
                                                                  bool Unknown) {
      if (!S)
        return;
      if (const auto *For = dyn_cast<ForStmt>(S)) {
        std::optional<uint64_t> Trip = tripCount(*For);
        uint64_t W2 = Trip ? W * std::max<uint64_t>(*Trip, 1) : W;
        for (const Stmt *C : For->children())
          Walk(C, C == For->getBody() ? W2 : W, Unknown || (!Trip && C == For->getBody()));
        return;
      }
      if (isa<WhileStmt>(S) || isa<DoStmt>(S)) {
        for (const Stmt *C : S->children())
          Walk(C, W, true);
        return;
      }
      const Expr *Base = nullptr;
      if (const auto *A = dyn_cast<ArraySubscriptExpr>(S))
        Base = A->getBase();
      else if (const auto *U = dyn_cast<UnaryOperator>(S); U && U->getOpcode() == UO_Deref)
        Base = U->getSubExpr();
      if (Base) {
        if (const auto *D = dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()))
          if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl());
              P && P->getType()->isPointerType()) {
            unsigned L = line(S->getBeginLoc());
            HotLine &H = Lines[L];
            H.Line = L;
            H.Weight = std::max(H.Weight, W);
            H.InUnknownLoop |= Unknown;
            if (isWritten(cast<Expr>(S)))
              ++H.Stores;
            else
              ++H.Loads;
          }
      }
      for (const Stmt *C : S->children())
        Walk(C, W, Unknown);
    };
    Walk(K.getBody(), 1, false);
    StringRef Buf = SM.getBufferData(SM.getMainFileID());
    for (auto &[L, H] : Lines) {
      StringRef Rest = Buf;
      for (unsigned I = 1; I < L && !Rest.empty(); ++I)
        Rest = Rest.split('\n').second;
      H.Text = Rest.split('\n').first.trim().str();
      Out.Hot.push_back(H);
    }
    llvm::stable_sort(Out.Hot, [](const HotLine &A, const HotLine &B) {
      if (A.InUnknownLoop != B.InUnknownLoop)
        return A.InUnknownLoop;
      return A.perThread() > B.perThread();
    });
  }

  std::optional<uint64_t> tripCount(const ForStmt &F) const {
    const auto *Cond = dyn_cast_or_null<BinaryOperator>(F.getCond());
    if (!Cond || (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE))
      return std::nullopt;
    const VarDecl *V = nullptr;
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(F.getInit()); DS && DS->isSingleDecl())
      V = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!V || !V->getInit())
      return std::nullopt;
    Expr::EvalResult Lo, Hi;
    if (!V->getInit()->EvaluateAsInt(Lo, Ctx) || !Cond->getRHS()->EvaluateAsInt(Hi, Ctx))
      return std::nullopt;
    const auto *Inc = dyn_cast_or_null<UnaryOperator>(F.getInc());
    if (!Inc || !Inc->isIncrementOp())
      return std::nullopt;
    int64_t N = Hi.Val.getInt().getExtValue() - Lo.Val.getInt().getExtValue() +
                (Cond->getOpcode() == BO_LE ? 1 : 0);
    return N > 0 ? uint64_t(N) : 0;
  }

  bool isWritten(const Expr *E) const {
    DynTypedNodeList Parents = Ctx.getParents(*E);
    if (Parents.empty())
      return false;
    if (const auto *B = Parents[0].get<BinaryOperator>())
      return B->isAssignmentOp() && B->getLHS()->IgnoreParenImpCasts() == E;
    if (const auto *C = Parents[0].get<CompoundAssignOperator>())
      return C->getLHS()->IgnoreParenImpCasts() == E;
    if (const auto *U = Parents[0].get<UnaryOperator>())
      return U->isIncrementDecrementOp();
    return false;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) override {
    if (!inMain(E->getBeginLoc()))
      return true;
    Out.Editable.push_back({line(E->getBeginLoc()), line(E->getEndLoc())});
    std::string Name;
    if (const FunctionDecl *F = E->getDirectCallee())
      Name = F->getQualifiedNameAsString();
    else if (const auto *U = dyn_cast<UnresolvedLookupExpr>(E->getCallee()->IgnoreImplicit()))
      Name = U->getName().getAsString();
    else if (const auto *D = dyn_cast<DeclRefExpr>(E->getCallee()->IgnoreImplicit()))
      Name = D->getDecl()->getQualifiedNameAsString();
    StringRef Simple = StringRef(Kernel).rsplit("::").second;
    if (Simple.empty())
      Simple = Kernel;
    if (Name == Kernel || StringRef(Name).rsplit("::").second == Simple || Name == Simple) {
      std::string Where = "file scope";
      if (Enclosing)
        Where = Enclosing->getNameAsString();
      Out.Launches.push_back(Where + ": " + std::to_string(E->getNumArgs()) + " args");
    }
    return true;
  }

private:
  bool inMain(SourceLocation L) const {
    L = SM.getExpansionLoc(L);
    return L.isValid() && SM.isInMainFile(L);
  }
  unsigned line(SourceLocation L) const { return SM.getExpansionLineNumber(L); }

  ASTContext &Ctx;
  SourceManager &SM;
  std::string Kernel;
  std::string File;
  KernelContract &Out;
  const FunctionDecl *Enclosing = nullptr;
};

/// The lines of After that Before does not have (as a multiset).
std::vector<std::string> addedLines(StringRef Before, StringRef After) {
  std::map<std::string, int> Have;
  SmallVector<StringRef, 0> Lines;
  Before.split(Lines, '\n');
  for (StringRef L : Lines)
    ++Have[L.trim().str()];
  Lines.clear();
  After.split(Lines, '\n');
  std::vector<std::string> Out;
  for (StringRef L : Lines) {
    auto It = Have.find(L.trim().str());
    if (It != Have.end() && It->second > 0)
      --It->second;
    else
      Out.push_back(L.trim().str());
  }
  return Out;
}

struct Pattern {
  const char *Regex;
  const char *Why;
};

std::vector<std::string> scan(StringRef Before, StringRef After, ArrayRef<Pattern> Patterns) {
  std::vector<std::string> Out;
  for (const std::string &L : addedLines(Before, After)) {
    StringRef Code = StringRef(L).split("//").first;
    for (const Pattern &P : Patterns) {
      std::regex R(P.Regex);
      std::smatch M;
      std::string Line = Code.str();
      if (std::regex_search(Line, M, R)) {
        std::string Reason = P.Why;
        std::string Found = M.size() > 1 && M[1].matched ? M[1].str() : M[0].str();
        std::string Text = "'" + StringRef(Found).trim().str() + "' (" + Reason + ")";
        if (!is_contained(Out, Text))
          Out.push_back(Text);
      }
    }
  }
  return Out;
}

} // namespace

Expected<KernelContract> SourceChecker::analyse(StringRef File, StringRef Contents,
                                                StringRef Kernel,
                                                const arch::TargetInfo &Target) const {
  frontend::ParseOptions PO = Opts;
  PO.Target = &Target;
  frontend::ParseRequest Req;
  Req.File = File.str();
  Req.S = frontend::Side::Device;
  Req.Contents = Contents.str();
  frontend::ParseDiagnostics Diags(nullptr);
  Diags.RedactOtherFiles = true;
  KernelContract Out;
  EditFactCollector Facts;
  Req.OnBegin = [&](CompilerInstance &CI) { Facts.attach(CI); };
  if (Error E = frontend::parseCuda(TC, PO, Req, Diags,
                                    [&](ASTContext &Ctx, CompilerInstance &,
                                        const frontend::PreprocessorFacts &PF) {
                                      Collector C(Ctx, Kernel, File, Out);
                                      C.TraverseDecl(Ctx.getTranslationUnitDecl());
                                      Facts.collect(Ctx, PF);
                                    }))
    return std::move(E);
  Out.Facts = Facts.take();
  Out.ParseErrors = Diags.errors();
  Out.ErrorMessages = Diags.errorMessages();
  sort(Out.Launches);
  return Out;
}

std::string describeHotLines(const std::vector<HotLine> &Hot, unsigned Max) {
  std::vector<std::string> Parts;
  for (const HotLine &H : Hot) {
    if (Parts.size() == Max)
      break;
    std::string P = "line " + std::to_string(H.Line) + " (";
    if (H.InUnknownLoop)
      P += "in a loop with a run-time trip count: ";
    P += std::to_string(H.Loads) + " load(s), " + std::to_string(H.Stores) + " store(s)";
    if (H.Weight > 1)
      P += " x " + std::to_string(H.Weight) + " iterations = " + std::to_string(H.perThread()) +
           " per thread";
    P += "): " + H.Text;
    Parts.push_back(P);
  }
  return Parts.empty() ? "" : "global memory accesses by line: " + join(Parts, "; ");
}

std::vector<std::string> scanForLowerPrecision(StringRef Before, StringRef After) {
  static const Pattern Patterns[] = {
      {"\\b(__half2?|half2?|__nv_bfloat162?|nv_bfloat162?|__nv_fp8_[a-z0-9]+)\\b",
       "a 16-bit or 8-bit floating-point type"},
      {"\\b(__float2half[a-z_0-9]*|__float2bfloat16[a-z_0-9]*|__double2float_r[a-z])[ \t]*\\(",
       "a conversion to lower precision"},
      {"\\b(__expf|__exp10f|__logf|__log2f|__log10f|__sinf|__cosf|__tanf|__powf|__fdividef|"
       "__saturatef|__frcp_r[nzud]|__fsqrt_r[nzud])[ \t]*\\(",
       "a fast-math intrinsic with lower accuracy"},
  };
  return scan(Before, After, Patterns);
}

} // namespace forge::agent
