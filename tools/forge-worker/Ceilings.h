//===- forge-worker/Ceilings.h - The GPU's measured ceilings ----*- C++ -*-===//
///
/// \file
/// DRAM bandwidth and FP32/FP64 FMA peaks, measured once per GPU and cached
/// as $FORGE_CACHE_DIR/ceilings-<uuid>.txt (docs/worker-protocol.md,
/// "Ceilings"). Also the small helpers the result lines share.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_WORKER_CEILINGS_H
#define FORGE_WORKER_CEILINGS_H

#include <string>

namespace forge::worker {

struct CeilingValues {
  double DramGbps = 0;
  double Fp32Gflops = 0;
  double Fp64Gflops = 0;
  std::string Source; ///< "measured" or "cache"
};

/// The ceilings of the current device (its context must be usable):
/// read from the cache unless Refresh, else measured and cached. Uuid is the
/// device's "GPU-..." uuid. Returns false with Error when the measurement
/// fails.
bool getCeilings(const std::string &Uuid, bool Refresh, CeilingValues &Out,
                 std::string &Error);

/// The "ceilings" line of results.jsonl (no newline).
std::string ceilingsLine(const CeilingValues &C);

/// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from the 16 uuid bytes.
std::string formatUuid(const unsigned char *Bytes);

/// A JSON number: the shortest of %.15g/%.17g that reads back exactly;
/// "null" for NaN and infinities.
std::string jsonNumber(double V);

/// The directory ceilings are cached in: $FORGE_CACHE_DIR, else
/// $XDG_CACHE_HOME/forge, else ~/.cache/forge ("" when none is known).
std::string cacheDir();

} // namespace forge::worker

#endif
