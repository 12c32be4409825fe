//===- Support/Json.h - nlohmann_json at the edges -------------*- C++ -*-===//
///
/// \file
/// nlohmann_json throws on bad input; these wrappers catch and return
/// llvm::Error so a bad file or model reply never aborts the process.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_SUPPORT_JSON_H
#define FORGE_SUPPORT_JSON_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <nlohmann/json.hpp>

namespace forge {

using Json = nlohmann::ordered_json;

/// Parses Text; Origin names the source ("spec.json") in the error.
llvm::Expected<Json> parseJson(llvm::StringRef Text, llvm::StringRef Origin);
llvm::Expected<Json> readJsonFile(llvm::StringRef Path);

/// JSON lines (one object a line, blank lines skipped): calls Each with
/// every object and its 1-based line. A line that is not a JSON object is
/// an error "Origin:LINE: not a JSON object: <its start>"; an error from
/// Each stops the walk and is returned.
llvm::Error forEachJsonLine(
    llvm::StringRef Text, llvm::StringRef Origin,
    llvm::function_ref<llvm::Error(const Json &, unsigned Line)> Each);

} // namespace forge

#endif
