//===- fuzz/EditBlocksFuzzer.cpp - SEARCH/REPLACE replies -----------------===//
///
/// \file
/// The input is a model reply, optionally followed by a NUL byte and the
/// source file it edits (else a small kernel). The reply is parsed and
/// applied in memory (applyEditText: parseEditBlocks, applyEditBlocks,
/// PatchSet::applyTo); every error is an ordinary result.
///
//===----------------------------------------------------------------------===//
#include "forge/Agent/EditBlocks.h"
#include <cstdint>
#include <cstring>

static const char DefaultSource[] =
    "#include <cuda_runtime.h>\n"
    "__global__ void saxpy(int n, float a, const float *x, float *y) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n)\n"
    "    y[i] = a * x[i] + y[i];\n"
    "}\n";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef In(reinterpret_cast<const char *>(Data), Size);
  auto [Reply, Source] = In.split('\0');
  if (Reply.size() == In.size())
    Source = DefaultSource;
  auto Blocks = forge::agent::parseEditBlocks(Reply);
  if (!Blocks) {
    llvm::consumeError(Blocks.takeError());
    return 0;
  }
  auto New = forge::agent::applyEditText(Reply, "kernel.cu", Source, "fuzz");
  if (!New)
    llvm::consumeError(New.takeError());
  return 0;
}
