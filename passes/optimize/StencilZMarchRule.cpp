//===- passes/optimize/StencilZMarchRule.cpp - stencil-z-march ------------===//
///
/// \file
/// A 3D stencil over a 2D thread grid whose threads each walk their column
/// along z (`for (k = ...; k < nz - 1; ++k) out[c] = in[c - plane] + ...`)
/// reads every input element once per output that needs it: 7 loads per
/// output for the 7-point Laplacian, 27 for a 3x3x3 box. The rule takes the
/// stencil the kernel model recognises (analysis::PatternKind::Stencil)
/// whose footprint moves with a per-thread loop: one dimension's position
/// is the loop's variable (the plane), the two others the thread's x and y,
/// and the offsets around that position are bounded in all three whatever
/// the loop's (run-time) bounds. It writes the 2.5D blocking of
/// Micikevicius (2009): each thread keeps its column's planes k + zlo ..
/// k + zhi in a register queue that shifts once per iteration, so each
/// plane is loaded once per thread, and the block stages the planes whose
/// x-y neighbours are read in a ring of shared-memory tiles (the centre
/// from the queue, the halo from global memory), between two barriers per
/// plane. Every read becomes the register or tile element that holds the
/// same value; the arithmetic and its order are the original's, so the
/// results are bitwise identical (docs/passes/stencil-z-march.md).
///
//===----------------------------------------------------------------------===//
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "StencilPlan.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/KernelFacts.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <set>

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

using namespace stencil;

/// The largest |offset| along any dimension the rule stages: the queue
/// holds 2 * 4 + 1 planes, the ring as many tiles.
constexpr int64_t MaxRadius = 4;
/// The block a proposal assumes when the launch does not say.
constexpr std::array<int64_t, 3> DefaultBlock{{32, 8, 1}};

class StencilZMarchRule : public ExpertRule {
public:
  StringRef name() const override { return "stencil-z-march"; }
  RuleOutcome propose(const RuleInput &In) override;
};

/// Whether S contains Target (or is it).
bool contains(const Stmt *S, const Stmt *Target) {
  if (!S)
    return false;
  if (S == Target)
    return true;
  for (const Stmt *C : S->children())
    if (contains(C, Target))
      return true;
  return false;
}

/// An expression that reads no memory, calls nothing but min/max/abs and
/// assigns nothing: evaluating it for a thread the original had already
/// sent home changes nothing.
bool pure(const Stmt *S) {
  if (!S)
    return true;
  if (isa<ArraySubscriptExpr>(S))
    return false;
  if (const auto *U = dyn_cast<UnaryOperator>(S))
    if (U->getOpcode() == UO_Deref || U->isIncrementDecrementOp())
      return false;
  if (const auto *B = dyn_cast<BinaryOperator>(S))
    if (B->isAssignmentOp())
      return false;
  if (const auto *ME = dyn_cast<MemberExpr>(S))
    if (ME->isArrow())
      return false;
  if (const auto *C = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *F = C->getDirectCallee();
    if (!F || !F->getIdentifier() ||
        !is_contained({"min", "max", "abs", "umin", "umax", "llmin", "llmax", "labs", "llabs"},
                      F->getName()))
      return false;
  }
  return all_of(S->children(), [](const Stmt *C) { return pure(C); });
}

/// The statements from the kernel's body down to the marching loop: what
/// the rewrite turns into a flag per thread so that every thread of the
/// block stays for the loads and the barriers.
struct Path {
  std::vector<const IfStmt *> Returns;   ///< early returns before the loop
  std::vector<const IfStmt *> Enclosing; ///< ifs (no else) around the loop
  std::vector<const Stmt *> After;       ///< statements after the loop in its block
  bool Flags() const { return !Returns.empty() || !Enclosing.empty(); }
};

