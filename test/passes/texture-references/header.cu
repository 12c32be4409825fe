// The texture is declared in a file that the host file #includes: the
// fix-its land where the code is written, the declaration, the helpers and
// the kernel's parameter in the included file, the bind and the launch here.
// REQUIRES: cuda
// RUN: not forge-port port --checks=texture-references --to sm_90 --no-validate --format=json %s > %t.json
// RUN: FileCheck %s --input-file=%t.json
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d=d[0] if isinstance(d,list) else d; d=d['files'][0] if 'files' in d else d; [print(*r) for r in sorted(('FIXIT', x['file'].rsplit('/',1)[-1], x['line'], x['column'], x['end_line'], x['end_column'], repr(x['replacement'][:60])) for f in d['findings'] for x in f['fixits'])]" %t.json | FileCheck %s --check-prefix=FIXIT
// Project mode applies them together, in both files (-o DIR/ writes both),
// and nvcc builds the tree.
// RUN: rm -rf %t.src %t.dir && mkdir -p %t.src/Inputs && cp %s %t.src/header.cu && cp %S/Inputs/tex-kernel.cuh %t.src/Inputs/
// RUN: forge-port port --checks=texture-references --to sm_90 %t.src/header.cu -o %t.dir/ 2>&1 | FileCheck %s --check-prefix=TREE
// RUN: %nvcc -arch=sm_90 -c %t.dir/header.cu -o %t.o
// TREE: note: fixes in '{{.*}}Inputs/tex-kernel.cuh' are applied for the project (written to the tree)
// TREE: header.cu: 1 error(s), 0 warning(s) for sm_90; 1 fixed; nvcc compiles the patched file for sm_90
// TREE: note: project file '{{.*}}Inputs/tex-kernel.cuh': 6 edit(s) from {{.*}}header.cu; written

#include "Inputs/tex-kernel.cuh"

void run(float *x, const float *c, int n) {
  coeffs.filterMode = cudaFilterModePoint;
  cudaBindTexture(0, coeffs, c, 64 * sizeof(float));
  weigh<<<(n + 255) / 256, 256>>>(x, n);
  cudaUnbindTexture(coeffs);
}

// CHECK: "message": "texture reference 'coeffs': texture references were removed in CUDA 12
// CHECK-NEXT: "location": {
// CHECK-NEXT: "file": "{{.*}}Inputs/tex-kernel.cuh",
// CHECK-NEXT: "line": 3,
// CHECK-NEXT: "column": 44,
// The fix-its, sorted by file and position.
// FIXIT: FIXIT header.cu 20 1 21 1 ''
// FIXIT-NEXT: FIXIT header.cu 21 3 21 52 'forgeBindTexture(&coeffs, c, cudaCreateChannelDesc<float>(),'
// FIXIT-NEXT: FIXIT header.cu 22 39 22 39 ', coeffs'
// FIXIT-NEXT: FIXIT header.cu 23 3 23 28 'forgeUnbindTexture(&coeffs)'
// FIXIT-NEXT: FIXIT tex-kernel.cuh 3 1 3 1 '// forge-port (texture-references): texture references were '
// FIXIT-NEXT: FIXIT tex-kernel.cuh 3 1 3 50 'cudaTextureObject_t coeffs = 0'
// FIXIT-NEXT: FIXIT tex-kernel.cuh 5 29 5 29 ', cudaTextureObject_t coeffs'
// FIXIT-NEXT: FIXIT tex-kernel.cuh 5 50 5 50 '<float>'
// FIXIT-NEXT: FIXIT tex-kernel.cuh 7 38 7 38 ', cudaTextureObject_t coeffs'
// FIXIT-NEXT: FIXIT tex-kernel.cuh 10 20 10 20 ', coeffs'
// FIXIT-NOT: FIXIT
