//===- Support/JsonReader.cpp ---------------------------------------------===//
#include "forge/Support/JsonReader.h"
#include "forge/Support/Error.h"

namespace forge {

std::string JsonReader::member(llvm::StringRef Path, llvm::StringRef Key) {
  return (Path + "." + Key).str();
}

std::string JsonReader::element(llvm::StringRef Path, size_t Index) {
  return (Path + "[" + std::to_string(Index) + "]").str();
}

void JsonReader::fail(llvm::StringRef Path, llvm::StringRef Message) {
  if (Problem.empty())
    Problem = (Path + ": " + Message).str();
}

llvm::Error JsonReader::takeError() {
  if (Problem.empty())
    return llvm::Error::success();
  std::string P = std::move(Problem);
  Problem.clear();
  return makeError("{0}: {1}", Origin, P);
}

bool JsonReader::expectObject(const Json &J, llvm::StringRef Path) {
  if (J.is_object())
    return true;
  fail(Path, "expected an object");
  return false;
}

bool JsonReader::expectArray(const Json &J, llvm::StringRef Path) {
  if (J.is_array())
    return true;
  fail(Path, "expected an array");
  return false;
}

bool JsonReader::expectString(const Json &J, llvm::StringRef Path) {
  if (J.is_string())
    return true;
  fail(Path, "expected a string");
  return false;
}

const Json *JsonReader::member(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                               bool Required, bool (*Is)(const Json &), const char *Want) {
  if (!expectObject(Obj, Path))
    return nullptr;
  auto It = Obj.find(Key.str());
  if (It == Obj.end()) {
    if (Required)
      fail(member(Path, Key), std::string("missing; expected ") + Want);
    return nullptr;
  }
  if (!Is(*It)) {
    fail(member(Path, Key), std::string("expected ") + Want);
    return nullptr;
  }
  return &*It;
}

const Json *JsonReader::object(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                               bool Required) {
  return member(Obj, Path, Key, Required, [](const Json &J) { return J.is_object(); },
                "an object");
}

const Json *JsonReader::array(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                              bool Required) {
  return member(Obj, Path, Key, Required, [](const Json &J) { return J.is_array(); },
                "an array");
}

std::string JsonReader::string(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                               bool Required, std::string Default) {
  const Json *J = member(Obj, Path, Key, Required,
                         [](const Json &J) { return J.is_string(); }, "a string");
  return J ? J->get<std::string>() : Default;
}

double JsonReader::number(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                          bool Required, double Default) {
  const Json *J = member(Obj, Path, Key, Required,
                         [](const Json &J) { return J.is_number(); }, "a number");
  return J ? J->get<double>() : Default;
}

int64_t JsonReader::integer(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                            bool Required, int64_t Default) {
  const Json *J = member(Obj, Path, Key, Required,
                         [](const Json &J) { return J.is_number_integer(); }, "an integer");
  if (J && J->is_number_unsigned() && J->get<uint64_t>() > uint64_t(INT64_MAX)) {
    fail(member(Path, Key), "integer out of range");
    return Default;
  }
  return J ? J->get<int64_t>() : Default;
}

uint64_t JsonReader::count(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                           bool Required, uint64_t Default) {
  const Json *J = member(Obj, Path, Key, Required,
                         [](const Json &J) {
                           return J.is_number_unsigned() ||
                                  (J.is_number_integer() && J.get<int64_t>() >= 0);
                         },
                         "a non-negative integer");
  return J ? J->get<uint64_t>() : Default;
}

bool JsonReader::boolean(const Json &Obj, llvm::StringRef Path, llvm::StringRef Key,
                         bool Required, bool Default) {
  const Json *J = member(Obj, Path, Key, Required,
                         [](const Json &J) { return J.is_boolean(); }, "true or false");
  return J ? J->get<bool>() : Default;
}

} // namespace forge