Expected<Path> pathTo(const Stmt *Loop, const CompoundStmt *Body, ASTContext &Ctx,
                      StringRef Var) {
  Path P;
  auto Line = [&](const Stmt *S) { return Ctx.getSourceManager().getPresumedLineNumber(S->getBeginLoc()); };
  const Stmt *Cur = Body;
  for (;;) {
    if (const auto *If = dyn_cast<IfStmt>(Cur)) {
      if (If->getElse() || If->getInit() || If->getConditionVariable() ||
          contains(If->getCond(), Loop))
        return makeError("the loop over '{0}' is inside an 'if' with an 'else' (line {1}): only "
                         "'if's without 'else' around it become a flag per thread",
                         Var, Line(If));
      P.Enclosing.push_back(If);
      Cur = If->getThen();
      if (Cur == Loop)
        return P;
      continue;
    }
    const auto *CS = dyn_cast<CompoundStmt>(Cur);
    if (!CS)
      return makeError("the loop over '{0}' is inside a statement at line {1} that is not a block "
                       "or an 'if' (another loop, a switch): every thread of the block must run "
                       "all of its iterations together",
                       Var, Line(Cur));
    const Stmt *Next = nullptr;
    bool Flagged = P.Flags();
    for (const Stmt *S : CS->body()) {
      if (Next) {
        if (isa<NullStmt>(S))
          continue;
        if (Next == Loop) {
          P.After.push_back(S);
          continue;
        }
        return makeError("the statement at line {0} comes after the block that holds the loop over "
                         "'{1}': only statements of the loop's own block may follow it",
                         Line(S), Var);
      }
      if (contains(S, Loop)) {
        Next = S;
        continue;
      }
      if (isa<NullStmt>(S))
        continue;
      if (const auto *If = dyn_cast<IfStmt>(S); If && isEarlyReturn(If)) {
        P.Returns.push_back(If);
        Flagged = true;
        continue;
      }
      if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : DS->decls()) {
          const auto *V = dyn_cast<VarDecl>(D);
          if (!V || V->isStaticLocal() || V->hasAttr<CUDASharedAttr>())
            return makeError("the declaration at line {0} before the loop over '{1}' is not of an "
                             "automatic local",
                             Line(S), Var);
          if (Flagged && !pure(V->getInit()))
            return makeError("'{0}' (line {1}) is initialised with a memory read or a call after a "
                             "thread may have left the kernel: every thread now stays for the "
                             "loads, and this one would read where the original does not",
                             V->getName(), Line(S));
        }
        continue;
      }
      return makeError("the statement at line {0} before the loop over '{1}' is not a declaration "
                       "or an early 'return': the threads that leave must stay for the loads, and "
                       "only those two become a flag per thread",
                       Line(S), Var);
    }
    if (!Next)
      return makeError("the loop over '{0}' was not found in the kernel's body", Var);
    if (Next == Loop)
      return P;
    Cur = Next;
  }
}

/// The tile dimensions of a marching plan: x, y and the loop's.
struct Axes {
  unsigned X = 0, Y = 0, Z = 0;
};

/// Writes the proposal.
class Writer {
public:
  Writer(const RuleInput &In, an::KernelModel &M, const TilePlan &P, const an::Loop &L,
         const Path &Pa, Axes Ax, std::array<int64_t, 3> Block, const CompoundStmt *Body)
      : In(In), M(M), P(P), L(L), Pa(Pa), Ax(Ax), Block(Block), Body(Body), FP(M.atoms()) {}

  Expected<std::string> write();
  /// The thread's own x and y coordinates, as wide C expressions.
  void setCentre(std::vector<std::string> C) { Centre = std::move(C); }

  int64_t lo(unsigned D) const { return *P.Dims[D].Lo.constantValue(); }
  int64_t hi(unsigned D) const { return *P.Dims[D].Hi.constantValue(); }
  int64_t tileX() const { return Block[0] + hi(Ax.X) - lo(Ax.X); }
  int64_t tileY() const { return Block[1] + hi(Ax.Y) - lo(Ax.Y); }
  int64_t queue() const { return hi(Ax.Z) - lo(Ax.Z) + 1; }
  /// The planes (offsets along z) whose x-y neighbourhood is staged.
  int64_t HLo = 0, HHi = -1;
  int64_t ring() const { return HHi - HLo + 1; }
  int64_t QueueReads = 0, TileReads = 0;

private:
  std::string fresh(StringRef Base) { return freshName(Base, In.Kernel, Taken); }
  Expected<std::string> print(const IndexForm &F, bool Wide) {
    if (auto S = FP.print(F, Wide))
      return *S;
    return makeError("'{0}' cannot be written in the loader: {1}", M.render(F), FP.why());
  }
  /// Whether read K is at the thread's own column (x and y offsets 0) and
  /// a constant plane: its value is in the queue.
  bool queued(size_t K) const {
    return P.Offsets[K][Ax.X].isZero() && P.Offsets[K][Ax.Y].isZero() &&
           P.Offsets[K][Ax.Z].isConstant();
  }
  void classify();
  /// `Dst = <the element at (X, Y, k + Dz)>;` in a block of its own.
  Expected<std::string> load(const std::string &Dst, const std::string &X, const std::string &Y,
                             int64_t Dz, const std::string &Ind);
  /// The ring slot of plane k + Dz (Dz text, a constant or an offset form).
  std::string slot(const std::string &Dz) const;
  /// Loads the tile of plane k + Dz into its slot: the halo from global
  /// memory, the centre from the queue.
  Expected<std::string> stage(int64_t Dz, const std::string &Slot, const std::string &Ind);
  Expected<std::string> readText(size_t K);

