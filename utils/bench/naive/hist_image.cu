// 64-level histogram of an 8-bit image with a row pitch (2D grid).
__global__ void image_levels(const unsigned char *img, int width, int height, size_t pitch,
                             unsigned int *levels) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) {
    unsigned char px = img[row * pitch + col];
    atomicAdd(levels + (px >> 2), 1u);
  }
}
