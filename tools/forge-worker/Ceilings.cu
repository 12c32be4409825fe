//===- forge-worker/Ceilings.cu - The GPU's measured ceilings -------------===//
///
/// \file
/// `forge-worker ceilings`: DRAM bandwidth from a device-to-device copy of
/// 2 x (2 x L2) bytes and FP32/FP64 peaks from an FMA-bound kernel, each the
/// median of 20 event-timed runs, cached per GPU uuid.
///
//===----------------------------------------------------------------------===//

#include "Ceilings.h"
#include "Exec.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace forge::worker {

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

std::string jsonNumber(double V) {
  if (!std::isfinite(V))
    return "null";
  char Buf[40];
  std::snprintf(Buf, sizeof Buf, "%.15g", V);
  if (std::strtod(Buf, nullptr) != V)
    std::snprintf(Buf, sizeof Buf, "%.17g", V);
  return Buf;
}

std::string formatUuid(const unsigned char *B) {
  char Buf[64];
  std::snprintf(Buf, sizeof Buf,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                "%02x%02x%02x%02x%02x%02x",
                B[0], B[1], B[2], B[3], B[4], B[5], B[6], B[7], B[8], B[9],
                B[10], B[11], B[12], B[13], B[14], B[15]);
  return Buf;
}

std::string cacheDir() {
  if (const char *D = std::getenv("FORGE_CACHE_DIR"); D && *D)
    return D;
  if (const char *D = std::getenv("XDG_CACHE_HOME"); D && *D)
    return std::string(D) + "/forge";
  if (const char *H = std::getenv("HOME"); H && *H)
    return std::string(H) + "/.cache/forge";
  return "";
}

std::string ceilingsLine(const CeilingValues &C) {
  return "{\"type\":\"ceilings\",\"dram_gbps\":" + jsonNumber(C.DramGbps) +
         ",\"fp32_gflops\":" + jsonNumber(C.Fp32Gflops) +
         ",\"fp64_gflops\":" + jsonNumber(C.Fp64Gflops) + ",\"source\":\"" +
         C.Source + "\"}";
}

namespace {

//===----------------------------------------------------------------------===//
// The cache
//===----------------------------------------------------------------------===//

/// mkdir -p; true when Dir exists afterwards.
bool makeDirs(const std::string &Dir) {
  if (Dir.empty())
    return false;
  std::string Cur;
  size_t Pos = 0;
  while (Pos <= Dir.size()) {
    size_t E = Dir.find('/', Pos);
    if (E == std::string::npos)
      E = Dir.size();
    Cur = Dir.substr(0, E);
    if (!Cur.empty())
      ::mkdir(Cur.c_str(), 0755); // errors show in the final stat
    Pos = E + 1;
  }
  struct stat St;
  return ::stat(Dir.c_str(), &St) == 0 && S_ISDIR(St.st_mode);
}

std::string cachePath(const std::string &Uuid) {
  std::string Dir = cacheDir();
  if (Dir.empty())
    return "";
  std::string Safe;
  for (char C : Uuid)
    Safe += (std::isalnum((unsigned char)C) || C == '-') ? C : '_';
  return Dir + "/ceilings-" + Safe + ".txt";
}

bool readCache(const std::string &Path, CeilingValues &Out) {
  std::ifstream In(Path);
  if (!In)
    return false;
  CeilingValues V;
  bool HasDram = false, Has32 = false, Has64 = false;
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line.empty() || Line[0] == '#')
      continue;
    std::istringstream S(Line);
    std::string Key;
    double X = 0;
    if (!(S >> Key >> X) || !std::isfinite(X) || X <= 0)
      return false;
    if (Key == "dram_gbps")
      V.DramGbps = X, HasDram = true;
    else if (Key == "fp32_gflops")
      V.Fp32Gflops = X, Has32 = true;
    else if (Key == "fp64_gflops")
      V.Fp64Gflops = X, Has64 = true;
  }
  if (!HasDram || !Has32 || !Has64)
    return false;
  V.Source = "cache";
  Out = V;
  return true;
}

