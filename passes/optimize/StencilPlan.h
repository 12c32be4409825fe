//===- passes/optimize/StencilPlan.h - Stencil footprints as plans -*- C++ -*-===//
///
/// \file
/// What the stencil rules (smem-stencil-tiling, stencil-register-rows) share:
/// a footprint of the kernel model (analysis::Footprint) turned into a plan
/// of the elements a block or thread reads (TilePlan: per dimension its
/// position, offsets, clamps and guard bounds, and the index of an element
/// at given coordinates), FormPrinter for writing index forms as C (clamps
/// and selects included), the load of one element with the original's
/// border handling, and the facts about a body that decide whether it may
/// be repeated per output (BuiltinFinder, collective calls, escapes).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_STENCILPLAN_H
#define FORGE_PASSES_OPTIMIZE_STENCILPLAN_H

#include "RuleUtil.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace forge::passes::stencil {

namespace an = forge::analysis;
using an::AtomId;
using an::AtomKind;
using an::IndexForm;

/// Prints index forms as C expressions for the code the rule writes. In
/// wide mode the value is computed in `long long` whatever the types of the
/// atoms (builtins are unsigned, a product of two int parameters may
/// overflow), so that negative halo coordinates and large images compare
/// and index as the forms say.
class FormPrinter {
public:
  explicit FormPrinter(const an::AtomTable &T) : T(T) {}

  /// Spells A as Text (a local the rule declares, a remapped builtin);
  /// Wide says the text is a long long.
  void spell(AtomId A, std::string Text, bool Wide) { Names[A] = {std::move(Text), Wide}; }

  std::optional<std::string> print(const IndexForm &F, bool Wide);
  std::optional<std::string> print(const an::Comparison &C, bool Wide) {
    auto L = print(C.Lhs, Wide), R = print(C.Rhs, Wide);
    if (!L || !R)
      return std::nullopt;
    return *L + " " + an::cmpOpSpelling(C.Op).str() + " " + *R;
  }
  /// Why the last print failed.
  const std::string &why() const { return Why; }

private:
  struct Text {
    std::string S;
    bool Wide = false;
  };
  std::optional<Text> atom(AtomId A, bool Wide);
  static std::string cast(const std::string &S) {
    bool Simple = llvm::all_of(S, [](char C) { return llvm::isAlnum(C) || C == '_' || C == '.'; });
    return Simple ? "(long long)" + S : "(long long)(" + S + ")";
  }

  const an::AtomTable &T;
  std::map<AtomId, Text> Names;
  std::string Why;
};

/// One dimension of a staged footprint.
struct TileDim {
  IndexForm Stride, Position, Lo, Hi;
  /// The stride as the model writes it ("1", "w").
  std::string StrideText;
  /// The thread index that moves along it ('x', 'y', 'z'), or 0 when only
  /// the block does (a row per block).
  char ThreadDim = 0;
  /// The atom that takes an element's coordinate in the substitution:
  /// threadIdx.ThreadDim, or the blockIdx component of a block-only dimension.
  AtomId Moving = 0;
  /// The block's first position along it (Position without threadIdx).
  IndexForm Origin;
  /// Threads of the block along it (1 for a block-only dimension).
  int64_t Threads = 1;
  /// The element coordinate, and the same clamped as the reads clamp it,
  /// as atoms of the model's table (the loader's locals).
  AtomId E = 0, EC = 0;
  /// The reads' clamps, as bounds on E.
  std::optional<IndexForm> ClampLo, ClampHi;
  /// The elements that exist, E in [BoundLo, BoundHi], on the sides no
  /// clamp bounds.
  std::optional<IndexForm> BoundLo, BoundHi;
};

