// libforge-inject.so: Kernel Forge's "program mode" timer.
//
// A CUPTI injection library. With
//   CUDA_INJECTION64_PATH=/path/libforge-inject.so ./program args...
// the CUDA driver loads this library when the program initialises CUDA and
// calls InitializeInjection(). From then on CUPTI activity records give the
// GPU start and end time of every kernel launch; they are grouped by the
// kernel's mangled name. When the program exits (atexit) the library writes
// JSON lines to the file named by FORGE_INJECT_OUT (stderr if unset):
//
//   {"type":"inject","timer":"cupti","pid":N,"kernels":K,"dropped":D}
//   {"type":"kernel","name":"<demangled>","mangled":"...","launches":N,
//    "streams":S,"total_ns":..,"median_ns":..,"min_ns":..,"max_ns":..,
//    "mean_ns":..}
//   ... one kernel line per name, by total time, largest first.
//
// Kernels are recorded on every stream of every context ("streams": on how
// many distinct streams a kernel ran). The header may also carry
// "incomplete":N (launches CUPTI gave no timestamps for: kernels still
// running at exit, typically left on another stream that the program never
// synchronised) and, when the library failed, "error":"..." next to
// "timer":"none".
//
// Environment:
//   FORGE_INJECT_OUT      output file; written to "<file>.tmp.<pid>" and
//                         renamed, so a reader never sees half a file. A
//                         "%p" in it is replaced by the process id (for
//                         programs that start several CUDA processes).
//   FORGE_INJECT_KERNELS  comma-separated substrings: only kernels whose
//                         demangled name contains one of them are recorded.
//
// The library must never break the program it is measuring: every CUPTI
// failure is reported once on stderr ("forge-inject: ...") and the library
// then stays passive, writing "timer":"none" and no kernels at exit.

#include <cupti.h>

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

struct KernelTimes {
  std::string demangled;
  bool recorded = false; // passes the FORGE_INJECT_KERNELS filter
  std::vector<uint64_t> durations;
  std::vector<uint32_t> streams; // distinct stream ids, sorted
};

struct State {
  std::mutex mutex; // guards everything below
  std::unordered_map<std::string, KernelTimes> kernels; // by mangled name
  std::vector<std::string> filters;
  uint64_t dropped = 0;
  uint64_t incomplete = 0;
  std::string error;
};

// Allocated once and never freed: CUPTI may call back from its own threads
// while the process is being torn down, after static destructors ran.
State *state = nullptr;
std::atomic<bool> failed{false};
std::atomic<bool> finished{false};
std::atomic<bool> initialized{false};

constexpr size_t kBufferSize = 8u << 20;
constexpr size_t kBufferAlign = 8;

// Reports the first failure on stderr and makes the library passive.
void fail(const std::string &message) {
  if (failed.exchange(true))
    return;
  std::fprintf(stderr, "forge-inject: %s; kernel times are not collected\n",
               message.c_str());
  if (state) {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->error = message;
  }
}

bool check(CUptiResult result, const char *call) {
  if (result == CUPTI_SUCCESS)
    return true;
  const char *text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || !text)
    text = "unknown error";
  fail(std::string(call) + " failed: " + text + " (" +
       std::to_string(static_cast<int>(result)) + ")");
  return false;
}

std::string demangle(const char *mangled) {
  int status = -1;
  char *out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string result = (status == 0 && out) ? std::string(out) : std::string(mangled);
  std::free(out);
  return result;
}

std::vector<std::string> parseFilters(const char *text) {
  std::vector<std::string> filters;
  if (!text)
    return filters;
  std::string all(text);
  size_t begin = 0;
  while (begin <= all.size()) {
    size_t end = all.find(',', begin);
    if (end == std::string::npos)
      end = all.size();
    std::string item = all.substr(begin, end - begin);
    size_t first = item.find_first_not_of(" \t");
    size_t last = item.find_last_not_of(" \t");
    if (first != std::string::npos)
      filters.push_back(item.substr(first, last - first + 1));
    begin = end + 1;
  }
  return filters;
}

