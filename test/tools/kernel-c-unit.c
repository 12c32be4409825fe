// A plain C unit given to a subcommand that needs a kernel: nvcc hands a .c
// to the host compiler as C, so it has no kernels. spec, analyze, measure
// (--spec), tune, propose and optimize refuse it with one clear error, exit
// status 1, before any parse or work: no C++ (or CUDA) parse errors on C
// that only C accepts (malloc's void * assigned to an int *, a variable
// named 'new'), nothing on stdout and no file written or changed. `port`
// and `list` read it as C (port-c-unit.c).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/unit.c && cp %s %t/before.c
// RUN: cp %S/Inputs/measure-saxpy.json %t/spec.json
// RUN: cd %t && forge-port spec unit.c --kernel k > spec.out 2> spec.log; echo "exit $?" >> spec.log
// RUN: FileCheck %s --input-file=%t/spec.log --implicit-check-not=error: --implicit-check-not=warning:
// RUN: cd %t && forge-port spec unit.c --check spec.json > check.out 2> check.log; echo "exit $?" >> check.log
// RUN: FileCheck %s --input-file=%t/check.log --implicit-check-not=error: --implicit-check-not=warning:
// RUN: cd %t && forge-port analyze unit.c > analyze.out 2> analyze.log; echo "exit $?" >> analyze.log
// RUN: FileCheck %s --input-file=%t/analyze.log --implicit-check-not=error: --implicit-check-not=warning:
// RUN: cd %t && forge-port analyze unit.c --kernel k --format=json > analyze-k.out 2> analyze-k.log; echo "exit $?" >> analyze-k.log
// RUN: FileCheck %s --input-file=%t/analyze-k.log --implicit-check-not=error: --implicit-check-not=warning:
// RUN: cd %t && forge-port measure unit.c --spec spec.json --arch sm_90 --job-dir %t/mjob > measure.out 2> measure.log; echo "exit $?" >> measure.log
// RUN: FileCheck %s --input-file=%t/measure.log --implicit-check-not=error: --implicit-check-not=warning:
// RUN: cd %t && forge-port tune unit.c --spec spec.json --to sm_90 --no-gpu -i --db db.json --report r.json > tune.out 2> tune.log; echo "exit $?" >> tune.log
// RUN: FileCheck %s --input-file=%t/tune.log --implicit-check-not=error: --implicit-check-not=warning:
// RUN: cd %t && forge-port tune unit.c --kernel k --to sm_90 --run "{exe}" -o tuned.c > tune-k.out 2> tune-k.log; echo "exit $?" >> tune-k.log
// RUN: FileCheck %s --input-file=%t/tune-k.log --implicit-check-not=error: --implicit-check-not=warning:
// RUN: cd %t && forge-port propose unit.c --kernel k -o proposed.c > propose.out 2> propose.log; echo "exit $?" >> propose.log
// RUN: FileCheck %s --input-file=%t/propose.log --implicit-check-not=error: --implicit-check-not=warning:
// RUN: cd %t && forge-port optimize unit.c --spec spec.json --to sm_90 --no-gpu -o optimized.c --report o.json > optimize.out 2> optimize.log; echo "exit $?" >> optimize.log
// RUN: FileCheck %s --input-file=%t/optimize.log --implicit-check-not=error: --implicit-check-not=warning:
// Nothing printed on stdout, nothing written, the input as it was.
// RUN: cd %t && test -z "$(cat *.out)"
// RUN: cd %t && test ! -e db.json && test ! -e r.json && test ! -e tuned.c && test ! -e proposed.c && test ! -e optimized.c && test ! -e o.json && test ! -e mjob
// RUN: cmp %t/unit.c %t/before.c
// CHECK: forge-port: error: 'unit.c' is a C unit (nvcc compiles it with the host compiler): it has no kernels
// CHECK-NEXT: exit 1

// A program (measure --run) is built as nvcc builds it: a .c is no error
// there, so it is not refused for having no kernels.
// RUN: cd %t && not forge-port measure unit.c --run "{exe}" --worker %t/no-worker 2>&1 | FileCheck %s --check-prefix=PROGRAM
// PROGRAM-NOT: C unit

// A missing .c is reported as missing, not as a C unit.
// RUN: cd %t && not forge-port analyze gone.c 2>&1 | FileCheck %s --check-prefix=GONE
// GONE: forge-port: error: cannot open 'gone.c'

#include <stdlib.h>

int run(void) {
  int *p = malloc(4 * sizeof(int)); /* an error in C++: void * to int * */
  int new = p != NULL;              /* a keyword in C++ */
  free(p);
  return new;
}
