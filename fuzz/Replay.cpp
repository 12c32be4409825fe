//===- fuzz/Replay.cpp - Run a fuzz target over a corpus, no libFuzzer ----===//
///
/// \file
/// The main of the replay flavour of each fuzz target (the normal build,
/// any compiler): calls LLVMFuzzerTestOneInput once with every file under
/// the given corpus directories (or files), in name order, and stops
/// early, with exit status 1, when the time bound is past.
///
///   forge-fuzz-NAME [--max-seconds=S] CORPUS...
///
/// An input that crashes the parser crashes this program, which is how
/// ctest sees a regression.
///
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  double MaxSeconds = 0; // no bound
  std::vector<fs::path> Files;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    if (A.rfind("--max-seconds=", 0) == 0) {
      char *End = nullptr;
      MaxSeconds = std::strtod(A.c_str() + 14, &End);
      if (*End || MaxSeconds < 0) {
        std::fprintf(stderr, "error: bad time bound '%s'\n", A.c_str());
        return 2;
      }
      continue;
    }
    std::error_code EC;
    if (fs::is_directory(A, EC)) {
      for (fs::recursive_directory_iterator It(A, EC), End; !EC && It != End;
           It.increment(EC))
        if (It->is_regular_file(EC))
          Files.push_back(It->path());
    } else if (fs::is_regular_file(A, EC)) {
      Files.push_back(A);
    } else {
      std::fprintf(stderr, "error: '%s' is neither a file nor a directory\n",
                   A.c_str());
      return 2;
    }
    if (EC) {
      std::fprintf(stderr, "error: cannot list '%s': %s\n", A.c_str(),
                   EC.message().c_str());
      return 2;
    }
  }
  if (Files.empty()) {
    std::fprintf(stderr, "usage: %s [--max-seconds=S] CORPUS...: no input\n", argv[0]);
    return 2;
  }
  std::sort(Files.begin(), Files.end());

  auto Start = std::chrono::steady_clock::now();
  auto Elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
        .count();
  };
  size_t Done = 0;
  for (const fs::path &F : Files) {
    if (MaxSeconds > 0 && Elapsed() > MaxSeconds) {
      std::printf("%zu inputs replayed in %.2f s; stopped at the time bound "
                  "(%zu not replayed)\n",
                  Done, Elapsed(), Files.size() - Done);
      return 1;
    }
    std::ifstream In(F, std::ios::binary);
    std::string Bytes((std::istreambuf_iterator<char>(In)),
                      std::istreambuf_iterator<char>());
    if (!In.good() && !In.eof()) {
      std::fprintf(stderr, "error: cannot read '%s'\n", F.c_str());
      return 2;
    }
    // A copy of exactly Size bytes, so that reads past the end are caught
    // where a sanitizer is on.
    std::vector<uint8_t> Buf(Bytes.begin(), Bytes.end());
    LLVMFuzzerTestOneInput(Buf.data(), Buf.size());
    ++Done;
  }
  std::printf("%zu inputs replayed in %.2f s\n", Done, Elapsed());
  return 0;
}
