//===- passes/optimize/SharedPaddingRule.cpp - shared-padding ---------------===//
///
/// \file
/// A multi-dimensional `__shared__` array whose rows are a multiple of 32
/// banks long is read or written down a column by the lanes of a warp
/// (`tile[threadIdx.x][k]`, the column pass of a tiled transpose): every
/// lane's word falls in the same bank and the access is replayed up to 32
/// times. Padding the last dimension (`[32]` -> `[32 + 1]`) moves each row
/// one bank on, and the same access touches 32 banks once each.
///
/// The rule evaluates, for the first warp of the launch's block, which
/// words of shared memory each access of the array touches (the model's
/// index form of every subscript, warp-uniform parts dropped: a common shift
/// does not change the conflicts), counts the conflict degree (distinct
/// words in one bank, per phase of the access width), and pads by the
/// fewest elements that minimise the worst degree over all the array's
/// accesses (docs/passes/shared-padding.md).
///
//===----------------------------------------------------------------------===//
#include "FormCode.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

using analysis::AtomId;
using analysis::AtomKind;
using analysis::AtomTable;
using analysis::IndexForm;

constexpr int64_t WarpSize = 32;
constexpr int64_t Banks = 32;
/// Static shared memory one block may declare without opting in.
constexpr int64_t StaticSharedLimit = 48 * 1024;

/// A `__shared__ T a[D0][D1]...` of the kernel body with constant extents.
struct SharedArray {
  const VarDecl *Var = nullptr;
  std::vector<int64_t> Dims;
  uint64_t ElemBytes = 0;
  /// The size expression of the last dimension, where the padding goes.
  const Expr *LastSize = nullptr;
};

/// One access of the array: its subscripts' forms, outermost first.
struct Subscripted {
  std::vector<IndexForm> Subs;
  unsigned Line = 0;
  std::string Text;
};

/// Whether atom A may differ between the lanes of a warp.
bool varies(AtomId A, const AtomTable &T) {
  const analysis::Atom &At = T[A];
  if (At.Kind == AtomKind::ThreadIdx)
    return true;
  for (const IndexForm &O : At.Operands)
    for (AtomId B : O.atoms())
      if (varies(B, T))
        return true;
  return !At.Uniform.atLeast(analysis::Uniformity::WarpUniform);
}

/// F in the thread Tid up to a shift common to the warp: the terms that
/// do not vary between lanes (loop counters, blockIdx, parameters) are
/// dropped, the others evaluated exactly; none when a varying term has a
/// factor the lanes do not fix (`n * threadIdx.x`, a loaded value).
std::optional<int64_t> laneValue(const IndexForm &F, const AtomTable &T,
                                 const std::array<int64_t, 3> &Tid) {
  if (F.overflowed())
    return std::nullopt;
  IndexForm Varying;
  for (const auto &[Mono, Coef] : F.terms())
    if (llvm::any_of(Mono, [&](AtomId A) { return varies(A, T); })) {
      IndexForm Term = IndexForm::constant(Coef);
      for (AtomId A : Mono)
        Term = Term * IndexForm::atom(A);
      Varying = Varying + Term;
    }
  // What varies is exact: thread indices, and quotients, remainders, min
  // and max of them (evaluateForm evaluates those from their operands).
  return evaluateForm(Varying, T, [&](const analysis::Atom &A) -> std::optional<int64_t> {
    if (A.Kind == AtomKind::ThreadIdx)
      return Tid[A.Dim - 'x'];
    return std::nullopt;
  });
}

/// The worst number of distinct words that the lanes of one phase put in
/// one bank, for element offsets Offs (one per lane of the warp).
int64_t conflictDegree(ArrayRef<int64_t> Offs, uint64_t ElemBytes) {
  // An access wider than 4 bytes is served in phases: 8 bytes in two
  // half-warps, 16 bytes in four quarter-warps.
  int64_t Words = std::max<int64_t>(1, int64_t(ElemBytes) / 4);
  int64_t PhaseLanes = WarpSize / std::min<int64_t>(Words, 4);
  int64_t Worst = 1;
  for (size_t P = 0; P < Offs.size(); P += PhaseLanes) {
    std::map<int64_t, std::set<int64_t>> ByBank;
    for (size_t L = P; L < std::min<size_t>(Offs.size(), P + PhaseLanes); ++L)
      for (int64_t W = 0; W < Words; ++W) {
        int64_t Word = (Offs[L] * int64_t(ElemBytes)) / 4 + W;
        ByBank[((Word % Banks) + Banks) % Banks].insert(Word);
      }
    for (const auto &[Bank, Set] : ByBank)
      Worst = std::max<int64_t>(Worst, Set.size());
  }
  return Worst;
}

