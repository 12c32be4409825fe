// The buffers of the transpose-tile GPU checks (transpose-tile.cu,
// transpose-tile-rows.cu): a random input and an output of elems elements
// plus Pad, so that pointers Off elements past an allocation's start (not
// 16-byte aligned for Off = 1, 3) stay inside it; the whole allocation is
// compared, so a write outside the matrix shows.
#include "check.h"

const unsigned Pad = 8;

template <typename T> struct Buffers {
  std::vector<T> Host;
  T *In = nullptr, *Out = nullptr;
  size_t N;
  Buffers(size_t elems, unsigned seed) : N(elems + Pad) {
    Host = check::random<T>(N, seed);
    In = check::upload(Host);
    CK(cudaMalloc(&Out, N * sizeof(T)));
  }
  ~Buffers() {
    CK(cudaFree(In));
    CK(cudaFree(Out));
  }
};
