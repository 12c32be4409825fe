//===- Analysis/IndexForm.h - Quasi-affine index forms ----------*- C++ -*-===//
///
/// \file
/// The representation every index of the kernel model is written in, after
/// SCEV: an integer polynomial over *atoms*. An atom is one quantity the
/// analysis does not split further:
///
/// - the CUDA builtins threadIdx, blockIdx, blockDim and gridDim (one atom
///   per component; blockDim is a constant when the launch block is known);
/// - kernel parameters and non-type template parameters (symbols);
/// - loop induction variables, each with its expansion `Start + Step * it`
///   over the loop's iteration number (SCEV's `{Start,+,Step}`);
/// - quotients, remainders, min/max clamps and `?:` selections of forms, so
///   that `min(max(y + dy, 0), h - 1) * w + x % w` stays one form;
/// - and *unknown* atoms, which say what they stand for and why the analysis
///   stopped there ("'idx[i]' is loaded from memory: data-dependent").
///
/// Nothing is guessed: a quantity the analysis cannot follow becomes an
/// unknown atom that carries its reason and its uniformity, so a form is
/// always available and a client decides whether an unknown part matters
/// (a block-uniform unknown does not change the warp access class).
///
/// Atoms live in an AtomTable owned by the kernel model; forms refer to
/// them by number. Composite atoms are interned structurally, so
/// `(i / w) * w + i % w` folds back to `i`.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_INDEXFORM_H
#define FORGE_ANALYSIS_INDEXFORM_H

#include "forge/Analysis/Uniformity.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class Decl;
} // namespace clang

namespace forge::analysis {

using AtomId = unsigned;

/// An integer polynomial over atoms: a sum of coefficient * monomial.
/// Arithmetic is exact; a coefficient that would overflow 64 bits marks the
/// form as overflowed (and any use of it as unknown).
class IndexForm {
public:
  /// Sorted atom numbers (a product; an atom may repeat).
  using Monomial = std::vector<AtomId>;

  IndexForm() = default; ///< zero
  static IndexForm constant(int64_t C);
  static IndexForm atom(AtomId A);

  IndexForm operator+(const IndexForm &O) const;
  IndexForm operator-(const IndexForm &O) const;
  IndexForm operator-() const { return scaled(-1); }
  IndexForm operator*(const IndexForm &O) const;
  IndexForm scaled(int64_t C) const;
  bool operator==(const IndexForm &O) const { return Terms == O.Terms && Overflow == O.Overflow; }
  bool operator!=(const IndexForm &O) const { return !(*this == O); }
  bool operator<(const IndexForm &O) const { return Terms < O.Terms; }

  bool isZero() const { return Terms.empty() && !Overflow; }
  bool isConstant() const;
  /// The value when the form is a constant.
  std::optional<int64_t> constantValue() const;
  /// The constant term (0 when there is none).
  int64_t constantTerm() const;
  /// The atoms that occur directly (not inside composite atoms), each once.
  std::set<AtomId> atoms() const;
  bool mentions(AtomId A) const;
  /// The highest power of A in any term.
  unsigned degreeIn(AtomId A) const;
  /// The terms that contain A exactly once, divided by A (zero when A does
  /// not occur); none when A occurs squared.
  std::optional<IndexForm> coefficientOf(AtomId A) const;
  /// The terms free of A.
  IndexForm withoutAtom(AtomId A) const;
  /// The form divided by D when every coefficient is a multiple of D.
  std::optional<IndexForm> dividedExactly(int64_t D) const;
  /// The form divided by a form of one term (`w`, `4 * w`) when every term
  /// is a multiple of it.
  std::optional<IndexForm> dividedExactly(const IndexForm &D) const;
  /// The gcd of the coefficients (0 for the zero form).
  int64_t coefficientGcd() const;
  bool overflowed() const { return Overflow; }

  const std::map<Monomial, int64_t> &terms() const { return Terms; }

