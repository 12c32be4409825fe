//===- ProgressMerge.cpp - One progress line for several sweeps -----------===//
#include "forge/Tune/ProgressMerge.h"
#include <chrono>
#include <mutex>

using namespace forge;
using namespace forge::tune;

struct ProgressMerge::State {
  std::vector<std::string> Names;
  std::function<void(const TuneProgress &)> Out;
  std::vector<TuneProgress> Each;
  std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now();
  std::mutex Mu;
};

ProgressMerge::ProgressMerge(std::vector<std::string> Names,
                             std::function<void(const TuneProgress &)> Out)
    : S(std::make_shared<State>()) {
  S->Each.resize(Names.size());
  S->Names = std::move(Names);
  S->Out = std::move(Out);
}

std::function<void(const TuneProgress &)> ProgressMerge::sweep(size_t I) const {
  return [S = S, I](const TuneProgress &P) {
    std::lock_guard<std::mutex> L(S->Mu);
    S->Each[I] = P;
    TuneProgress All;
    for (const TuneProgress &Q : S->Each) {
      All.Done += Q.Done;
      All.Total += Q.Total;
      All.EtaS = std::max(All.EtaS, Q.EtaS);
    }
    All.ElapsedS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - S->Start).count();
    const std::string &Name = S->Names[I];
    All.Last = Name + ": " + P.Last;
    if (P.BestNs) {
      All.BestNs = P.BestNs;
      All.BestKey = Name + " " + P.BestKey;
    }
    if (S->Out)
      S->Out(All);
  };
}
