// A legacy call directly under an 'if' that every lane reaches: the lanes at
// the call are those for which the condition holds, so their mask is a ballot
// of the condition taken just before the 'if'. One mask serves every call
// under the same 'if' (its complement in the else branch), and its name
// avoids one the file already uses.
// RUN: forge-port port --checks=warp-sync-intrinsics --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags \
// RUN:   > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='warning:' --implicit-check-not='not rewritten'
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu
// RUN: %clang_cuda_mock -fsyntax-only %t.cu

__global__ void eightLanes(int *x) {
  int lane = threadIdx.x % 32;
  int v = x[threadIdx.x];
  // FIX: unsigned forge_mask = __ballot_sync(0xffffffff, lane < 8);
  // FIX-NEXT: if (lane < 8)
  if (lane < 8)
    v += __shfl_down(v, 4);
  // DIAG: [[@LINE-1]]:10: warning: '__shfl_down' was removed in CUDA 13; use '__shfl_down_sync' [warp-sync-intrinsics]
  // DIAG: [[@LINE-3]]:3: note: the lanes that reach the call are those for which 'lane < 8' is true: 'forge_mask' is the ballot of the condition, taken just before the 'if', which every lane of the warp reaches
  // FIX: v += __shfl_down_sync(forge_mask, v, 4);
  x[threadIdx.x] = v;
}

__global__ void bothBranches(int *x, int n) {
  int forge_mask = n; // taken: the mask gets another name
  int lane = threadIdx.x & 31;
  int v = x[threadIdx.x] + forge_mask;
  for (int i = 0; i < n; ++i) {
    // FIX: unsigned forge_mask2 = __ballot_sync(0xffffffff, lane < 16);
    // FIX-NEXT: if (lane < 16) {
    if (lane < 16) {
      v += __shfl_down(v, 8);
      // FIX: v += __shfl_down_sync(forge_mask2, v, 8);
      v += __shfl_down(v, 4);
      // FIX: v += __shfl_down_sync(forge_mask2, v, 4);
    } else {
      v = __shfl_xor(v, 1);
      // FIX: v = __shfl_xor_sync(~forge_mask2, v, 1);
    }
  }
  // (The checks come after the 'if': the printed fix-its span its lines.)
  // DIAG: [[@LINE-10]]:12: warning: '__shfl_down' was removed{{.*}}[warp-sync-intrinsics]
  // DIAG: [[@LINE-12]]:5: note: the lanes that reach the call are those for which 'lane < 16' is true: 'forge_mask2' is the ballot{{.*}}
  // DIAG: [[@LINE-10]]:12: warning: '__shfl_down' was removed{{.*}}[warp-sync-intrinsics]
  // DIAG: [[@LINE-8]]:11: warning: '__shfl_xor' was removed{{.*}}[warp-sync-intrinsics]
  // DIAG: [[@LINE-15]]:5: note: the lanes that reach the call are those for which 'lane < 16' is false: 'forge_mask2' is the ballot of the condition, taken just before the 'if', which every lane of the warp reaches, and '~forge_mask2' its complement
  x[threadIdx.x] = v;
}
// DIAG: 0 error(s), 4 warning(s) for sm_90; 4 fixed
