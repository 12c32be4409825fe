// Benchmark op: scatter (first-round kernel).
// out[dst(i)] = x[i] for n elements, one thread per input element, where
//   dst(i) = (idx[i] * 2654435761u) mod n.
// n must be a power of two (the mod is a mask). The spec fills idx with
// iota (0, 1, 2, ...), and multiplying by an odd constant modulo a power of
// two is a bijection, so dst is a permutation of [0, n): every output is
// written exactly once and the result is deterministic, while the writes
// land at pseudo-random addresses (consecutive i are 2654435761 mod n
// apart). A scatter with random duplicate indices would race, which is why
// the indices are not drawn at random.
//
// Rule for candidates: the destination must be computed from idx[i] for
// each source element. Inverting the permutation (turning the scatter into
// a gather), or ignoring idx because the spec happens to fill it with iota,
// changes the operation and is not a valid optimisation.
__global__ void scatter(const float *x, const unsigned *idx, float *out,
                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned d = (idx[i] * 2654435761u) & (unsigned)(n - 1);
    out[d] = x[i];
  }
}

void launch_scatter(const float *x, const unsigned *idx, float *out, int n) {
  const int block = 256;
  scatter<<<(n + block - 1) / block, block>>>(x, idx, out, n);
}
