//===- passes/PassRegistry.cpp - One line per pass, sorted ----------------===//
#include "PassRegistry.h"
#include "port/ArchGuards.h"
#include "port/ArchSpecificInstructions.h"
#include "port/Cuda13RemovedApi.h"
#include "port/HardwareConstants.h"
#include "port/LegacyRuntimeHazards.h"
#include "port/RetuneNeeded.h"
#include "port/SharedMemoryLimits.h"
#include "port/TextureReferences.h"
#include "port/WarpSyncIntrinsics.h"
#include "forge/Support/Error.h"
#include "forge/Support/Glob.h"

namespace forge::passes {

template <class T> static std::unique_ptr<PortPass> make() { return std::make_unique<T>(); }

static const PassInfo Passes[] = {
    {"arch-guards", "__CUDA_ARCH__ equality guards that exclude later targets", make<ArchGuards>},
    {"arch-specific-instructions", "wgmma, setmaxnreg, tcgen05, TMA and clusters reachable on a target without them", make<ArchSpecificInstructions>},
    {"cuda13-removed-api", "CUDA 12/13 and CCCL 3 API changes: removed calls, fields, names and types, changed signatures", make<Cuda13RemovedApi>},
    {"hardware-constants", "grid sizes from literal SM counts, literal L2 and shared-memory sizes", make<HardwareConstants>},
    {"legacy-runtime-hazards", "string symbol names and warp-synchronous shared-memory code that still compile but break at run time", make<LegacyRuntimeHazards>},
    {"retune-needed", "launch bounds and shared-memory sizes chosen for the source arch that cut occupancy on the target", make<RetuneNeeded>},
    {"shared-memory-limits", "static and dynamic shared memory against the target's limits", make<SharedMemoryLimits>},
    {"texture-references", "texture and surface references, removed in CUDA 12, rewritten to texture objects", make<TextureReferences>},
    {"warp-sync-intrinsics", "warp shuffles and votes without _sync, removed in CUDA 13", make<WarpSyncIntrinsics>},
};

llvm::ArrayRef<PassInfo> allPasses() { return Passes; }

llvm::Expected<std::vector<const PassInfo *>> selectPasses(llvm::StringRef Globs) {
  std::vector<llvm::StringRef> Names;
  for (const PassInfo &PI : Passes)
    Names.push_back(PI.Name);
  auto Picked = selectByGlobs(Names, Globs, "--checks", "pass");
  if (!Picked)
    return Picked.takeError();
  std::vector<const PassInfo *> Out;
  for (size_t I : *Picked)
    Out.push_back(&Passes[I]);
  return Out;
}

} // namespace forge::passes