/// A footprint the rule stages, and how.
struct TilePlan {
  const an::Footprint *F = nullptr;
  const clang::ParmVarDecl *Param = nullptr;
  clang::QualType Elem;
  std::string Buffer;
  std::vector<TileDim> Dims;
  /// The loads it replaces, and their offsets (Footprint::Offsets).
  std::vector<const an::Access *> Reads;
  std::vector<std::vector<IndexForm>> Offsets;
  /// The value of tile element E: the index the reads agree on.
  IndexForm LoadIndex;
  /// The number of reads per output (the footprint's points).
  std::string Points;
  int64_t PointsValue = 0;
};

/// Whether F mentions an atom of one of the kinds, directly or inside
/// composites; the first such atom.
std::optional<AtomId> findKind(const an::AtomTable &T, const IndexForm &F,
                               std::initializer_list<AtomKind> Kinds);

/// What one guard term of a read says about the element the read takes: a
/// bound on one of its coordinates, `e_Dim >= Bound` (Lower) or `e_Dim <=
/// Bound`, with Bound uniform in the block.
struct CoordinateBound {
  unsigned Dim = 0;
  bool Lower = true;
  IndexForm Bound;
};

/// A test of the border in the body (a guard term of the stencil's reads)
/// that holds for a thread all of whose elements lie within B: a copy of
/// the body for such interior threads may take it as known (Cond as Holds).
struct BorderCheck {
  const clang::Expr *Cond = nullptr;
  bool Holds = true;
  CoordinateBound B;
};

inline std::string lineOf(const an::SourceSpan &S) { return std::to_string(S.Line); }

class Planner {
public:
  Planner(const agent::RuleInput &In, an::KernelModel &M, std::array<int64_t, 3> Block)
      : In(In), M(M), T(M.atoms()), Block(Block) {}

  /// The plan for one stencil's footprint, or why it cannot be staged.
  llvm::Expected<TilePlan> plan(const an::Footprint &F);
  /// Lets a dimension's position be loop L's variable plus a block-uniform
  /// offset (a z-marching stencil): that dimension's Moving is the
  /// variable, and a side no guard or clamp bounds is left unbounded (the
  /// loop's range bounds it; stencil-z-march loads only the planes of the
  /// iterations that run).
  void marchAlong(unsigned L) { March = L; }
  /// A's guard bounds the coordinate along Dim from above (so that threads
  /// past the end of the data do not reach A).
  bool boundedAbove(const an::Access &A, const TileDim &Dim);
  /// The bound guard term G of P's read K puts on the element it reads; none
  /// when the term is not such a bound (the thread's own `x < w`, a loaded
  /// flag). The term holds exactly when the element's coordinate is within it.
  std::optional<CoordinateBound> termBound(const TilePlan &P, size_t K,
                                           const an::GuardTerm &G) const;
  /// A bound on every element P's read K may read that the guard term G
  /// implies: termBound's, or, for a term on the thread's position alone
  /// around loops that generate the offsets, the bound with each offset at
  /// its extreme (the hull of the elements read, not an exact test).
  std::optional<CoordinateBound> hullBound(const TilePlan &P, size_t K,
                                           const an::GuardTerm &G) const;
  /// The border tests of P's reads that an interior copy of the body may
  /// replace by their value: each a comparison of signed integers without
  /// side effects, written in the condition of an `if` or `?:` (through
  /// `!`, `&&`, `||` and parentheses only), that bounds the coordinate of
  /// an element read. One entry per condition, with the loosest bound the
  /// reads give it.
  std::vector<BorderCheck> borderChecks(const TilePlan &P) const;

private:
  std::string at(const an::Access &A) const {
    return "'" + A.Text + "' (line " + lineOf(A.Loc) + ")";
  }
  /// The least and the largest value of loop variable X, when its loop's
  /// start, last value and step are known.
  std::optional<std::pair<IndexForm, IndexForm>> loopRange(AtomId X) const;
  /// The smallest value of an offset over its loops, when the form says.
  std::optional<IndexForm> minOffset(const IndexForm &O) const;
  /// F with each loop variable at the end of its range that makes F
  /// largest; none when a loop's range or step is not known or a loop
  /// variable is multiplied by another atom.
  std::optional<IndexForm> maxOverLoops(const IndexForm &F) const;
  /// G as a form that is not negative where it holds, over read K's element.
  std::optional<IndexForm> guardDiff(const TilePlan &P, size_t K, const an::GuardTerm &G) const;
  /// A moving atom of P's read K in terms of the coordinates of the element
  /// it reads.
  std::optional<IndexForm> overElement(const TilePlan &P, size_t K, AtomId X) const;
  llvm::Error position(TilePlan &P, unsigned D);
  llvm::Error reads(TilePlan &P);
  void splitRows(TilePlan &P);

