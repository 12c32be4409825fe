#include "nothere.h"
__global__ void k() {}
