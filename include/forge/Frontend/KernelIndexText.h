//===- Frontend/KernelIndexText.h - `forge-port list` for people -*- C++ -*-===//
#ifndef FORGE_FRONTEND_KERNELINDEXTEXT_H
#define FORGE_FRONTEND_KERNELINDEXTEXT_H

#include "forge/Frontend/KernelIndex.h"
#include "llvm/Support/raw_ostream.h"

namespace forge::frontend {

/// The kernels (signature, launch bounds, shared memory, features,
/// instantiations), launch sites (geometry and its values), tunables and
/// inactive regions of a file, as the table `forge-port list` prints.
void renderText(const FileIndex &Index, llvm::raw_ostream &OS);

} // namespace forge::frontend

#endif
