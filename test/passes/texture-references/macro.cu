// Texture uses written in macros (mummergpu's spellings). A use in a
// macro's argument is rewritten where it is written; one in a macro's body
// is rewritten in the #define, which every expansion shares, so only when
// every texture that goes through that body is rewritten the same way.
// REQUIRES: cuda
// RUN: forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

#include <cstdio>
#include <cstdlib>

#define SAFE_CALL(call)                                                        \
  do {                                                                         \
    cudaError_t err = call;                                                    \
    if (err != cudaSuccess) {                                                  \
      fprintf(stderr, "%s\n", cudaGetErrorString(err));                        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

// The bind on the macro's parameter: both textures bound through it have
// the same settings, so the body is rewritten once for both.
unsigned binds = 0;
#define BIND_TEX(offset, tex, arr, desc, len) do { SAFE_CALL(cudaBindTexture(offset, tex, arr, desc, len)); ++binds; } while (0)
// FIX: #define BIND_TEX(offset, tex, arr, desc, len) do { SAFE_CALL(forgeBindTexture(&tex, arr, desc, len, forgeTextureDesc(cudaReadModeElementType))); ++binds; } while (0)

texture<uint4, 1> nodes;
// DIAG: [[@LINE-1]]:19: error: texture reference 'nodes'
// FIX: cudaTextureObject_t nodes = 0;
texture<uint4, 1> children;
// DIAG: [[@LINE-1]]:19: error: texture reference 'children'
// DIAG: 3 error(s), 0 warning(s) for sm_90; 3 fixed
// FIX: cudaTextureObject_t children = 0;
texture<char, 1> queries;
// FIX: cudaTextureObject_t queries = 0;

// A fetch in a macro's body, and helpers called from one: the type and the
// argument go into the #define.
#define GETQCHAR(i) tex1Dfetch(queries, i)
// FIX: #define GETQCHAR(i) tex1Dfetch<char>(queries, i)
__device__ uint4 getNode(unsigned cur) { return tex1Dfetch(nodes, cur); }
// FIX: __device__ uint4 getNode(unsigned cur, cudaTextureObject_t nodes) { return tex1Dfetch<uint4>(nodes, cur); }
__device__ uint4 getChildren(unsigned cur) { return tex1Dfetch(children, cur); }
#define GETNODE(addr) getNode(addr)
#define GETCHILDREN(addr) getChildren(addr)
// FIX: #define GETNODE(addr) getNode(addr, nodes)
// FIX: #define GETCHILDREN(addr) getChildren(addr, children)

__global__ void walk(unsigned *out, int n) {
  // FIX: __global__ void walk(unsigned *out, int n, cudaTextureObject_t nodes, cudaTextureObject_t children, cudaTextureObject_t queries) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = GETNODE(i).x + GETCHILDREN(i).y + GETQCHAR(i);
}

void run(uint4 *n, uint4 *c, char *q, unsigned *out, int len) {
  nodes.filterMode = cudaFilterModePoint;
  children.filterMode = cudaFilterModePoint;
  cudaChannelFormatDesc d4 = cudaCreateChannelDesc<uint4>();
  BIND_TEX(0, nodes, n, d4, len * sizeof(uint4));
  BIND_TEX(0, children, c, d4, len * sizeof(uint4));
  // FIX: BIND_TEX(0, nodes, n, d4, len * sizeof(uint4));
  // FIX-NEXT: BIND_TEX(0, children, c, d4, len * sizeof(uint4));
  SAFE_CALL(cudaBindTexture(0, queries, q, len));
  // FIX: SAFE_CALL(forgeBindTexture(&queries, q, cudaCreateChannelDesc<char>(), len, forgeTextureDesc(cudaReadModeElementType)));
  walk<<<(len + 255) / 256, 256>>>(out, len);
  // FIX: walk<<<(len + 255) / 256, 256>>>(out, len, nodes, children, queries);
  SAFE_CALL(cudaUnbindTexture(nodes));
  SAFE_CALL(cudaUnbindTexture(children));
  SAFE_CALL(cudaUnbindTexture(queries));
}
