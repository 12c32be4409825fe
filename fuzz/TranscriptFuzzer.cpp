//===- fuzz/TranscriptFuzzer.cpp - Transcripts read back for --replay -----===//
///
/// \file
/// The input is a transcript file (`forge-port optimize --transcript`),
/// read as `--replay` reads it (Replay::parse, the body of Replay::load).
///
//===----------------------------------------------------------------------===//
#include "forge/Agent/Transcript.h"
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef In(reinterpret_cast<const char *>(Data), Size);
  auto R = forge::agent::Replay::parse(In, "transcript.json");
  if (!R) {
    llvm::consumeError(R.takeError());
    return 0;
  }
  (void)(*R)->options();
  return 0;
}
