//===- Search/Islands.cpp - Island populations over the archive -----------===//
#include "forge/Search/Islands.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/STLExtras.h"
#include <limits>

using namespace llvm;

namespace forge::search {

Islands::Islands(const IslandOptions &O, uint64_t Seed) : Opts(O), Rng(Seed) {
  if (Opts.Islands == 0)
    Opts.Islands = 1;
  if (Opts.Population == 0)
    Opts.Population = 1;
  Pops.resize(Opts.Islands);
}

uint64_t Islands::uniform(uint64_t N) {
  assert(N > 0 && "uniform over an empty range");
  // Rejection keeps the draw unbiased; the limit is the largest multiple of N.
  const uint64_t Max = std::numeric_limits<uint64_t>::max();
  const uint64_t Limit = Max - (Max % N + 1) % N;
  uint64_t X;
  do
    X = Rng();
  while (X > Limit);
  return X % N;
}

double Islands::unit() { return double(Rng() >> 11) * 0x1.0p-53; }

double Islands::timeOf(const std::string &Id, const Archive &A) const {
  const Variant *V = A.find(Id);
  return V && V->MedianNs ? *V->MedianNs : std::numeric_limits<double>::infinity();
}

std::string Islands::bestOf(unsigned Island, const Archive &A) const {
  std::string Best;
  double T = std::numeric_limits<double>::infinity();
  for (const std::string &Id : Pops.at(Island))
    if (Best.empty() || timeOf(Id, A) < T) {
      Best = Id;
      T = timeOf(Id, A);
    }
  return Best;
}

std::string Islands::worstOf(unsigned Island, const Archive &A) const {
  std::string Worst;
  double T = -1;
  for (const std::string &Id : Pops.at(Island))
    if (Worst.empty() || timeOf(Id, A) > T) {
      Worst = Id;
      T = timeOf(Id, A);
    }
  return Worst;
}

Expected<AddOutcome> Islands::add(unsigned Island, StringRef Id, const Archive &A) {
  if (Island >= Pops.size())
    return makeError("no island {0} (there are {1})", Island, Pops.size());
  if (!A.find(Id))
    return makeError("variant '{0}' is not in the archive", Id);
  std::vector<std::string> &P = Pops[Island];
  if (is_contained(P, Id))
    return AddOutcome::AlreadyThere;
  if (P.size() < Opts.Population) {
    P.push_back(Id.str());
    return AddOutcome::Added;
  }
  std::string Worst = worstOf(Island, A);
  if (timeOf(Id.str(), A) < timeOf(Worst, A)) {
    *find(P, Worst) = Id.str();
    return AddOutcome::ReplacedWorst;
  }
  return AddOutcome::Rejected;
}

Error Islands::seedAll(StringRef Id, const Archive &A) {
  for (unsigned I = 0; I < Pops.size(); ++I)
    if (auto R = add(I, Id, A); !R)
      return R.takeError();
  return Error::success();
}

Expected<Selection> Islands::selectParent(unsigned Island, const Archive &A) {
  if (Island >= Pops.size())
    return makeError("no island {0} (there are {1})", Island, Pops.size());
  const std::vector<std::string> &P = Pops[Island];
  std::vector<const Variant *> Elites = A.elites();
  // Draw the coin first, always, so that the stream does not depend on
  // whether the archive is empty.
  bool TakeElite = unit() < Opts.EliteProbability;
  if ((TakeElite || P.empty()) && !Elites.empty())
    return Selection{Elites[uniform(Elites.size())]->Id, true};
  if (P.empty())
    return makeError("island {0} is empty and the archive has no elite", Island);
  const std::string &X = P[uniform(P.size())];
  if (P.size() == 1)
    return Selection{X, false};
  // Two distinct members: draw the second from the others.
  size_t IX = find(P, X) - P.begin();
  size_t IY = uniform(P.size() - 1);
  if (IY >= IX)
    ++IY;
  const std::string &Y = P[IY];
  return Selection{timeOf(Y, A) < timeOf(X, A) ? Y : X, false};
}

Expected<std::pair<std::string, std::string>> Islands::crossoverPair(const Archive &A) {
  std::vector<const Variant *> Elites = A.elites(); // one per cell
  if (Elites.size() < 2)
    return makeError("a crossover needs elites of two cells; the archive has {0}", Elites.size());
  size_t I = uniform(Elites.size());
  size_t J = uniform(Elites.size() - 1);
  if (J >= I)
    ++J;
  return std::make_pair(Elites[I]->Id, Elites[J]->Id);
}

std::vector<Migration> Islands::migrate(const Archive &A) {
  std::vector<Migration> Out;
  unsigned N = count();
  if (N < 2)
    return Out;
  std::vector<std::string> Best(N);
  for (unsigned I = 0; I < N; ++I)
    Best[I] = bestOf(I, A);
  for (unsigned I = 0; I < N; ++I) {
    if (Best[I].empty())
      continue;
    Migration M;
    M.From = I;
    M.To = (I + 1) % N;
    M.Migrant = Best[I];
    std::vector<std::string> &P = Pops[M.To];
    if (is_contained(P, M.Migrant)) {
      M.Skipped = true;
    } else if (P.size() < Opts.Population) {
      P.push_back(M.Migrant);
    } else {
      M.Replaced = worstOf(M.To, A);
      *find(P, M.Replaced) = M.Migrant;
    }
    Out.push_back(std::move(M));
  }
  return Out;
}

} // namespace forge::search
