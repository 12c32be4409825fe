//===- forge-port/Common.cpp ----------------------------------------------===//
#include "Common.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace forge::tool {

int reportError(Error E) { return reportError(errs(), std::move(E)); }

int reportError(raw_ostream &OS, Error E) {
  int Code = ExitFailure;
  handleAllErrors(
      std::move(E),
      [&](const UsageError &U) {
        Code = ExitUsage;
        WithColor::error(OS, "forge-port") << U.message() << "\n";
      },
      [&](const ErrorInfoBase &EI) {
        WithColor::error(OS, "forge-port") << EI.message() << "\n";
      });
  return Code;
}

bool parseOptions(const Invocation &Inv, StringRef Overview) {
  std::string Err;
  raw_string_ostream ES(Err);
  bool OK = cl::ParseCommandLineOptions(int(Inv.Args.size()), Inv.Args.data(), Overview, &ES);
  if (!OK) {
    ES.flush();
    errs() << Err;
    if (!StringRef(Err).ends_with("\n"))
      errs() << "\n";
    errs() << "Run 'forge-port " << (Inv.Args.size() > 1 ? "" : "") << "--help' for usage.\n";
  }
  return OK;
}

Expected<std::array<int64_t, 3>> parseBlockDims(StringRef Text) {
  std::array<int64_t, 3> B{{1, 1, 1}};
  SmallVector<StringRef, 3> Parts;
  Text.split(Parts, ',');
  if (Parts.size() > 3)
    return makeUsageError("--block: expected N[,Y[,Z]], got '{0}'", Text);
  int64_t Threads = 1;
  for (size_t I = 0; I < Parts.size(); ++I) {
    if (Parts[I].trim().getAsInteger(10, B[I]) || B[I] <= 0)
      return makeUsageError("--block: expected positive integers N[,Y[,Z]], got '{0}'", Text);
    Threads *= B[I];
  }
  if (Threads > 1024)
    return makeUsageError("--block: {0} threads per block; CUDA allows at most 1024", Threads);
  return B;
}

} // namespace forge::tool
