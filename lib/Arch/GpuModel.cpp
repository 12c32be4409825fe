//===- Arch/GpuModel.cpp - The reference GPU table ------------------------===//
//
// Peak rates are NVIDIA datasheet figures at boost clock, without sparsity.
// Where a datasheet gives no FP64 figure, the value is derived from the
// FP64:FP32 ratio in the architecture whitepapers: 1:32 on Turing, 1:64 on
// GA10x, AD10x and GB20x.
// L2 sizes are what cudaGetDeviceProperties reports, in MiB.
//
//===----------------------------------------------------------------------===//

#include "forge/Arch/GpuModel.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace forge::arch {

namespace {

// clang-format off
const GpuModel Models[] = {
  // Tesla T4 datasheet: 40 SMs, 4 MB L2, 320 GB/s GDDR6, 8.1 TFLOP/s FP32.
  {"T4", "Tesla T4", 75, 40, 4, 320, 0, 8.1, 8.1 / 32, 0, true},
  // A100 80GB datasheet (SXM): 2039 GB/s, 19.5 FP32, 9.7 FP64, 19.5 FP64
  // tensor; 108 SMs and 40 MB L2 from the A100 whitepaper.
  {"A100", "NVIDIA A100-SXM4-80GB", 80, 108, 40, 2039, 0, 19.5, 9.7, 19.5,
   true},
  // A10 datasheet: 600 GB/s, 31.2 FP32; 72 SMs and 6 MB L2 (GA102).
  {"A10", "NVIDIA A10", 86, 72, 6, 600, 0, 31.2, 31.2 / 64, 0, true},
  // L4 datasheet: 300 GB/s, 30.3 FP32; 58 SMs, 48 MB L2 (AD104).
  {"L4", "NVIDIA L4", 89, 58, 48, 300, 0, 30.3, 30.3 / 64, 0, false},
  // L40S datasheet: 864 GB/s, 91.6 FP32; 142 SMs, 96 MB L2 (AD102).
  {"L40S", "NVIDIA L40S", 89, 142, 96, 864, 0, 91.6, 91.6 / 64, 0, true},
  // Ada whitepaper (RTX 4090): 128 SMs, 72 MB L2, 1008 GB/s, 82.6 FP32.
  {"RTX4090", "NVIDIA GeForce RTX 4090", 89, 128, 72, 1008, 0, 82.6,
   82.6 / 64, 0, false},
  // H100 SXM datasheet: 3350 GB/s, 67 FP32, 34 FP64, 67 FP64 tensor;
  // 132 SMs and 50 MB L2 from the Hopper whitepaper.
  {"H100-SXM", "NVIDIA H100 80GB HBM3", 90, 132, 50, 3350, 0, 67, 34, 67,
   false},
  // H200 datasheet: 4800 GB/s, same compute as H100 SXM. SMs, L2 and the
  // 4254 GB/s device-to-device copy (read+write) are our own measurement
  // (DESIGN.md, "Reference numbers on the H200").
  {"H200", "NVIDIA H200", 90, 132, 60, 4800, 4254, 67, 34, 67, true},
  // HGX B200 datasheet (8-GPU totals / 8): 8000 GB/s, 75 FP32, 37 FP64 and
  // FP64 tensor; 148 SMs and 126.5 MiB L2 as reported by the CUDA driver.
  {"B200", "NVIDIA B200", 100, 148, 126.5, 8000, 0, 75, 37, 37, true},
  // RTX Blackwell whitepaper (RTX 5090): 170 SMs, 96 MB L2, 1792 GB/s,
  // 104.8 FP32.
  {"RTX5090", "NVIDIA GeForce RTX 5090", 120, 170, 96, 1792, 0, 104.8,
   104.8 / 64, 0, true},
};
// clang-format on

std::string knownGpuNames() {
  std::vector<std::string> Names;
  for (const GpuModel &G : Models)
    Names.push_back(formatv("{0} ('{1}')", G.ShortName, G.DeviceName).str());
  return join(Names, ", ");
}

} // namespace

ArrayRef<GpuModel> allGpuModels() { return Models; }

Expected<const GpuModel &> lookupGpuModel(StringRef Name) {
  StringRef Trimmed = Name.trim();
  for (const GpuModel &G : Models)
    if (Trimmed.equals_insensitive(G.DeviceName) ||
        Trimmed.equals_insensitive(G.ShortName))
      return G;
  return makeUsageError("unknown GPU '{0}'; known GPUs: {1}", Trimmed,
                        knownGpuNames());
}

const GpuModel *referenceGpuFor(const TargetInfo &T) {
  for (const GpuModel &G : Models)
    if (G.IsReference && G.CC == T.ccNumber())
      return &G;
  return nullptr;
}

} // namespace forge::arch
