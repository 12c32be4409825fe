__device__ void ext();
__global__ void k() { ext(); }
int main() { k<<<1,1>>>(); return 0; }
