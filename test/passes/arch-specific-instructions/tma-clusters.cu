// TMA and clusters need sm_90; a template is reported once.
// RUN: not forge-port port --checks=arch-specific-instructions --to sm_80 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=SM80 --implicit-check-not='{{warning|error}}:'
// RUN: forge-port port --checks=arch-specific-instructions --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags 2>&1 | FileCheck %s --check-prefix=SM90 --implicit-check-not='{{warning|error}}:'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

// Clang itself rejects the attribute for sm_80 (and drops it), before the
// passes run.
// SM80: [[#KLINE:@LINE+18]]:17: error: 'cluster_dims' is not supported for this GPU architecture
// SM80: note: expanded from macro '__cluster_dims__'

template <int N>
__device__ void load(unsigned smem, const void *map, unsigned bar, int x) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];"
               :: "r"(smem), "l"(map), "r"(bar), "r"(x) : "memory");
  // SM80: [[@LINE-2]]:3: error: 'cp.async.bulk.tensor' is not available on sm_80; TMA needs sm_90 or later [arch-specific-instructions]
  // SM80: [[@LINE-3]]:3: note: guard it with '#if __CUDA_ARCH__ >= 900' or compile for sm_90 or later
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  // SM80: [[@LINE-1]]:3: error: 'cp.async.bulk' is not available on sm_80; TMA needs sm_90 or later [arch-specific-instructions]
  // SM80: [[@LINE-2]]:3: note: guard it with{{.*}}
  unsigned remote;
  asm("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(remote) : "r"(smem));
  // SM80: [[@LINE-1]]:3: error: 'mapa' is not available on sm_80; thread-block clusters need sm_90 or later [arch-specific-instructions]
  // SM80: [[@LINE-2]]:3: note: guard it with{{.*}}
}

__global__ void __cluster_dims__(2, 1, 1) k(const void *map) {
  // SM80: [[#KLINE]]:17: error: '__cluster_dims__' is not available on sm_80; thread-block clusters need sm_90 or later [arch-specific-instructions]
  // SM80: note: expanded from macro '__cluster_dims__'
  // SM80: [[#KLINE]]:17: note: guard it with '#if __CUDA_ARCH__ >= 900' or compile for sm_90 or later
  // SM80: note: expanded from macro '__cluster_dims__'
  // FIX: __global__ void __cluster_dims__(2, 1, 1) k(const void *map) {
  load<1>(0, map, 0, 0);
  load<2>(0, map, 0, 0);
}

// SM80: tma-clusters.cu: 5 error(s) (4 from the passes, 1 from Clang's parse), 0 warning(s) for sm_80; 0 fixed
// SM90: tma-clusters.cu: 0 error(s), 0 warning(s) for sm_90; 0 fixed
