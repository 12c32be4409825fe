//===- passes/optimize/RuleAst.h - Index algebra for restructuring rules -*- C++ -*-===//
///
/// \file
/// What the restructuring rules (warp-shuffle-reduction, smem-stencil-tiling,
/// register-tiling) need beyond RuleUtil.h:
///
/// - IndexPoly and PolyBuilder: an index expression as an integer
///   polynomial over atoms (threadIdx.x, blockIdx.y, kernel parameters,
///   loop counters), with local variables replaced by their definitions and
///   blockDim by the known block size. `in[(size_t)yy * w + xx]` with
///   `yy = y + i`, `y = blockIdx.y * blockDim.y + threadIdx.y` becomes
///   `16*blockIdx.y*w + threadIdx.y*w + i*w + ...`, so one comparison
///   recognises every way of writing the same index.
/// - Loop counters with constant bounds and their ranges.
/// - Facts that hold where a statement runs: the conditions of the
///   enclosing branches, `if (c) continue;` before it, `?:` and `&&`.
/// - Fresh names and source text with some subexpressions replaced.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_RULEAST_H
#define FORGE_PASSES_OPTIMIZE_RULEAST_H

#include "RuleUtil.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace forge::passes {

/// An integer polynomial over atoms numbered by a PolyBuilder.
class IndexPoly {
public:
  /// Sorted atom numbers (a product; an atom may repeat).
  using Monomial = std::vector<unsigned>;

  static IndexPoly constant(int64_t C);
  static IndexPoly atom(unsigned Id);

  IndexPoly operator+(const IndexPoly &O) const;
  IndexPoly operator-(const IndexPoly &O) const;
  IndexPoly operator*(const IndexPoly &O) const;
  IndexPoly scaled(int64_t C) const;
  bool operator==(const IndexPoly &O) const { return Terms == O.Terms; }
  bool operator!=(const IndexPoly &O) const { return Terms != O.Terms; }

  bool isConstant() const;
  /// The constant term.
  int64_t constantTerm() const;
  /// The atoms that occur, each once.
  std::set<unsigned> atoms() const;
  /// The highest power of Id in any term.
  unsigned degreeIn(unsigned Id) const;
  /// Whether every term is a constant or one atom to the first power.
  bool isLinear() const;
  /// The terms that contain Id exactly once, divided by Id, and the terms
  /// without Id; none when Id occurs squared.
  std::optional<std::pair<IndexPoly, IndexPoly>> divideBy(unsigned Id) const;
  /// The terms whose atoms all satisfy Keep (constants included).
  template <typename Pred> IndexPoly filtered(Pred Keep) const {
    IndexPoly Out;
    for (const auto &[M, C] : Terms) {
      bool All = true;
      for (unsigned A : M)
        All &= bool(Keep(A));
      if (All)
        Out.Terms[M] = C;
    }
    return Out;
  }

  const std::map<Monomial, int64_t> &terms() const { return Terms; }

private:
  void add(const Monomial &M, int64_t C);
  std::map<Monomial, int64_t> Terms; ///< no zero coefficients
};

/// What an atom stands for.
struct PolyAtom {
  enum KindTy {
    ThreadIdx, ///< threadIdx.{x,y,z}: differs between the threads of a block
    BlockIdx,  ///< blockIdx.{x,y,z}
    Dim,       ///< blockDim or gridDim (when blockDim is not given)
    Param,     ///< a kernel parameter that the kernel never assigns
    TemplateParam,
    Variable,  ///< a local variable that was not expanded (a loop counter, ...)
  } Kind;
  std::string Spelling; ///< "threadIdx.x", "w", "i"
  const clang::ValueDecl *Decl = nullptr;
  char Component = 0; ///< builtins: 'x', 'y', 'z'

  /// The same in every thread of a block.
  bool blockUniform() const {
    return Kind == BlockIdx || Kind == Dim || Kind == Param || Kind == TemplateParam;
  }
};

/// Turns integer expressions of a kernel into IndexPolys.
class PolyBuilder {
public:
  /// Body: the kernel body, where variables must not be assigned for their
  /// definitions to be used.
  PolyBuilder(clang::ASTContext &Ctx, const clang::FunctionDecl &Kernel);

  /// blockDim.{x,y,z} become these constants.
  std::optional<std::array<int64_t, 3>> BlockDims;
  /// Local variables kept as atoms although they have a usable definition.
  llvm::SmallPtrSet<const clang::VarDecl *, 4> Opaque;

  /// E as a polynomial, or none with Why set ("'f(x)' is not built from
  /// +, - and *").
  std::optional<IndexPoly> build(const clang::Expr *E);
  std::string Why;

  /// The atom for a variable or parameter (created on first use).
  unsigned atomFor(const clang::ValueDecl *D);
  /// The atom for a CUDA builtin component ("threadIdx", 'x').
  unsigned builtinAtom(llvm::StringRef Var, char Dim);
  const PolyAtom &atom(unsigned Id) const { return Atoms[Id]; }

