//===- Support/Error.h - Error helpers -------------------------*- C++ -*-===//
///
/// \file
/// Small helpers over llvm::Error. Library code returns llvm::Error or
/// llvm::Expected; only tools/ turns them into exit codes.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_SUPPORT_ERROR_H
#define FORGE_SUPPORT_ERROR_H

#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

namespace forge {

/// An error with a formatted message (llvm::formatv syntax).
template <typename... Ts>
llvm::Error makeError(const char *Fmt, Ts &&...Vals) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

/// A mistake in how the tool was called (unknown arch, malformed spec field).
/// Tools map it to exit status 2.
class UsageError : public llvm::ErrorInfo<UsageError> {
public:
  static char ID;
  explicit UsageError(std::string Msg) : Msg(std::move(Msg)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Msg; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  std::string message() const override { return Msg; }

private:
  std::string Msg;
};

template <typename... Ts>
llvm::Error makeUsageError(const char *Fmt, Ts &&...Vals) {
  return llvm::make_error<UsageError>(
      llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

} // namespace forge

#endif
