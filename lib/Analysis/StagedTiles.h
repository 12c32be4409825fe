//===- Analysis/StagedTiles.h - Shared tiles that stand for global data -*- C++ -*-===//
///
/// \file
/// Private to lib/Analysis. A __shared__ tile that the block fills, one
/// element per thread, with `S[threadIdx.a][threadIdx.b] = G[f(...)]` (or
/// `c ? G[f(...)] : 0`) before a barrier inside a loop over phases, and
/// that the loop over k nested in it reads after the barrier, holds at the
/// subscripts it is read with the global element f gives with the read's
/// subscripts put in for the fill's thread indices. TileStaging resolves
/// one such read (the matrix-product recogniser, Patterns.cpp, combines two
/// of them into a product over kk = phase * tile + k) or says why not.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_LIB_ANALYSIS_STAGEDTILES_H
#define FORGE_LIB_ANALYSIS_STAGEDTILES_H

#include "KernelAnalyzer.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forge::analysis {

/// What one read of a staged tile stands for.
struct StagedRead {
  const Access *Read = nullptr, *Fill = nullptr, *Source = nullptr;
  const Loop *Phase = nullptr;
  /// The thread dimension the fill writes the coordinate the read puts k in.
  char KDim = 'x';
  /// The tile's extent along that coordinate (the k loop's trip count).
  int64_t Tile = 0;
  /// The global index read at the read's subscripts (blockDim replaced by
  /// the block the fill assumes).
  IndexForm Global;
  /// The fill's condition (`c ? G[...] : 0`), conjunct by conjunct, with the
  /// same replacement; Cond is null when there is none.
  std::vector<Comparison> Conds;
  const clang::Expr *Cond = nullptr;
  /// The block the fill assumes: blockDim.D = the tile's extent along the
  /// coordinate threadIdx.D writes.
  std::map<char, int64_t> Block;
};

class TileStaging {
public:
  TileStaging(KernelAnalyzer &K, KernelModel &M) : K(K), M(M), T(*K.Table) {}

  /// Resolves Read (a load of a __shared__ tile inside loop KLoop), or
  /// returns none with Why.
  std::optional<StagedRead> resolve(const Access &Read, unsigned KLoop, std::string &Why);

  /// F with blockDim.D replaced by Block[D] where known.
  IndexForm assumeBlock(const IndexForm &F, const std::map<char, int64_t> &Block);

private:
  /// The thread dimension F is exactly (threadIdx.D), or 0.
  char threadDim(const IndexForm &F) const;
  /// The fill's position in the phase loop's body between barriers.
  bool fillIsStaged(const Access &Fill, const Loop &Phase, const Loop &KL, std::string &Why);
  /// `a < b && c < d` as comparisons of forms.
  bool conjuncts(const clang::Expr *E, std::vector<Comparison> &Out);

  KernelAnalyzer &K;
  KernelModel &M;
  AtomTable &T;
};

} // namespace forge::analysis

#endif