  const RuleInput &In;
  an::KernelModel &M;
  const TilePlan &P;
  const an::Loop &L;
  const Path &Pa;
  Axes Ax;
  std::array<int64_t, 3> Block;
  const CompoundStmt *Body;
  FormPrinter FP;
  std::set<std::string> Taken;
  std::string Tile, Q, It, Act, Zero, Type;
  std::vector<std::string> Centre; ///< the thread's own x and y coordinates (wide)
};

void Writer::classify() {
  std::optional<int64_t> Lo, Hi;
  for (size_t K = 0; K < P.Reads.size(); ++K) {
    if (queued(K)) {
      ++QueueReads;
      continue;
    }
    ++TileReads;
    auto Dz = P.Offsets[K][Ax.Z].constantValue();
    int64_t A = Dz ? *Dz : lo(Ax.Z), B = Dz ? *Dz : hi(Ax.Z);
    Lo = Lo ? std::min(*Lo, A) : A;
    Hi = Hi ? std::max(*Hi, B) : B;
  }
  if (Lo) {
    HLo = *Lo;
    HHi = *Hi;
  }
}

std::string Writer::slot(const std::string &Dz) const {
  if (ring() == 1)
    return "0";
  std::string Off = Dz;
  if (HLo)
    Off = "(" + Dz + ")" + (HLo < 0 ? " + " : " - ") + std::to_string(HLo < 0 ? -HLo : HLo);
  return formatv("({0} + {1}) % {2}", It, Off, ring()).str();
}

Expected<std::string> Writer::load(const std::string &Dst, const std::string &X,
                                   const std::string &Y, int64_t Dz, const std::string &Ind) {
  std::vector<std::string> E(P.Dims.size());
  for (size_t D = 0; D < E.size(); ++D)
    E[D] = fresh("e" + std::to_string(D));
  auto Z = print(P.Dims[Ax.Z].Origin + IndexForm::atom(L.VarAtom) + IndexForm::constant(Dz), true);
  if (!Z)
    return Z.takeError();
  std::vector<std::string> Lines;
  Lines.push_back(Ind + "{");
  Lines.push_back(Ind + formatv("  long long {0} = {1};", E[Ax.X], X).str());
  Lines.push_back(Ind + formatv("  long long {0} = {1};", E[Ax.Y], Y).str());
  Lines.push_back(Ind + formatv("  long long {0} = {1};", E[Ax.Z], *Z).str());
  auto EL = elementLoad(FP, M, P, E, [&](StringRef B) { return fresh(B); });
  if (!EL)
    return EL.takeError();
  for (const std::string &Decl : EL->Decls)
    Lines.push_back(Ind + "  " + Decl);
  if (EL->Conds.empty())
    Lines.push_back(Ind + formatv("  {0} = {1};", Dst, EL->Load).str());
  else
    Lines.push_back(
        Ind + formatv("  {0} = {1} ? {2} : {3};", Dst, join(EL->Conds, " && "), EL->Load, Zero).str());
  Lines.push_back(Ind + "}");
  return join(Lines, "\n");
}