/// The arrays of the kernel body a padding may change: `__shared__`, not
/// extern, two or more constant extents, a known element size.
std::vector<SharedArray> sharedArrays(const FunctionDecl &K, ASTContext &Ctx) {
  struct Finder : RecursiveASTVisitor<Finder> {
    ASTContext &Ctx;
    std::vector<SharedArray> Out;
    explicit Finder(ASTContext &Ctx) : Ctx(Ctx) {}
    bool VisitVarDecl(VarDecl *V) {
      if (!V->hasAttr<CUDASharedAttr>() || V->hasExternalStorage())
        return true;
      SharedArray A;
      A.Var = V;
      QualType T = V->getType();
      while (const auto *CA = Ctx.getAsConstantArrayType(T)) {
        A.Dims.push_back(CA->getSize().getSExtValue());
        T = CA->getElementType();
      }
      if (A.Dims.size() < 2 || T->isDependentType() || T->isIncompleteType())
        return true;
      A.ElemBytes = Ctx.getTypeSizeInChars(T).getQuantity();
      TypeLoc TL = V->getTypeSourceInfo() ? V->getTypeSourceInfo()->getTypeLoc() : TypeLoc();
      while (auto AL = TL.getAs<ArrayTypeLoc>()) {
        A.LastSize = AL.getSizeExpr();
        TL = AL.getElementLoc();
      }
      if (A.LastSize)
        Out.push_back(std::move(A));
      return true;
    }
  } F(Ctx);
  F.TraverseStmt(K.getBody());
  return F.Out;
}

/// Every reference to A's variable, as the full subscript chain it heads;
/// the reason in words when one is anything else (a row or the array as a
/// pointer, sizeof, an address with arithmetic on it).
Expected<std::vector<const ArraySubscriptExpr *>> fullSubscripts(const SharedArray &A,
                                                                 const FunctionDecl &K,
                                                                 ASTContext &Ctx) {
  std::vector<const ArraySubscriptExpr *> Out;
  for (const DeclRefExpr *R : referencesTo(A.Var, K.getBody())) {
    const Expr *Cur = R;
    size_t Depth = 0;
    while (true) {
      auto Parents = Ctx.getParents(*Cur);
      if (Parents.size() != 1)
        break;
      const auto *P = Parents[0].get<Expr>();
      if (!P)
        break;
      if (isa<ImplicitCastExpr, ParenExpr>(P)) {
        Cur = P;
        continue;
      }
      const auto *S = dyn_cast<ArraySubscriptExpr>(P);
      if (!S || S->getBase()->IgnoreParenImpCasts() != Cur->IgnoreParenImpCasts())
        break;
      Cur = S;
      ++Depth;
    }
    unsigned Line = Ctx.getSourceManager().getPresumedLineNumber(R->getBeginLoc());
    if (Depth != A.Dims.size())
      return createStringError(
          inconvertibleErrorCode(),
          formatv("'{0}' is used at line {1} other than as one element ('{0}[i][j]'): a padded "
                  "row would change what that use sees",
                  A.Var->getName(), Line));
    // An element's address may be taken for an atomic or a load, not moved.
    auto Parents = Ctx.getParents(*Cur);
    if (Parents.size() == 1)
      if (const auto *U = Parents[0].get<UnaryOperator>(); U && U->getOpcode() == UO_AddrOf) {
        auto Up = Ctx.getParents(*U);
        const Expr *Next = Up.size() == 1 ? Up[0].get<Expr>() : nullptr;
        while (Next && isa<ImplicitCastExpr, ParenExpr>(Next)) {
          auto More = Ctx.getParents(*Next);
          Next = More.size() == 1 ? More[0].get<Expr>() : nullptr;
        }
        if (!Next || !isa<CallExpr>(Next))
          return createStringError(
              inconvertibleErrorCode(),
              formatv("the address of an element of '{0}' is kept at line {1}: arithmetic on it "
                      "would cross the padding",
                      A.Var->getName(), Line));
      }
    Out.push_back(cast<ArraySubscriptExpr>(Cur));
  }
  return Out;
}

