// A helper shared by the project's translation units: legacy, unsynchronised.
#pragma once
__device__ inline float warpMax(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_down(v, offset));
  return v;
}
