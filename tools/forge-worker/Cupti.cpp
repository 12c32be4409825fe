//===- forge-worker/Cupti.cpp - Kernel times from CUPTI activity records ---===//

#include "Cupti.h"

#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace forge::worker {

namespace {

// The kernel record of the CUPTI this worker is built with. Its start, end
// and correlationId sit in the same place in every version since
// CUpti_ActivityKernel4, so a newer libcupti at run time reads the same.
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
#else
using KernelRecord = CUpti_ActivityKernel4;
#endif

using Record = ActivityRecord;

std::mutex Mutex;
std::vector<Record> Records; // guarded by Mutex
size_t Dropped = 0;          // guarded by Mutex
bool Active = false;
bool CopiesOn = false;

constexpr size_t BufferBytes = 8u << 20;

void CUPTIAPI bufferRequested(uint8_t **Buffer, size_t *Size,
                              size_t *MaxNumRecords) {
  *Buffer = static_cast<uint8_t *>(std::aligned_alloc(8, BufferBytes));
  *Size = *Buffer ? BufferBytes : 0;
  *MaxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext Ctx, uint32_t StreamId,
                              uint8_t *Buffer, size_t /*Size*/,
                              size_t ValidSize) {
  std::vector<Record> Got;
  CUpti_Activity *R = nullptr;
  while (ValidSize > 0 &&
         cuptiActivityGetNextRecord(Buffer, ValidSize, &R) == CUPTI_SUCCESS) {
    if (R->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        R->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto *K = reinterpret_cast<const KernelRecord *>(R);
      Got.push_back({Record::Kind::Kernel, K->correlationId, K->start, K->end});
    } else if (R->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto *M = reinterpret_cast<const CUpti_ActivityMemcpy6 *>(R);
      Got.push_back({Record::Kind::Copy, M->correlationId, M->start, M->end,
                     M->bytes});
    } else if (R->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto *M = reinterpret_cast<const CUpti_ActivityMemset4 *>(R);
      Got.push_back({Record::Kind::Set, M->correlationId, M->start, M->end,
                     M->bytes, M->value});
    }
  }
  size_t Lost = 0;
  if (cuptiActivityGetNumDroppedRecords(Ctx, StreamId, &Lost) != CUPTI_SUCCESS)
    Lost = 0;
  std::free(Buffer);
  std::lock_guard<std::mutex> L(Mutex);
  Records.insert(Records.end(), Got.begin(), Got.end());
  Dropped += Lost;
}

std::string cuptiText(CUptiResult R) {
  const char *S = nullptr;
  if (cuptiGetResultString(R, &S) != CUPTI_SUCCESS || !S)
    return "CUPTI error " + std::to_string(int(R));
  return S;
}

} // namespace

bool cuptiStart(std::string &Error, bool Copies) {
  if (Active)
    return true;
  CUptiResult R = cuptiActivityRegisterCallbacks(bufferRequested,
                                                 bufferCompleted);
  if (R != CUPTI_SUCCESS) {
    Error = "cuptiActivityRegisterCallbacks: " + cuptiText(R);
    return false;
  }
  // KERNEL, not CONCURRENT_KERNEL: the worker runs one kernel at a time,
  // and concurrent-kernel tracing was measured on the H200 to slow a kernel
  // of 262k blocks by 4.3 % (565.5 us without CUPTI, 589.8 us with it,
  // 567.8 us with KERNEL).
  R = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL);
  if (R != CUPTI_SUCCESS) {
    Error = "cuptiActivityEnable(KERNEL): " + cuptiText(R);
    return false;
  }
  if (Copies && ((R = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY)) !=
                     CUPTI_SUCCESS ||
                 (R = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET)) !=
                     CUPTI_SUCCESS)) {
    Error = "cuptiActivityEnable(MEMCPY, MEMSET): " + cuptiText(R);
    return false;
  }
  CopiesOn = Copies;
  Active = true;
  return true;
}

bool cuptiActive() { return Active; }

