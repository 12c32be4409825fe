// A file whose function bodies have errors still lists its kernels and
// launch sites; the errors are shown and the exit status is 1.
// RUN: not forge-port list %s -- %cuda_mock_flags > %t.out 2> %t.err
// RUN: FileCheck %s --input-file=%t.out
// RUN: FileCheck %s --input-file=%t.err --check-prefix=ERR

__global__ void broken(float *x) {
  x[threadIdx.x] = undeclared_thing + 1;
}
__global__ void fine(float *x) { x[0] = 1.0f; }
void run(float *x) {
  broken<<<1, 64>>>(x);
  fine<<<1, 32>>>(x);
}

// CHECK: list-errors.cu (read for sm_80): 2 kernels, 2 launch sites, 2 tunables, 1 parse error
// CHECK: broken
// CHECK: fine
// ERR: list-errors.cu:8:20: error: use of undeclared identifier 'undeclared_thing'
// ERR-NOT: error: use of undeclared identifier 'undeclared_thing'
// ERR: warning: {{.*}}list-errors.cu: 1 error while parsing; listing what could be recovered
