//===- Support/Output.cpp -------------------------------------------------===//
#include "forge/Support/Output.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace forge {

llvm::Expected<OutputChoice> OutputChoice::fromFlags(llvm::StringRef OutputPath, bool InPlace,
                                                     bool Diff) {
  if (int(!OutputPath.empty()) + int(InPlace) + int(Diff) > 1)
    return makeUsageError("-o, -i and --diff exclude each other");
  OutputChoice C;
  if (OutputPath == "-")
    C.K = Kind::Stdout;
  else if (!OutputPath.empty()) {
    C.K = Kind::File;
    C.Path = OutputPath.str();
  } else if (InPlace)
    C.K = Kind::InPlace;
  else if (Diff)
    C.K = Kind::Diff;
  return C;
}

llvm::Error OutputChoice::write(llvm::StringRef Input, llvm::StringRef Contents,
                                bool Changed) const {
  switch (K) {
  case Kind::File:
    return writeFileAtomically(Path, Contents);
  case Kind::InPlace:
    return Changed ? writeFileAtomically(Input, Contents) : llvm::Error::success();
  case Kind::Stdout:
  case Kind::Diff:
  case Kind::Tree:
  case Kind::None:
    break;
  }
  return llvm::Error::success();
}

ScratchDir::~ScratchDir() {
  if (!Keep && !Path.empty())
    llvm::sys::fs::remove_directories(Path);
}

llvm::Expected<std::string> ScratchDir::make(llvm::StringRef UserPath, llvm::StringRef Prefix,
                                             llvm::StringRef TempParent) {
  if (!UserPath.empty()) {
    if (auto EC = llvm::sys::fs::create_directories(UserPath))
      return makeError("cannot create the working directory '{0}': {1}", UserPath,
                       EC.message());
    Path = UserPath.str();
    Keep = true;
    return Path;
  }
  llvm::SmallString<128> P, Model(TempParent);
  if (!TempParent.empty()) {
    if (auto EC = llvm::sys::fs::create_directories(TempParent))
      return makeError("cannot create '{0}': {1}", TempParent, EC.message());
    llvm::sys::path::append(Model, Prefix);
  } else {
    Model = Prefix;
  }
  if (auto EC = llvm::sys::fs::createUniqueDirectory(Model, P))
    return makeError("cannot create a working directory: {0}", EC.message());
  Path = P.str().str();
  Keep = false;
  return Path;
}

} // namespace forge
