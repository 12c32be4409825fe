//===- Analysis/KernelAnalyzer.h - The engine behind a KernelModel -*- C++ -*-===//
///
/// \file
/// Private to lib/Analysis. One KernelAnalyzer per analysed kernel holds
/// what the analyses share while the AST is alive: the parent map, the
/// loops, the reaching definitions, index forms and pointer values built
/// over them, and the uniformity of every definition. The analyses are
/// split over files by subject (Loops.cpp, FormBuilder.cpp,
/// UniformityAnalysis.cpp, Guards.cpp, Access.cpp, Footprint.cpp,
/// Reductions.cpp, Patterns.cpp); KernelModel.cpp runs them in order.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_LIB_ANALYSIS_KERNELANALYZER_H
#define FORGE_LIB_ANALYSIS_KERNELANALYZER_H

#include "ValueTracker.h"
#include "forge/Analysis/KernelModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace forge::analysis {

/// Where a pointer points: a base (parameter or array) and an offset in
/// elements of Elem.
struct PointerValue {
  const clang::ValueDecl *Base = nullptr;
  MemorySpace Space = MemorySpace::Unknown;
  /// A local (register) array: not memory the model records.
  bool Local = false;
  std::string BaseName;
  IndexForm Offset;
  clang::QualType Elem;
  /// Why Base is unknown.
  std::string Why;
  /// The pointer was loaded from memory (pointer chasing, `rows[i][j]`).
  bool DataDependent = false;
  std::vector<std::string> Notes;

  bool known() const { return Base != nullptr; }
};

class KernelAnalyzer {
public:
  KernelAnalyzer(clang::ASTContext &Ctx, const clang::FunctionDecl &Kernel,
                 const AnalysisOptions &Opts, std::shared_ptr<AtomTable> Table);

  /// Runs every analysis and fills M.
  void run(KernelModel &M);

  // Shared services.
  UniformityInfo uniformityOf(const clang::Expr *E);
  IndexForm formOf(const clang::Expr *E);
  PointerValue pointerOf(const clang::Expr *E);
  PointerValue addressOf(const clang::Expr *E);
  Guard guardOf(const clang::Stmt *S);
  /// The innermost loop around S, -1 when none.
  int loopAround(const clang::Stmt *S) const;
  /// The loops around S, outermost first.
  std::vector<unsigned> loopsAround(const clang::Stmt *S) const;
  const clang::Stmt *parentOf(const clang::Stmt *S) const;
  /// S is Outer or inside it.
  bool inside(const clang::Stmt *S, const clang::Stmt *Outer) const;
  /// The declaration a pointer or lvalue expression is rooted at (a
  /// parameter or an array), following local pointers; null if unknown.
  const clang::ValueDecl *baseOf(const clang::Expr *E, unsigned Depth = 0) const;
  SourceSpan span(const clang::Stmt *S) const;
  /// The name of a local that holds F (assigned once), else F rendered:
  /// "row" rather than "blockIdx.x * blockDim.x + threadIdx.x".
  std::string nameOf(const IndexForm &F);
  std::string text(const clang::Stmt *S) const;
  /// The definition that reaches a read of a local, -1 when untracked.
  int defOf(const clang::DeclRefExpr *E) const { return Tracker->defOf(E); }
  /// For an expression naming a tracked local with a plain value
  /// definition, that value's expression (following `bool ok = ...`).
  const clang::Expr *definingExpr(const clang::Expr *E, unsigned Depth = 0) const;

  clang::ASTContext &Ctx;
  const clang::FunctionDecl &Kernel;
  const clang::Stmt *Body = nullptr;
  AnalysisOptions Opts;
  std::shared_ptr<AtomTable> Table;
  std::unique_ptr<clang::ParentMap> Parents;

  std::vector<LoopSyntax> LoopSyn;
  llvm::DenseMap<const clang::Stmt *, unsigned> LoopIds;
  std::vector<Loop> Loops;
  std::unique_ptr<ValueTracker> Tracker;
  /// Bases the kernel stores to (or updates atomically).
  llvm::DenseSet<const clang::ValueDecl *> WrittenBases;
  std::vector<Note> Notes;
  /// The operands each loop-carried reduction combines in (by reduction id).
  std::vector<std::vector<const clang::Expr *>> ReductionOperands;

  // Loops.cpp
  void findLoops();
  void finishLoops();
  // UniformityAnalysis.cpp
  void computeUniformity();
  UniformityInfo defUniformity(int D) const;
  // Access.cpp
  void findWrittenBases();
  void collectAccesses(KernelModel &M);
  void classifyAccesses(KernelModel &M);
  // Footprint.cpp
  void findFootprints(KernelModel &M);
  // Reductions.cpp
  void findReductions(KernelModel &M);
  // Patterns.cpp
  void findPatterns(KernelModel &M);

private:
  // FormBuilder.cpp
  IndexForm formRec(const clang::Expr *E, unsigned Depth);
  IndexForm formOfDef(int D, unsigned Depth);
  PointerValue pointerRec(const clang::Expr *E, unsigned Depth);
  PointerValue addressRec(const clang::Expr *E, unsigned Depth);
  PointerValue pointerOfDef(int D, unsigned Depth);
  PointerValue rebase(PointerValue P, clang::QualType NewElem);
  /// Ops: forms the value is known to depend on (a load's index, an
  /// unfollowed operator's operands).
  IndexForm unknownForm(UnknownKind Why, const clang::Expr *E, std::string Reason,
                        const void *Key = nullptr, std::vector<IndexForm> Ops = {});
  std::optional<Comparison> comparisonOf(const clang::Expr *Cond, bool Holds);
  // UniformityAnalysis.cpp
  UniformityInfo evalUniformity(const clang::Expr *E, bool Memo);
  UniformityInfo evalDef(int D);
  UniformityInfo callUniformity(const clang::CallExpr *C, bool Memo);
  UniformityInfo loopControl(int LoopId, const clang::VarDecl *V, bool Memo);

  std::vector<UniformityInfo> DefUniform;
  bool UniformDone = false;
  llvm::DenseMap<const clang::Expr *, UniformityInfo> ExprUniform;
  std::vector<std::optional<IndexForm>> DefForm;
  std::vector<char> DefBusy;
  llvm::DenseMap<const clang::Expr *, IndexForm> ExprForm;
  /// Arguments of the small device functions being inlined (innermost last).
  std::vector<llvm::DenseMap<const clang::ParmVarDecl *, IndexForm>> Inlined;
  uintptr_t FreshKey = 1;
};

} // namespace forge::analysis

#endif
