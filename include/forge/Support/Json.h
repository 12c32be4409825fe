//===- Support/Json.h - nlohmann_json at the edges -------------*- C++ -*-===//
///
/// \file
/// nlohmann_json throws on bad input; these wrappers catch and return
/// llvm::Error so a bad file or model reply never aborts the process.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_SUPPORT_JSON_H
#define FORGE_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <nlohmann/json.hpp>

namespace forge {

using Json = nlohmann::ordered_json;

/// Parses Text; Origin names the source ("spec.json") in the error.
llvm::Expected<Json> parseJson(llvm::StringRef Text, llvm::StringRef Origin);
llvm::Expected<Json> readJsonFile(llvm::StringRef Path);

} // namespace forge

#endif
