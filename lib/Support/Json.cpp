#include "forge/Support/Json.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"

namespace forge {

llvm::Expected<Json> parseJson(llvm::StringRef Text, llvm::StringRef Origin) {
  try {
    return Json::parse(Text.begin(), Text.end());
  } catch (const Json::parse_error &E) {
    // E.what() carries "[json.exception.parse_error.101] parse error at line
    // 3, column 5: ..."; keep the part after the tag.
    llvm::StringRef What(E.what());
    size_t Pos = What.find("] ");
    if (Pos != llvm::StringRef::npos)
      What = What.drop_front(Pos + 2);
    return makeError("{0}: invalid JSON: {1}", Origin, What);
  }
}

llvm::Expected<Json> readJsonFile(llvm::StringRef Path) {
  auto Text = readFile(Path);
  if (!Text)
    return Text.takeError();
  return parseJson(*Text, Path);
}

} // namespace forge
