// A .cpp unit that nvcc compiles with the host compiler alone is parsed as
// that compiler sees it: C++ with __NVCC__, the __CUDACC_VER_*__ macros and
// the toolkit's include directories, not as CUDA (no __CUDACC__, no CUDA
// wrapper headers); the toolkit's headers stay system headers, so no pass
// reports in them. The removed runtime call is still found and fixed.
// REQUIRES: cuda
// RUN: cp %S/Inputs/port-host-compiler.cpp %t.cpp
// RUN: not forge-port %t.cpp --to sm_100 --no-validate 2>&1 | FileCheck %s
// RUN: forge-port %t.cpp --to sm_100 -o %t.out.cpp 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: FileCheck %s --check-prefix=RESULT --input-file=%t.out.cpp
// CHECK-NOT: could not parse
// CHECK-NOT: vector_types.h
// CHECK: port-host-compiler.cu.tmp.cpp:16:{{[0-9]+}}: error: {{.*}}cudaThreadSynchronize{{.*}}
// CHECK: 1 error(s), 0 warning(s) for sm_100
// FIXED: 1 fixed
// FIXED-SAME: nvcc compiles the patched file for sm_100
// RESULT: int sync_all() { return (int)cudaDeviceSynchronize(); }

// (The test's input is Inputs/port-host-compiler.cpp; this file only runs it.)
