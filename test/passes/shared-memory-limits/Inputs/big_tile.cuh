#pragma once
__global__ void headerTile(float *x) {
  __shared__ float tile[16384]; // 64 KB
  tile[threadIdx.x] = x[threadIdx.x];
  x[threadIdx.x] = tile[threadIdx.x + 1];
}
