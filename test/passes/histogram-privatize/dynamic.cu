// REQUIRES: cuda
// A parameter number of bins: dynamic shared memory, sized in the spec from
// the parameter's value and in the file's own launches from its argument.
// RUN: forge-port propose %s --kernel hist_mod --spec %S/Inputs/modulo.json --rules=histogram-privatize \
// RUN:   --apply -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// Without a spec the bytes cannot be set.
// RUN: not forge-port propose %s --kernel hist_mod --block 256 --rules=histogram-privatize 2>&1 | FileCheck %s --check-prefix=NOSPEC

__global__ void hist_mod(const unsigned *data, unsigned *bins, int nbins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i] % nbins], 1u);
}

void launch(const unsigned *d, unsigned *b, int nb, int n) {
  hist_mod<<<(n + 255) / 256, 256>>>(d, b, nb, n);
}
// NOTE: applied expert:histogram-privatize: a private shared-memory copy of the nbins bins per block
// NOTE: spec: grid.x -> min(ceil_div(N, 256), 132 * FORGE_GRID_WAVES * 8)
// NOTE: spec: shared -> (NB) * 4
// FIX: extern __shared__ unsigned int forge_hist_hist_mod[];
// FIX: for (int forge_j = forge_t; forge_j < (int)nbins; forge_j += forge_nt)
// FIX: atomicAdd(&forge_hist_hist_mod[data[i] % nbins], 1u);
// FIX: hist_mod<<<(n + 255) / 256, 256, (size_t)(nb) * sizeof(unsigned int)>>>(d, b, nb, n);
// NOSPEC: not applicable: the number of bins 'nbins' (from '% nbins') is a kernel parameter whose value the spec does not give
