#include "forge/Support/Json.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"

namespace forge {

llvm::Expected<Json> parseJson(llvm::StringRef Text, llvm::StringRef Origin) {
  try {
    return Json::parse(Text.begin(), Text.end());
  } catch (const Json::exception &E) {
    // A parse_error, or an out_of_range for a number beyond double
    // ("1e999", found by fuzz/TuningDatabaseFuzzer.cpp). E.what() carries
    // "[json.exception.parse_error.101] parse error at line 3, column 5:
    // ..."; keep the part after the tag.
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

llvm::Error forEachJsonLine(
    llvm::StringRef Text, llvm::StringRef Origin,
    llvm::function_ref<llvm::Error(const Json &, unsigned Line)> Each) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (size_t N = 0; N < Lines.size(); ++N) {
    llvm::StringRef L = Lines[N].trim();
    if (L.empty())
      continue;
    Json J = Json::parse(L.begin(), L.end(), nullptr, /*allow_exceptions=*/false);
    if (J.is_discarded() || !J.is_object())
      return makeError("{0}:{1}: not a JSON object: {2}", Origin, N + 1,
                       L.take_front(80));
    if (auto E = Each(J, unsigned(N + 1)))
      return E;
  }
  return llvm::Error::success();
}

} // namespace forge
