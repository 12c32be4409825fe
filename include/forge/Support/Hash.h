//===- Support/Hash.h - Content hashing ------------------------*- C++ -*-===//
#ifndef FORGE_SUPPORT_HASH_H
#define FORGE_SUPPORT_HASH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace forge {

/// Incremental SHA-256 with length-prefixed parts, so ("ab","c") and
/// ("a","bc") hash differently.
class ContentHasher {
public:
  ContentHasher();
  ~ContentHasher();
  ContentHasher &add(llvm::StringRef Part);
  ContentHasher &addAll(llvm::ArrayRef<std::string> Parts);
  /// Lowercase hex digest; the hasher cannot be used afterwards.
  std::string hex();

private:
  struct Impl;
  Impl *P;
};

std::string sha256Hex(llvm::StringRef Data);

} // namespace forge

#endif
