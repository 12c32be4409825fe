//===- Space.cpp - The search space of a tuning run -----------------------===//
#include "forge/Tune/Space.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <limits>

using namespace forge::tune;

SearchSpace::SearchSpace(std::vector<Parameter> Params, Predicate Valid)
    : Params(std::move(Params)), Valid(std::move(Valid)) {}

uint64_t SearchSpace::cartesianSize() const {
  uint64_t Size = 1;
  for (const Parameter &P : Params) {
    uint64_t N = P.Values.size();
    if (N == 0)
      return 0;
    if (Size > std::numeric_limits<uint64_t>::max() / N)
      Size = std::numeric_limits<uint64_t>::max();
    else
      Size *= N;
  }
  return Size;
}

bool SearchSpace::valid(const Config &C) const {
  if (C.size() != Params.size())
    return false;
  for (size_t I = 0; I < C.size(); ++I)
    if (C[I] >= Params[I].Values.size())
      return false;
  return !Valid || Valid(values(C));
}

std::map<std::string, int64_t> SearchSpace::values(const Config &C) const {
  std::map<std::string, int64_t> V;
  for (size_t I = 0; I < C.size() && I < Params.size(); ++I)
    if (C[I] < Params[I].Values.size())
      V[Params[I].Name] = Params[I].Values[C[I]];
  return V;
}

bool SearchSpace::fromValues(const std::map<std::string, int64_t> &V,
                             Config &Out) const {
  Config C(Params.size());
  for (size_t I = 0; I < Params.size(); ++I) {
    auto It = V.find(Params[I].Name);
    if (It == V.end())
      return false;
    const std::vector<int64_t> &Vals = Params[I].Values;
    size_t J = 0;
    while (J < Vals.size() && Vals[J] != It->second)
      ++J;
    if (J == Vals.size())
      return false;
    C[I] = J;
  }
  Out = std::move(C);
  return true;
}

std::string SearchSpace::key(const Config &C) const {
  std::string Key;
  for (size_t I = 0; I < Params.size(); ++I) {
    if (I)
      Key += ',';
    Key += Params[I].Name;
    Key += '=';
    if (I < C.size() && C[I] < Params[I].Values.size())
      Key += std::to_string(Params[I].Values[C[I]]);
    else
      Key += '?';
  }
  return Key;
}

bool SearchSpace::fromKey(const std::string &Key, Config &Out) const {
  std::map<std::string, int64_t> V;
  llvm::StringRef Rest = llvm::StringRef(Key).trim();
  if (!Rest.empty()) {
    llvm::SmallVector<llvm::StringRef, 8> Items;
    Rest.split(Items, ',');
    for (llvm::StringRef Item : Items) {
      auto [Name, Value] = Item.split('=');
      Name = Name.trim();
      Value = Value.trim();
      int64_t N;
      if (Name.empty() || Value.getAsInteger(10, N))
        return false;
      if (!V.emplace(Name.str(), N).second)
        return false; // a parameter named twice
    }
  }
  // Every name must be a parameter: a key from another space is no match.
  if (V.size() != Params.size())
    return false;
  return fromValues(V, Out);
}

bool SearchSpace::advance(Config &C) const {
  if (C.size() != Params.size())
    return false;
  for (size_t I = Params.size(); I-- > 0;) {
    if (++C[I] < Params[I].Values.size())
      return true;
    C[I] = 0;
  }
  return false;
}

std::vector<Config> SearchSpace::enumerateValid(size_t Limit) const {
  std::vector<Config> Out;
  if (cartesianSize() == 0)
    return Out;
  Config C(Params.size(), 0);
  do {
    if (valid(C)) {
      Out.push_back(C);
      if (Limit && Out.size() == Limit)
        break;
    }
  } while (advance(C));
  return Out;
}

std::vector<Config> SearchSpace::neighbours(const Config &C) const {
  std::vector<Config> Out;
  if (C.size() != Params.size())
    return Out;
  for (size_t I = 0; I < C.size(); ++I) {
    if (C[I] >= Params[I].Values.size())
      continue;
    if (C[I] > 0) {
      Config N = C;
      --N[I];
      if (valid(N))
        Out.push_back(std::move(N));
    }
    if (C[I] + 1 < Params[I].Values.size()) {
      Config N = C;
      ++N[I];
      if (valid(N))
        Out.push_back(std::move(N));
    }
  }
  return Out;
}

bool SearchSpace::randomValid(std::mt19937_64 &Rng, Config &Out,
                              unsigned MaxTries) const {
  if (cartesianSize() == 0)
    return false;
  Config C(Params.size());
  for (unsigned Try = 0; Try < MaxTries; ++Try) {
    for (size_t I = 0; I < Params.size(); ++I)
      C[I] = drawBelow(Rng, Params[I].Values.size());
    if (valid(C)) {
      Out = std::move(C);
      return true;
    }
  }
  return false;
}

uint64_t forge::tune::drawBelow(std::mt19937_64 &Rng, uint64_t N) {
  if (N <= 1)
    return 0;
  // Reject the top partial copy of [0, N) so every residue is equally likely.
  uint64_t Max = std::numeric_limits<uint64_t>::max();
  uint64_t Limit = Max - (Max % N + 1) % N;
  uint64_t X;
  do
    X = Rng();
  while (X > Limit);
  return X % N;
}

double forge::tune::drawUnit(std::mt19937_64 &Rng) {
  return static_cast<double>(Rng() >> 11) * 0x1.0p-53;
}