void writeCache(const std::string &Path, const CeilingValues &V,
                const std::string &Uuid) {
  std::string Dir = Path.substr(0, Path.rfind('/'));
  if (!makeDirs(Dir)) {
    std::fprintf(stderr,
                 "forge-worker: warning: cannot create the cache directory "
                 "'%s'; the ceilings are not cached\n",
                 Dir.c_str());
    return;
  }
  std::string Tmp = Path + ".tmp." + std::to_string(::getpid());
  std::string Text = "# forge-worker ceilings of " + Uuid + "\n" +
                     "dram_gbps " + jsonNumber(V.DramGbps) + "\n" +
                     "fp32_gflops " + jsonNumber(V.Fp32Gflops) + "\n" +
                     "fp64_gflops " + jsonNumber(V.Fp64Gflops) + "\n";
  FILE *F = std::fopen(Tmp.c_str(), "w");
  bool Ok = F && std::fwrite(Text.data(), 1, Text.size(), F) == Text.size();
  if (F)
    Ok = (std::fclose(F) == 0) && Ok;
  if (Ok)
    Ok = std::rename(Tmp.c_str(), Path.c_str()) == 0;
  if (!Ok) {
    std::fprintf(stderr,
                 "forge-worker: warning: cannot write '%s' (%s); the ceilings "
                 "are not cached\n",
                 Path.c_str(), std::strerror(errno));
    std::remove(Tmp.c_str());
  }
}

//===----------------------------------------------------------------------===//
// Measuring
//===----------------------------------------------------------------------===//

struct Failure {
  std::string Text;
};

void check(cudaError_t E, const char *What) {
  if (E != cudaSuccess)
    throw Failure{std::string(What) + ": " + cudaGetErrorName(E) + ": " +
                  cudaGetErrorString(E)};
}

constexpr int Chains = 8;
constexpr int Unroll = 8;
constexpr int FmaThreads = 256;

template <typename T>
__global__ void fmaKernel(T *Sink, T B, T C, int Iters) {
  T A[Chains];
#pragma unroll
  for (int K = 0; K < Chains; ++K)
    A[K] = T(threadIdx.x + K) * T(0.001);
  for (int I = 0; I < Iters; ++I) {
#pragma unroll
    for (int U = 0; U < Unroll; ++U) {
#pragma unroll
      for (int K = 0; K < Chains; ++K)
        A[K] = fma(A[K], B, C);
    }
  }
  T S = 0;
#pragma unroll
  for (int K = 0; K < Chains; ++K)
    S += A[K];
  // Never true for the B and C passed, but the compiler cannot know.
  if (S == T(-1234.5))
    Sink[blockIdx.x * blockDim.x + threadIdx.x] = S;
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  if (N == 0)
    return 0;
  return N % 2 ? V[N / 2] : 0.5 * (V[N / 2 - 1] + V[N / 2]);
}

/// RAII for the measurement's resources.
struct Resources {
  cudaStream_t Stream = nullptr;
  cudaEvent_t Start = nullptr, Stop = nullptr;
  void *A = nullptr, *B = nullptr;
  ~Resources() {
    if (A)
      cudaFree(A);
    if (B)
      cudaFree(B);
    if (Start)
      cudaEventDestroy(Start);
    if (Stop)
      cudaEventDestroy(Stop);
    if (Stream)
      cudaStreamDestroy(Stream);
  }
};

double elapsedMs(Resources &R) {
  check(cudaEventSynchronize(R.Stop), "cudaEventSynchronize");
  float Ms = 0;
  check(cudaEventElapsedTime(&Ms, R.Start, R.Stop), "cudaEventElapsedTime");
  return Ms;
}

double measureDram(Resources &R, int Device) {
  int L2 = 0;
  check(cudaDeviceGetAttribute(&L2, cudaDevAttrL2CacheSize, Device),
        "cudaDeviceGetAttribute(L2CacheSize)");
  size_t Bytes = 2 * (2 * size_t(std::max(L2, 0)));
  Bytes = std::max<size_t>(Bytes, size_t(64) << 20);
  Bytes = (Bytes + 255) / 256 * 256;
  check(cudaMalloc(&R.A, Bytes), "cudaMalloc (DRAM ceiling)");
  check(cudaMalloc(&R.B, Bytes), "cudaMalloc (DRAM ceiling)");
  check(cudaMemsetAsync(R.A, 1, Bytes, R.Stream), "cudaMemsetAsync");
  std::vector<double> Ms;
  for (int I = 0; I < 23; ++I) {
    check(cudaEventRecord(R.Start, R.Stream), "cudaEventRecord");
    check(cudaMemcpyAsync(R.B, R.A, Bytes, cudaMemcpyDeviceToDevice,
                          R.Stream),
          "cudaMemcpyAsync");
    check(cudaEventRecord(R.Stop, R.Stream), "cudaEventRecord");
    double T = elapsedMs(R);
    if (I >= 3) // warm-up
      Ms.push_back(T);
  }
  double Med = median(Ms);
  if (!(Med > 0))
    throw Failure{"the device-to-device copy took no measurable time"};
  cudaFree(R.A);
  cudaFree(R.B);
  R.A = R.B = nullptr;
  return 2.0 * double(Bytes) / (Med * 1e-3) / 1e9;
}

