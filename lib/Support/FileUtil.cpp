#include "forge/Support/FileUtil.h"
#include "forge/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace forge {

Expected<std::string> readFile(StringRef Path) {
  if (sys::fs::is_directory(Path))
    return makeError("'{0}' is a directory, not a file", Path);
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return makeError("cannot read '{0}': {1}", Path, Buf.getError().message());
  return (*Buf)->getBuffer().str();
}

Error writeFileAtomically(StringRef Path, StringRef Contents) {
  if (Path == "-") {
    outs() << Contents;
    outs().flush();
    return Error::success();
  }
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  StringRef Dir = sys::path::parent_path(Abs);
  SmallString<256> Model(Dir);
  sys::path::append(Model, "." + sys::path::filename(Abs).str() + ".forge-%%%%%%");
  int FD;
  SmallString<256> Tmp;
  if (auto EC = sys::fs::createUniqueFile(Model, FD, Tmp))
    return makeError("cannot write '{0}': {1}", Path, EC.message());
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Contents;
    OS.close();
    if (OS.has_error()) {
      std::string Msg = OS.error().message();
      OS.clear_error();
      sys::fs::remove(Tmp);
      return makeError("cannot write '{0}': {1}", Path, Msg);
    }
  }
  // Keep the permissions of a file we replace.
  sys::fs::file_status St;
  if (!sys::fs::status(Abs, St))
    sys::fs::setPermissions(Tmp, St.permissions());
  if (auto EC = sys::fs::rename(Tmp, Abs)) {
    sys::fs::remove(Tmp);
    return makeError("cannot write '{0}': {1}", Path, EC.message());
  }
  return Error::success();
}

std::string executableDir(const char *Argv0) {
  static int Anchor;
  std::string Exe = sys::fs::getMainExecutable(Argv0, &Anchor);
  return sys::path::parent_path(Exe).str();
}

} // namespace forge
