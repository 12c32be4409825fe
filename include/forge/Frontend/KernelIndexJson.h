//===- Frontend/KernelIndexJson.h - The `list --format=json` contract -*- C++ -*-===//
#ifndef FORGE_FRONTEND_KERNELINDEXJSON_H
#define FORGE_FRONTEND_KERNELINDEXJSON_H

#include "forge/Frontend/KernelIndex.h"
#include "forge/Support/Json.h"

namespace forge::frontend {

/// One object per file, with the keys DESIGN.md fixes (kernels,
/// launch_sites, tunables); extra keys may be added, never renamed.
Json toJson(const FileIndex &Index);

} // namespace forge::frontend

#endif
