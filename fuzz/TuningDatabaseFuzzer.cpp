//===- fuzz/TuningDatabaseFuzzer.cpp - The tuning database ----------------===//
///
/// \file
/// The input is a tuning database (forge-tuning.json), read as
/// TuningDatabase::load reads it (TuningDatabase::parse); a database that
/// loads is written back (toJson) and must load again.
///
//===----------------------------------------------------------------------===//
#include "forge/Tune/Database.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using forge::tune::TuningDatabase;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef In(reinterpret_cast<const char *>(Data), Size);
  auto Db = TuningDatabase::parse(In, "forge-tuning.json");
  if (!Db) {
    llvm::consumeError(Db.takeError());
    return 0;
  }
  for (const auto &R : Db->records())
    (void)Db->find(R.Key);
  auto Again = TuningDatabase::parse(Db->toJson().dump(), "forge-tuning.json");
  if (!Again) {
    std::fprintf(stderr, "toJson wrote a database that does not load: %s\n",
                 llvm::toString(Again.takeError()).c_str());
    std::abort();
  }
  return 0;
}
