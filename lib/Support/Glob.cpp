//===- Support/Glob.cpp ---------------------------------------------------===//
#include "forge/Support/Glob.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/GlobPattern.h"

namespace forge {

llvm::Expected<std::vector<size_t>> selectByGlobs(llvm::ArrayRef<llvm::StringRef> Names,
                                                  llvm::StringRef Globs, llvm::StringRef Option,
                                                  llvm::StringRef What) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Globs.split(Parts, ',', -1, false);
  std::vector<bool> On(Names.size(), false);
  for (llvm::StringRef P : Parts) {
    P = P.trim();
    bool Negative = P.consume_front("-");
    auto G = llvm::GlobPattern::create(P);
    if (!G)
      return makeUsageError("bad {0} pattern '{1}': {2}", Option, P, llvm::toString(G.takeError()));
    bool Any = false;
    for (size_t I = 0; I < Names.size(); ++I)
      if (G->match(Names[I])) {
        On[I] = !Negative;
        Any = true;
      }
    if (!Any && !Negative) {
      std::string Known;
      for (llvm::StringRef N : Names)
        Known += (Known.empty() ? "" : ", ") + N.str();
      return makeUsageError("{0}: '{1}' matches no {2}; known: {3}", Option, P, What, Known);
    }
  }
  std::vector<size_t> Out;
  for (size_t I = 0; I < Names.size(); ++I)
    if (On[I])
      Out.push_back(I);
  return Out;
}

} // namespace forge
