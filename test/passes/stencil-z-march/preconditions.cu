// REQUIRES: cuda
// Each precondition that fails says which, and nothing is proposed.
// RUN: not forge-port propose %s --kernel in_place --block 32,8 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=INPLACE
// RUN: not forge-port propose %s --kernel early_break --block 32,8 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=BREAK
// RUN: not forge-port propose %s --kernel ragged --block 32,8 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=RAGGED
// RUN: not forge-port propose %s --kernel side_effect --block 32,8 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=STMT
// RUN: not forge-port propose %s --kernel late_read --block 32,8 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=LATEREAD
// RUN: not forge-port propose %s --kernel wide --block 32,8 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not forge-port propose %s --kernel lap3d --block 8,8,4 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=BLOCKZ
// RUN: not forge-port propose %s --kernel flat2d --block 32,8 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=FLAT
// RUN: not forge-port propose %s --kernel nested --block 32,8 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not forge-port propose %s --kernel stride2 --block 32,8 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=STEP
// RUN: not forge-port propose %s --kernel zpad --block 32,8 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=ZPAD
// RUN: not forge-port propose %s --kernel synced --block 32,8 --rules=stencil-z-march 2>&1 | FileCheck %s --check-prefix=SYNC
// INPLACE: stencil-z-march: not applicable: the kernel writes 'u' ('u[c]' (line {{[0-9]+}})) as well as reading it around each thread
// BREAK: stencil-z-march: not applicable: the loop over 'k' (line {{[0-9]+}}) may be left early (break, return)
// RAGGED: stencil-z-march: not applicable: the loop over 'k' (line {{[0-9]+}}) runs a number of iterations that differs within the block ('k < nz - 1 - i')
// STMT: stencil-z-march: not applicable: the statement at line {{[0-9]+}} before the loop over 'k' is not a declaration or an early 'return'
// LATEREAD: stencil-z-march: not applicable: 'w' (line {{[0-9]+}}) is initialised with a memory read or a call after a thread may have left the kernel
// WIDE: stencil-z-march: not applicable: the footprint of 'in' reaches 5 elements along dimension {{[0-9]}}: the rule stages radii up to 4
// BLOCKZ: stencil-z-march: not applicable: the block has 4 threads along z
// FLAT: stencil-z-march: not applicable: the stencil on 'in' does not move with a loop
// NESTED: stencil-z-march: not applicable: the loop over 'k' is inside a statement at line {{[0-9]+}} that is not a block or an 'if'
// STEP: stencil-z-march: not applicable: the loop over 'k' (line {{[0-9]+}}) does not step by one plane up
// ZPAD: stencil-z-march: not applicable: the reads of 'in' are bounded below along the loop's dimension by guards only in part
// SYNC: stencil-z-march: not applicable: the kernel writes shared memory

__global__ void in_place(float *u, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  size_t plane = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; ++k) {
    size_t c = k * plane + (size_t)j * nx + i;
    u[c] = 0.25f * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]) + 0.5f * (u[c - plane] + u[c + plane]);
  }
}

__global__ void early_break(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  size_t plane = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; ++k) {
    size_t c = k * plane + (size_t)j * nx + i;
    float v = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane];
    if (v > 100.0f) break;
    out[c] = v;
  }
}

__global__ void ragged(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  size_t plane = (size_t)nx * ny;
  for (int k = 1; k < nz - 1 - i; ++k) {
    size_t c = k * plane + (size_t)j * nx + i;
    out[c] = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane];
  }
}

__global__ void side_effect(const float *in, float *out, int *count, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  atomicAdd(count, 1);
  size_t plane = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; ++k) {
    size_t c = k * plane + (size_t)j * nx + i;
    out[c] = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane];
  }
}

__global__ void late_read(const float *in, const float *weight, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  float w = weight[j * nx + i];
  size_t plane = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; ++k) {
    size_t c = k * plane + (size_t)j * nx + i;
    out[c] = w * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane]);
  }
}

__global__ void wide(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  size_t plane = (size_t)nx * ny;
  for (int k = 5; k < nz - 5; ++k) {
    size_t c = k * plane + (size_t)j * nx + i;
    out[c] = in[c - 1] + in[c + 1] + in[c - 5 * plane] + in[c + 5 * plane];
  }
}

__global__ void lap3d(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  size_t plane = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; ++k) {
    size_t c = k * plane + (size_t)j * nx + i;
    out[c] = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane];
  }
}

__global__ void flat2d(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  out[y * w + x] = in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] + in[(y + 1) * w + x];
}

__global__ void nested(const float *in, float *out, int nx, int ny, int nz, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  size_t plane = (size_t)nx * ny;
  for (int s = 0; s < steps; ++s)
    for (int k = 1; k < nz - 1; ++k) {
      size_t c = k * plane + (size_t)j * nx + i;
      out[c] = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane];
    }
}

__global__ void stride2(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  size_t plane = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; k += 2) {
    size_t c = k * plane + (size_t)j * nx + i;
    out[c] = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane];
  }
}

__global__ void synced(const float *in, float *out, int nx, int ny, int nz) {
  __shared__ float scratch[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  scratch[threadIdx.x % 32] = 1.0f;
  __syncthreads();
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  size_t plane = (size_t)nx * ny;
  for (int k = 1; k < nz - 1; ++k) {
    size_t c = k * plane + (size_t)j * nx + i;
    out[c] = scratch[0] * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - plane] + in[c + plane]);
  }
}

// Zero padding along z by guards on some reads: plane k - 1 is read only
// where k >= 1, which the queue (loaded for every iteration) cannot say.
__global__ void zpad(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  size_t plane = (size_t)nx * ny;
  for (int k = 0; k < nz; ++k) {
    size_t c = k * plane + (size_t)j * nx + i;
    float below = k > 0 ? in[c - plane] : 0.0f;
    float above = k + 1 < nz ? in[c + plane] : 0.0f;
    out[c] = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + below + above;
  }
}
