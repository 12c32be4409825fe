// The input does not compile with CUDA 13: Clang's errors come first, then
// the findings, so each is checked in its own FileCheck run.
// RUN: not forge-port port --checks=cuda13-removed-api --to sm_90 --no-validate %s -o %t.cu -- %cuda_mock_flags > %t.log 2>&1
// RUN: FileCheck %s --check-prefix=DIAG --implicit-check-not='warning:' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=PARSE --implicit-check-not='error:' --input-file=%t.log
// RUN: FileCheck %s --check-prefix=FIX --match-full-lines --input-file=%t.cu

// Texture and surface references are gone in CUDA 13; there is no mechanical
// rewrite to texture objects, so the pass only reports them.

texture<float, 2> tex;
// DIAG: [[@LINE-1]]:1: warning: texture references were removed in CUDA 13; use texture objects (cudaTextureObject_t, created with cudaCreateTextureObject) [cuda13-removed-api]
// PARSE: [[@LINE-2]]:1: error: no template named 'texture'
// FIX: texture<float, 2> tex;
