#pragma once
__device__ inline void fence() { asm volatile("wgmma.fence.sync.aligned;\n"); }
