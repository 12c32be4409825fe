// `forge-port measure --no-run` builds the job a GPU machine runs: one
// harness per file with an entry per configuration, compiled by nvcc for
// sm_90 as a cubin (device code alone), and a plan with every expression
// evaluated, each entry named by its kernel's mangled name.
// The harness checks the kernel's parameters against the spec at compile
// time, so a variant whose signature differs fails to build with the reason.
// REQUIRES: cuda
// RUN: rm -rf %t && not forge-port measure %s %S/Inputs/measure-badsig.cu --spec %S/Inputs/measure-saxpy.json --arch sm_90 --no-run --job-dir %t --all-configs > %t.out 2> %t.err
// RUN: FileCheck %s --input-file=%t.out
// RUN: FileCheck %s --check-prefix=ERR --input-file=%t.err
// RUN: FileCheck %s --check-prefix=PLAN --input-file=%t/job.plan
// RUN: FileCheck %s --check-prefix=HARNESS --input-file=%t/harness-0.cu
// RUN: test -s %t/harness-0.cubin
// RUN: %nvcc --version > /dev/null
// RUN: forge-port measure %s --spec %S/Inputs/measure-saxpy.json --arch sm_90 --no-run --job-dir %t.one --config BLOCK=512 | FileCheck %s --check-prefix=ONE
// A variant whose launch changed (a capped grid, a new tunable) is measured
// with its own spec, against the reference at the spec's.
// RUN: sed -e 's/"grid": "ceil_div(N, BLOCK)"/"grid": "min(ceil_div(N, BLOCK), 132 * W)"/' -e 's/"tunables": \[/"tunables": [{"name": "W", "values": [4, 8]}, /' %S/Inputs/measure-saxpy.json > %t.capped.json
// RUN: cp %s %t.variant.cu
// RUN: forge-port measure %s %t.variant.cu --spec %S/Inputs/measure-saxpy.json --spec-of %t.variant.cu=%t.capped.json --arch sm_90 --no-run --job-dir %t.own
// RUN: FileCheck %s --check-prefix=OWN --input-file=%t.own/job.plan
// A harness whose kernel ptxas names otherwise than the spec (a typedef as
// the template argument) is built again as a shared library.
// RUN: forge-port measure %S/Inputs/measure-typedef.cu --spec %S/Inputs/measure-typedef.json --arch sm_90 --no-run --job-dir %t.typedef
// RUN: FileCheck %s --check-prefix=TYPEDEF --input-file=%t.typedef/job.plan
// RUN: test -s %t.typedef/harness-0.so
// TYPEDEF: reference ref harness-0.so forge_entry_0
// OWN: reference ref
// OWN-NEXT: label {{.*}}measure-build.cu BLOCK=256
// OWN-NEXT: grid 4096 1 1
// OWN: candidate c1
// OWN-NEXT: label {{.*}}variant.cu (own spec)
// OWN-NEXT: grid 528 1 1
// RUN: not forge-port measure %s %t.variant.cu --spec %S/Inputs/measure-saxpy.json --spec-of %t.other.cu=%t.capped.json --arch sm_90 --no-run --job-dir %t.bad 2>&1 | FileCheck %s --check-prefix=BADOWN
// BADOWN: error: --spec-of '{{.*}}other.cu={{.*}}capped.json': expected FILE=SPEC with FILE one of the files measured

#include <cstdio>

namespace ns {
template <typename T, int BLOCK>
__global__ void saxpy(int n, T a, const T *x, T *y) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
} // namespace ns

// The user's main is renamed away by the harness.
int main() {
  std::printf("not run by the harness\n");
  return 0;
}

// CHECK:      ref measure-build.cu BLOCK=256: built
// CHECK-NEXT: c1 measure-build.cu BLOCK=128: built
// CHECK-NEXT: c2 measure-build.cu BLOCK=512: built
// CHECK-NEXT: c3 measure-badsig.cu BLOCK=128: compile-failed: {{.*}}harness-1.cu:{{[0-9]+}}: error: static assertion failed with "argument 4 ('y') is f32 in the spec, but the elements of parameter 4 of the kernel are another type"
// CHECK-NEXT: c4 measure-badsig.cu BLOCK=256: compile-failed
// CHECK-NEXT: c5 measure-badsig.cu BLOCK=512: compile-failed

// ERR: forge-port: compiling 2 harness(es) with 3 configuration(s) each for sm_90
// ERR: forge-port: job written to

// The failed variant is left out of the plan.
// PLAN:      forge-job 1
// PLAN:      option input_sets 2
// PLAN:      work bytes 12582912 flops 2097152 dtype f32
// PLAN-NEXT: buffer x f32 1048576 in uniform -1 1
// PLAN-NEXT: buffer y f32 1048576 inout normal 0 1 tol 1.0000000000000001e-05 -
// PLAN-NEXT: reference ref harness-0.cubin _ZN2ns5saxpyIfLi256EEEviT_PKS1_PS1_
// PLAN-NEXT:   label measure-build.cu BLOCK=256
// PLAN-NEXT:   grid 4096 1 1
// PLAN-NEXT:   block 256 1 1
// PLAN-NEXT:   shared 0
// PLAN-NEXT:   arg scalar i32 1048576
// PLAN-NEXT:   arg scalar f32 2.5
// PLAN-NEXT:   arg buffer x
// PLAN-NEXT:   arg buffer y
// PLAN-NEXT: end
// PLAN-NEXT: candidate c1 harness-0.cubin _ZN2ns5saxpyIfLi128EEEviT_PKS1_PS1_
// PLAN:      candidate c2 harness-0.cubin _ZN2ns5saxpyIfLi512EEEviT_PKS1_PS1_
// PLAN-NOT:  candidate c3

// HARNESS: #define main forge_user_main_renamed_by_harness
// HARNESS: #include "{{.*}}measure-build.cu"
// HARNESS: // forge_entry_0: BLOCK=256
// HARNESS: const void *forge_entry_0(void) {
// HARNESS-NEXT: return reinterpret_cast<const void *>(&ns::saxpy<float, 256>);

// ONE:      ref measure-build.cu BLOCK=256: built
// ONE-NEXT: c1 measure-build.cu BLOCK=512: built
// ONE-NOT:  c2

// FORGE_HARNESS=library builds every harness as a shared library (the
// escape hatch should a driver not load cubins); another value is an error.
// RUN: env FORGE_HARNESS=library forge-port measure %s --spec %S/Inputs/measure-saxpy.json --arch sm_90 --no-run --job-dir %t.lib
// RUN: FileCheck %s --check-prefix=LIBRARY --input-file=%t.lib/job.plan
// RUN: not env FORGE_HARNESS=ptx forge-port measure %s --spec %S/Inputs/measure-saxpy.json --arch sm_90 --no-run --job-dir %t.bad 2>&1 | FileCheck %s --check-prefix=BADKIND
// LIBRARY: reference ref harness-0.so forge_entry_0
// BADKIND: error: FORGE_HARNESS='ptx': expected 'cubin' or 'library'
// Relocatable device code (-rdc=true, dynamic parallelism) needs the
// device link a shared library's build runs: no cubin then.
// RUN: forge-port measure %s --spec %S/Inputs/measure-saxpy.json --arch sm_90 --no-run --job-dir %t.rdc -- -rdc=true
// RUN: FileCheck %s --check-prefix=LIBRARY --input-file=%t.rdc/job.plan
