//===- Arch/Roofline.cpp - Roofline bounds for a reference GPU ------------===//

#include "forge/Arch/Roofline.h"
#include "llvm/Support/ErrorHandling.h"
#include <algorithm>

namespace forge::arch {

const char *boundednessName(Boundedness B) {
  switch (B) {
  case Boundedness::MemoryBound:
    return "memory-bound";
  case Boundedness::ComputeBound:
    return "compute-bound";
  }
  llvm_unreachable("unknown boundedness");
}

double peakGflops(const GpuModel &G, Precision P) {
  return 1000.0 * (P == Precision::FP32 ? G.Fp32Tflops : G.Fp64Tflops);
}

double ridgePoint(const GpuModel &G, Precision P) {
  return peakGflops(G, P) / G.effectiveBandwidthGBs();
}

double attainableGflops(const GpuModel &G, double FlopsPerByte, Precision P) {
  return std::min(peakGflops(G, P),
                  G.effectiveBandwidthGBs() * std::max(FlopsPerByte, 0.0));
}

Boundedness classifyRoofline(const GpuModel &G, double FlopsPerByte,
                             Precision P) {
  return FlopsPerByte < ridgePoint(G, P) ? Boundedness::MemoryBound
                                         : Boundedness::ComputeBound;
}

} // namespace forge::arch