// Called with state->mutex held.
void addLaunch(const char *mangledName, uint32_t stream, uint64_t start, uint64_t end) {
  if (!mangledName)
    mangledName = "<unnamed>";
  if ((start == 0 && end == 0) || end < start) {
    ++state->incomplete;
    return;
  }
  auto found = state->kernels.find(mangledName);
  if (found == state->kernels.end()) {
    KernelTimes times;
    times.demangled = demangle(mangledName);
    times.recorded = state->filters.empty();
    for (const std::string &filter : state->filters)
      if (times.demangled.find(filter) != std::string::npos)
        times.recorded = true;
    found = state->kernels.emplace(mangledName, std::move(times)).first;
  }
  if (!found->second.recorded)
    return;
  found->second.durations.push_back(end - start);
  std::vector<uint32_t> &streams = found->second.streams;
  auto at = std::lower_bound(streams.begin(), streams.end(), stream);
  if (at == streams.end() || *at != stream)
    streams.insert(at, stream);
}

void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size, size_t *maxNumRecords) {
  *buffer = nullptr;
  *size = 0;
  *maxNumRecords = 0;
  if (failed.load() || finished.load())
    return; // CUPTI then drops the records, which is what passive means
  void *memory = nullptr;
  if (posix_memalign(&memory, kBufferAlign, kBufferSize) != 0 || !memory) {
    fail("out of memory for a CUPTI activity buffer");
    return;
  }
  *buffer = static_cast<uint8_t *>(memory);
  *size = kBufferSize;
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t *buffer,
                              size_t /*size*/, size_t validSize) {
  try {
    CUptiResult error = CUPTI_SUCCESS;
    if (buffer && validSize > 0 && !failed.load() && !finished.load()) {
      std::lock_guard<std::mutex> lock(state->mutex);
      CUpti_Activity *record = nullptr;
      for (;;) {
        CUptiResult result = cuptiActivityGetNextRecord(buffer, validSize, &record);
        if (result == CUPTI_ERROR_MAX_LIMIT_REACHED || result == CUPTI_ERROR_INVALID_KIND)
          break; // end of the buffer, or an unfinished record at its end
        if (result != CUPTI_SUCCESS) {
          error = result;
          break;
        }
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
          // Both kinds use the kernel record of the CUPTI we are built with.
          auto *kernel = reinterpret_cast<const CUpti_ActivityKernel10 *>(record);
          addLaunch(kernel->name, kernel->streamId, kernel->start, kernel->end);
        }
      }
    }
    // Reported outside the lock: fail() takes it.
    check(error, "cuptiActivityGetNextRecord");
    if (!failed.load()) {
      size_t dropped = 0;
      if (check(cuptiActivityGetNumDroppedRecords(context, streamId, &dropped),
                "cuptiActivityGetNumDroppedRecords") &&
          dropped > 0) {
        std::lock_guard<std::mutex> lock(state->mutex);
        state->dropped += dropped;
      }
    }
  } catch (const std::exception &e) {
    fail(std::string("reading CUPTI activity records: ") + e.what());
  } catch (...) {
    fail("reading CUPTI activity records: unknown exception");
  }
  std::free(buffer);
}

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
        out += escaped;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

// One decimal, independent of the program's locale (LC_NUMERIC could make
// printf write a decimal comma).
std::string jsonNumber(double value) {
  long long tenths = static_cast<long long>(value * 10.0 + 0.5);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
}

struct Summary {
  std::string mangled, name;
  uint64_t launches = 0, total = 0, min = 0, max = 0, streams = 0;
  double median = 0, mean = 0;
};

Summary summarize(const std::string &mangled, const KernelTimes &times) {
  Summary s;
  s.mangled = mangled;
  s.name = times.demangled;
  std::vector<uint64_t> sorted = times.durations;
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  s.launches = n;
  s.streams = times.streams.size();
  for (uint64_t d : sorted)
    s.total += d;
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = (n % 2) ? double(sorted[n / 2])
                     : (double(sorted[n / 2 - 1]) + double(sorted[n / 2])) / 2.0;
  s.mean = double(s.total) / double(n);
  return s;
}

