// A project's own header named cuda.h, on the project's -I path, as in
// Rodinia's util/cuda/cuda.h: it is not the driver API header.
#ifndef OWN_CUDA_H
#define OWN_CUDA_H
#include <stdio.h>
void checkCUDAError(const char *msg);
#endif