  /// blockIdx.D * BlockDims[D] + threadIdx.D (BlockDims must be set).
  IndexPoly globalIndex(char Dim);

  /// P as C source ("threadIdx.y + i + 2"), atoms by their spellings.
  std::string render(const IndexPoly &P) const;

private:
  std::optional<IndexPoly> buildRec(const clang::Expr *E, unsigned Depth);
  clang::ASTContext &Ctx;
  const clang::FunctionDecl &Kernel;
  std::vector<PolyAtom> Atoms;
  llvm::DenseMap<const clang::ValueDecl *, unsigned> ByDecl;
  std::map<std::string, unsigned> ByBuiltin;
  llvm::DenseMap<const clang::VarDecl *, bool> ModifiedCache;
  /// The arguments of the small device functions being inlined (`int gid()
  /// { return blockIdx.x * blockDim.x + threadIdx.x; }`), innermost last.
  std::vector<llvm::DenseMap<const clang::ParmVarDecl *, IndexPoly>> Inlined;
};

/// A loop `for (int i = LO; i <= HI; ++i)` (or `i < HI`, `i++`, `i += 1`)
/// with constant bounds that does not assign i in its body.
struct CountedLoop {
  const clang::ForStmt *Loop = nullptr;
  const clang::VarDecl *Var = nullptr;
  int64_t First = 0, Last = 0; ///< the values i takes, inclusive
  int64_t trips() const { return Last >= First ? Last - First + 1 : 0; }
};
/// F as a CountedLoop, when it is one; otherwise Why says what differs.
std::optional<CountedLoop> matchCountedLoop(const clang::ForStmt *F, clang::ASTContext &Ctx,
                                            std::string *Why = nullptr);

/// The range of a linear polynomial whose atoms are counters of Loops (and
/// constants); none when another atom occurs or a term is not linear.
std::optional<std::pair<int64_t, int64_t>>
polyRange(const IndexPoly &P, const PolyBuilder &B, llvm::ArrayRef<CountedLoop> Loops);

/// The statements from S up to (not including) Body, innermost first.
std::vector<const clang::Stmt *> ancestors(const clang::Stmt *S, const clang::Stmt *Body,
                                           clang::ASTContext &Ctx);

/// A condition known to hold where a statement runs: Cond is true when
/// Holds, false otherwise.
struct Condition {
  const clang::Expr *Cond;
  bool Holds;
};
/// The conditions that hold at S inside Body: branches of enclosing if and
/// ?: statements, left operands of enclosing && and ||, and `if (c)
/// continue;` / `break;` / `return;` statements that come before S in an
/// enclosing block.
std::vector<Condition> conditionsAt(const clang::Stmt *S, const clang::Stmt *Body,
                                    clang::ASTContext &Ctx);

/// Facts `F >= 0` from Conds: conjunctions are split, negations pushed
/// into comparisons; a part that is not a comparison of polynomials is
/// dropped (a fact fewer is always safe).
std::vector<IndexPoly> factsFrom(llvm::ArrayRef<Condition> Conds, PolyBuilder &B);

/// A name based on Base that no declaration in Kernel (its parameters,
/// locals and any referenced declaration) and nothing in Taken uses; added
/// to Taken.
std::string freshName(llvm::StringRef Base, const clang::FunctionDecl &Kernel,
                      std::set<std::string> &Taken);

/// The source text of S with some of its subexpressions replaced (each
/// range must lie inside S and be text of S's file that editableRange
/// gives: plain text, whole macro invocations, or a macro argument that
/// is expanded once); none when S or a range has no such text (a part of
/// a macro's body), or two ranges overlap.
std::optional<std::string>
textWithReplacements(const clang::Stmt *S, clang::ASTContext &Ctx,
                     llvm::ArrayRef<std::pair<clang::SourceRange, std::string>> Repl);

/// The offset just past the ';' that ends a statement whose last token ends
/// at End (an expression statement's range leaves its ';' out), or End when
/// the next token is not ';'.
unsigned pastSemicolon(llvm::StringRef Source, unsigned End);

/// Text with Extra prepended to every line after the first.
std::string indentFollowingLines(llvm::StringRef Text, llvm::StringRef Extra);

/// How a type is written in source ("float", "unsigned long long").
std::string typeSpelling(clang::QualType T, clang::ASTContext &Ctx);

/// A zero of type T written in source ("0.0f", "0.0", "T(0)").
std::string zeroOf(clang::QualType T, clang::ASTContext &Ctx);

/// The calls to __syncthreads (and friends) in S.
bool callsSyncthreads(const clang::Stmt *S);

/// Whether S references V.
bool references(const clang::Stmt *S, const clang::ValueDecl *V);

/// Body has a `continue` of its own loop (not of a loop nested in it).
bool hasOwnContinue(const clang::Stmt *Body);