  const agent::RuleInput &In;
  an::KernelModel &M;
  an::AtomTable &T;
  std::array<int64_t, 3> Block;
  std::optional<unsigned> March;
};

/// The value of the element at coordinates E (locals the caller declared,
/// one per dimension of P, spelled in FP as P.Dims[D].E): the clamped
/// coordinates it needs as declarations (Decls, of fresh names from
/// Fresh), the conditions under which the original may read it (Conds:
/// the guards' bounds; empty when every element is read clamped) and the
/// load itself (Load, `buf[index]`). The caller writes
/// `Conds ? Load : 0`.
struct ElementLoad {
  std::vector<std::string> Decls;
  std::vector<std::string> Conds;
  std::string Load;
};
llvm::Expected<ElementLoad> elementLoad(FormPrinter &FP, const an::KernelModel &M,
                                        const TilePlan &P, llvm::ArrayRef<std::string> E,
                                        llvm::function_ref<std::string(llvm::StringRef)> Fresh);

/// The builtin references of a statement (threadIdx.y, blockIdx.y), each
/// once, in any form the AST gives them.
class BuiltinFinder : public clang::DynamicRecursiveASTVisitor {
public:
  bool TraverseStmt(clang::Stmt *S) override {
    if (const auto *E = llvm::dyn_cast_or_null<clang::Expr>(S))
      if (auto B = frontend::cudaBuiltin(E)) {
        Found.push_back({E, *B});
        return true;
      }
    return clang::DynamicRecursiveASTVisitor::TraverseStmt(S);
  }
  bool VisitCallExpr(clang::CallExpr *C) override {
    Calls.push_back(C);
    return true;
  }
  bool VisitVarDecl(clang::VarDecl *V) override {
    if (V->hasAttr<clang::CUDASharedAttr>())
      Shared = true;
    return true;
  }
  bool VisitLabelStmt(clang::LabelStmt *) override {
    Labels = true;
    return true;
  }
  std::vector<std::pair<const clang::Expr *, frontend::BuiltinRef>> Found;
  std::vector<const clang::CallExpr *> Calls;
  bool Shared = false, Labels = false;
};

/// `if (C) return;` or `if (C) { return; }`, without else, init or
/// condition variable: an early exit of the threads for which C holds.
bool isEarlyReturn(const clang::IfStmt *If);

/// Text with edits (offsets relative to Base) applied.
std::string applyEdits(llvm::StringRef Text, unsigned Base, std::vector<SourceEdit> Edits);
/// Every line of Text that is not blank, prefixed by Extra.
std::string indentBy(llvm::StringRef Text, llvm::StringRef Extra);

/// Why the model finds no stencil, in the words of the nearest miss.
std::string noStencil(const an::KernelModel &M);
/// A call given P's pointer (or one derived from it) to a non-const
/// element: the callee may write the buffer, which the model does not see.
const clang::CallExpr *writableEscape(const clang::ParmVarDecl *P,
                                      const std::vector<const clang::CallExpr *> &Calls);
/// Calls that make threads of a block or warp depend on each other.
bool isCollective(const clang::CallExpr *C);
/// Whether F (or what it calls) reads a builtin index; Seen guards recursion.
bool readsBuiltins(const clang::FunctionDecl *F, std::set<const clang::FunctionDecl *> &Seen);

} // namespace forge::passes::stencil

#endif