bool cuptiDiscard(std::string &Error) {
  if (!Active) {
    Error = "CUPTI is not active";
    return false;
  }
  CUptiResult R = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (R != CUPTI_SUCCESS) {
    Error = "cuptiActivityFlushAll: " + cuptiText(R);
    return false;
  }
  std::lock_guard<std::mutex> L(Mutex);
  Records.clear();
  Dropped = 0;
  return true;
}

namespace {

/// Moves the records collected so far into Got and the count of dropped
/// ones into Lost. Called with Mutex held.
void takeLocked(std::vector<Record> &Got, size_t &Lost) {
  Got.swap(Records);
  Lost = Dropped;
  Records.clear();
  Dropped = 0;
}

/// Durations of Got in launch order; fails on a record without an end.
bool durations(std::vector<Record> &Got, std::vector<double> &DurationsNs,
               std::string &Error) {
  std::sort(Got.begin(), Got.end(), [](const Record &A, const Record &B) {
    return A.Correlation < B.Correlation;
  });
  for (const Record &R : Got) {
    if (R.End <= R.Start) {
      Error = "CUPTI delivered a kernel record without a valid end time";
      return false;
    }
    DurationsNs.push_back(double(R.End - R.Start));
  }
  return true;
}

} // namespace

bool cuptiCollectRecords(std::vector<ActivityRecord> &Out, std::string &Error) {
  Out.clear();
  if (!Active) {
    Error = "CUPTI is not active";
    return false;
  }
  // The stream is idle, so every record is complete: forced flushes hand
  // over the buffers that hold them, until two in a row add nothing.
  size_t Seen = 0;
  for (int Attempt = 0; Attempt < 20; ++Attempt) {
    CUptiResult R = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (R != CUPTI_SUCCESS) {
      Error = "cuptiActivityFlushAll: " + cuptiText(R);
      return false;
    }
    size_t Now;
    {
      std::lock_guard<std::mutex> L(Mutex);
      Now = Records.size();
    }
    if (Now && Now == Seen)
      break;
    Seen = Now;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::vector<Record> Got;
  size_t Lost = 0;
  {
    std::lock_guard<std::mutex> L(Mutex);
    takeLocked(Got, Lost);
  }
  if (Lost) {
    Error = "CUPTI dropped " + std::to_string(Lost) + " activity records";
    return false;
  }
  std::sort(Got.begin(), Got.end(), [](const Record &A, const Record &B) {
    return A.Correlation < B.Correlation;
  });
  Out = std::move(Got);
  return true;
}

bool cuptiCollect(size_t Expected, std::vector<double> &DurationsNs,
                  std::string &Error) {
  DurationsNs.clear();
  if (!Active) {
    Error = "CUPTI is not active";
    return false;
  }
  // The caller synchronised the stream, so every record is complete; a
  // record may still sit in a buffer that CUPTI has not handed over, so try
  // a few times before giving up.
  std::vector<Record> Got;
  size_t Lost = 0;
  for (int Attempt = 0; Attempt < 50; ++Attempt) {
    CUptiResult R = cuptiActivityFlushAll(Attempt < 10
                                              ? 0
                                              : CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (R != CUPTI_SUCCESS) {
      Error = "cuptiActivityFlushAll: " + cuptiText(R);
      return false;
    }
    {
      std::lock_guard<std::mutex> L(Mutex);
      if (Records.size() >= Expected || Dropped) {
        takeLocked(Got, Lost);
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (Got.empty() && Expected) {
    std::lock_guard<std::mutex> L(Mutex);
    takeLocked(Got, Lost);
  }
  if (Lost) {
    Error = "CUPTI dropped " + std::to_string(Lost) + " activity records";
    return false;
  }
  if (Got.size() != Expected) {
    Error = "CUPTI delivered " + std::to_string(Got.size()) +
            " kernel records for " + std::to_string(Expected) + " launches";
    return false;
  }
  return durations(Got, DurationsNs, Error);
}

void cuptiStop() {
  if (!Active)
    return;
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_KERNEL);
  if (CopiesOn) {
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
  }
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  Active = false;
  std::lock_guard<std::mutex> L(Mutex);
  Records.clear();
}

} // namespace forge::worker