/// The statements at the start of Body that leave the kernel on a
/// condition every thread of a block shares: `if (C) { ...; return; }`
/// without an else, C reading only Kernel's scalar parameters, constants
/// and blockIdx, blockDim, gridDim (specialize-scalar's test of the spec's
/// values). Code a rule puts in front of the body (tile loads, hoisted
/// coefficients, barriers) goes after them, so that it runs only where the
/// original body goes on.
std::vector<const clang::Stmt *> leadingUniformExits(const clang::CompoundStmt *Body,
                                                     const clang::FunctionDecl &Kernel);

/// The operands of a chain of Op, through parentheses and implicit casts:
/// `a && (b && c)` gives a, b, c (appended to Out); anything else is one.
void chainOperands(const clang::Expr *E, clang::BinaryOperatorKind Op,
                   std::vector<const clang::Expr *> &Out);

/// A call that hands the thread its own indices: `f(make_uint3(threadIdx.x,
/// threadIdx.y, threadIdx.z), ...)` into a parameter of f named `threadIdx`
/// (or `blockIdx`) of type uint3, which shadows the builtin in f's body
/// (specialize-scalar's fallback is written so). f reads threadIdx and
/// blockIdx only through such parameters, so a rule that runs the body with
/// other indices passes them by rewriting the components of the arguments,
/// and checks f's body as it checks the kernel's.
struct ForwardedIndices {
  const clang::FunctionDecl *Callee = nullptr;
  /// The arguments' components (`threadIdx.y` inside `make_uint3(...)`).
  std::vector<const clang::Expr *> Components;
};
std::optional<ForwardedIndices> forwardedIndices(const clang::CallExpr *C);
/// The argument that forwards Var ("threadIdx" or "blockIdx") so.
std::string forwardedIndexArgument(llvm::StringRef Var);
/// Which of threadIdx and blockIdx S reads, as builtins or through
/// parameters that shadow them.
std::set<std::string> indexVariablesRead(const clang::Stmt *S);

/// The callee's name of a direct or unresolved call ("atomicAdd"), or "".
std::string calleeNameOf(const clang::CallExpr *C);
/// S is a call of __syncthreads() (a barrier of the block).
bool isSyncStmt(const clang::Stmt *S);

/// Calls that synchronise or communicate between threads, or have effects
/// beyond their result: a rewrite that changes which thread runs what
/// cannot keep them.
bool isThreadEffect(llvm::StringRef Name);

/// The statement that contains S, through declarations (the initialiser of
/// a local leads to its DeclStmt); null at the top.
const clang::Stmt *parentStmt(const clang::Stmt *S, clang::ASTContext &Ctx);

/// The body of a for, while, do or range-for loop; null for another statement.
const clang::Stmt *loopBodyOf(const clang::Stmt *Loop);

/// The walk over a body, and over the device functions of the file that it
/// calls (four deep), for what a rule that changes which threads run the
/// body cannot keep: a __shared__ variable, a static local, a label of the
/// body itself (a fallback copy of the body would repeat it), inline
/// assembly, a call that synchronises or communicates between threads or
/// has an effect beyond its result (isThreadEffect), a call through a
/// pointer. Why is the first found, in words that start with the subject
/// ("the kernel declares the __shared__ array 's'"). Rules subclass it for
/// checks of their own and take some calls (takeCall) instead of walking
/// into them.
class BodyHazardScan : public clang::DynamicRecursiveASTVisitor {
public:
  /// Subject names what is walked ("the kernel", "the guarded region");
  /// Consequence follows the name of a call with a thread effect ("which
  /// synchronises or communicates between threads").
  BodyHazardScan(const clang::SourceManager &SM, std::string Subject, std::string Consequence)
      : SM(SM), Subject(std::move(Subject)), Consequence(std::move(Consequence)) {}

  /// The first hazard found, or "".
  std::string Why;

  bool VisitVarDecl(clang::VarDecl *V) override;
  bool VisitLabelStmt(clang::LabelStmt *L) override;
  bool VisitGCCAsmStmt(clang::GCCAsmStmt *A) override;
  bool VisitCallExpr(clang::CallExpr *C) override;

protected:
  /// Whether the walk is inside a device function that the body calls.
  bool inside() const { return Depth > 0; }
  /// Records W unless a hazard was found already.
  void refuse(std::string W) {
    if (Why.empty())
      Why = std::move(W);
  }
  /// A direct call of a function of the file with a body, before the walk
  /// goes into it: true when the subclass has taken the call, and the walk
  /// does not go in.
  virtual bool takeCall(clang::CallExpr *, const clang::FunctionDecl *) { return false; }

  const clang::SourceManager &SM;
  const std::string Subject;

private:
  const std::string Consequence;
  std::set<const clang::FunctionDecl *> Seen;
  unsigned Depth = 0;
};

} // namespace forge::passes

#endif