  /// The terms whose atoms all satisfy Keep (constants included).
  template <typename Pred> IndexForm filtered(Pred Keep) const {
    IndexForm Out;
    Out.Overflow = Overflow;
    for (const auto &[M, C] : Terms) {
      bool All = true;
      for (AtomId A : M)
        All &= bool(Keep(A));
      if (All)
        Out.Terms[M] = C;
    }
    return Out;
  }

  /// A canonical spelling by atom numbers, for interning composite atoms.
  std::string key() const;

private:
  void add(const Monomial &M, int64_t C);
  std::map<Monomial, int64_t> Terms; ///< no zero coefficients
  bool Overflow = false;
};

/// What an atom stands for.
enum class AtomKind {
  ThreadIdx,     ///< threadIdx.{x,y,z}
  BlockIdx,      ///< blockIdx.{x,y,z}
  BlockDim,      ///< blockDim.{x,y,z} when the block is not known
  GridDim,       ///< gridDim.{x,y,z}
  Param,         ///< a scalar kernel parameter the kernel never assigns (or its field)
  TemplateParam, ///< a non-type template parameter
  LoopVar,       ///< a loop's induction variable, in the current iteration
  LoopIter,      ///< a loop's iteration number 0, 1, 2, ... (uniform)
  Div,           ///< Operands[0] / Operands[1], as C divides (truncating)
  Mod,           ///< Operands[0] % Operands[1], as C computes it
  Min,           ///< the smaller of Operands[0] and Operands[1]
  Max,           ///< the larger of Operands[0] and Operands[1]
  Select,        ///< Pred ? Operands[0] : Operands[1]
  Unknown,       ///< anything else, with the reason
};

/// Why an atom is unknown.
enum class UnknownKind {
  DataDependent, ///< loaded from memory (a gather index, a pointer)
  LoopCarried,   ///< a variable updated by a loop other than as an induction variable
  Call,          ///< the result of a call the analysis does not look into
  NonInteger,    ///< converted from a floating-point value
  Opaque,        ///< anything else (an unsupported operator, an address taken)
};

llvm::StringRef unknownKindName(UnknownKind K);

/// Comparison operators of a predicate.
enum class CmpOp { LT, LE, GT, GE, EQ, NE };
llvm::StringRef cmpOpSpelling(CmpOp Op); ///< "<", "<=", ...
CmpOp negate(CmpOp Op);                  ///< < becomes >=
CmpOp swapSides(CmpOp Op);               ///< < becomes >

/// Lhs Op Rhs over forms.
struct Comparison {
  IndexForm Lhs;
  CmpOp Op = CmpOp::LT;
  IndexForm Rhs;

  Comparison negated() const { return {Lhs, negate(Op), Rhs}; }
  /// A form that is >= 0 exactly where an ordering holds over the integers
  /// (`a < b`: b - a - 1; `a >= b`: a - b); none for == and !=.
  std::optional<IndexForm> slack() const {
    switch (Op) {
    case CmpOp::LT: return Rhs - Lhs - IndexForm::constant(1);
    case CmpOp::LE: return Rhs - Lhs;
    case CmpOp::GT: return Lhs - Rhs - IndexForm::constant(1);
    case CmpOp::GE: return Lhs - Rhs;
    default: return std::nullopt;
    }
  }
  Comparison swapped() const { return {Rhs, swapSides(Op), Lhs}; }
  bool operator==(const Comparison &O) const { return Op == O.Op && Lhs == O.Lhs && Rhs == O.Rhs; }
};

/// One atom of a table.
struct Atom {
  AtomKind Kind = AtomKind::Unknown;
  /// Builtins: 'x', 'y' or 'z'.
  char Dim = 0;
  /// How it is written: "threadIdx.x", "n", "p.n", "k"; composite atoms are
  /// rendered from their operands instead.
  std::string Name;
  /// Param, TemplateParam, LoopVar: the declaration (a VarDecl, a
  /// NonTypeTemplateParmDecl, a FieldDecl); null after the AST is gone.
  const clang::Decl *Decl = nullptr;
  /// LoopVar, LoopIter: the loop (an index into KernelModel::Loops).
  int Loop = -1;
  /// Div, Mod, Min, Max: the two operands; Select: the two arms.
  std::vector<IndexForm> Operands;
  /// Select: the condition, when it is a comparison of forms.
  std::optional<Comparison> Pred;
  /// Select: the condition as written.
  std::string PredText;
  /// Unknown: why, in words, and the line it comes from.
  UnknownKind Why = UnknownKind::Opaque;
  std::string Reason;
  unsigned Line = 0;
  /// How the atom varies between threads.
  UniformityInfo Uniform;
  /// LoopVar: `Start + Step * LoopIter` when the loop steps by a uniform
  /// amount; slopes and differences see through it.
  std::optional<IndexForm> Expansion;

