#include "forge/Support/Hash.h"
#include "gtest/gtest.h"

using namespace forge;

TEST(Hash, KnownSha256) {
  EXPECT_EQ(sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Hash, PartsAreLengthPrefixed) {
  std::string A = ContentHasher().add("ab").add("c").hex();
  std::string B = ContentHasher().add("a").add("bc").hex();
  EXPECT_NE(A, B);
  EXPECT_EQ(A, ContentHasher().add("ab").add("c").hex());
}