/// The subscripts of a full chain, outermost dimension first.
std::vector<const Expr *> subscriptsOf(const ArraySubscriptExpr *S) {
  std::vector<const Expr *> Out;
  const Expr *E = S;
  while (const auto *A = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts())) {
    Out.insert(Out.begin(), A->getIdx());
    E = A->getBase();
  }
  return Out;
}

class SharedPaddingRule : public ExpertRule {
public:
  StringRef name() const override { return "shared-padding"; }

  RuleOutcome propose(const RuleInput &In) override {
    ASTContext &Ctx = In.Ctx;
    std::vector<SharedArray> Arrays = sharedArrays(In.Kernel, Ctx);
    if (Arrays.empty())
      return notApplicable("no __shared__ array of two or more dimensions with constant extents "
                           "in the kernel body (a 1D array's index is its layout)");
    if (!In.Request.Block)
      return notApplicable("the block shape is not known, so which lanes form a warp cannot be "
                           "told (give a spec or --block)");
    const std::array<int64_t, 3> Block = *In.Request.Block;
    if (Block[0] * Block[1] * Block[2] < WarpSize)
      return notApplicable("the block has fewer threads than a warp");
    auto M = kernelModel(In);
    if (!M)
      return notApplicable(toString(M.takeError()));

    int64_t SharedBytes = 0;
    for (const SharedArray &A : Arrays) {
      int64_t N = int64_t(A.ElemBytes);
      for (int64_t D : A.Dims)
        N *= D;
      SharedBytes += N;
    }

    EditCollector C(In);
    std::vector<std::string> Done, Reasons;
    for (const SharedArray &A : Arrays) {
      auto Chains = fullSubscripts(A, In.Kernel, Ctx);
      if (!Chains) {
        Reasons.push_back(toString(Chains.takeError()));
        continue;
      }
      // Each access's element offset per lane, as a function of the row
      // length (the last extent, padded or not).
      std::vector<Subscripted> Uses;
      std::string Unknown;
      for (const ArraySubscriptExpr *S : *Chains) {
        Subscripted U;
        U.Line = Ctx.getSourceManager().getPresumedLineNumber(S->getBeginLoc());
        U.Text = textOf(S, Ctx);
        for (const Expr *I : subscriptsOf(S))
          U.Subs.push_back(M->formOf(I));
        Uses.push_back(std::move(U));
      }
      auto Offsets = [&](const Subscripted &U,
                         int64_t Pad) -> std::optional<std::vector<int64_t>> {
        std::vector<int64_t> Offs;
        for (int64_t L = 0; L < WarpSize; ++L) {
          std::array<int64_t, 3> Tid{L % Block[0], (L / Block[0]) % Block[1],
                                     L / (Block[0] * Block[1])};
          int64_t Off = 0;
          for (size_t D = 0; D < U.Subs.size(); ++D) {
            auto V = laneValue(U.Subs[D], M->atoms(), Tid);
            if (!V)
              return std::nullopt;
            int64_t Stride = 1;
            for (size_t E = D + 1; E < A.Dims.size(); ++E)
              Stride *= E + 1 == A.Dims.size() ? A.Dims[E] + Pad : A.Dims[E];
            Off += *V * Stride;
          }
          Offs.push_back(Off);
        }
        return Offs;
      };
      auto Worst = [&](int64_t Pad, std::string *Where) -> std::optional<int64_t> {
        int64_t W = 1;
        bool Any = false;
        for (const Subscripted &U : Uses) {
          auto Offs = Offsets(U, Pad);
          if (!Offs)
            continue; // not evaluable: neither counted nor changed
          Any = true;
          int64_t D = conflictDegree(*Offs, A.ElemBytes);
          if (D > W && Where)
            *Where = formatv("'{0}' (line {1})", U.Text, U.Line).str();
          W = std::max(W, D);
        }
        return Any ? std::optional<int64_t>(W) : std::nullopt;
      };
      std::string Where;
      auto Before = Worst(0, &Where);
      if (!Before) {
        Reasons.push_back(formatv("no access of '{0}' has lane addresses the model can evaluate",
                                  A.Var->getName())
                              .str());
        continue;
      }
      if (*Before < 2) {
        Reasons.push_back(formatv("the accesses of '{0}' are free of bank conflicts for the "
                                  "block {1} x {2} x {3}",
                                  A.Var->getName(), Block[0], Block[1], Block[2])
                              .str());
        continue;
      }
      // The fewest elements of padding that give the fewest conflicts; a
      // row moved by one bank (4 bytes) at most needs 32 elements' worth.
      int64_t Unit = A.ElemBytes < 4 ? 4 / int64_t(A.ElemBytes) : 1;
      int64_t BestPad = 0, BestDeg = *Before;
      for (int64_t Pad = Unit; Pad <= 8 * Unit; Pad += Unit) {
        auto D = Worst(Pad, nullptr);
        if (D && *D < BestDeg) {
          BestDeg = *D;
          BestPad = Pad;
        }
        if (BestDeg == 1)
          break;
      }
      if (!BestPad) {
        Reasons.push_back(formatv("padding the rows of '{0}' does not lower its {1}-way bank "
                                  "conflicts at {2}",
                                  A.Var->getName(), *Before, Where)
                              .str());
        continue;
      }
      int64_t Rows = int64_t(A.ElemBytes) * BestPad;
      for (size_t D = 0; D + 1 < A.Dims.size(); ++D)
        Rows *= A.Dims[D];
      if (SharedBytes + Rows > StaticSharedLimit) {
        Reasons.push_back(formatv("padding '{0}' would take the block's static shared memory "
                                  "past 48 KiB",
                                  A.Var->getName())
                              .str());
        continue;
      }
      // After the extent as written (`[TILE]` -> `[TILE + 1]`).
      auto Size = C.rangeOf(A.LastSize->getSourceRange());
      if (!Size) {
        Reasons.push_back(formatv("the last extent of '{0}' is not plain text of the file",
                                  A.Var->getName())
                              .str());
        continue;
      }
      C.add({Size->second, 0, formatv(" + {0}", BestPad).str()});
      SharedBytes += Rows;
      Done.push_back(formatv("'{0}': rows of {1} + {2} elements ({3}-way -> {4}-way at {5})",
                             A.Var->getName(), A.Dims.back(), BestPad, *Before, BestDeg, Where)
                         .str());
    }
    if (Done.empty())
      return notApplicable(join(Reasons, "; "));

    std::string Rationale =
        "Shared memory has 32 banks of 4 bytes; the lanes of a warp that touch different words "
        "of one bank are served one after the other. " +
        join(Done, "; ") +
        ". A padded row starts one bank later than the row before, so a warp walking down a "
        "column meets every bank once. Only the array's declaration changes: every use is an "
        "element a[i][j], whose place the compiler recomputes with the new row length.";
    Rationale += formatv("\nPreconditions (kernel model and AST): a __shared__ array of the "
                         "kernel with constant extents, used only as whole elements (an "
                         "element's address only as a call's argument); conflicts counted for "
                         "the first warp of the block {0} x {1} x {2} from each subscript's "
                         "index form, warp-uniform parts (loop counters, blockIdx) dropped; "
                         "the padded block stays within 48 KiB of static shared memory.",
                         Block[0], Block[1], Block[2])
                     .str();
    if (!Reasons.empty())
      Rationale += "\nNot padded: " + join(Reasons, "; ") + ".";
    return proposeEdits(In, name(), "pad the rows of " + join(Done, ", "), Rationale, C.edits());
  }
};

} // namespace

std::unique_ptr<ExpertRule> createSharedPaddingRule() {
  return std::make_unique<SharedPaddingRule>();
}

} // namespace forge::passes
