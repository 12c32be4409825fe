//===- Arch/GpuModel.h - Reference GPUs as data ----------------*- C++ -*-===//
///
/// \file
/// Product facts (SM count, L2, bandwidth, peak rates) for the GPUs that
/// predictions are made for when no GPU of the target is present. These are
/// per product, not per compute capability: an H100 and an H200 are both
/// sm_90 but differ in memory bandwidth and L2.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ARCH_GPUMODEL_H
#define FORGE_ARCH_GPUMODEL_H

#include "forge/Arch/TargetInfo.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace forge::arch {

struct GpuModel {
  /// Short name used on the command line and in the tuning database.
  const char *ShortName;
  /// The name cudaGetDeviceProperties reports.
  const char *DeviceName;
  int CC; ///< Compute capability as TargetInfo::ccNumber() gives it (90)
  int SMs;
  double L2MB;
  /// Datasheet DRAM bandwidth, GB/s (1e9 bytes/s).
  double BandwidthGBs;
  /// Our own measurement (read+write counted), 0 if not measured.
  double MeasuredBandwidthGBs;
  double Fp32Tflops; ///< Non-tensor FP32 peak.
  double Fp64Tflops; ///< Non-tensor FP64 peak.
  double Fp64TensorTflops; ///< 0 where FP64 tensor cores are absent.
  /// The GPU that predictions for this compute capability assume.
  bool IsReference;

  /// What a memory-bound kernel can expect: the measured rate where we have
  /// one, otherwise the datasheet figure.
  double effectiveBandwidthGBs() const {
    return MeasuredBandwidthGBs > 0 ? MeasuredBandwidthGBs : BandwidthGBs;
  }
};

llvm::ArrayRef<GpuModel> allGpuModels();

/// Finds a GPU by its cudaGetDeviceProperties name ("NVIDIA H200") or short
/// name ("H200"), ignoring case and surrounding blanks. Unknown names are a
/// UsageError listing the known ones.
llvm::Expected<const GpuModel &> lookupGpuModel(llvm::StringRef Name);

/// The GPU assumed for predictions on T's compute capability (the variant
/// is ignored); null when we have none (sm_87, sm_103, sm_110, sm_121).
const GpuModel *referenceGpuFor(const TargetInfo &T);

} // namespace forge::arch

#endif