Expected<std::string> Writer::stage(int64_t Dz, const std::string &Slot, const std::string &Ind) {
  int64_t NT = Block[0] * Block[1], TX = tileX(), TY = tileY(), Total = TX * TY;
  int64_t XLo = lo(Ax.X), YLo = lo(Ax.Y);
  int64_t Iters = (Total + NT - 1) / NT;
  std::string K = fresh("h"), T = fresh("t"), TXv = fresh("tx"), TYv = fresh("ty");
  std::vector<std::string> Lines;
  auto Or = [&](unsigned D, const std::string &C, int64_t Lo) -> Expected<std::string> {
    auto O = print(P.Dims[D].Origin, true);
    if (!O)
      return O.takeError();
    std::string S = *O == "0" ? C : *O + " + " + C;
    if (Lo)
      S += (Lo < 0 ? " - " : " + ") + std::to_string(Lo < 0 ? -Lo : Lo);
    return S;
  };
  auto X = Or(Ax.X, TXv, XLo), Y = Or(Ax.Y, TYv, YLo);
  if (!X || !Y)
    return makeError("{0}", toString(X ? Y.takeError() : X.takeError()));
  Lines.push_back(Ind + "#pragma unroll");
  Lines.push_back(Ind + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", K, Iters).str());
  Lines.push_back(Ind + formatv("  int {0} = threadIdx.y * {1} + threadIdx.x + {2} * {3};", T,
                                Block[0], K, NT)
                            .str());
  Lines.push_back(Ind + formatv("  int {0} = {1} / {2}, {3} = {1} % {2};", TYv, T, TX, TXv).str());
  // The centre comes from the queue of the thread that owns it.
  std::string Halo = formatv("{0} < {1} || {0} >= {2} || {3} < {4} || {3} >= {5}", TXv, -XLo,
                             -XLo + Block[0], TYv, -YLo, -YLo + Block[1])
                         .str();
  if (Total % NT)
    Halo = T + " < " + std::to_string(Total) + " && (" + Halo + ")";
  Lines.push_back(Ind + "  if (" + Halo + ")");
  auto Ld = load(formatv("{0}[{1}][{2}][{3}]", Tile, Slot, TYv, TXv).str(), *X, *Y, Dz, Ind + "  ");
  if (!Ld)
    return Ld.takeError();
  Lines.push_back(*Ld);
  Lines.push_back(Ind + "}");
  auto Shift = [](const std::string &S, int64_t Lo) {
    return Lo ? S + (Lo < 0 ? " + " : " - ") + std::to_string(Lo < 0 ? -Lo : Lo) : S;
  };
  Lines.push_back(Ind + formatv("{0}[{1}][{2}][{3}] = {4}[{5}];", Tile, Slot,
                                Shift("threadIdx.y", YLo), Shift("threadIdx.x", XLo), Q,
                                Dz - lo(Ax.Z))
                            .str());
  return join(Lines, "\n");
}

Expected<std::string> Writer::readText(size_t K) {
  const std::vector<IndexForm> &Off = P.Offsets[K];
  if (queued(K))
    return formatv("{0}[{1}]", Q, *Off[Ax.Z].constantValue() - lo(Ax.Z)).str();
  auto Dz = print(Off[Ax.Z], false);
  auto Dy = print(Off[Ax.Y] - P.Dims[Ax.Y].Lo, false);
  auto Dx = print(Off[Ax.X] - P.Dims[Ax.X].Lo, false);
  if (!Dz || !Dy || !Dx)
    return makeError("the offsets of '{0}' cannot be written", P.Reads[K]->Text);
  auto Idx = [](StringRef Base, const std::string &R) {
    if (R == "0")
      return Base.str();
    return R.front() == '-' ? Base.str() + " - " + R.substr(1) : Base.str() + " + " + R;
  };
  return formatv("{0}[{1}][{2}][{3}]", Tile, slot(*Dz), Idx("threadIdx.y", *Dy),
                 Idx("threadIdx.x", *Dx))
      .str();
}

Expected<std::string> Writer::write() {
  classify();
  Tile = fresh(P.Buffer + "_planes");
  Q = fresh(P.Buffer + "_q");
  It = fresh("plane");
  Act = fresh("active");
  Type = typeSpelling(P.Elem, In.Ctx);
  Zero = zeroOf(P.Elem, In.Ctx);
  EditCollector C(In);
  auto LB = C.offsetOf(Body->getLBracLoc()), RB = C.offsetOf(Body->getRBracLoc());
  if (!LB || !RB)
    return makeError("the kernel's body is written through a macro");
  unsigned Begin = *LB + 1, End = *RB;
  std::string Ind = "  ";
  if (!Body->body_empty())
    if (auto O = C.offsetOf(Body->body_front()->getBeginLoc()))
      Ind = lineIndent(In.Source, *O).str();
  const auto *For = dyn_cast<ForStmt>(L.S);
  if (!For)
    return makeError("the loop over '{0}' is not a 'for' loop", L.Var);
  std::string LInd = Ind;
  if (auto O = C.offsetOf(For->getBeginLoc()))
    LInd = lineIndent(In.Source, *O).str();
  std::string BInd = LInd + "  ";

  std::vector<SourceEdit> Edits;
  auto RangeOf = [&](const Stmt *S) -> Expected<std::pair<unsigned, unsigned>> {
    auto R = C.rangeOfStatement(S);
    if (!R)
      return makeError("the statement at line {0} is written through a macro",
                       In.Ctx.getSourceManager().getPresumedLineNumber(S->getBeginLoc()));
    return *R;
  };
  auto CondText = [&](const IfStmt *If) -> Expected<std::string> {
    auto R = C.rangeOf(If->getCond()->getSourceRange());
    if (!R)
      return makeError("the condition at line {0} is written through a macro",
                       In.Ctx.getSourceManager().getPresumedLineNumber(If->getBeginLoc()));
    return In.Source.slice(R->first, R->second).str();
  };
  // The reads.
  for (size_t K = 0; K < P.Reads.size(); ++K) {
    auto R = C.rangeOf(P.Reads[K]->E->getSourceRange());
    if (!R)
      return makeError("the read '{0}' (line {1}) is written through a macro", P.Reads[K]->Text,
                       P.Reads[K]->Loc.Line);
    auto Text = readText(K);
    if (!Text)
      return Text.takeError();
    Edits.push_back({R->first, R->second - R->first, *Text});
  }
  // The threads that leave, or never enter, stay with a flag.
  for (const IfStmt *If : Pa.Returns) {
    auto R = RangeOf(If);
    auto Cond = CondText(If);
    if (!R || !Cond)
      return makeError("{0}", toString(R ? Cond.takeError() : R.takeError()));
    Edits.push_back({R->first, R->second - R->first,
                     formatv("if ({0} && ({1})) {0} = false;", Act, *Cond).str()});
  }
  for (const IfStmt *If : Pa.Enclosing) {
    auto B = C.offsetOf(If->getBeginLoc()), T = C.offsetOf(If->getThen()->getBeginLoc());
    auto Cond = CondText(If);
    if (!B || !T || !Cond)
      return makeError("the 'if' at line {0} is written through a macro",
                       In.Ctx.getSourceManager().getPresumedLineNumber(If->getBeginLoc()));
    Edits.push_back({*B, *T - *B, formatv("{0} = {0} && ({1});\n{2}", Act, *Cond,
                                          lineIndent(In.Source, *B))
                                      .str()});
  }
  if (Pa.Flags() && !Pa.After.empty()) {
    auto F = RangeOf(Pa.After.front()), Last = RangeOf(Pa.After.back());
    if (!F || !Last)
      return makeError("{0}", toString(F ? Last.takeError() : F.takeError()));
    Edits.push_back({F->first, 0, "if (" + Act + ") {\n" + LInd});
    Edits.push_back({Last->second, 0, "\n" + LInd + "}"});
  }

  // The loop's body: the planes of the iteration, a barrier, the original
  // body for the threads that run it, a barrier, the queue's shift.
  auto BR = RangeOf(For->getBody());
  if (!BR)
    return BR.takeError();
  std::vector<std::string> Pre;
  Pre.push_back("{");
  Pre.push_back(BInd + "// stencil-z-march: the planes of this iteration; the first one fills the queue and the ring.");
  std::string XC = Centre[0], YC = Centre[1];
  std::vector<std::string> First;
  for (int64_t Dz = lo(Ax.Z); Dz < hi(Ax.Z); ++Dz) {
    auto Ld = load(formatv("{0}[{1}]", Q, Dz - lo(Ax.Z)).str(), XC, YC, Dz, BInd + "  ");
    if (!Ld)
      return Ld.takeError();
    First.push_back(*Ld);
  }
  for (int64_t Dz = HLo; Dz < HHi; ++Dz) {
    auto St = stage(Dz, std::to_string(Dz - HLo), BInd + "  ");
    if (!St)
      return St.takeError();
    First.push_back(*St);
  }
  if (!First.empty()) {
    Pre.push_back(BInd + "if (" + It + " == 0) {");
    append_range(Pre, First);
    Pre.push_back(BInd + "}");
  }
  auto Front = load(formatv("{0}[{1}]", Q, queue() - 1).str(), XC, YC, hi(Ax.Z), BInd);
  if (!Front)
    return Front.takeError();
  Pre.push_back(*Front);
  if (ring() > 0) {
    auto St = stage(HHi, ring() == 1 ? "0" : formatv("({0} + {1}) % {2}", It, ring() - 1, ring()).str(),
                    BInd);
    if (!St)
      return St.takeError();
    Pre.push_back(*St);
    Pre.push_back(BInd + "__syncthreads();");
  }
  Pre.push_back(BInd + (Pa.Flags() ? "if (" + Act + ") do " : "do "));
  std::vector<std::string> Post;
  Post.push_back(" while (0);");
  if (ring() > 0)
    Post.push_back(BInd + "__syncthreads();");
  if (queue() > 1) {
    std::string J = fresh("q");
    Post.push_back(BInd + "#pragma unroll");
    Post.push_back(BInd + formatv("for (int {0} = 0; {0} < {1}; ++{0})", J, queue() - 1).str());
    Post.push_back(BInd + formatv("  {0}[{1}] = {0}[{1} + 1];", Q, J).str());
  }
  Post.push_back(BInd + "++" + It + ";");
  Post.push_back(LInd + "}");
  Edits.push_back({BR->first, 0, join(Pre, "\n")});
  Edits.push_back({BR->second, 0, join(Post, "\n")});

  for (const SourceEdit &E : Edits)
    if (E.Offset < Begin || E.Offset + E.Length > End)
      return makeError("an edit lies outside the kernel's body");
  std::string New = StringRef(applyEdits(In.Source.slice(Begin, End), Begin, Edits))
                        .trim("\n")
                        .rtrim()
                        .str();
  std::string Orig = StringRef(In.Source.slice(Begin, End)).trim("\n").rtrim().str();

  std::vector<std::string> Lines;
  auto Planes = [&](int64_t A, int64_t B) {
    auto At = [&](int64_t D) {
      return D ? L.Var + (D < 0 ? " - " : " + ") + std::to_string(D < 0 ? -D : D) : L.Var;
    };
    return A == B ? "plane " + At(A) : "planes " + At(A) + " .. " + At(B);
  };
  Lines.push_back(formatv("{0}// stencil-z-march: each thread keeps {1} of its column of '{2}' in "
                          "registers ({3}),",
                          Ind, Planes(lo(Ax.Z), hi(Ax.Z)), P.Buffer, Q)
                      .str());
  if (ring() > 0)
    Lines.push_back(formatv("{0}// and the block stages the x-y neighbourhood of {1} in shared "
                            "memory ({2}), one plane per iteration.",
                            Ind, Planes(HLo, HHi), Tile)
                        .str());
  Lines.push_back(Ind + formatv("// Another block shape runs the original code.").str());
  Lines.push_back(Ind + formatv("if (blockDim.x != {0} || blockDim.y != {1} || blockDim.z != 1) {{",
                                Block[0], Block[1])
                            .str());
  Lines.push_back(indentBy(Orig, "  "));
  Lines.push_back(Ind + "  return;");
  Lines.push_back(Ind + "}");
  if (ring() > 0)
    Lines.push_back(Ind + formatv("__shared__ {0} {1}[{2}][{3}][{4}];", Type, Tile, ring(), tileY(),
                                  tileX())
                              .str());
  Lines.push_back(Ind + formatv("{0} {1}[{2}];", Type, Q, queue()).str());
  Lines.push_back(Ind + formatv("int {0} = 0;", It).str());
  if (Pa.Flags())
    Lines.push_back(Ind + formatv("bool {0} = true;", Act).str());
  Lines.push_back(Ind + StringRef(New).ltrim(" \t").str());
  return "\n" + join(Lines, "\n") + "\n";
}

} // namespace

