// The grids the hierarchical-reduction GPU tests launch a rewrite with.
#pragma once
#include <vector>

/// The launches to try with each block: the original grid, then grids
/// below it (what the SpecChange's cap may give), down to one block.
inline std::vector<unsigned> gridsFor(unsigned original) {
  std::vector<unsigned> g{original};
  for (unsigned c : {2112u, 264u, 7u, 1u})
    if (c < original)
      g.push_back(c);
  return g;
}
