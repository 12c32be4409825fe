//===- Support/JsonReader.h - Checked reads of untrusted JSON --*- C++ -*-===//
///
/// \file
/// Every JSON document a user, a model or another process hands us (a
/// transcript for --replay, a tuning database, forge-worker's answers) is
/// read through a JsonReader: each access names the field's JSON path
/// ("$.rounds[2].proposals[0].verdict"), a missing or mistyped field is
/// recorded instead of thrown, and the first problem becomes the error
/// "t.json: $.rounds[2].verdict: expected a string". nlohmann's value() and
/// get() throw on a wrong type, which would abort the process (DESIGN.md).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_SUPPORT_JSONREADER_H
#define FORGE_SUPPORT_JSONREADER_H

#include "forge/Support/Json.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <string>

namespace forge {

class JsonReader {
public:
  /// Origin names the document in errors ("t.json").
  explicit JsonReader(std::string Origin) : Origin(std::move(Origin)) {}

  /// "$.a" + ".b", and "$.a" + "[3]".
  static std::string member(llvm::StringRef Path, llvm::StringRef Key);
  static std::string element(llvm::StringRef Path, size_t Index);

  /// The member Key of Obj (an object at Path) with the wanted type, or
  /// null: a missing member is a problem only when Required, a member of
  /// another type always is. Obj itself must be an object.
  const Json *object(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                     bool Required = true);
  const Json *array(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                    bool Required = true);

  /// Scalar members; Default when the member is missing (recorded as a
  /// problem when Required) or mistyped (always recorded).
  std::string string(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                     bool Required = false, std::string Default = "");
  double number(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                bool Required = false, double Default = 0);
  int64_t integer(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                  bool Required = false, int64_t Default = 0);
  /// A non-negative integer.
  uint64_t count(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                 bool Required = false, uint64_t Default = 0);
  bool boolean(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
               bool Required = false, bool Default = false);

  /// J itself must be an object (an array, a string): false and a problem
  /// recorded when it is not.
  bool expectObject(const Json &J, llvm::StringRef Path);
  bool expectArray(const Json &J, llvm::StringRef Path);
  bool expectString(const Json &J, llvm::StringRef Path);

  /// Records a problem at Path; the first one is kept.
  void fail(llvm::StringRef Path, llvm::StringRef Message);
  bool ok() const { return Problem.empty(); }
  /// The first problem ("Origin: $.x: expected a string"), or success.
  llvm::Error takeError();

private:
  const Json *member(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                     bool Required, bool (*Is)(const Json &), const char *Want);

  std::string Origin;
  std::string Problem;
};

} // namespace forge

#endif
