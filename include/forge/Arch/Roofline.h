//===- Arch/Roofline.h - Roofline bounds for a reference GPU ---*- C++ -*-===//
///
/// \file
/// The roofline model over a GpuModel: a kernel of a given arithmetic
/// intensity can go no faster than min(peak compute, bandwidth x intensity).
/// Predictions use it to say whether a kernel should chase bandwidth or
/// FLOPs before any tuning is done.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ARCH_ROOFLINE_H
#define FORGE_ARCH_ROOFLINE_H

#include "forge/Arch/GpuModel.h"

namespace forge::arch {

enum class Precision { FP32, FP64 };

enum class Boundedness { MemoryBound, ComputeBound };

const char *boundednessName(Boundedness B);

/// Non-tensor peak in GFLOP/s.
double peakGflops(const GpuModel &G, Precision P = Precision::FP32);

/// The arithmetic intensity (FLOP/byte) where the bandwidth roof meets the
/// compute roof. Uses GpuModel::effectiveBandwidthGBs().
double ridgePoint(const GpuModel &G, Precision P = Precision::FP32);

/// min(peak, bandwidth x FlopsPerByte), in GFLOP/s.
double attainableGflops(const GpuModel &G, double FlopsPerByte,
                        Precision P = Precision::FP32);

/// Memory-bound below the ridge point, compute-bound at or above it.
Boundedness classifyRoofline(const GpuModel &G, double FlopsPerByte,
                             Precision P = Precision::FP32);

} // namespace forge::arch

#endif
