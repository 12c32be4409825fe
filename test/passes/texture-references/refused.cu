// Texture references whose rewrite is not mechanical: each is reported,
// with a note at the use that blocks the fix, and none of its uses is
// changed (all or nothing per texture).
// REQUIRES: cuda
// RUN: not forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.log --implicit-check-not='{{^[^ ]+: (warning|error):}}'
// RUN: diff %s %t.cu

// A bind that returns an offset: a texture object has none.
texture<float, 1> shifted;
// DIAG: [[@LINE-1]]:19: error: texture reference 'shifted': texture references were removed in CUDA 12
__global__ void readShifted(float *out) { out[threadIdx.x] = tex1Dfetch(shifted, threadIdx.x); }
void bindShifted(float *p, size_t n) {
  size_t offset;
  cudaBindTexture(&offset, shifted, p, n * sizeof(float));
  // DIAG: [[@LINE-1]]:3: note: not rewritten: the bind returns an offset ('&offset'); a texture object has none, its pointer must be aligned: pass 0 and align the pointer, or read at ptr + offset; no fix is applied to 'shifted'
  readShifted<<<1, 32>>>(p);
}

// A fetch in a macro's body that two textures of different types go
// through: the #define cannot read both.
texture<int, 1> intsViaMacro;
// DIAG: [[@LINE-1]]:17: error: texture reference 'intsViaMacro'
// DIAG: [[@LINE+4]]:21: note: not rewritten: the body of macro 'FETCH' would need a different rewrite for each texture that goes through it; no fix is applied to 'intsViaMacro'
texture<float, 1> floatsViaMacro;
// DIAG: [[@LINE-1]]:19: error: texture reference 'floatsViaMacro'
// DIAG: [[@LINE+1]]:21: note: not rewritten: the body of macro 'FETCH' would need a different rewrite for each texture that goes through it; no fix is applied to 'floatsViaMacro'
#define FETCH(t, i) tex1Dfetch(t, i)
__global__ void readMacro(float *out) {
  out[threadIdx.x] = FETCH(intsViaMacro, threadIdx.x) + FETCH(floatsViaMacro, threadIdx.x);
}
void bindViaMacro(int *p, float *q) {
  cudaBindTexture(0, intsViaMacro, p, 64);
  cudaBindTexture(0, floatsViaMacro, q, 64);
  readMacro<<<1, 32>>>(q);
}

// A bind in a macro's body shared with a texture that is not rewritten (its
// bind returns an offset): the #define must stay, so neither is rewritten.
texture<int, 1> boundInMacro;
// DIAG: [[@LINE-1]]:17: error: texture reference 'boundInMacro'
// DIAG: [[@LINE+9]]:3: note: not rewritten: 'offsetInMacro', which is not rewritten, also goes through the body of macro 'BIND'; no fix is applied to 'boundInMacro'
texture<int, 1> offsetInMacro;
// DIAG: [[@LINE-1]]:17: error: texture reference 'offsetInMacro'
// DIAG: [[@LINE+6]]:3: note: not rewritten: the bind returns an offset ('&offset'); a texture object has none, its pointer must be aligned: pass 0 and align the pointer, or read at ptr + offset; no fix is applied to 'offsetInMacro'
__global__ void readBound(int *out) { out[threadIdx.x] = tex1Dfetch(boundInMacro, threadIdx.x) + tex1Dfetch(offsetInMacro, 0); }
#define BIND(off, tex, p, n) cudaBindTexture(off, tex, p, n)
void bindInMacro(int *p) {
  size_t offset;
  BIND(0, boundInMacro, p, 64);
  BIND(&offset, offsetInMacro, p, 64);
  readBound<<<1, 32>>>(p);
}

// Settings that change between binds: an object's are fixed when it is
// created.
texture<float, 1> modes;
// DIAG: [[@LINE-1]]:19: error: texture reference 'modes'
__global__ void readModes(float *out) { out[threadIdx.x] = tex1Dfetch(modes, threadIdx.x); }
void bindModes(float *p, bool smooth) {
  modes.filterMode = cudaFilterModePoint;
  cudaBindTexture(0, modes, p, 256);
  readModes<<<1, 32>>>(p);
  modes.filterMode = cudaFilterModeLinear;
  // DIAG: [[@LINE-1]]:3: note: not rewritten: 'modes.filterMode' is set to different values (also at line [[@LINE-4]]); a texture object's settings are fixed when it is created
  cudaBindTexture(0, modes, p, 256);
  readModes<<<1, 32>>>(p);
}

// Passed to a function of the program: not a use the pass knows.
texture<float, 1> passed;
// DIAG: [[@LINE-1]]:19: error: texture reference 'passed'
// DIAG: [[@LINE+4]]:74: note: not rewritten: it is passed to a function; no fix is applied to 'passed'
__device__ float viaParameter(texture<float, 1> t, int i) { return tex1Dfetch(t, i); }
// DIAG: [[@LINE-1]]:49: error: texture references were removed in CUDA 12; 't' takes one: take a cudaTextureObject_t instead
// DIAG: [[@LINE-2]]:49: note: not rewritten: the texture it is given is reported where it is declared
__global__ void readPassed(float *out) { out[threadIdx.x] = viaParameter(passed, threadIdx.x); }

// Surface references are reported, not rewritten.
surface<void, 2> canvas;
// DIAG: [[@LINE-1]]:18: error: surface reference 'canvas': surface references were removed in CUDA 12; use a surface object (cudaSurfaceObject_t, created with cudaCreateSurfaceObject from a cudaResourceDesc of the array, passed to the kernels that use it)
// DIAG: [[@LINE-2]]:18: note: not rewritten: surface references are reported only
__global__ void paint() { surf2Dwrite(1.0f, canvas, 4 * threadIdx.x, 0); }
void bindCanvas(cudaArray_t a) { cudaBindSurfaceToArray(canvas, a); }
