// Locals of different functions that share a name are separate tunables,
// each credited to the kernel it sizes (llm.c has a dozen 'block_size's).
// RUN: forge-port list %s -- %cuda_mock_flags | FileCheck %s

__global__ void ka(float *p) { p[threadIdx.x] = 0; }
__global__ void kb(float *p) { p[threadIdx.x] = 1; }
void fa(float *p) { const int block_size = 256; ka<<<4, block_size>>>(p); }
void fb(float *p) { const int block_size = 512; kb<<<4, block_size>>>(p); }

// CHECK: Tunables
// CHECK-NEXT: fa::block_size {{ *}}constexpr {{ *}}256 {{ *}}{{.*}}list-local-names.cu:7:44  (block of ka)
// CHECK: fb::block_size {{ *}}constexpr {{ *}}512 {{ *}}{{.*}}list-local-names.cu:8:44  (block of kb)
