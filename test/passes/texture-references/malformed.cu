// Broken and unusual uses of texture references: reported, never a crash,
// no fix where the code is not understood.
// REQUIRES: cuda
// RUN: not forge-port port --checks=texture-references --to sm_90 --no-validate %s -o %t.cu > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log
// RUN: diff %s %t.cu

// Two declarators share the type.
texture<float, 1> first, second;
// CHECK: [[@LINE-1]]:19: error: texture reference 'first'
// CHECK: [[@LINE-2]]:19: note: not rewritten: 'first' is declared together with other textures; declare each on its own
// CHECK: [[@LINE-3]]:26: error: texture reference 'second'

// A fetch with too few arguments, a bind with too few: Clang's errors,
// and the texture is not rewritten.
texture<float, 1> broken;
// CHECK: [[@LINE-1]]:19: error: texture reference 'broken'
// CHECK: [[@LINE+1]]:62: note: not rewritten: it is used in an expression the pass does not rewrite; no fix is applied to 'broken'
__global__ void readBroken(float *out) { out[0] = tex1Dfetch(broken); }
void bindBroken(float *p) {
  cudaBindTexture(0, broken);
  readBroken<<<1, 1>>>(p);
}

// Constructed with settings, and read from host code (Clang's error).
texture<float, 1> constructed(1, cudaFilterModeLinear);
// CHECK: [[@LINE-1]]:19: error: texture reference 'constructed'
// CHECK: note: not rewritten: the texture is constructed with arguments
texture<float, 1> onHost;
// CHECK: [[@LINE-1]]:19: error: texture reference 'onHost'
float hostRead() { return tex1Dfetch(onHost, 0); }
// CHECK: [[@LINE-1]]:38: note: not rewritten: it is used in an expression the pass does not rewrite; no fix is applied to 'onHost'

// A bind without a size, a field without a rewrite, a setting from a
// run-time value.
texture<float, 1> unsized;
// CHECK: [[@LINE-1]]:19: error: texture reference 'unsized'
// CHECK: note: not rewritten: the bind gives no size (the reference covered the whole address space); a texture object needs the size in bytes; no fix is applied to 'unsized'
texture<float, 1> aniso;
// CHECK: [[@LINE-1]]:19: error: texture reference 'aniso'
// CHECK: note: not rewritten: the field 'maxAnisotropy' of a texture reference has no rewrite
texture<float, 1> runtime;
// CHECK: [[@LINE-1]]:19: error: texture reference 'runtime'
// CHECK: note: not rewritten: 'runtime.filterMode' is set from a value known only at run time
__global__ void readAll(float *out) {
  out[0] = tex1Dfetch(unsized, 0) + tex1Dfetch(aniso, 0) + tex1Dfetch(runtime, 0);
}
void bindAll(float *p, bool linear) {
  cudaBindTexture(0, unsized, p);
  aniso.maxAnisotropy = 4;
  runtime.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  cudaBindTexture(0, aniso, p, 4);
  cudaBindTexture(0, runtime, p, 4);
  readAll<<<1, 1>>>(p);
}
