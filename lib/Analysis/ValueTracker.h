//===- Analysis/ValueTracker.h - Which definition reaches a use -*- C++ -*-===//
///
/// \file
/// Private to lib/Analysis. A walk over the structured body of a kernel in
/// program order that records, for every read of a local variable (and of
/// a kernel parameter the kernel assigns), the definition that reaches it:
///
/// - a value (`int i = e;`, `i = e;`), a compound update (`i += e`), a step
///   (`i++`), a merge of two definitions after an if or `?:` (a select on
///   the condition);
/// - inside a loop, the loop's induction variable, a derived induction
///   variable (`p += stride` once per iteration, unconditionally), or a
///   loop-carried value (an accumulator); after the loop, the value the
///   loop left;
/// - or unknown, with the reason (address taken, assigned in a switch).
///
/// Definitions form a DAG by index; forms and uniformity are computed over
/// it elsewhere.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_LIB_ANALYSIS_VALUETRACKER_H
#define FORGE_LIB_ANALYSIS_VALUETRACKER_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/OperationKinds.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <string>
#include <vector>

namespace forge::analysis {

struct ValueDef {
  enum KindTy {
    Value,       ///< E is the value
    Compound,    ///< Prev Op E (`v += e`)
    Step,        ///< Prev + Delta (`v++`)
    Partial,     ///< an element or field of Prev assigned E (`v.x = e`, `a[j] = e`)
    Merge,       ///< Cond ? Prev : Other (after an if or `?:`)
    LoopIV,      ///< the induction variable of Loop in the current iteration
    DerivedIV,   ///< Prev (at loop entry) + Sign * StepExpr * iteration
    LoopCarried, ///< updated by Loop (not as an induction variable)
    AfterLoop,   ///< the value Loop left
    Entry,       ///< a kernel parameter's value at entry
    Unknown,     ///< Reason says why
  } Kind = Unknown;
  const clang::VarDecl *Var = nullptr;
  const clang::Expr *E = nullptr;
  clang::BinaryOperatorKind Op = clang::BO_Add;
  int64_t Delta = 0;
  int Prev = -1, Other = -1;
  const clang::Expr *Cond = nullptr;
  int Loop = -1;
  const clang::Expr *StepExpr = nullptr;
  int64_t Sign = 1;
  /// The expression or declaration statement that makes the definition.
  const clang::Stmt *At = nullptr;
  std::string Reason;
};

/// What the tracker needs to know about a loop before the walk.
struct LoopSyntax {
  const clang::Stmt *S = nullptr;
  const clang::VarDecl *IV = nullptr;
  /// The IV's update (`++i`, `i += s`), its additive step (null for one)
  /// and sign, or its geometric factor (see matchUpdate).
  const clang::Expr *Update = nullptr, *StepExpr = nullptr;
  int64_t Sign = 1, Factor = 0;
  /// The loop condition (null for `for (;;)`).
  const clang::Expr *Cond = nullptr;
  /// Why no induction variable was found.
  std::string Why;
  /// Filled by the walk: the definitions of the IV at entry and in the loop.
  int EntryDef = -1, IVDef = -1;
  /// Vars assigned in the loop (condition, increment, body).
  std::vector<const clang::VarDecl *> Modified;
};

class ValueTracker {
public:
  ValueTracker(clang::ASTContext &Ctx, const clang::FunctionDecl &Kernel,
               std::vector<LoopSyntax> &Loops,
               const llvm::DenseMap<const clang::Stmt *, unsigned> &LoopIds);

  void run(const clang::Stmt *Body);

  /// The definition reaching a read; -1 when the variable is not tracked.
  int defOf(const clang::DeclRefExpr *Use) const {
    auto It = UseDef.find(Use);
    return It == UseDef.end() ? -1 : It->second;
  }
  const ValueDef &def(int D) const { return Defs[D]; }
  size_t numDefs() const { return Defs.size(); }
  /// Every definition made for V, in walk order.
  const std::vector<int> &defsOf(const clang::VarDecl *V) const;
  bool tracked(const clang::VarDecl *V) const { return Tracked.count(V); }
  /// The kernel assigns this parameter.
  bool isModifiedParam(const clang::VarDecl *P) const { return ModifiedParams.count(P); }
  /// The reads of V that were recorded.
  const std::vector<const clang::DeclRefExpr *> &usesOf(const clang::VarDecl *V) const;
  bool sawGoto() const { return Goto; }

private:
  using State = llvm::DenseMap<const clang::VarDecl *, int>;
  int newDef(ValueDef D);
  bool walkStmt(const clang::Stmt *S, State &St);
  void walkExpr(const clang::Expr *E, State &St);
  void walkLoop(const clang::Stmt *S, unsigned Id, State &St);
  void merge(State &Into, const State &Then, const State &Else, bool ThenFalls, bool ElseFalls,
             const clang::Expr *Cond, const clang::Stmt *At);
  void assign(const clang::VarDecl *V, ValueDef D, State &St);
  void use(const clang::DeclRefExpr *E, State &St);
  const clang::VarDecl *trackedVar(const clang::Expr *E) const;
  bool isDerivedIV(const clang::VarDecl *V, const clang::Stmt *Loop,
                   const std::vector<const clang::VarDecl *> &Modified,
                   const clang::Expr *&StepExpr, int64_t &Sign) const;

  clang::ASTContext &Ctx;
  const clang::FunctionDecl &Kernel;
  std::vector<LoopSyntax> &Loops;
  const llvm::DenseMap<const clang::Stmt *, unsigned> &LoopIds;
  std::vector<ValueDef> Defs;
  llvm::DenseMap<const clang::DeclRefExpr *, int> UseDef;
  llvm::DenseMap<const clang::VarDecl *, std::vector<int>> DefsByVar;
  llvm::DenseMap<const clang::VarDecl *, std::vector<const clang::DeclRefExpr *>> UsesByVar;
  llvm::DenseSet<const clang::VarDecl *> Tracked;
  llvm::DenseSet<const clang::VarDecl *> ModifiedParams;
  bool Goto = false;
};

/// The variables a statement assigns (=, op=, ++, --, address taken),
/// locals and parameters alike.
std::vector<const clang::VarDecl *> assignedVars(const clang::Stmt *S);

/// The update of V in a loop increment or statement: `v++`, `v += e`,
/// `v = v + e`, `v -= e` (additive; Step/Sign), or `v *= c`, `v <<= c`,
/// `v >>= c`, `v /= c`, `v = v * c` (geometric; Factor, negative when
/// dividing). False when S does not update V that way.
bool matchUpdate(const clang::Expr *S, const clang::VarDecl *V, const clang::ASTContext &Ctx,
                 const clang::Expr *&Step, int64_t &Sign, int64_t &Factor);

} // namespace forge::analysis

#endif
