//===- Analysis/KernelModel.h - The semantic model of one kernel -*- C++ -*-===//
///
/// \file
/// The one representation of a kernel that rewrite rules and reports query
/// (DESIGN.md, "Kernel analysis"): its loops, its memory accesses with index
/// forms, guards, warp classes and footprints, its reductions and the
/// computations the recognisers found, and notes on what could not be
/// analysed. Built from the Clang AST of the device side; a template
/// pattern is analysed as written (dependent types stay symbolic).
///
/// Rules ask questions of the model instead of matching spellings:
///
/// \code
///   auto M = analysis::analyzeKernel(Ctx, Kernel, Opts);
///   for (const analysis::Pattern *P : M->patterns(analysis::PatternKind::Stencil))
///     ... M->Footprints[P->Footprint].Radius ...
///   if (!M->isUniform(Value))  // y[i] = x[i] + threadIdx.x
///     return notApplicable("the stored value varies with the thread");
/// \endcode
///
/// The fields are plain data that outlive the AST (names, lines, forms);
/// the pointers into the AST (Access::E, Loop::S, ...) and the queries that
/// take AST nodes (uniformity, guardOf, formOf) need the ASTContext alive.
/// detach() forgets them, so that a model can be kept and rendered after
/// parsing (analyzeFile does).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_KERNELMODEL_H
#define FORGE_ANALYSIS_KERNELMODEL_H

#include "forge/Analysis/Access.h"
#include "forge/Analysis/Guards.h"
#include "forge/Analysis/HostLaunches.h"
#include "forge/Analysis/IndexForm.h"
#include "forge/Analysis/Loops.h"
#include "forge/Analysis/Patterns.h"
#include "forge/Analysis/ProblemShape.h"
#include "forge/Analysis/SourceSpan.h"
#include "forge/Analysis/Uniformity.h"
#include "llvm/Support/Error.h"
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
class Stmt;
class ValueDecl;
class VarDecl;
} // namespace clang

namespace forge::analysis {

class KernelAnalyzer;

struct AnalysisOptions {
  /// The launch block when known (blockDim.{x,y,z} become constants, and
  /// threadIdx.y is warp-uniform when x is a multiple of 32); otherwise
  /// blockDim stays symbolic and warps are assumed to lie along x.
  std::optional<std::array<int64_t, 3>> Block;
  /// Also model accesses to __shared__ arrays (bank behaviour, tiles).
  bool SharedMemory = true;
};

/// Something the analysis could not follow, with the reason.
struct Note {
  SourceSpan Loc;
  std::string Text;
};

class KernelModel {
public:
  std::string Name;
  std::string QualifiedName;
  /// The file the kernel is defined in, as the parser names it.
  std::string File;
  SourceSpan Loc;
  bool IsTemplate = false;
  AnalysisOptions Options;

  std::vector<Loop> Loops;
  std::vector<Access> Accesses;
  std::vector<Footprint> Footprints;
  std::vector<Reduction> Reductions;
  std::vector<Pattern> Patterns;
  std::vector<Note> Notes;
  /// How big the problem is: each buffer's reach and the threads the grid
  /// needs, over the parameters (ProblemShape.h).
  ProblemShape Shape;
  /// The kernel's launches in the file's host code, argument by argument
  /// (HostLaunches.h); filled by analyzeFile, which sees the whole file.
  std::vector<HostLaunch> HostLaunches;

  /// The atoms the forms of this model are written in.
  const AtomTable &atoms() const { return *Table; }
  AtomTable &atoms() { return *Table; }

  /// Renders a form of this model.
  std::string render(const IndexForm &F) const { return Table->render(F); }

  // Queries over the plain data.

  /// The accesses to one parameter or __shared__ array, by declaration or
  /// by name.
  std::vector<const Access *> accessesTo(const clang::ValueDecl *Base) const;
  std::vector<const Access *> accessesTo(llvm::StringRef Buffer) const;
  /// The access whose subscript, dereference or call is E.
  const Access *accessAt(const clang::Expr *E) const;
  /// The warp access class of an access.
  const WarpBehaviour &classOf(const Access &A) const { return A.Warp; }
  /// The accesses inside a loop (nested loops included).
  std::vector<const Access *> accessesIn(const Loop &L) const;
  /// The footprint a load belongs to, or null.
  const Footprint *footprintOf(const Access &A) const {
    return A.Footprint >= 0 ? &Footprints[A.Footprint] : nullptr;
  }
  /// The other access of a transposed pair, or null.
  const Access *pairOf(const Access &A) const {
    return A.Warp.PairedAccess >= 0 ? &Accesses[A.Warp.PairedAccess] : nullptr;
  }
  /// How A's index changes along a builtin ("threadIdx", 'y') or loop.
  Slope slopeAlong(const Access &A, llvm::StringRef Builtin, char Dim) const;
  Slope slopeAlongLoop(const Access &A, const Loop &L) const;
  /// The patterns of one kind.
  std::vector<const Pattern *> patterns(PatternKind K) const;
  /// The loop-carried reduction into Acc.
  const Reduction *reductionOf(const clang::VarDecl *Acc) const;
  /// The loop whose induction variable is V.
  const Loop *loopOf(const clang::VarDecl *V) const;
  /// The innermost loop around S; null at the top level.
  const Loop *enclosingLoop(const clang::Stmt *S) const;

  // Queries that need the AST (false / unknown after detach()).

  bool hasAST() const { return bool(Engine); }
  /// How E's value varies between the threads that evaluate it: a real
  /// analysis over reaching definitions, control dependence (a value
  /// assigned under a thread-varying branch, or accumulated by a loop whose
  /// trip count varies, varies) and loads (a load at a thread-varying
  /// address, or from a buffer the kernel also writes, varies).
  UniformityInfo uniformity(const clang::Expr *E) const;
  /// E is at least as uniform as At.
  bool isUniform(const clang::Expr *E, Uniformity At = Uniformity::WarpUniform) const;
  /// The guard under which S runs.
  Guard guardOf(const clang::Stmt *S) const;
  /// E (an integer expression of the kernel) as an index form.
  IndexForm formOf(const clang::Expr *E);

  /// Forgets the AST: pointers become null, AST queries answer "unknown".
  void detach();

  KernelModel();
  ~KernelModel();
  KernelModel(KernelModel &&);
  KernelModel &operator=(KernelModel &&);

private:
  friend class KernelAnalyzer;
  friend llvm::Expected<KernelModel> analyzeKernel(clang::ASTContext &, const clang::FunctionDecl &,
                                                   const AnalysisOptions &);
  std::shared_ptr<AtomTable> Table;
  std::shared_ptr<KernelAnalyzer> Engine;
};

/// Analyses one kernel (a __global__ function with a body; a template
/// pattern or an instantiation). Fails only when Kernel has no body; what
/// cannot be analysed inside it is reported in the model.
llvm::Expected<KernelModel> analyzeKernel(clang::ASTContext &Ctx, const clang::FunctionDecl &Kernel,
                                          const AnalysisOptions &Opts = {});

} // namespace forge::analysis

#endif
