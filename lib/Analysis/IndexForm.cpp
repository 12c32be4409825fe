//===- Analysis/IndexForm.cpp - Quasi-affine index forms ------------------===//
#include "forge/Analysis/IndexForm.h"
#include <functional>
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <numeric>

using namespace llvm;

namespace forge::analysis {

StringRef uniformityName(Uniformity U) {
  switch (U) {
  case Uniformity::GridUniform:
    return "grid-uniform";
  case Uniformity::BlockUniform:
    return "block-uniform";
  case Uniformity::WarpUniform:
    return "warp-uniform";
  case Uniformity::ThreadVarying:
    return "thread-varying";
  }
  return "thread-varying";
}

StringRef unknownKindName(UnknownKind K) {
  switch (K) {
  case UnknownKind::DataDependent:
    return "data-dependent";
  case UnknownKind::LoopCarried:
    return "loop-carried";
  case UnknownKind::Call:
    return "call";
  case UnknownKind::NonInteger:
    return "non-integer";
  case UnknownKind::Opaque:
    return "opaque";
  }
  return "opaque";
}

StringRef cmpOpSpelling(CmpOp Op) {
  switch (Op) {
  case CmpOp::LT:
    return "<";
  case CmpOp::LE:
    return "<=";
  case CmpOp::GT:
    return ">";
  case CmpOp::GE:
    return ">=";
  case CmpOp::EQ:
    return "==";
  case CmpOp::NE:
    return "!=";
  }
  return "?";
}

CmpOp negate(CmpOp Op) {
  switch (Op) {
  case CmpOp::LT:
    return CmpOp::GE;
  case CmpOp::LE:
    return CmpOp::GT;
  case CmpOp::GT:
    return CmpOp::LE;
  case CmpOp::GE:
    return CmpOp::LT;
  case CmpOp::EQ:
    return CmpOp::NE;
  case CmpOp::NE:
    return CmpOp::EQ;
  }
  return Op;
}

CmpOp swapSides(CmpOp Op) {
  switch (Op) {
  case CmpOp::LT:
    return CmpOp::GT;
  case CmpOp::LE:
    return CmpOp::GE;
  case CmpOp::GT:
    return CmpOp::LT;
  case CmpOp::GE:
    return CmpOp::LE;
  default:
    return Op;
  }
}

//===----------------------------------------------------------------------===//
// IndexForm
//===----------------------------------------------------------------------===//

IndexForm IndexForm::constant(int64_t C) {
  IndexForm F;
  F.add({}, C);
  return F;
}

IndexForm IndexForm::atom(AtomId A) {
  IndexForm F;
  F.add({A}, 1);
  return F;
}

void IndexForm::add(const Monomial &M, int64_t C) {
  if (C == 0)
    return;
  auto [It, New] = Terms.try_emplace(M, C);
  if (New)
    return;
  auto Sum = checkedAdd(It->second, C);
  if (!Sum) {
    Overflow = true;
    return;
  }
  It->second = *Sum;
  if (It->second == 0)
    Terms.erase(It);
}

IndexForm IndexForm::operator+(const IndexForm &O) const {
  IndexForm R = *this;
  R.Overflow |= O.Overflow;
  for (const auto &[M, C] : O.Terms)
    R.add(M, C);
  return R;
}

IndexForm IndexForm::operator-(const IndexForm &O) const { return *this + O.scaled(-1); }

IndexForm IndexForm::operator*(const IndexForm &O) const {
  IndexForm R;
  R.Overflow = Overflow || O.Overflow;
  for (const auto &[MA, CA] : Terms)
    for (const auto &[MB, CB] : O.Terms) {
      Monomial M;
      std::merge(MA.begin(), MA.end(), MB.begin(), MB.end(), std::back_inserter(M));
      auto P = checkedMul(CA, CB);
      if (!P) {
        R.Overflow = true;
        continue;
      }
      R.add(M, *P);
    }
  return R;
}

IndexForm IndexForm::scaled(int64_t C) const {
  IndexForm R;
  R.Overflow = Overflow;
  for (const auto &[M, K] : Terms) {
    auto P = checkedMul(K, C);
    if (!P) {
      R.Overflow = true;
      continue;
    }
    R.add(M, *P);
  }
  return R;
}

bool IndexForm::isConstant() const {
  return !Overflow && (Terms.empty() || (Terms.size() == 1 && Terms.begin()->first.empty()));
}

std::optional<int64_t> IndexForm::constantValue() const {
  if (!isConstant())
    return std::nullopt;
  return constantTerm();
}

int64_t IndexForm::constantTerm() const {
  auto It = Terms.find({});
  return It == Terms.end() ? 0 : It->second;
}

std::set<AtomId> IndexForm::atoms() const {
  std::set<AtomId> Out;
  for (const auto &T : Terms)
    Out.insert(T.first.begin(), T.first.end());
  return Out;
}

bool IndexForm::mentions(AtomId A) const {
  return llvm::any_of(Terms, [&](const auto &T) { return llvm::is_contained(T.first, A); });
}

unsigned IndexForm::degreeIn(AtomId A) const {
  unsigned D = 0;
  for (const auto &T : Terms)
    D = std::max(D, unsigned(llvm::count(T.first, A)));
  return D;
}

std::optional<IndexForm> IndexForm::coefficientOf(AtomId A) const {
  IndexForm Q;
  Q.Overflow = Overflow;
  for (const auto &[M, C] : Terms) {
    unsigned N = unsigned(llvm::count(M, A));
    if (N > 1)
      return std::nullopt;
    if (N == 0)
      continue;
    Monomial Less = M;
    Less.erase(llvm::find(Less, A));
    Q.add(Less, C);
  }
  return Q;
}

IndexForm IndexForm::withoutAtom(AtomId A) const {
  return filtered([&](AtomId X) { return X != A; });
}

std::optional<IndexForm> IndexForm::dividedExactly(int64_t D) const {
  if (D == 0 || Overflow)
    return std::nullopt;
  IndexForm Q;
  for (const auto &[M, C] : Terms) {
    if (C % D != 0)
      return std::nullopt;
    Q.add(M, C / D);
  }
  return Q;
}

std::optional<IndexForm> IndexForm::dividedExactly(const IndexForm &D) const {
  if (auto C = D.constantValue())
    return dividedExactly(*C);
  if (D.Terms.size() != 1 || Overflow || D.Overflow)
    return std::nullopt;
  const auto &[DM, DC] = *D.Terms.begin();
  IndexForm Q;
  for (const auto &[M, C] : Terms) {
    if (C % DC != 0)
      return std::nullopt;
    // M must contain DM as a sub-multiset.
    Monomial Rest;
    if (!std::includes(M.begin(), M.end(), DM.begin(), DM.end()))
      return std::nullopt;
    std::set_difference(M.begin(), M.end(), DM.begin(), DM.end(), std::back_inserter(Rest));
    Q.add(Rest, C / DC);
  }
  return Q;
}

int64_t IndexForm::coefficientGcd() const {
  int64_t G = 0;
  for (const auto &T : Terms)
    G = std::gcd(G, T.second < 0 ? -T.second : T.second);
  return G;
}

std::string IndexForm::key() const {
  std::string K = Overflow ? "!" : "";
  for (const auto &[M, C] : Terms) {
    K += std::to_string(C);
    for (AtomId A : M)
      K += "*a" + std::to_string(A);
    K += ";";
  }
  return K;
}

//===----------------------------------------------------------------------===//
// AtomTable
//===----------------------------------------------------------------------===//

AtomTable::AtomTable(std::optional<std::array<int64_t, 3>> Block) : Block(Block) {}

AtomId AtomTable::intern(Atom A, const std::string &Key) {
  auto It = ByKey.find(Key);
  if (It != ByKey.end())
    return It->second;
  Atoms.push_back(std::move(A));
  AtomId Id = AtomId(Atoms.size() - 1);
  ByKey[Key] = Id;
  return Id;
}

AtomId AtomTable::builtin(StringRef Var, char Dim) {
  std::string Key = ("b:" + Var + "." + Twine(Dim)).str();
  Atom A;
  A.Name = (Var + "." + Twine(Dim)).str();
  A.Dim = Dim;
  if (Var == "threadIdx") {
    A.Kind = AtomKind::ThreadIdx;
    A.Uniform =
        makeUniformity(Uniformity::ThreadVarying, "'" + A.Name + "' differs between threads");
    // Warps are formed along x first: threadIdx.y is the same in a warp
    // when blockDim.x is a multiple of 32 (and threadIdx.z when x*y is).
    if (Block && Dim != 'x') {
      int64_t Below = Dim == 'y' ? (*Block)[0] : (*Block)[0] * (*Block)[1];
      if (Below % 32 == 0)
        A.Uniform = makeUniformity(Uniformity::WarpUniform,
                                   "'" + A.Name + "' differs between the warps of a block");
    } else if (Dim != 'x') {
      A.Uniform.Reason += " (the block size is not known, so a warp may span several " +
                          std::string(Dim == 'y' ? "rows" : "planes") + ")";
    }
  } else if (Var == "blockIdx") {
    A.Kind = AtomKind::BlockIdx;
    A.Uniform = makeUniformity(Uniformity::BlockUniform, "'" + A.Name + "' differs between blocks");
  } else if (Var == "blockDim") {
    A.Kind = AtomKind::BlockDim;
  } else {
    A.Kind = AtomKind::GridDim;
  }
  return intern(std::move(A), Key);
}

std::optional<AtomId> AtomTable::findBuiltin(StringRef Var, char Dim) const {
  auto It = ByKey.find(("b:" + Var + "." + Twine(Dim)).str());
  if (It == ByKey.end())
    return std::nullopt;
  return It->second;
}

AtomId AtomTable::symbol(AtomKind Kind, const clang::Decl *D, StringRef Name, StringRef Key) {
  std::string K =
      Key.empty() ? "s:" + std::to_string(reinterpret_cast<uintptr_t>(D)) : ("s:" + Key).str();
  Atom A;
  A.Kind = Kind;
  A.Decl = D;
  A.Name = Name.str();
  return intern(std::move(A), K);
}

AtomId AtomTable::loopVar(int Loop, const clang::Decl *D, StringRef Name, UniformityInfo U) {
  Atom A;
  A.Kind = AtomKind::LoopVar;
  A.Decl = D;
  A.Loop = Loop;
  A.Name = Name.str();
  A.Uniform = std::move(U);
  return intern(std::move(A), "l:" + std::to_string(Loop));
}

AtomId AtomTable::loopIter(int Loop, StringRef VarName) {
  Atom A;
  A.Kind = AtomKind::LoopIter;
  A.Loop = Loop;
  A.Name = ("it(" + VarName + ")").str();
  return intern(std::move(A), "i:" + std::to_string(Loop));
}

AtomId AtomTable::unknown(UnknownKind Why, StringRef Name, StringRef Reason, unsigned Line,
                          UniformityInfo U, const void *Key, std::vector<IndexForm> Operands) {
  Atom A;
  A.Operands = std::move(Operands);
  A.Kind = AtomKind::Unknown;
  A.Why = Why;
  A.Name = Name.str();
  A.Reason = Reason.str();
  A.Line = Line;
  A.Uniform = std::move(U);
  return intern(std::move(A), "u:" + std::to_string(reinterpret_cast<uintptr_t>(Key)) + ":" +
                                  std::to_string(int(Why)));
}

void AtomTable::detach() {
  for (Atom &A : Atoms)
    A.Decl = nullptr;
}

UniformityInfo AtomTable::uniformity(const IndexForm &F) const {
  UniformityInfo U;
  for (AtomId A : F.atoms())
    U = U.join(Atoms[A].Uniform);
  return U;
}

IndexForm AtomTable::composite(AtomKind K, const IndexForm &X, const IndexForm &Y) {
  static const char *const Names[] = {"div", "mod", "min", "max"};
  unsigned Index = K == AtomKind::Div ? 0 : K == AtomKind::Mod ? 1 : K == AtomKind::Min ? 2 : 3;
  IndexForm A = X, B = Y;
  // min and max commute: one atom for either order.
  if ((K == AtomKind::Min || K == AtomKind::Max) && B.key() < A.key())
    std::swap(A, B);
  std::string Key = std::string(Names[Index]) + "(" + A.key() + "," + B.key() + ")";
  Atom At;
  At.Kind = K;
  At.Operands = {A, B};
  At.Uniform = uniformity(A).join(uniformity(B));
  // threadIdx.x / 32 (and the like) is the warp number: the same in every
  // lane when warps are known to start at multiples of 32 along x.
  if (K == AtomKind::Div && Block && (*Block)[0] % 32 == 0 && At.Uniform.isThreadVarying())
    if (auto C = B.constantValue())
      if (auto Tx = findBuiltin("threadIdx", 'x'))
        if (auto Coef = A.coefficientOf(*Tx))
          if (auto AC = Coef->constantValue(); AC && *AC > 0 && *C % (32 * *AC) == 0) {
            IndexForm Rest = A.withoutAtom(*Tx);
            UniformityInfo RU = uniformity(Rest);
            if (!RU.isThreadVarying() && Rest.coefficientGcd() % *C == 0)
              At.Uniform = RU.join(makeUniformity(
                  Uniformity::WarpUniform, "'" + renderAtom(*Tx) + " / " + std::to_string(*C) +
                                               "' differs between the warps of a block"));
          }
  return IndexForm::atom(intern(std::move(At), Key));
}

IndexForm AtomTable::div(const IndexForm &N, const IndexForm &D) {
  if (N.isZero())
    return N;
  if (auto C = D.constantValue()) {
    if (*C == 1)
      return N;
    if (*C == -1)
      return -N;
    if (*C != 0)
      if (auto NC = N.constantValue())
        return IndexForm::constant(*NC / *C);
  }
  if (!D.isZero())
    if (auto Q = N.dividedExactly(D))
      return *Q;
  return composite(AtomKind::Div, N, D);
}

IndexForm AtomTable::mod(const IndexForm &N, const IndexForm &D) {
  if (N.isZero())
    return N;
  if (auto C = D.constantValue()) {
    if (*C == 1 || *C == -1)
      return IndexForm();
    if (*C != 0)
      if (auto NC = N.constantValue())
        return IndexForm::constant(*NC % *C);
  }
  if (!D.isZero() && N.dividedExactly(D))
    return IndexForm();
  return foldDivMod(composite(AtomKind::Mod, N, D));
}

IndexForm AtomTable::min(const IndexForm &A, const IndexForm &B) {
  if (auto Diff = (A - B).constantValue())
    return *Diff <= 0 ? A : B;
  return composite(AtomKind::Min, A, B);
}

IndexForm AtomTable::max(const IndexForm &A, const IndexForm &B) {
  if (auto Diff = (A - B).constantValue())
    return *Diff >= 0 ? A : B;
  return composite(AtomKind::Max, A, B);
}

IndexForm AtomTable::select(std::optional<Comparison> Pred, StringRef PredText,
                            UniformityInfo PredUniform, const IndexForm &T, const IndexForm &F) {
  if (T == F)
    return T;
  if (Pred) {
    // A condition the forms decide.
    if (auto D = (Pred->Lhs - Pred->Rhs).constantValue()) {
      bool Holds = false;
      switch (Pred->Op) {
      case CmpOp::LT:
        Holds = *D < 0;
        break;
      case CmpOp::LE:
        Holds = *D <= 0;
        break;
      case CmpOp::GT:
        Holds = *D > 0;
        break;
      case CmpOp::GE:
        Holds = *D >= 0;
        break;
      case CmpOp::EQ:
        Holds = *D == 0;
        break;
      case CmpOp::NE:
        Holds = *D != 0;
        break;
      }
      return Holds ? T : F;
    }
    // x < lo ? lo : x is max(x, lo); x > hi ? hi : x is min(x, hi). Forms
    // are integers, so a non-strict test is a strict one a step further:
    // x >= n ? n - 1 : x is x > n - 1 ? n - 1 : x, min(x, n - 1).
    bool Less = Pred->Op == CmpOp::LT || Pred->Op == CmpOp::LE;
    bool Greater = Pred->Op == CmpOp::GT || Pred->Op == CmpOp::GE;
    if (Less || Greater) {
      const IndexForm One = IndexForm::constant(1);
      // The step that turns the test into the other strictness (x <= n is
      // x < n + 1, x >= n is x > n - 1, x < n is x <= n - 1, x > n is x >= n + 1).
      IndexForm Step = (Pred->Op == CmpOp::LE || Pred->Op == CmpOp::GT) ? One : -One;
      const std::pair<IndexForm, IndexForm> Sides[] = {
          {Pred->Lhs, Pred->Rhs}, {Pred->Lhs, Pred->Rhs + Step}, {Pred->Lhs - Step, Pred->Rhs}};
      for (const auto &[L, R] : Sides)
        if ((T == L && F == R) || (T == R && F == L)) {
          bool PicksLhs = T == L;
          bool IsMin = Less == PicksLhs;
          return IsMin ? min(L, R) : max(L, R);
        }
    }
  }
  Atom At;
  At.Kind = AtomKind::Select;
  At.Operands = {T, F};
  At.Pred = Pred;
  At.PredText = PredText.str();
  At.Uniform = PredUniform.join(uniformity(T)).join(uniformity(F));
  std::string Key = "sel(" +
                    (Pred ? Pred->Lhs.key() + cmpOpSpelling(Pred->Op).str() + Pred->Rhs.key()
                          : "?" + PredText.str()) +
                    "," + T.key() + "," + F.key() + ")";
  return IndexForm::atom(intern(std::move(At), Key));
}

IndexForm AtomTable::foldDivMod(IndexForm F) const {
  for (unsigned Round = 0; Round < 8; ++Round) {
    bool Changed = false;
    for (AtomId X : F.atoms()) {
      const Atom &M = Atoms[X];
      if (M.Kind != AtomKind::Mod)
        continue;
      const IndexForm &N = M.Operands[0], &D = M.Operands[1];
      std::string DivKey = "div(" + N.key() + "," + D.key() + ")";
      auto It = ByKey.find(DivKey);
      if (It == ByKey.end())
        continue;
      IndexForm Q = IndexForm::atom(It->second);
      for (const auto &[Mono, C] : F.terms()) {
        if (llvm::count(Mono, X) != 1)
          continue;
        IndexForm::Monomial Rest = Mono;
        Rest.erase(llvm::find(Rest, X));
        IndexForm T = IndexForm::constant(C);
        for (AtomId A : Rest)
          T = T * IndexForm::atom(A);
        // T * (N % D) + T * D * (N / D) is T * N.
        IndexForm Pair = T * D * Q;
        bool All = !Pair.isZero() && llvm::all_of(Pair.terms(), [&](const auto &PT) {
          auto FI = F.terms().find(PT.first);
          return FI != F.terms().end() && FI->second == PT.second;
        });
        if (!All)
          continue;
        F = F - T * IndexForm::atom(X) - Pair + T * N;
        Changed = true;
        break;
      }
      if (Changed)
        break;
    }
    if (!Changed)
      break;
  }
  return F;
}

bool AtomTable::dependsOn(const IndexForm &F, AtomId A) const {
  for (AtomId X : F.atoms()) {
    if (X == A)
      return true;
    const Atom &At = Atoms[X];
    for (const IndexForm &O : At.Operands)
      if (dependsOn(O, A))
        return true;
    if (At.Pred && (dependsOn(At.Pred->Lhs, A) || dependsOn(At.Pred->Rhs, A)))
      return true;
    if (At.Expansion && dependsOn(*At.Expansion, A))
      return true;
  }
  return false;
}

bool AtomTable::dependsOnKind(const IndexForm &F, AtomKind K) const {
  for (AtomId X : F.atoms()) {
    const Atom &At = Atoms[X];
    if (At.Kind == K)
      return true;
    for (const IndexForm &O : At.Operands)
      if (dependsOnKind(O, K))
        return true;
  }
  return false;
}

const Atom *AtomTable::unknownAtom(const IndexForm &F, Uniformity At) const {
  for (AtomId X : F.atoms()) {
    const Atom &A = Atoms[X];
    if (A.Kind == AtomKind::Unknown && A.Uniform.Level >= At)
      return &A;
    for (const IndexForm &O : A.Operands)
      if (const Atom *U = unknownAtom(O, At))
        return U;
  }
  return nullptr;
}

bool AtomTable::isVarying(AtomId X) const {
  const Atom &A = Atoms[X];
  switch (A.Kind) {
  case AtomKind::ThreadIdx:
  case AtomKind::BlockIdx:
  case AtomKind::LoopVar:
  case AtomKind::LoopIter:
    return true;
  case AtomKind::Unknown:
    return A.Uniform.Level >= Uniformity::WarpUniform ||
           llvm::any_of(A.Operands, [&](const IndexForm &O) {
             return llvm::any_of(O.atoms(), [&](AtomId Y) { return isVarying(Y); });
           });
  default:
    break;
  }
  for (const IndexForm &O : A.Operands)
    for (AtomId Y : O.atoms())
      if (isVarying(Y))
        return true;
  return false;
}

bool AtomTable::isAffine(const IndexForm &F, std::string *Why) const {
  for (const auto &[M, C] : F.terms()) {
    unsigned Varying = 0;
    for (AtomId A : M)
      Varying += isVarying(A);
    if (Varying > 1) {
      if (Why) {
        IndexForm T;
        T = IndexForm::constant(C);
        for (AtomId A : M)
          T = T * IndexForm::atom(A);
        *Why = "'" + render(T) + "' multiplies two varying quantities";
      }
      return false;
    }
  }
  return true;
}

namespace {
void appendAssumption(std::string &To, StringRef What) {
  if (What.empty() || StringRef(To).contains(What))
    return;
  if (!To.empty())
    To += "; ";
  To += What.str();
}

/// Step/Lanes reduced by their gcd.
void reduce(Slope &S) {
  if (!S.Step || S.Lanes == 1)
    return;
  if (S.Step->isZero()) {
    S.Lanes = 1;
    return;
  }
  int64_t G = std::gcd(S.Step->coefficientGcd(), S.Lanes);
  if (G > 1) {
    S.Step = S.Step->dividedExactly(G);
    S.Lanes /= G;
  }
}
} // namespace

Slope AtomTable::slope(const IndexForm &F, AtomId Along) const { return slopeRec(F, Along, 0); }

Slope AtomTable::slopeRec(const IndexForm &F, AtomId Along, unsigned Depth) const {
  Slope Out;
  Out.Step = IndexForm();
  if (F.overflowed()) {
    Out.Step.reset();
    Out.Why = "the index overflows 64-bit arithmetic";
    return Out;
  }
  if (Depth > 16) {
    Out.Step.reset();
    Out.Why = "the index is nested too deeply";
    return Out;
  }
  bool AlongThread = Atoms[Along].Kind == AtomKind::ThreadIdx;
  // Atoms that may change along Along: those that mention it, and opaque
  // thread-varying atoms when Along is a thread index.
  // An opaque atom may hide inside a quotient, remainder or clamp
  // (`(a[i] ^ b[i]) & 127`): the composite moves with it.
  std::function<bool(AtomId)> OpaqueVarying = [&](AtomId X) {
    const Atom &A = Atoms[X];
    if (A.Uniform.isThreadVarying() &&
        (A.Kind == AtomKind::Unknown || (A.Kind == AtomKind::LoopVar && !A.Expansion)))
      return true;
    return llvm::any_of(A.Operands, [&](const IndexForm &O) {
      return llvm::any_of(O.atoms(), OpaqueVarying);
    });
  };
  auto Moves = [&](AtomId X) {
    if (X == Along)
      return true;
    const Atom &A = Atoms[X];
    if (A.Kind == AtomKind::LoopIter)
      return false;
    if (dependsOn(IndexForm::atom(X), Along))
      return true;
    return AlongThread && OpaqueVarying(X);
  };
  for (const auto &[M, C] : F.terms()) {
    std::vector<AtomId> Moving;
    for (AtomId X : M)
      if (Moves(X))
        Moving.push_back(X);
    if (Moving.empty())
      continue;
    if (Moving.size() > 1) {
      IndexForm T = IndexForm::constant(C);
      for (AtomId A : M)
        T = T * IndexForm::atom(A);
      Out.Step.reset();
      Out.Why = "'" + render(T) + "' is not affine in '" + Atoms[Along].Name + "'";
      return Out;
    }
    AtomId X = Moving.front();
    IndexForm Rest = IndexForm::constant(C);
    bool Skipped = false;
    for (AtomId A : M) {
      if (A == X && !Skipped) {
        Skipped = true;
        continue;
      }
      Rest = Rest * IndexForm::atom(A);
    }
    Slope S;
    if (X == Along) {
      S.Step = IndexForm::constant(1);
    } else {
      S = slopeOfAtom(X, Along, Depth + 1);
    }
    if (!S.Step) {
      S.Why = S.Why.empty() ? "the index is not affine" : S.Why;
      return S;
    }
    appendAssumption(Out.Assumption, S.Assumption);
    IndexForm Part = Rest * *S.Step;
    if (S.Lanes == Out.Lanes) {
      Out.Step = *Out.Step + Part;
    } else {
      int64_t L = std::lcm(S.Lanes, Out.Lanes);
      Out.Step = Out.Step->scaled(L / Out.Lanes) + Part.scaled(L / S.Lanes);
      Out.Lanes = L;
    }
    reduce(Out);
  }
  return Out;
}

Slope AtomTable::slopeOfAtom(AtomId X, AtomId Along, unsigned Depth) const {
  const Atom &A = Atoms[X];
  Slope S;
  auto Fail = [&](std::string Why, bool Data = false) {
    Slope F;
    F.Why = std::move(Why);
    F.DataDependent = Data;
    return F;
  };
  switch (A.Kind) {
  case AtomKind::LoopVar:
    if (A.Expansion)
      return slopeRec(*A.Expansion, Along, Depth);
    return Fail("the loop variable '" + A.Name + "' does not step by a uniform amount");
  case AtomKind::Unknown: {
    // An operator the analysis does not follow, over loaded values, is
    // data-dependent too.
    std::function<bool(AtomId)> Loaded = [&](AtomId Y) {
      const Atom &B = Atoms[Y];
      if (B.Kind == AtomKind::Unknown && B.Why == UnknownKind::DataDependent)
        return true;
      return llvm::any_of(B.Operands,
                          [&](const IndexForm &O) { return llvm::any_of(O.atoms(), Loaded); });
    };
    return Fail(A.Reason.empty() ? "'" + A.Name + "' is not known" : A.Reason, Loaded(X));
  }
  case AtomKind::Div: {
    const IndexForm &N = A.Operands[0], &D = A.Operands[1];
    if (dependsOn(D, Along))
      return Fail("the divisor of '" + renderAtom(X) + "' varies");
    Slope SN = slopeRec(N, Along, Depth);
    if (!SN.Step || SN.Step->isZero())
      return SN;
    if (auto C = D.constantValue()) {
      SN.Lanes *= *C < 0 ? -*C : *C;
      if (*C < 0)
        SN.Step = -*SN.Step;
      reduce(SN);
      return SN;
    }
    if (auto Q = SN.Step->dividedExactly(D)) {
      SN.Step = *Q;
      return SN;
    }
    // i / w: the same for runs of w lanes.
    SN.Step = IndexForm();
    SN.Lanes = 1;
    appendAssumption(SN.Assumption, "'" + render(D) + "' >= 32");
    return SN;
  }
  case AtomKind::Mod: {
    const IndexForm &N = A.Operands[0], &D = A.Operands[1];
    if (dependsOn(D, Along))
      return Fail("the divisor of '" + renderAtom(X) + "' varies");
    Slope SN = slopeRec(N, Along, Depth);
    if (!SN.Step || SN.Step->isZero())
      return SN;
    if (auto C = D.constantValue()) {
      int64_t Mag = *C < 0 ? -*C : *C;
      auto Step = SN.Step->constantValue();
      if (!Step || SN.Lanes != 1)
        return Fail("'" + renderAtom(X) + "' wraps in a way the analysis does not follow");
      int64_t Per = *Step < 0 ? -*Step : *Step;
      if (Per * 32 > Mag)
        return Fail("'" + renderAtom(X) + "' wraps around within a warp");
      if (Mag % (32 * Per) != 0)
        appendAssumption(SN.Assumption, "'" + renderAtom(X) + "' does not wrap within a warp");
      return SN;
    }
    appendAssumption(SN.Assumption, "'" + render(D) + "' >= 32");
    return SN;
  }
  case AtomKind::Min:
  case AtomKind::Max:
  case AtomKind::Select: {
    if (A.Kind != AtomKind::Select)
      if (auto Cl = clampOf(X)) {
        Slope SV = slopeRec(Cl->Value, Along, Depth);
        if (SV.Step && !SV.Step->isZero())
          appendAssumption(SV.Assumption, "inside the clamp range");
        return SV;
      }
    Slope SA = slopeRec(A.Operands[0], Along, Depth);
    Slope SB = slopeRec(A.Operands[1], Along, Depth);
    if (!SA.Step)
      return SA;
    if (!SB.Step)
      return SB;
    if (*SA.Step == *SB.Step && SA.Lanes == SB.Lanes) {
      appendAssumption(SA.Assumption, SB.Assumption);
      return SA;
    }
    return Fail("'" + renderAtom(X) + "' changes differently in its two arms");
  }
  default:
    break;
  }
  S.Step = IndexForm();
  return S;
}

IndexForm AtomTable::substitute(const IndexForm &F,
                                function_ref<std::optional<IndexForm>(AtomId)> Replace) {
  IndexForm Out;
  if (F.overflowed())
    return F;
  for (const auto &[M, C] : F.terms()) {
    IndexForm T = IndexForm::constant(C);
    for (AtomId A : M) {
      if (auto R = Replace(A)) {
        T = T * *R;
        continue;
      }
      const Atom &At = Atoms[A];
      if (!At.isComposite()) {
        T = T * IndexForm::atom(A);
        continue;
      }
      // Copies: the table may grow (and move) while rebuilding.
      AtomKind K = At.Kind;
      std::vector<IndexForm> Ops = At.Operands;
      std::optional<Comparison> Pred = At.Pred;
      std::string PredText = At.PredText;
      UniformityInfo PU = At.Uniform;
      IndexForm X = substitute(Ops[0], Replace), Y = substitute(Ops[1], Replace);
      IndexForm New;
      switch (K) {
      case AtomKind::Div:
        New = div(X, Y);
        break;
      case AtomKind::Mod:
        New = mod(X, Y);
        break;
      case AtomKind::Min:
        New = min(X, Y);
        break;
      case AtomKind::Max:
        New = max(X, Y);
        break;
      default: {
        if (Pred) {
          Pred->Lhs = substitute(Pred->Lhs, Replace);
          Pred->Rhs = substitute(Pred->Rhs, Replace);
        }
        New = select(Pred, PredText, PU, X, Y);
        break;
      }
      }
      T = T * New;
    }
    Out = Out + T;
  }
  return foldDivMod(Out);
}

IndexForm AtomTable::expandLoops(const IndexForm &F) {
  return substitute(F, [&](AtomId A) -> std::optional<IndexForm> {
    const Atom &At = Atoms[A];
    if (At.Kind == AtomKind::LoopVar && At.Expansion)
      return *At.Expansion;
    return std::nullopt;
  });
}

std::optional<Clamp> AtomTable::clampOf(AtomId X) const {
  const Atom &A = Atoms[X];
  auto Varies = [&](const IndexForm &F) {
    return llvm::any_of(F.atoms(), [&](AtomId Y) { return isVarying(Y); });
  };
  if (A.Kind == AtomKind::Select)
    return selectClamp(X);
  if (A.Kind != AtomKind::Min && A.Kind != AtomKind::Max)
    return std::nullopt;
  const IndexForm &P = A.Operands[0], &Q = A.Operands[1];
  bool VP = Varies(P), VQ = Varies(Q);
  if (VP == VQ)
    return std::nullopt;
  Clamp C;
  C.Value = VP ? P : Q;
  const IndexForm &Bound = VP ? Q : P;
  if (A.Kind == AtomKind::Min)
    C.Hi = Bound;
  else
    C.Lo = Bound;
  // min(max(v, lo), hi) and max(min(v, hi), lo).
  if (C.Value.terms().size() == 1 && C.Value.terms().begin()->second == 1 &&
      C.Value.terms().begin()->first.size() == 1) {
    AtomId Inner = C.Value.terms().begin()->first.front();
    AtomKind Other = A.Kind == AtomKind::Min ? AtomKind::Max : AtomKind::Min;
    if (Atoms[Inner].Kind == Other)
      if (auto IC = clampOf(Inner)) {
        C.Value = IC->Value;
        if (A.Kind == AtomKind::Min)
          C.Lo = IC->Lo;
        else
          C.Hi = IC->Hi;
      }
  }
  return C;
}

std::optional<Clamp> AtomTable::selectClamp(AtomId X) const {
  // `v < lo ? lo : inner` where inner is v or v clamped from above (and the
  // mirror images): what `if (v < 0) v = 0; else if (v > n - 1) v = n - 1;`
  // leaves, once its inner test has become min(v, n - 1).
  const Atom &A = Atoms[X];
  if (!A.Pred)
    return std::nullopt;
  auto Varies = [&](const IndexForm &F) {
    return llvm::any_of(F.atoms(), [&](AtomId Y) { return isVarying(Y); });
  };
  Comparison P = *A.Pred;
  const IndexForm One = IndexForm::constant(1);
  for (bool TrueArmIsBound : {true, false}) {
    const IndexForm &Bound = TrueArmIsBound ? A.Operands[0] : A.Operands[1];
    const IndexForm &Inner = TrueArmIsBound ? A.Operands[1] : A.Operands[0];
    if (Varies(Bound))
      continue;
    // The inner arm: v itself, or a clamp of v on the other side.
    IndexForm V = Inner;
    std::optional<Clamp> IC;
    if (Inner.terms().size() == 1 && Inner.terms().begin()->second == 1 &&
        Inner.terms().begin()->first.size() == 1)
      IC = clampOf(Inner.terms().begin()->first.front());
    // The test, with v on the left, as it holds where the bound is taken.
    Comparison C = TrueArmIsBound ? P : P.negated();
    for (const IndexForm &Value : {IC ? IC->Value : V, V}) {
      Comparison D = C;
      if (D.Rhs == Value && D.Lhs != Value)
        D = D.swapped();
      if (D.Lhs != Value)
        continue;
      // Taking b where v < b (or v <= b, v < b + 1, v <= b - 1: the tie
      // gives the same value) is a lower clamp; where v > b, an upper one.
      bool Lower = false, Upper = false;
      switch (D.Op) {
      case CmpOp::LT:
        Lower = D.Rhs == Bound || D.Rhs == Bound + One;
        break;
      case CmpOp::LE:
        Lower = D.Rhs == Bound || D.Rhs + One == Bound;
        break;
      case CmpOp::GT:
        Upper = D.Rhs == Bound || D.Rhs + One == Bound;
        break;
      case CmpOp::GE:
        Upper = D.Rhs == Bound || D.Rhs == Bound + One;
        break;
      default:
        break;
      }
      if (!Lower && !Upper)
        continue;
      Clamp R;
      R.Value = Value;
      if (Value == V) {
        // The inner arm is v itself: a one-sided clamp.
        (Lower ? R.Lo : R.Hi) = Bound;
        return R;
      }
      // The inner arm clamps v on the other side (`min(v, hi)` under a lower test).
      if ((Lower && IC->Lo) || (Upper && IC->Hi))
        continue;
      R.Lo = Lower ? std::optional<IndexForm>(Bound) : IC->Lo;
      R.Hi = Upper ? std::optional<IndexForm>(Bound) : IC->Hi;
      return R;
    }
  }
  return std::nullopt;
}

IndexForm AtomTable::unclamped(const IndexForm &F, bool *Clamped) {
  bool Any = false;
  IndexForm Out = substitute(F, [&](AtomId A) -> std::optional<IndexForm> {
    if (auto C = clampOf(A)) {
      Any = true;
      return unclamped(C->Value, nullptr);
    }
    return std::nullopt;
  });
  if (Clamped)
    *Clamped = Any;
  return Out;
}

//===----------------------------------------------------------------------===//
// Rendering
//===----------------------------------------------------------------------===//

std::string AtomTable::renderAtom(AtomId X) const {
  const Atom &A = Atoms[X];
  auto Operand = [&](const IndexForm &F) {
    std::string S = render(F);
    bool Simple = F.terms().size() <= 1 &&
                  (F.terms().empty() || F.terms().begin()->first.size() <= 1) &&
                  (F.constantTerm() >= 0);
    return Simple ? S : "(" + S + ")";
  };
  switch (A.Kind) {
  case AtomKind::Div:
    return Operand(A.Operands[0]) + " / " + Operand(A.Operands[1]);
  case AtomKind::Mod:
    return Operand(A.Operands[0]) + " % " + Operand(A.Operands[1]);
  case AtomKind::Min:
    return "min(" + render(A.Operands[0]) + ", " + render(A.Operands[1]) + ")";
  case AtomKind::Max:
    return "max(" + render(A.Operands[0]) + ", " + render(A.Operands[1]) + ")";
  case AtomKind::Select:
    return "(" + (A.Pred ? render(*A.Pred) : A.PredText) + " ? " + render(A.Operands[0]) + " : " +
           render(A.Operands[1]) + ")";
  default:
    return A.Name;
  }
}

std::string AtomTable::render(const IndexForm &F) const {
  if (F.overflowed())
    return "<overflow>";
  std::vector<std::pair<IndexForm::Monomial, int64_t>> Terms(F.terms().begin(), F.terms().end());
  // Position first (blockIdx, threadIdx), then loop variables and others,
  // the constant last.
  auto Rank = [&](const IndexForm::Monomial &M) {
    if (M.empty())
      return 9;
    int R = 8;
    for (AtomId A : M) {
      switch (Atoms[A].Kind) {
      case AtomKind::BlockIdx:
        R = std::min(R, 0);
        break;
      case AtomKind::ThreadIdx:
        R = std::min(R, 1);
        break;
      case AtomKind::LoopVar:
      case AtomKind::LoopIter:
        R = std::min(R, 3);
        break;
      default:
        R = std::min(R, 2);
        break;
      }
    }
    return R;
  };
  // Within a rank, by spelling: the order atoms were created in must not
  // show (threadIdx.x before threadIdx.y).
  auto MonoText = [&](const IndexForm::Monomial &M) {
    std::string S;
    for (AtomId A : M)
      S += renderAtom(A) + "*";
    return S;
  };
  llvm::stable_sort(Terms, [&](const auto &A, const auto &B) {
    int RA = Rank(A.first), RB = Rank(B.first);
    if (RA != RB)
      return RA < RB;
    return MonoText(A.first) < MonoText(B.first);
  });
  std::string Out;
  auto AtomRank = [&](AtomId A) {
    switch (Atoms[A].Kind) {
    case AtomKind::BlockIdx:
      return 0;
    case AtomKind::BlockDim:
      return 1;
    case AtomKind::ThreadIdx:
      return 2;
    case AtomKind::GridDim:
      return 3;
    case AtomKind::Param:
    case AtomKind::TemplateParam:
      return 4;
    case AtomKind::LoopVar:
    case AtomKind::LoopIter:
      return 6;
    default:
      return 5;
    }
  };
  for (const auto &[M, C] : Terms) {
    std::vector<std::pair<int, std::string>> Parts;
    int64_t Abs = C < 0 ? -C : C;
    for (AtomId A : M) {
      std::string S = renderAtom(A);
      // `16 * (w / 16)` is not `16 * w / 16`: a quotient or remainder in a
      // product, or under a coefficient, keeps its parentheses.
      if (Atoms[A].Kind == AtomKind::Div || Atoms[A].Kind == AtomKind::Mod)
        if (M.size() > 1 || Abs != 1)
          S = "(" + S + ")";
      Parts.push_back({AtomRank(A), S});
    }
    llvm::sort(Parts);
    std::string Mono;
    for (const auto &P : Parts)
      Mono += (Mono.empty() ? "" : " * ") + P.second;
    std::string Term = M.empty()  ? std::to_string(Abs)
                       : Abs == 1 ? Mono
                                  : std::to_string(Abs) + " * " + Mono;
    if (Out.empty())
      Out = (C < 0 ? "-" : "") + Term;
    else
      Out += (C < 0 ? " - " : " + ") + Term;
  }
  return Out.empty() ? "0" : Out;
}

std::string AtomTable::render(const Comparison &C) const {
  return render(C.Lhs) + " " + cmpOpSpelling(C.Op).str() + " " + render(C.Rhs);
}

} // namespace forge::analysis