  bool isBuiltin() const {
    return Kind == AtomKind::ThreadIdx || Kind == AtomKind::BlockIdx ||
           Kind == AtomKind::BlockDim || Kind == AtomKind::GridDim;
  }
  bool isComposite() const {
    return Kind == AtomKind::Div || Kind == AtomKind::Mod || Kind == AtomKind::Min ||
           Kind == AtomKind::Max || Kind == AtomKind::Select;
  }
};

/// How a form changes when one atom (usually threadIdx.x) grows by one: by
/// Step every Lanes increments. `x[tid]` has Step 1; `x[tid * n]` Step n;
/// `x[tid / 4]` Step 1 every 4 lanes; `x[c]` Step 0.
struct Slope {
  std::optional<IndexForm> Step; ///< none when unknown
  int64_t Lanes = 1;
  /// What the slope assumes ("'w' >= 32", "inside the clamp range").
  std::string Assumption;
  /// Why there is no slope.
  std::string Why;
  /// The slope meets a data-dependent atom (a gather or a scatter).
  bool DataDependent = false;

  bool known() const { return Step.has_value(); }
  bool isZero() const { return Step && Step->isZero(); }
  std::optional<int64_t> constant() const {
    return Step && Lanes == 1 ? Step->constantValue() : std::nullopt;
  }
};

/// A clamp `min(max(Value, Lo), Hi)` (or one side of it).
struct Clamp {
  IndexForm Value;
  std::optional<IndexForm> Lo, Hi;
};

/// The atoms of one kernel, and the operations that need to know what an
/// atom stands for (composite atoms, slopes, rendering).
class AtomTable {
public:
  /// Block: the launch block when known; it decides whether threadIdx.y is
  /// warp-uniform (blockDim.x a multiple of 32).
  explicit AtomTable(std::optional<std::array<int64_t, 3>> Block = std::nullopt);

  AtomId builtin(llvm::StringRef Var, char Dim);
  /// A Param or TemplateParam atom (Key: the declaration, or a field path).
  AtomId symbol(AtomKind Kind, const clang::Decl *D, llvm::StringRef Name,
                llvm::StringRef Key = "");
  AtomId loopVar(int Loop, const clang::Decl *D, llvm::StringRef Name, UniformityInfo U);
  AtomId loopIter(int Loop, llvm::StringRef VarName);
  /// An unknown atom; one atom per Key (a node or declaration address).
  /// Operands: forms it is known to depend on (the index a value was
  /// loaded from), so that dependence queries see through it.
  AtomId unknown(UnknownKind Why, llvm::StringRef Name, llvm::StringRef Reason, unsigned Line,
                 UniformityInfo U, const void *Key, std::vector<IndexForm> Operands = {});

  /// N / D and N % D, folded where exact (`(4 * i) / 4` is i, `(n * w) % w` is 0).
  IndexForm div(const IndexForm &N, const IndexForm &D);
  IndexForm mod(const IndexForm &N, const IndexForm &D);
  /// min/max, folded when the difference of A and B is a constant.
  IndexForm min(const IndexForm &A, const IndexForm &B);
  IndexForm max(const IndexForm &A, const IndexForm &B);
  /// Pred ? T : F; equal arms fold, and `x < lo ? lo : x` becomes max(x, lo).
  IndexForm select(std::optional<Comparison> Pred, llvm::StringRef PredText,
                   UniformityInfo PredUniform, const IndexForm &T, const IndexForm &F);

