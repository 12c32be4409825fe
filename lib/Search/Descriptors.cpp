//===- Search/Descriptors.cpp - Behavioural descriptors of a variant ------===//
#include "forge/Search/Descriptors.h"
#include "forge/Arch/Occupancy.h"
#include "forge/Frontend/KernelLookup.h"
#include "forge/Support/Error.h"
#include "forge/Support/JsonReader.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <set>

using namespace clang;
using namespace llvm;

namespace forge::search {

StringRef memoryStrategyName(MemoryStrategy M) {
  switch (M) {
  case MemoryStrategy::Global:
    return "global";
  case MemoryStrategy::Shared:
    return "shared";
  case MemoryStrategy::Register:
    return "register";
  }
  llvm_unreachable("memory strategy");
}

StringRef workBandName(WorkBand W) {
  switch (W) {
  case WorkBand::One:
    return "1";
  case WorkBand::TwoToThree:
    return "2-3";
  case WorkBand::FourToSeven:
    return "4-7";
  case WorkBand::EightPlus:
    return "8+";
  }
  llvm_unreachable("work band");
}

StringRef vectorWidthName(VectorWidth V) {
  switch (V) {
  case VectorWidth::Scalar:
    return "scalar";
  case VectorWidth::Two:
    return "2-wide";
  case VectorWidth::Four:
    return "4-wide";
  }
  llvm_unreachable("vector width");
}

StringRef occupancyBandName(OccupancyBand O) {
  switch (O) {
  case OccupancyBand::Below25:
    return "<25 %";
  case OccupancyBand::From25To50:
    return "25-50 %";
  case OccupancyBand::From50To75:
    return "50-75 %";
  case OccupancyBand::AtLeast75:
    return ">=75 %";
  }
  llvm_unreachable("occupancy band");
}

namespace {
template <typename E, unsigned N>
std::optional<E> parseName(StringRef S, StringRef (*Name)(E)) {
  for (unsigned I = 0; I < N; ++I)
    if (Name(static_cast<E>(I)) == S)
      return static_cast<E>(I);
  return std::nullopt;
}
} // namespace

std::optional<MemoryStrategy> parseMemoryStrategy(StringRef S) {
  return parseName<MemoryStrategy, NumMemoryStrategies>(S, memoryStrategyName);
}
std::optional<WorkBand> parseWorkBand(StringRef S) {
  return parseName<WorkBand, NumWorkBands>(S, workBandName);
}
std::optional<VectorWidth> parseVectorWidth(StringRef S) {
  return parseName<VectorWidth, NumVectorWidths>(S, vectorWidthName);
}
std::optional<OccupancyBand> parseOccupancyBand(StringRef S) {
  return parseName<OccupancyBand, NumOccupancyBands>(S, occupancyBandName);
}

WorkBand workBandOf(uint64_t Items) {
  if (Items >= 8)
    return WorkBand::EightPlus;
  if (Items >= 4)
    return WorkBand::FourToSeven;
  if (Items >= 2)
    return WorkBand::TwoToThree;
  return WorkBand::One;
}

VectorWidth vectorWidthOf(unsigned Lanes) {
  if (Lanes >= 4)
    return VectorWidth::Four;
  if (Lanes == 2)
    return VectorWidth::Two;
  return VectorWidth::Scalar; // float3 is three scalar accesses
}

OccupancyBand occupancyBandOf(double Occ) {
  if (Occ >= 0.75)
    return OccupancyBand::AtLeast75;
  if (Occ >= 0.5)
    return OccupancyBand::From50To75;
  if (Occ >= 0.25)
    return OccupancyBand::From25To50;
  return OccupancyBand::Below25;
}

std::string Descriptor::key() const {
  return (memoryStrategyName(Memory) + "/" + workBandName(Work) + "/" + vectorWidthName(Vector) +
          "/" + occupancyBandName(Occupancy))
      .str();
}

unsigned Descriptor::cellIndex() const {
  return ((unsigned(Memory) * NumWorkBands + unsigned(Work)) * NumVectorWidths + unsigned(Vector)) *
             NumOccupancyBands +
         unsigned(Occupancy);
}

Descriptor Descriptor::fromCellIndex(unsigned Index) {
  Descriptor D;
  D.Occupancy = static_cast<OccupancyBand>(Index % NumOccupancyBands);
  Index /= NumOccupancyBands;
  D.Vector = static_cast<VectorWidth>(Index % NumVectorWidths);
  Index /= NumVectorWidths;
  D.Work = static_cast<WorkBand>(Index % NumWorkBands);
  D.Memory = static_cast<MemoryStrategy>((Index / NumWorkBands) % NumMemoryStrategies);
  return D;
}

//===----------------------------------------------------------------------===//
// Register arrays (from the AST)
//===----------------------------------------------------------------------===//

namespace {
uint64_t arrayElements(QualType T, ASTContext &Ctx) {
  uint64_t N = 1;
  while (const ConstantArrayType *A = Ctx.getAsConstantArrayType(T)) {
    N *= A->getSize().getZExtValue();
    T = A->getElementType();
  }
  return N;
}

const VarDecl *subscriptBase(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  while (const auto *S = dyn_cast<ArraySubscriptExpr>(E))
    E = S->getBase()->IgnoreParenImpCasts();
  if (const auto *R = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(R->getDecl());
  return nullptr;
}

bool mentions(const Stmt *S, const VarDecl *V) {
  if (!S)
    return false;
  if (const auto *R = dyn_cast<DeclRefExpr>(S))
    if (R->getDecl() == V)
      return true;
  for (const Stmt *C : S->children())
    if (mentions(C, V))
      return true;
  return false;
}

/// Per-thread arrays accumulated (`acc[i][j] += ...`, `acc[i] = acc[i] +
/// ...`) inside a loop that does not contain their declaration.
class RegisterArrayFinder : public DynamicRecursiveASTVisitor {
public:
  explicit RegisterArrayFinder(ASTContext &Ctx) : Ctx(Ctx) {}

  std::set<const VarDecl *> Found;

  bool TraverseForStmt(ForStmt *S) override {
    return inLoop(S, [&] { return Base::TraverseForStmt(S); });
  }
  bool TraverseWhileStmt(WhileStmt *S) override {
    return inLoop(S, [&] { return Base::TraverseWhileStmt(S); });
  }
  bool TraverseDoStmt(DoStmt *S) override {
    return inLoop(S, [&] { return Base::TraverseDoStmt(S); });
  }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) override {
    return inLoop(S, [&] { return Base::TraverseCXXForRangeStmt(S); });
  }

  bool VisitBinaryOperator(BinaryOperator *B) override {
    if (!B->isAssignmentOp())
      return true;
    const VarDecl *V = subscriptBase(B->getLHS());
    if (!V || !isa<ArraySubscriptExpr>(B->getLHS()->IgnoreParenImpCasts()) || !isRegisterArray(V))
      return true;
    bool Accumulates = B->isCompoundAssignmentOp() || mentions(B->getRHS(), V);
    if (Accumulates && insideLoopWithout(V))
      Found.insert(V);
    return true;
  }

  bool VisitCompoundAssignOperator(CompoundAssignOperator *B) override {
    return VisitBinaryOperator(B);
  }

private:
  using Base = DynamicRecursiveASTVisitor;

  template <typename Fn> bool inLoop(Stmt *S, Fn Traverse) {
    Loops.push_back(S);
    bool R = Traverse();
    Loops.pop_back();
    return R;
  }

  bool isRegisterArray(const VarDecl *V) const {
    return V->hasLocalStorage() && !V->hasAttr<CUDASharedAttr>() &&
           Ctx.getAsConstantArrayType(V->getType()) &&
           arrayElements(V->getType(), Ctx) >= 2;
  }

  bool insideLoopWithout(const VarDecl *V) const {
    if (Loops.empty())
      return false;
    const SourceManager &SM = Ctx.getSourceManager();
    SourceRange R = Loops.back()->getSourceRange();
    SourceLocation D = V->getLocation();
    bool Inside = !SM.isBeforeInTranslationUnit(D, R.getBegin()) &&
                  !SM.isBeforeInTranslationUnit(R.getEnd(), D);
    return !Inside;
  }

  ASTContext &Ctx;
  std::vector<const Stmt *> Loops;
};
} // namespace

BodyFacts bodyFacts(const FunctionDecl &Kernel, ASTContext &Ctx) {
  BodyFacts F;
  if (!Kernel.getBody())
    return F;
  RegisterArrayFinder Finder(Ctx);
  Finder.TraverseStmt(Kernel.getBody());
  std::vector<const VarDecl *> Sorted(Finder.Found.begin(), Finder.Found.end());
  llvm::sort(Sorted, [](const VarDecl *A, const VarDecl *B) { return A->getName() < B->getName(); });
  for (const VarDecl *V : Sorted) {
    ++F.RegisterArrays;
    F.RegisterArrayElements = std::max(F.RegisterArrayElements, arrayElements(V->getType(), Ctx));
    F.Names.push_back(V->getNameAsString());
  }
  return F;
}

//===----------------------------------------------------------------------===//
// describe
//===----------------------------------------------------------------------===//

namespace {
using analysis::Access;
using analysis::AccessKind;
using analysis::Atom;
using analysis::AtomKind;
using analysis::IndexForm;
using analysis::KernelModel;
using analysis::Loop;

/// The value of F at thread 0 of block 0 of the launch in C, when every
/// atom of it has one.
std::optional<int64_t> evaluate(const KernelModel &M, const IndexForm &F, const CompileFacts &C,
                                unsigned Depth = 0) {
  if (F.overflowed() || Depth > 8)
    return std::nullopt;
  auto AtomValue = [&](analysis::AtomId Id) -> std::optional<int64_t> {
    const Atom &A = M.atoms()[Id];
    unsigned Dim = A.Dim == 'y' ? 1 : A.Dim == 'z' ? 2 : 0;
    switch (A.Kind) {
    case AtomKind::ThreadIdx:
    case AtomKind::BlockIdx:
      return 0;
    case AtomKind::BlockDim:
      if (C.Block)
        return (*C.Block)[Dim];
      return std::nullopt;
    case AtomKind::GridDim:
      if (C.Grid)
        return (*C.Grid)[Dim];
      return std::nullopt;
    case AtomKind::Param:
    case AtomKind::TemplateParam: {
      auto It = C.Scalars.find(A.Name);
      if (It == C.Scalars.end())
        return std::nullopt;
      return It->second;
    }
    case AtomKind::Div:
    case AtomKind::Mod:
    case AtomKind::Min:
    case AtomKind::Max: {
      if (A.Operands.size() != 2)
        return std::nullopt;
      auto L = evaluate(M, A.Operands[0], C, Depth + 1);
      auto R = evaluate(M, A.Operands[1], C, Depth + 1);
      if (!L || !R)
        return std::nullopt;
      if (A.Kind == AtomKind::Min)
        return std::min(*L, *R);
      if (A.Kind == AtomKind::Max)
        return std::max(*L, *R);
      if (*R == 0)
        return std::nullopt;
      return A.Kind == AtomKind::Div ? *L / *R : *L % *R;
    }
    default:
      return std::nullopt;
    }
  };
  int64_t Sum = 0;
  for (const auto &[Mono, Coef] : F.terms()) {
    int64_t Term = Coef;
    for (analysis::AtomId Id : Mono) {
      auto V = AtomValue(Id);
      if (!V)
        return std::nullopt;
      Term *= *V;
    }
    Sum += Term;
  }
  return Sum;
}

/// Iterations of L for the first thread; none when they cannot be known.
std::optional<uint64_t> tripsOf(const KernelModel &M, const Loop &L, const CompileFacts &C) {
  if (L.TripCount)
    return uint64_t(std::max<int64_t>(*L.TripCount, 0));
  if (!L.Start || !L.Step || !L.Bound)
    return std::nullopt;
  auto Start = evaluate(M, *L.Start, C), Step = evaluate(M, *L.Step, C),
       Bound = evaluate(M, *L.Bound, C);
  if (!Start || !Step || !Bound || *Step == 0)
    return std::nullopt;
  int64_t Span;
  switch (L.Cmp) {
  case analysis::CmpOp::LT:
    Span = *Bound - *Start;
    break;
  case analysis::CmpOp::LE:
    Span = *Bound - *Start + 1;
    break;
  case analysis::CmpOp::GT:
    Span = *Start - *Bound;
    break;
  case analysis::CmpOp::GE:
    Span = *Start - *Bound + 1;
    break;
  default:
    return std::nullopt;
  }
  int64_t S = *Step < 0 ? -*Step : *Step;
  if (Span <= 0)
    return 0;
  return uint64_t((Span + S - 1) / S);
}

struct WorkCount {
  uint64_t Items = 0;
  bool Exact = true;
  std::string Why;
};

/// Per buffer, the executions per thread of its distinct accesses, summed;
/// the largest buffer wins.
WorkCount countWork(const KernelModel &M, const std::vector<const Access *> &As,
                    const CompileFacts &C, StringRef Verb) {
  std::map<std::string, std::set<std::string>> Seen;
  std::map<std::string, uint64_t> PerBuffer;
  std::map<std::string, std::string> Example;
  WorkCount W;
  std::vector<std::string> Inexact;
  for (const Access *A : As) {
    if (!Seen[A->Buffer].insert(A->IndexText).second)
      continue;
    uint64_t Runs = 1;
    for (unsigned LI : A->Loops) {
      const Loop &L = M.Loops[LI];
      if (auto T = tripsOf(M, L, C)) {
        Runs *= std::max<uint64_t>(*T, 1);
      } else {
        W.Exact = false;
        std::string What = L.Var.empty() ? "line " + std::to_string(L.Loc.Line) : "'" + L.Var + "'";
        if (!llvm::is_contained(Inexact, What))
          Inexact.push_back(What);
      }
    }
    PerBuffer[A->Buffer] += Runs;
    if (Example[A->Buffer].empty())
      Example[A->Buffer] = A->Text;
  }
  std::string Best;
  for (const auto &[Buf, N] : PerBuffer)
    if (N > W.Items) {
      W.Items = N;
      Best = Buf;
    }
  if (Best.empty()) {
    W.Items = 1;
    W.Why = "no per-thread global access; counted as 1";
    return W;
  }
  W.Why = formatv("{0} of '{1}' ({2}) run {3} time{4} per thread", Verb, Best, Example[Best],
                  W.Items, W.Items == 1 ? "" : "s")
              .str();
  if (!W.Exact)
    W.Why += "; the trips of loop " + join(Inexact, ", ") +
             " are not known without the launch (counted once)";
  return W;
}

bool isGlobal(const Access &A) { return A.Space != analysis::MemorySpace::Shared; }

/// Per-thread results: stores whose address varies across the warp (a store
/// by one thread of a block, out[blockIdx.x], is a per-block result).
bool isPerThreadOutput(const Access &A) {
  return isGlobal(A) && (A.Kind == AccessKind::Store || A.Kind == AccessKind::ReadModifyWrite) &&
         A.Warp.Class != analysis::AccessClass::Broadcast;
}

bool isPerThreadInput(const Access &A) {
  return isGlobal(A) && A.Kind == AccessKind::Load &&
         A.Warp.Class != analysis::AccessClass::Broadcast;
}

/// Scalar lanes of a CUDA vector type ("float4" 4, "__half2" 2), 1 for
/// anything else.
unsigned lanesOf(StringRef Type) {
  Type = Type.trim();
  for (StringRef Q : {"const ", "volatile "})
    while (Type.consume_front(Q))
      Type = Type.ltrim();
  Type.consume_back(" const");
  Type.consume_front("struct ");
  Type.consume_back("_16a");
  Type.consume_back("_32a");
  if (Type == "__half2" || Type == "half2" || Type == "__nv_bfloat162" || Type == "nv_bfloat162")
    return 2;
  static const char *Bases[] = {"char",  "uchar", "short", "ushort",   "int",       "uint", "long",
                                "ulong", "longlong", "ulonglong", "float", "double"};
  if (Type.empty() || !isDigit(Type.back()))
    return 1;
  unsigned N = Type.back() - '0';
  StringRef Base = Type.drop_back();
  for (const char *B : Bases)
    if (Base == B)
      return N >= 1 && N <= 4 ? N : 1;
  return 1;
}
} // namespace

Expected<Descriptor> describe(const KernelModel &M, const CompileFacts &C,
                              const arch::TargetInfo &T, const BodyFacts *Body) {
  Descriptor D;

  // Memory strategy.
  std::vector<std::string> Accumulators;
  {
    // Several per-thread accumulators over one loop: a register tile.
    std::map<unsigned, std::vector<std::string>> ByLoop;
    for (const analysis::Reduction &R : M.Reductions)
      if (R.Kind == analysis::ReductionKind::LoopCarried &&
          R.Scope == analysis::ReductionScope::Thread && !R.Loops.empty())
        ByLoop[R.Loops.back()].push_back(R.Target);
    for (auto &[L, Names] : ByLoop)
      if (Names.size() >= 2 && Names.size() > Accumulators.size())
        Accumulators = Names;
  }
  std::set<std::string> SharedWritten, SharedRead;
  for (const Access &A : M.Accesses)
    if (A.Space == analysis::MemorySpace::Shared) {
      if (A.writes())
        SharedWritten.insert(A.Buffer);
      if (A.reads())
        SharedRead.insert(A.Buffer);
    }
  std::vector<std::string> Staged;
  for (const std::string &B : SharedWritten)
    if (SharedRead.count(B))
      Staged.push_back(B);
  if (Body && Body->RegisterArrays > 0) {
    D.Memory = MemoryStrategy::Register;
    D.MemoryWhy = formatv("per-thread array{0} '{1}' accumulated inside a loop",
                          Body->Names.size() == 1 ? "" : "s", join(Body->Names, "', '"))
                      .str();
  } else if (!Accumulators.empty()) {
    D.Memory = MemoryStrategy::Register;
    D.MemoryWhy = formatv("{0} per-thread accumulators ('{1}') over one loop", Accumulators.size(),
                          join(Accumulators, "', '"))
                      .str();
  } else if (!Staged.empty()) {
    D.Memory = MemoryStrategy::Shared;
    D.MemoryWhy = "__shared__ '" + join(Staged, "', '") + "' is written and read";
  } else {
    D.Memory = MemoryStrategy::Global;
    D.MemoryWhy = "no __shared__ staging and no register tile";
  }

  // Work per thread.
  std::vector<const Access *> Outputs, Inputs;
  for (const Access &A : M.Accesses) {
    if (isPerThreadOutput(A))
      Outputs.push_back(&A);
    if (isPerThreadInput(A))
      Inputs.push_back(&A);
  }
  WorkCount W = !Outputs.empty() ? countWork(M, Outputs, C, "stores")
                                 : countWork(M, Inputs, C, "loads (no per-thread output)");
  D.ItemsPerThread = W.Items;
  D.ItemsExact = W.Exact;
  D.Work = workBandOf(W.Items);
  D.WorkWhy = W.Why;

  // Vector width.
  const Access *Widest = nullptr;
  for (const Access &A : M.Accesses) {
    if (!isGlobal(A) || A.Kind == AccessKind::Atomic)
      continue;
    unsigned L = lanesOf(A.ElementType);
    if (L > D.VectorLanes || (!Widest && L == D.VectorLanes)) {
      if (L > D.VectorLanes)
        D.VectorLanes = L;
      Widest = &A;
    }
  }
  D.Vector = vectorWidthOf(D.VectorLanes);
  D.VectorWhy = Widest ? formatv("{0} {1} ({2})", accessKindName(Widest->Kind), Widest->Text,
                                 Widest->ElementType)
                             .str()
                       : "no global access";

  // Occupancy.
  arch::KernelResources R;
  R.ThreadsPerBlock = C.BlockThreads;
  if (R.ThreadsPerBlock <= 0 && C.Block)
    R.ThreadsPerBlock = int((*C.Block)[0] * (*C.Block)[1] * (*C.Block)[2]);
  R.RegistersPerThread = C.Registers;
  R.StaticSharedBytes = C.StaticShared;
  R.DynamicSharedBytes = C.DynamicShared;
  auto Occ = arch::computeOccupancy(T, R);
  if (!Occ)
    return Occ.takeError();
  D.OccupancyFraction = Occ->Occupancy;
  D.Occupancy = occupancyBandOf(Occ->Occupancy);
  D.OccupancyWhy = formatv("{0} on {1} ({2} registers, {3} B static + {4} B dynamic shared, "
                           "{5} threads)",
                           Occ->describe(), T.Name, C.Registers, C.StaticShared, C.DynamicShared,
                           R.ThreadsPerBlock)
                       .str();
  return D;
}

Expected<Descriptor> describeSource(StringRef Source, StringRef Kernel, const CompileFacts &C,
                                    const arch::TargetInfo &T, const SourceParse &P) {
  frontend::ParseRequest Req;
  Req.File = P.File;
  Req.S = frontend::Side::Device;
  Req.Contents = Source.str();
  frontend::ParseDiagnostics Diags(nullptr);
  analysis::AnalysisOptions Opts;
  Opts.Block = C.Block;
  std::optional<Expected<Descriptor>> Result;
  Error E = frontend::parseCuda(
      P.TC, P.Parse, Req, Diags,
      [&](ASTContext &Ctx, CompilerInstance &, const frontend::PreprocessorFacts &) {
        auto K = frontend::findKernel(Ctx, Kernel, P.File);
        if (!K) {
          Result.emplace(K.takeError());
          return;
        }
        auto M = analysis::analyzeKernel(Ctx, **K, Opts);
        if (!M) {
          Result.emplace(M.takeError());
          return;
        }
        BodyFacts B = bodyFacts(**K, Ctx);
        Result.emplace(describe(*M, C, T, &B));
      });
  if (E) {
    if (Result && !*Result)
      consumeError(Result->takeError());
    return std::move(E);
  }
  if (!Result)
    return makeError("{0}: the device side was not parsed", P.File);
  return std::move(*Result);
}

Json toJson(const Descriptor &D) {
  Json J = Json::object();
  J["memory"] = memoryStrategyName(D.Memory).str();
  J["work"] = workBandName(D.Work).str();
  J["vector"] = vectorWidthName(D.Vector).str();
  J["occupancy"] = occupancyBandName(D.Occupancy).str();
  J["items_per_thread"] = D.ItemsPerThread;
  J["items_exact"] = D.ItemsExact;
  J["vector_lanes"] = D.VectorLanes;
  J["occupancy_fraction"] = D.OccupancyFraction;
  J["why"] = {{"memory", D.MemoryWhy},
              {"work", D.WorkWhy},
              {"vector", D.VectorWhy},
              {"occupancy", D.OccupancyWhy}};
  return J;
}

Expected<Descriptor> descriptorFromJson(const Json &J, StringRef Origin, StringRef Path) {
  JsonReader R(Origin.str());
  Descriptor D;
  if (!R.expectObject(J, Path))
    return R.takeError();
  auto Band = [&](StringRef Key, auto Parse, auto &Out) {
    std::string S = R.string(J, Path, Key, /*Required=*/true);
    if (!R.ok())
      return;
    if (auto V = Parse(S))
      Out = *V;
    else
      R.fail(JsonReader::member(Path, Key), "unknown band '" + S + "'");
  };
  Band("memory", parseMemoryStrategy, D.Memory);
  Band("work", parseWorkBand, D.Work);
  Band("vector", parseVectorWidth, D.Vector);
  Band("occupancy", parseOccupancyBand, D.Occupancy);
  D.ItemsPerThread = R.count(J, Path, "items_per_thread", false, 1);
  D.ItemsExact = R.boolean(J, Path, "items_exact", false, true);
  D.VectorLanes = unsigned(R.count(J, Path, "vector_lanes", false, 1));
  D.OccupancyFraction = R.number(J, Path, "occupancy_fraction", false, 0);
  if (const Json *Why = R.object(J, Path, "why", false)) {
    std::string WP = JsonReader::member(Path, "why");
    D.MemoryWhy = R.string(*Why, WP, "memory");
    D.WorkWhy = R.string(*Why, WP, "work");
    D.VectorWhy = R.string(*Why, WP, "vector");
    D.OccupancyWhy = R.string(*Why, WP, "occupancy");
  }
  if (!R.ok())
    return R.takeError();
  return D;
}

} // namespace forge::search
