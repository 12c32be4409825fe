//===- Search/Archive.cpp - The MAP-Elites archive of kernel variants -----===//
#include "forge/Search/Archive.h"
#include "forge/Support/Error.h"
#include "forge/Support/JsonReader.h"
#include <cmath>
#include <set>

using namespace llvm;

namespace forge::search {

StringRef insertOutcomeName(InsertOutcome O) {
  switch (O) {
  case InsertOutcome::NewCell:
    return "new-cell";
  case InsertOutcome::Replaced:
    return "replaced";
  case InsertOutcome::RejectedSlower:
    return "rejected-slower";
  case InsertOutcome::RejectedIncorrect:
    return "rejected-incorrect";
  case InsertOutcome::RejectedUnmeasured:
    return "rejected-unmeasured";
  case InsertOutcome::RejectedDuplicate:
    return "rejected-duplicate";
  }
  llvm_unreachable("insert outcome");
}

namespace {
bool measured(const Variant &V) {
  return V.MedianNs && std::isfinite(*V.MedianNs) && *V.MedianNs > 0;
}
} // namespace

InsertResult Archive::insert(Variant V) {
  InsertResult R;
  if (!V.Correct) {
    R.Outcome = InsertOutcome::RejectedIncorrect;
    return R;
  }
  if (!measured(V)) {
    R.Outcome = InsertOutcome::RejectedUnmeasured;
    return R;
  }
  if (ById.count(V.Id)) {
    R.Outcome = InsertOutcome::RejectedDuplicate;
    return R;
  }
  unsigned Cell = V.Desc.cellIndex();
  auto It = Cells.find(Cell);
  if (It == Cells.end()) {
    R.Outcome = InsertOutcome::NewCell;
  } else {
    const Variant &Inc = History[It->second];
    R.Incumbent = Inc.Id;
    R.SpeedupOverIncumbent = *Inc.MedianNs / *V.MedianNs;
    R.Outcome = *V.MedianNs < *Inc.MedianNs * (1 - Noise) ? InsertOutcome::Replaced
                                                          : InsertOutcome::RejectedSlower;
  }
  size_t Index = History.size();
  ById[V.Id] = Index;
  History.push_back(std::move(V));
  if (R.entered())
    Cells[Cell] = Index;
  return R;
}

void Archive::noteEvaluation(StringRef Origin) { ++Evaluations[Origin.str()]; }

unsigned Archive::totalEvaluations() const {
  unsigned N = 0;
  for (const auto &[O, C] : Evaluations)
    N += C;
  return N;
}

const Variant *Archive::find(StringRef Id) const {
  auto It = ById.find(Id.str());
  return It == ById.end() ? nullptr : &History[It->second];
}

const Variant *Archive::elite(const Descriptor &Cell) const {
  auto It = Cells.find(Cell.cellIndex());
  return It == Cells.end() ? nullptr : &History[It->second];
}

std::vector<const Variant *> Archive::elites() const {
  std::vector<const Variant *> Out;
  for (const auto &[Cell, Index] : Cells)
    Out.push_back(&History[Index]);
  return Out;
}

const Variant *Archive::best() const {
  const Variant *Best = nullptr;
  for (const auto &[Cell, Index] : Cells)
    if (!Best || *History[Index].MedianNs < *Best->MedianNs)
      Best = &History[Index];
  return Best;
}

const Variant *Archive::original() const {
  for (const Variant &V : History)
    if (V.Parents.empty())
      return &V;
  return nullptr;
}

Expected<std::vector<LineageStep>> Archive::lineage(StringRef Id) const {
  std::vector<LineageStep> Steps;
  std::set<std::string> Visited;
  const Variant *V = find(Id);
  if (!V)
    return makeError("no variant '{0}' in the archive", Id);
  while (true) {
    if (!Visited.insert(V->Id).second)
      return makeError("the lineage of '{0}' has a cycle through '{1}'", Id, V->Id);
    LineageStep S;
    S.Id = V->Id;
    S.Origin = V->Origin;
    S.Generation = V->Generation;
    S.MedianNs = *V->MedianNs;
    if (V->Parents.size() > 1)
      S.OtherParents.assign(V->Parents.begin() + 1, V->Parents.end());
    const Variant *Parent = nullptr;
    if (!V->Parents.empty()) {
      Parent = find(V->Parents.front());
      if (!Parent)
        return makeError("the lineage of '{0}' is broken: parent '{1}' of '{2}' is not in the "
                         "archive",
                         Id, V->Parents.front(), V->Id);
      S.GainOverParent = *Parent->MedianNs / *V->MedianNs;
    }
    Steps.push_back(std::move(S));
    if (!Parent)
      break;
    V = Parent;
  }
  std::reverse(Steps.begin(), Steps.end());
  return Steps;
}

Json toJson(const Variant &V) {
  Json J = Json::object();
  J["id"] = V.Id;
  J["parents"] = V.Parents;
  if (!V.Source.empty())
    J["source"] = V.Source;
  if (!V.SourcePath.empty())
    J["source_path"] = V.SourcePath;
  J["origin"] = V.Origin;
  J["generation"] = V.Generation;
  J["island"] = V.Island;
  J["median_ns"] = *V.MedianNs;
  J["correct"] = V.Correct;
  J["descriptor"] = toJson(V.Desc);
  return J;
}

Json Archive::toJson() const {
  Json J = Json::object();
  J["version"] = 1;
  J["relative_noise"] = Noise;
  Json Vs = Json::array();
  for (const Variant &V : History)
    Vs.push_back(search::toJson(V));
  J["variants"] = std::move(Vs);
  Json Cs = Json::array();
  for (const auto &[Cell, Index] : Cells)
    Cs.push_back({{"key", History[Index].Desc.key()}, {"elite", History[Index].Id}});
  J["cells"] = std::move(Cs);
  Json Ev = Json::object();
  for (const auto &[O, N] : Evaluations)
    Ev[O] = N;
  J["evaluations"] = std::move(Ev);
  return J;
}

Expected<Variant> variantFromJson(const Json &J, StringRef Origin, StringRef Path) {
  JsonReader R(Origin.str());
  Variant V;
  if (!R.expectObject(J, Path))
    return R.takeError();
  V.Id = R.string(J, Path, "id", true);
  if (R.ok() && V.Id.empty())
    R.fail(JsonReader::member(Path, "id"), "empty id");
  if (const Json *Ps = R.array(J, Path, "parents", true))
    for (size_t I = 0; I < Ps->size(); ++I) {
      std::string P = JsonReader::element(JsonReader::member(Path, "parents"), I);
      if (R.expectString((*Ps)[I], P))
        V.Parents.push_back((*Ps)[I].get<std::string>());
    }
  V.Source = R.string(J, Path, "source");
  V.SourcePath = R.string(J, Path, "source_path");
  V.Origin = R.string(J, Path, "origin", true);
  V.Generation = unsigned(R.count(J, Path, "generation", true));
  V.Island = unsigned(R.count(J, Path, "island", true));
  double T = R.number(J, Path, "median_ns", true);
  V.Correct = R.boolean(J, Path, "correct", true);
  if (R.ok() && (!std::isfinite(T) || T <= 0))
    R.fail(JsonReader::member(Path, "median_ns"), "expected a positive time");
  if (R.ok() && !V.Correct)
    R.fail(JsonReader::member(Path, "correct"), "an incorrect variant cannot be in the archive");
  V.MedianNs = T;
  if (!R.ok())
    return R.takeError();
  if (!J.contains("descriptor"))
    return makeError("{0}: {1}: missing member", Origin, JsonReader::member(Path, "descriptor"));
  auto D = descriptorFromJson(J["descriptor"], Origin, JsonReader::member(Path, "descriptor"));
  if (!D)
    return D.takeError();
  V.Desc = std::move(*D);
  return V;
}

Expected<Archive> Archive::fromJson(const Json &J, StringRef Origin) {
  JsonReader R(Origin.str());
  if (!R.expectObject(J, "$"))
    return R.takeError();
  int64_t Version = R.integer(J, "$", "version", true);
  if (R.ok() && Version != 1)
    R.fail("$.version", "unsupported version " + std::to_string(Version) + " (expected 1)");
  double Noise = R.number(J, "$", "relative_noise", true);
  if (R.ok() && !(Noise >= 0 && Noise < 1))
    R.fail("$.relative_noise", "expected a number in [0, 1)");
  const Json *Vs = R.array(J, "$", "variants", true);
  const Json *Cs = R.array(J, "$", "cells", true);
  const Json *Ev = R.object(J, "$", "evaluations", true);
  if (!R.ok())
    return R.takeError();

  Archive A(Noise);
  for (size_t I = 0; I < Vs->size(); ++I) {
    std::string P = JsonReader::element("$.variants", I);
    auto V = variantFromJson((*Vs)[I], Origin, P);
    if (!V)
      return V.takeError();
    if (A.ById.count(V->Id))
      return makeError("{0}: {1}.id: duplicate id '{2}'", Origin, P, V->Id);
    A.ById[V->Id] = A.History.size();
    A.History.push_back(std::move(*V));
  }
  for (size_t I = 0; I < Cs->size(); ++I) {
    std::string P = JsonReader::element("$.cells", I);
    if (!R.expectObject((*Cs)[I], P))
      return R.takeError();
    std::string Key = R.string((*Cs)[I], P, "key", true);
    std::string Elite = R.string((*Cs)[I], P, "elite", true);
    if (!R.ok())
      return R.takeError();
    auto It = A.ById.find(Elite);
    if (It == A.ById.end())
      return makeError("{0}: {1}.elite: no variant '{2}'", Origin, P, Elite);
    const Variant &V = A.History[It->second];
    if (V.Desc.key() != Key)
      return makeError("{0}: {1}.key: '{2}' is not the cell of '{3}' ('{4}')", Origin, P, Key,
                       Elite, V.Desc.key());
    if (!A.Cells.emplace(V.Desc.cellIndex(), It->second).second)
      return makeError("{0}: {1}.key: cell '{2}' appears twice", Origin, P, Key);
  }
  for (auto It = Ev->begin(); It != Ev->end(); ++It) {
    std::string P = JsonReader::member("$.evaluations", It.key());
    if (!It.value().is_number_unsigned())
      return makeError("{0}: {1}: expected a non-negative integer", Origin, P);
    A.Evaluations[It.key()] = It.value().get<unsigned>();
  }
  // Every parent must be known, so that lineages can be told.
  for (const Variant &V : A.History)
    for (const std::string &Parent : V.Parents)
      if (!A.ById.count(Parent))
        return makeError("{0}: variant '{1}' names parent '{2}', which is not in the archive",
                         Origin, V.Id, Parent);
  return A;
}

Expected<Archive> Archive::fromJsonText(StringRef Text, StringRef Origin) {
  auto J = parseJson(Text, Origin);
  if (!J)
    return J.takeError();
  return fromJson(*J, Origin);
}

} // namespace forge::search