  const Atom &operator[](AtomId A) const { return Atoms[A]; }
  size_t size() const { return Atoms.size(); }
  /// Sets a loop variable's expansion (Start + Step * LoopIter).
  void setExpansion(AtomId LoopVar, IndexForm E) { Atoms[LoopVar].Expansion = std::move(E); }
  /// Forgets the declarations (the AST is going away).
  void detach();

  /// The id of a builtin atom if the table has it.
  std::optional<AtomId> findBuiltin(llvm::StringRef Var, char Dim) const;

  /// F as C-like text ("blockIdx.x * blockDim.x + threadIdx.x + 1").
  std::string render(const IndexForm &F) const;
  std::string render(const Comparison &C) const;

  /// How F varies between threads: the most varying of its atoms, with
  /// `threadIdx.x / 32` warp-uniform when warps are known to be aligned.
  UniformityInfo uniformity(const IndexForm &F) const;
  /// F mentions A, inside composite atoms and loop expansions included.
  bool dependsOn(const IndexForm &F, AtomId A) const;
  /// F mentions an atom of kind K (directly or inside composites).
  bool dependsOnKind(const IndexForm &F, AtomKind K) const;
  /// The first unknown atom of F (inside composites too) that is at least
  /// as varying as At; null when none.
  const Atom *unknownAtom(const IndexForm &F, Uniformity At = Uniformity::GridUniform) const;
  /// F is affine in its varying atoms (threadIdx, blockIdx, loop variables,
  /// thread-varying unknowns): no term multiplies two of them. Why names the
  /// first term that does ("'i * i'").
  bool isAffine(const IndexForm &F, std::string *Why = nullptr) const;
  /// How F changes along A (loop variables seen through their expansions).
  Slope slope(const IndexForm &F, AtomId Along) const;
  /// F with every loop variable replaced by its expansion.
  IndexForm expandLoops(const IndexForm &F);
  /// F with atoms replaced where Replace gives a form (composite atoms are
  /// rebuilt from their replaced operands).
  IndexForm substitute(const IndexForm &F,
                       llvm::function_ref<std::optional<IndexForm>(AtomId)> Replace);
  /// A's clamp, when A is min/max of a varying form and a bound (or a
  /// select that clamps: `v < lo ? lo : v`, `v < lo ? lo : min(v, hi)`).
  /// Like min(max(v, lo), hi) and max(min(v, hi), lo), which differ only
  /// there, a two-sided clamp describes its value where lo <= hi.
  std::optional<Clamp> clampOf(AtomId A) const;
  /// F with every clamp replaced by the value it clamps; Clamped is set when
  /// one was.
  IndexForm unclamped(const IndexForm &F, bool *Clamped = nullptr);
  /// F with `c * (N / c) + N % c` folded back to N (what `y * w + x` is for
  /// `y = i / w`, `x = i % w`).
  IndexForm simplify(const IndexForm &F) const { return foldDivMod(F); }
  /// An atom varies with the thread position or the loop iteration
  /// (threadIdx, blockIdx, loop variables, and composites or unknowns over
  /// them); the others are symbols (parameters, blockDim, uniform unknowns).
  bool isVarying(AtomId A) const;

private:
  AtomId intern(Atom A, const std::string &Key);
  IndexForm composite(AtomKind K, const IndexForm &A, const IndexForm &B);
  /// c * (N / c) + N % c folded back to N.
  IndexForm foldDivMod(IndexForm F) const;
  Slope slopeOfAtom(AtomId A, AtomId Along, unsigned Depth) const;
  std::optional<Clamp> selectClamp(AtomId A) const;
  Slope slopeRec(const IndexForm &F, AtomId Along, unsigned Depth) const;
  std::string renderAtom(AtomId A) const;

  std::optional<std::array<int64_t, 3>> Block;
  std::vector<Atom> Atoms;
  std::map<std::string, AtomId> ByKey;
};

} // namespace forge::analysis

#endif
