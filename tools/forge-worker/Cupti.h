//===- forge-worker/Cupti.h - Kernel times from CUPTI activity records -*- C++ -*-===//
///
/// \file
/// The worker's preferred timer: CUPTI activity records of kind
/// CONCURRENT_KERNEL give each kernel's start and end on the GPU's clock,
/// without events around the launch. The memset that flushes L2 makes no
/// kernel record, so a block of timed launches yields exactly one record
/// per launch.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_WORKER_CUPTI_H
#define FORGE_WORKER_CUPTI_H

#include <cstdint>
#include <string>
#include <vector>

namespace forge::worker {

/// Registers the activity buffer callbacks and enables kernel records, and
/// with Copies memcpy records too (bench-refs: a library reference that is
/// a cudaMemcpy; never the worker, whose restores are copies). Call before
/// the CUDA context is created. Returns false (with Error) when CUPTI
/// cannot start; the caller then times with events.
bool cuptiStart(std::string &Error, bool Copies = false);

/// True after a successful cuptiStart.
bool cuptiActive();

/// Drops every kernel record collected so far (call with the GPU idle,
/// before a block of timed launches).
bool cuptiDiscard(std::string &Error);

/// Collects the kernel records of the launches since the last
/// cuptiDiscard/cuptiCollect, in launch order, as durations in ns. The
/// caller synchronises the stream first. Fails unless exactly Expected
/// records arrive.
bool cuptiCollect(size_t Expected, std::vector<double> &DurationsNs,
                  std::string &Error);

/// One activity record: a kernel, a copy or a memset (the last two only
/// after cuptiStart(..., Copies)), with the correlation id of the API call
/// that made it and its GPU start and end. A memset carries its byte value
/// and size, so that a caller can bracket work between marker memsets.
struct ActivityRecord {
  enum class Kind { Kernel, Copy, Set } What = Kind::Kernel;
  uint32_t Correlation = 0;
  uint64_t Start = 0, End = 0;
  uint64_t Bytes = 0;
  unsigned Value = 0;
};

/// Every record since the last cuptiDiscard/cuptiCollect, in API call
/// order, flushed until no more arrive (bench-refs: a library call
/// launches kernels of its own choosing). The caller synchronises first.
/// Fails when records were dropped.
bool cuptiCollectRecords(std::vector<ActivityRecord> &Records,
                         std::string &Error);

/// Disables the records and flushes (at exit).
void cuptiStop();

} // namespace forge::worker

#endif
