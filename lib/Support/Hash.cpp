#include "forge/Support/Hash.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/SHA256.h"

namespace forge {

struct ContentHasher::Impl {
  llvm::SHA256 H;
};

ContentHasher::ContentHasher() : P(new Impl) {}
ContentHasher::~ContentHasher() { delete P; }

ContentHasher &ContentHasher::add(llvm::StringRef Part) {
  uint64_t Len = Part.size();
  uint8_t LenBytes[8];
  llvm::support::endian::write64le(LenBytes, Len);
  P->H.update(llvm::ArrayRef<uint8_t>(LenBytes, 8));
  P->H.update(Part);
  return *this;
}

ContentHasher &ContentHasher::addAll(llvm::ArrayRef<std::string> Parts) {
  add(llvm::StringRef(std::to_string(Parts.size())));
  for (const auto &S : Parts)
    add(llvm::StringRef(S));
  return *this;
}

std::string ContentHasher::hex() {
  auto Digest = P->H.final();
  return llvm::toHex(Digest, /*LowerCase=*/true);
}

std::string sha256Hex(llvm::StringRef Data) {
  auto Digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(Data));
  return llvm::toHex(Digest, /*LowerCase=*/true);
}

} // namespace forge