template <typename T> double measureFma(Resources &R, int Device) {
  int Sms = 0, PerSm = 0;
  check(cudaDeviceGetAttribute(&Sms, cudaDevAttrMultiProcessorCount, Device),
        "cudaDeviceGetAttribute(MultiProcessorCount)");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, fmaKernel<T>,
                                                      FmaThreads, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  unsigned Blocks = unsigned(std::max(Sms, 1) * std::max(PerSm, 1));
  T *Sink = nullptr;
  check(cudaMalloc(&Sink, size_t(Blocks) * FmaThreads * sizeof(T)),
        "cudaMalloc (FMA ceiling)");
  R.A = Sink;
  T B = T(0.999), C = T(0.001);

  auto Run = [&](int Iters) {
    check(cudaEventRecord(R.Start, R.Stream), "cudaEventRecord");
    fmaKernel<T><<<Blocks, FmaThreads, 0, R.Stream>>>(Sink, B, C, Iters);
    check(cudaGetLastError(), "FMA kernel launch");
    check(cudaEventRecord(R.Stop, R.Stream), "cudaEventRecord");
    return elapsedMs(R);
  };
  // Calibrate to about 5 ms per run.
  int Iters = 256;
  Run(Iters);
  double T0 = Run(Iters);
  for (int K = 0; K < 6 && T0 < 0.5; ++K) {
    Iters *= 8;
    T0 = Run(Iters);
  }
  if (T0 > 0) {
    double Scaled = double(Iters) * 5.0 / T0;
    Iters = int(std::min(std::max(Scaled, 64.0), double(1 << 26)));
  }
  std::vector<double> Ms;
  for (int I = 0; I < 22; ++I) {
    double Elapsed = Run(Iters);
    if (I >= 2)
      Ms.push_back(Elapsed);
  }
  double Med = median(Ms);
  cudaFree(R.A);
  R.A = nullptr;
  if (!(Med > 0))
    throw Failure{"the FMA kernel took no measurable time"};
  double Flops = 2.0 * Chains * Unroll * double(Iters) * double(Blocks) *
                 FmaThreads;
  return Flops / (Med * 1e-3) / 1e9;
}

bool measure(CeilingValues &Out, std::string &Error) {
  try {
    int Device = 0;
    check(cudaGetDevice(&Device), "cudaGetDevice");
    Resources R;
    check(cudaStreamCreateWithFlags(&R.Stream, cudaStreamNonBlocking),
          "cudaStreamCreate");
    check(cudaEventCreate(&R.Start), "cudaEventCreate");
    check(cudaEventCreate(&R.Stop), "cudaEventCreate");
    Out.DramGbps = measureDram(R, Device);
    Out.Fp32Gflops = measureFma<float>(R, Device);
    Out.Fp64Gflops = measureFma<double>(R, Device);
    check(cudaStreamSynchronize(R.Stream), "cudaStreamSynchronize");
    Out.Source = "measured";
    return true;
  } catch (const Failure &F) {
    Error = "measuring the ceilings: " + F.Text;
    return false;
  }
}

} // namespace

bool getCeilings(const std::string &Uuid, bool Refresh, CeilingValues &Out,
                 std::string &Error) {
  std::string Path = cachePath(Uuid);
  if (!Refresh && !Path.empty() && readCache(Path, Out))
    return true;
  if (!measure(Out, Error))
    return false;
  if (Path.empty())
    std::fprintf(stderr, "forge-worker: warning: no cache directory (set "
                         "FORGE_CACHE_DIR or HOME); the ceilings are not "
                         "cached\n");
  else
    writeCache(Path, Out, Uuid);
  return true;
}

int runCeilings(bool Refresh) {
  int Count = 0;
  cudaError_t E = cudaGetDeviceCount(&Count);
  if (E != cudaSuccess || Count == 0) {
    std::fprintf(stderr, "forge-worker: no usable GPU: %s\n",
                 E != cudaSuccess ? cudaGetErrorString(E) : "no device");
    return 1;
  }
  int Device = 0;
  cudaDeviceProp Prop;
  if ((E = cudaGetDevice(&Device)) != cudaSuccess ||
      (E = cudaFree(nullptr)) != cudaSuccess ||
      (E = cudaGetDeviceProperties(&Prop, Device)) != cudaSuccess) {
    std::fprintf(stderr, "forge-worker: no usable GPU: %s\n",
                 cudaGetErrorString(E));
    return 1;
  }
  CeilingValues C;
  std::string Error;
  if (!getCeilings(formatUuid(reinterpret_cast<const unsigned char *>(
                       Prop.uuid.bytes)),
                   Refresh, C, Error)) {
    std::fprintf(stderr, "forge-worker: %s\n", Error.c_str());
    return 1;
  }
  std::printf("%s\n", ceilingsLine(C).c_str());
  std::fflush(stdout);
  return 0;
}

} // namespace forge::worker