RuleOutcome StencilZMarchRule::propose(const RuleInput &In) {
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");
  bool Assumed = !In.Request.Block;
  std::array<int64_t, 3> Block = Assumed ? DefaultBlock : *In.Request.Block;
  if (Block[2] != 1)
    return notApplicable(formatv("the block has {0} threads along z: the rule is for a 2D grid of "
                                 "threads each of which walks its column along z",
                                 Block[2])
                             .str());
  an::AnalysisOptions Opts;
  Opts.Block = Block;
  auto Model = an::analyzeKernel(In.Ctx, In.Kernel, Opts);
  if (!Model)
    return notApplicable(toString(Model.takeError()));
  an::KernelModel &M = *Model;
  const an::AtomTable &T = M.atoms();
  std::vector<const an::Pattern *> Stencils = M.patterns(an::PatternKind::Stencil);
  if (Stencils.empty())
    return notApplicable(noStencil(M));

  // The first stencil whose footprint moves with a loop.
  std::vector<std::string> Declined;
  std::optional<TilePlan> Plan;
  const an::Loop *Loop = nullptr;
  Planner Pl(In, M, Block);
  for (const an::Pattern *Pat : Stencils) {
    const an::Footprint &F = M.Footprints[Pat->Footprint];
    std::optional<AtomId> V;
    for (const an::FootprintDim &D : F.Dims)
      if (!V)
        V = findKind(T, D.Position, {AtomKind::LoopVar});
    if (!V || T[*V].Loop < 0) {
      Declined.push_back(formatv("the stencil on '{0}' does not move with a loop: each thread reads "
                                 "around one position (smem-stencil-tiling and "
                                 "stencil-register-rows stage those)",
                                 F.Buffer)
                             .str());
      continue;
    }
    const an::Loop &L = M.Loops[T[*V].Loop];
    if (F.Symbolic) {
      Declined.push_back(formatv("the stencil on '{0}' has a symbolic radius ('{1}'): the queue "
                                 "and the tiles need their sizes",
                                 F.Buffer, F.RadiusText)
                             .str());
      continue;
    }
    Pl.marchAlong(L.Id);
    auto P = Pl.plan(F);
    if (!P) {
      Declined.push_back(toString(P.takeError()));
      continue;
    }
    Plan = std::move(*P);
    Loop = &L;
    break;
  }
  if (!Plan)
    return notApplicable(Declined.front());
  const TilePlan &P = *Plan;
  const an::Loop &L = *Loop;

  // x, y and the loop's dimension.
  Axes Ax;
  bool HasX = false, HasY = false, HasZ = false;
  for (unsigned D = 0; D < P.Dims.size(); ++D) {
    if (P.Dims[D].Moving == L.VarAtom && !P.Dims[D].ThreadDim) {
      Ax.Z = D;
      HasZ = true;
    } else if (P.Dims[D].ThreadDim == 'x' && !HasX) {
      Ax.X = D;
      HasX = true;
    } else if (P.Dims[D].ThreadDim == 'y' && !HasY) {
      Ax.Y = D;
      HasY = true;
    } else {
      return notApplicable(formatv("the stencil on '{0}' moves along dimension {1} (stride {2}) "
                                   "with neither threadIdx.x, threadIdx.y nor the loop over '{3}'",
                                   P.Buffer, D, P.Dims[D].StrideText, L.Var)
                               .str());
    }
  }
  if (!HasX || !HasY || !HasZ || P.Dims.size() != 3)
    return notApplicable(formatv("the stencil on '{0}' is not 3D over threadIdx.x, threadIdx.y and "
                                 "the loop over '{1}' ({2})",
                                 P.Buffer, L.Var, P.F->shape())
                             .str());
  for (unsigned D : {Ax.X, Ax.Y, Ax.Z}) {
    auto Lo = P.Dims[D].Lo.constantValue(), Hi = P.Dims[D].Hi.constantValue();
    if (!Lo || !Hi || *Lo > 0 || *Hi < 0)
      return notApplicable(formatv("the footprint of '{0}' does not hold its centre along "
                                   "dimension {1} (offsets {2}..{3})",
                                   P.Buffer, D, T.render(P.Dims[D].Lo), T.render(P.Dims[D].Hi))
                               .str());
    if (-*Lo > MaxRadius || *Hi > MaxRadius)
      return notApplicable(formatv("the footprint of '{0}' reaches {1} elements along dimension "
                                   "{2}: the rule stages radii up to {3}",
                                   P.Buffer, std::max(-*Lo, *Hi), D, MaxRadius)
                               .str());
  }

  // The loop: every thread of the block runs the same iterations.
  std::string LoopAt = formatv("the loop over '{0}' (line {1})", L.Var, L.Loc.Line).str();
  if (L.Kind != an::LoopKind::For || L.StepK != an::StepKind::Constant || !L.Step ||
      L.Step->constantValue() != 1)
    return notApplicable(LoopAt + " does not step by one plane up ('++" + L.Var + "')");
  if (L.HasEarlyExit)
    return notApplicable(LoopAt + " may be left early (break, return): every thread must reach "
                                  "each iteration's barriers");
  if (!L.TripUniform.atLeast(an::Uniformity::BlockUniform))
    return notApplicable(LoopAt + " runs a number of iterations that differs within the block ('" +
                         L.CondText + "'): the block's barriers need every thread in each");
  if (L.HasSync)
    return notApplicable(LoopAt + " synchronises already");
  for (const an::Access *A : P.Reads)
    if (!is_contained(A->Loops, L.Id))
      return notApplicable(formatv("'{0}' (line {1}) is read outside {2}", A->Text, A->Loc.Line,
                                   LoopAt)
                               .str());
  // Memory the loop writes must not be read back: the reads are taken
  // before the stores of the same iteration.
  for (const an::Access &A : M.Accesses)
    if (A.writes() && A.Space == an::MemorySpace::Shared)
      return notApplicable("the kernel writes shared memory ('" + A.Text + "')");

  BuiltinFinder Facts;
  Facts.TraverseStmt(const_cast<CompoundStmt *>(Body));
  if (Facts.Labels)
    return notApplicable("the body has labels, which the fallback's copy of it would repeat");
  if (Facts.Shared || callsSyncthreads(Body) || any_of(Facts.Calls, isCollective))
    return notApplicable("the body synchronises or shares memory between threads already");
  if (const CallExpr *Call = writableEscape(P.Param, Facts.Calls))
    return notApplicable(formatv("'{0}' is passed to '{1}' as a writable pointer, which may write "
                                 "the planes the queue holds",
                                 P.Buffer, textOf(Call->getCallee(), In.Ctx))
                             .str());
  auto Pa = pathTo(L.S, Body, In.Ctx, L.Var);
  if (!Pa)
    return notApplicable(toString(Pa.takeError()));

  Writer W(In, M, P, L, *Pa, Ax, Block, Body);
  // The thread's own column: its position with no offset.
  FormPrinter FP(T);
  std::vector<std::string> Centre;
  for (unsigned D : {Ax.X, Ax.Y}) {
    auto S = FP.print(P.Dims[D].Position, true);
    if (!S)
      return notApplicable("the position of the reads cannot be written: " + FP.why());
    Centre.push_back(*S);
  }
  W.setCentre(Centre);
  auto Text = W.write();
  if (!Text)
    return notApplicable(toString(Text.takeError()));
  uint64_t Elem = P.Elem->isDependentType() ? 8 : uint64_t(In.Ctx.getTypeSizeInChars(P.Elem).getQuantity());
  uint64_t Need = W.ring() > 0 ? uint64_t(W.ring() * W.tileX() * W.tileY()) * Elem : 0;
  uint64_t Existing = frontend::totalBytes(frontend::staticSharedVariables(In.Kernel, In.Ctx));
  uint64_t Limit = uint64_t(In.Target.limits().StaticSharedMemPerBlock);
  if (Need + 2 * Existing > Limit)
    return notApplicable(formatv("the ring of {0} tiles of {1} x {2} needs {3} bytes of shared "
                                 "memory, more than the {4} a block may have on {5}",
                                 W.ring(), W.tileY(), W.tileX(), Need, Limit, In.Target.Name)
                             .str());
  EditCollector C(In);
  auto LB = C.offsetOf(Body->getLBracLoc()), RB = C.offsetOf(Body->getRBracLoc());
  if (!LB || !RB)
    return notApplicable("the kernel's body is written through a macro");

  std::string Shape = formatv("{0} x {1}", Block[0], Block[1]).str();
  std::string Summary =
      formatv("march the {0} stencil on '{1}' along '{2}' with a {3}-plane register queue", P.F->shape(),
              P.Buffer, L.Var, W.queue())
          .str() +
      (W.ring() > 0 ? formatv(" and a ring of {0} {1} x {2} shared-memory planes", W.ring(),
                              W.tileY(), W.tileX())
                          .str()
                    : std::string());
  double Halo = double(W.tileX() * W.tileY()) / double(Block[0] * Block[1]);
  std::string Rationale =
      formatv("Each output reads {0} elements of '{1}' from global memory ({2} at the thread's own "
              "column, {3} around it). Each thread now loads each plane of its column once into a "
              "register queue that shifts with '{4}'",
              P.Points, P.Buffer, W.QueueReads, W.TileReads, L.Var)
          .str() +
      (W.ring() > 0
           ? formatv(", and the block stages each plane's x-y neighbourhood once in shared memory "
                     "(the centre from the queue, the halo from global memory: {0:f2} elements "
                     "per output), between two barriers per plane",
                     Halo - 1.0)
                 .str()
           : std::string()) +
      ": about one global load per element of the input instead of " + P.Points +
      ". Threads that leave the kernel early (or never enter the loop) stay with a flag for the "
      "loads and barriers and skip the original body; every loaded element is read where the "
      "original's own clamps and bounds say it reads (zero elsewhere), and every read becomes the "
      "queue or tile element that holds the same value, so the results are bitwise identical. "
      "The tiles are sized for blocks of " +
      Shape +
      (Assumed ? " (assumed: the launch's block is not known; give --block or a spec)" : " (the spec's)") +
      "; a device-side check of blockDim runs the original code for any other block.";
  for (const std::string &D : Declined)
    Rationale += "\nNot marched: " + D + ".";
  return proposeEdits(In, name(), Summary, Rationale,
                      {SourceEdit{*LB + 1, *RB - *LB - 1, *Text}});
}

std::unique_ptr<ExpertRule> createStencilZMarchRule() {
  return std::make_unique<StencilZMarchRule>();
}

} // namespace forge::passes
