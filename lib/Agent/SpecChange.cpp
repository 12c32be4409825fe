//===- Agent/SpecChange.cpp - Launch changes of proposals -----------------===//
///
/// \file
/// A proposal's SpecChange applied to a launch spec, two changes composed
/// into one, and a request's launch fields read from a spec: what the
/// optimisation loop and the expert proposer's composed proposals share.
///
//===----------------------------------------------------------------------===//
#include "forge/Agent/Proposer.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace forge::agent {

/// The spec a SpecChange makes of Base; stored in Keep so that pointers
/// stay valid.
Expected<const measure::LaunchSpec *> applySpecChange(const measure::LaunchSpec &Base,
                                                      const SpecChange &C,
                                                      std::deque<measure::LaunchSpec> &Keep,
                                                      measure::ValueMap &Values) {
  measure::LaunchSpec S = Base;
  for (const auto &[Name, Values] : C.NewTunables) {
    if (Values.empty())
      return makeError("new tunable {0} has no values", Name);
    if (S.findTunable(Name) || llvm::any_of(S.Sizes, [&](auto &P) { return P.first == Name; }))
      return makeError("new tunable {0} is already a name in the spec", Name);
    measure::Tunable T;
    T.Name = Name;
    T.Values = Values;
    T.Default = Values.front();
    S.Tunables.push_back(T);
  }
  for (const auto &[Field, Text] : C.Geometry) {
    StringRef F = Field;
    if (F == "shared") {
      // The dynamic shared memory a rewrite's extern __shared__ array needs.
      auto E = measure::IntExpr::parse(Text);
      if (!E)
        return makeError("{0} = '{1}': {2}", Field, Text, toString(E.takeError()));
      S.SharedMem = *E;
      continue;
    }
    if (!F.consume_front("grid."))
      return makeError("'{0}': only the grid and the dynamic shared memory may change (grid.x, "
                       "grid.y, grid.z, shared)",
                       Field);
    int Dim = StringSwitch<int>(F).Case("x", 0).Case("y", 1).Case("z", 2).Default(-1);
    if (Dim < 0)
      return makeError("'{0}': not a grid dimension", Field);
    auto E = measure::IntExpr::parse(Text);
    if (!E)
      return makeError("{0} = '{1}': {2}", Field, Text, toString(E.takeError()));
    while (S.Grid.size() <= size_t(Dim))
      S.Grid.push_back(measure::IntExpr::constant(1));
    S.Grid[Dim] = *E;
  }
  measure::ValueMap V = Values;
  for (const auto &[Name, Vals] : C.NewTunables)
    V[Name] = Vals.front();
  for (const auto &[Name, Val] : C.Values) {
    auto T = llvm::find_if(S.Tunables, [&](const measure::Tunable &T) { return T.Name == Name; });
    if (T == S.Tunables.end())
      return makeError("{0} is not a tunable of the spec", Name);
    V[Name] = Val;
    // The launch from now on: what a later sweep takes as its reference
    // configuration (a rewrite may trap at the old one).
    T->Default = Val;
  }
  for (const std::string &Text : C.NewConstraints) {
    auto E = measure::IntExpr::parse(Text);
    if (!E)
      return makeError("constraint '{0}': {1}", Text, toString(E.takeError()));
    S.Constraints.push_back(*E);
  }
  auto G = S.geometry(V);
  if (!G)
    return makeError("the changed launch does not evaluate: {0}", toString(G.takeError()));
  auto Holds = S.satisfiesConstraints(V);
  if (!Holds)
    return makeError("the changed launch's constraints do not evaluate: {0}",
                     toString(Holds.takeError()));
  if (!*Holds)
    return makeError("the values launched with break a constraint of the changed spec");
  Keep.push_back(std::move(S));
  Values = V;
  return &Keep.back();
}

SpecChange composeSpecChanges(const SpecChange &First, const SpecChange &Then) {
  SpecChange S = First;
  for (const auto &[F, T] : Then.Geometry)
    S.Geometry[F] = T;
  for (const auto &[N, V] : Then.NewTunables)
    S.NewTunables[N] = V;
  for (const auto &[N, V] : Then.Values)
    S.Values[N] = V;
  append_range(S.NewConstraints, Then.NewConstraints);
  if (!Then.Justification.empty())
    S.Justification += (S.Justification.empty() ? "" : "; then ") + Then.Justification;
  return S;
}

void setLaunch(ProposalRequest &Q, const measure::LaunchSpec &Spec,
               const measure::ValueMap &Values) {
  Q.Spec = &Spec;
  Q.Tunables = std::map<std::string, int64_t>(Values.begin(), Values.end());
  for (const measure::Tunable &T : Spec.Tunables)
    Q.Tunables.try_emplace(T.Name, T.defaultValue());
  Q.Block.reset();
  Q.BlockThreads.reset();
  if (auto Env = Spec.environment(Values)) {
    if (auto G = Spec.geometry(*Env)) {
      Q.Block = G->Block;
      Q.BlockThreads = G->Block[0] * G->Block[1] * G->Block[2];
    } else {
      consumeError(G.takeError());
    }
  } else {
    consumeError(Env.takeError());
  }
  Q.Geometry.clear();
  const char *Axis[] = {"x", "y", "z"};
  for (size_t I = 0; I < Spec.Grid.size() && I < 3; ++I)
    Q.Geometry[std::string("grid.") + Axis[I]] = Spec.Grid[I].text();
  for (size_t I = 0; I < Spec.Block.size() && I < 3; ++I)
    Q.Geometry[std::string("block.") + Axis[I]] = Spec.Block[I].text();
}

} // namespace forge::agent