std::string report() {
  std::lock_guard<std::mutex> lock(state->mutex);
  bool ok = !failed.load();
  std::vector<Summary> summaries;
  if (ok)
    for (const auto &entry : state->kernels)
      if (entry.second.recorded && !entry.second.durations.empty())
        summaries.push_back(summarize(entry.first, entry.second));
  std::sort(summaries.begin(), summaries.end(), [](const Summary &a, const Summary &b) {
    return a.total != b.total ? a.total > b.total : a.mangled < b.mangled;
  });

  std::string out = "{\"type\":\"inject\",\"timer\":";
  out += ok ? "\"cupti\"" : "\"none\"";
  out += ",\"pid\":" + std::to_string(static_cast<long long>(getpid()));
  out += ",\"kernels\":" + std::to_string(summaries.size());
  out += ",\"dropped\":" + std::to_string(state->dropped);
  if (ok && state->incomplete > 0)
    out += ",\"incomplete\":" + std::to_string(state->incomplete);
  if (!ok)
    out += ",\"error\":" + jsonString(state->error);
  out += "}\n";
  for (const Summary &s : summaries) {
    out += "{\"type\":\"kernel\",\"name\":" + jsonString(s.name);
    out += ",\"mangled\":" + jsonString(s.mangled);
    out += ",\"launches\":" + std::to_string(s.launches);
    out += ",\"streams\":" + std::to_string(s.streams);
    out += ",\"total_ns\":" + std::to_string(s.total);
    out += ",\"median_ns\":" + jsonNumber(s.median);
    out += ",\"min_ns\":" + std::to_string(s.min);
    out += ",\"max_ns\":" + std::to_string(s.max);
    out += ",\"mean_ns\":" + jsonNumber(s.mean);
    out += "}\n";
  }
  return out;
}

void writeReport(const std::string &text) {
  const char *target = std::getenv("FORGE_INJECT_OUT");
  if (!target || !*target) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
    return;
  }
  std::string pid = std::to_string(static_cast<long long>(getpid()));
  std::string path(target);
  for (size_t at = path.find("%p"); at != std::string::npos; at = path.find("%p", at + pid.size()))
    path.replace(at, 2, pid);
  std::string temp = path + ".tmp." + pid;
  FILE *file = std::fopen(temp.c_str(), "w");
  bool written = file && std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (file && std::fclose(file) != 0)
    written = false;
  if (written && std::rename(temp.c_str(), path.c_str()) == 0)
    return;
  std::fprintf(stderr, "forge-inject: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
  std::remove(temp.c_str());
}

void atExit() {
  if (finished.load() || !state)
    return;
  try {
    if (!failed.load()) {
      // Deliver every buffer, the partly filled ones too. Must not hold the
      // mutex here: the completion callback takes it.
      check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
      size_t dropped = 0;
      if (!failed.load() &&
          check(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped),
                "cuptiActivityGetNumDroppedRecords")) {
        std::lock_guard<std::mutex> lock(state->mutex);
        state->dropped += dropped;
      }
    }
    // From here on buffers are freed unread and no new ones are handed out.
    finished.store(true);
    writeReport(report());
  } catch (...) {
    finished.store(true);
    std::fprintf(stderr, "forge-inject: failed to write the kernel times\n");
  }
}

} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  if (initialized.exchange(true))
    return 1;
  try {
    state = new State();
    state->filters = parseFilters(std::getenv("FORGE_INJECT_KERNELS"));
    // Registered before CUPTI is touched, so a failure still leaves a report
    // with "timer":"none" behind.
    if (std::atexit(atExit) != 0) {
      fail("atexit failed");
      return 1;
    }
    if (!check(cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted),
               "cuptiActivityRegisterCallbacks"))
      return 1;
    // CONCURRENT_KERNEL keeps kernels overlapping as the program meant them
    // to; KERNEL (which serialises them) only where it is not supported.
    if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)
      check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL),
            "cuptiActivityEnable(CONCURRENT_KERNEL and KERNEL)");
  } catch (...) {
    fail("initialisation failed");
  }
  return 1;
}
