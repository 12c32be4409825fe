// The texture is declared in a file that the host file #includes: the
// fix-its land where the code is written, the declaration, the helpers and
// the kernel's parameter in the included file, the bind and the launch here.
// REQUIRES: cuda
// RUN: not forge-port port --checks=texture-references --to sm_90 --no-validate --format=json %s > %t.json
// RUN: FileCheck %s --input-file=%t.json
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d=d[0] if isinstance(d,list) else d; d=d['files'][0] if 'files' in d else d; [print(*r) for r in sorted(('FIXIT', x['file'].rsplit('/',1)[-1], x['line'], x['column'], x['end_line'], x['end_column'], repr(x['replacement'][:60])) for f in d['findings'] for x in f['fixits'])]" %t.json | FileCheck %s --check-prefix=FIXIT
// Applied together, in both files, the fix-its give a program nvcc builds.
// RUN: %python %S/Inputs/apply-fixits.py %t.json . %S %t.dir
// RUN: %nvcc -arch=sm_90 -c %t.dir/header.cu -o %t.o

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
// FIXIT: FIXIT header.cu 15 1 16 1 ''
// FIXIT-NEXT: FIXIT header.cu 16 3 16 52 'forgeBindTexture(&coeffs, c, cudaCreateChannelDesc<float>(),'
// FIXIT-NEXT: FIXIT header.cu 17 39 17 39 ', coeffs'
// FIXIT-NEXT: FIXIT header.cu 18 3 18 28 'forgeUnbindTexture(&coeffs)'
// FIXIT-NEXT: FIXIT tex-kernel.cuh 3 1 3 1 '// forge-port (texture-references): texture references were '
// FIXIT-NEXT: FIXIT tex-kernel.cuh 3 1 3 50 'cudaTextureObject_t coeffs = 0'
// FIXIT-NEXT: FIXIT tex-kernel.cuh 5 29 5 29 ', cudaTextureObject_t coeffs'
// FIXIT-NEXT: FIXIT tex-kernel.cuh 5 50 5 50 '<float>'
// FIXIT-NEXT: FIXIT tex-kernel.cuh 7 38 7 38 ', cudaTextureObject_t coeffs'
// FIXIT-NEXT: FIXIT tex-kernel.cuh 10 20 10 20 ', coeffs'
// FIXIT-NOT: FIXIT
