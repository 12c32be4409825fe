template <typename T>
__device__ T twice(T v) {
  return v.bogus * 2;
}
