// Our XXH64 (format/src/xxhash64.cpp) against published test vectors and against the reference
// implementation, Debian's libxxhash (linked by this test only, never by the library).
#include "sowdb/format/xxhash64.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>
#include <random>
#include <string_view>
#include <vector>

namespace sowdb {
namespace {

std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

TEST(Xxh64, KnownStrings) {
  EXPECT_EQ(xxh64(bytes_of("")), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(xxh64(bytes_of("a")), 0xD24EC4F1A98C6E5BULL);
  EXPECT_EQ(xxh64(bytes_of("abc")), 0x44BC2CF5AD770999ULL);
  EXPECT_EQ(xxh64(bytes_of("Nobody inspects the spammish repetition")), 0xFBCEA83C8A378BF1ULL);
}

// The sanity buffer and vectors of xxHash's own self test (xxhsum's BMK_sanityCheck).
TEST(Xxh64, SanityBufferVectors) {
  constexpr std::uint32_t kPrime32 = 2654435761U;
  constexpr std::uint64_t kPrime64 = 11400714785074694797ULL;
  std::vector<std::byte> buf(222);
  std::uint64_t gen = kPrime32;
  for (auto& b : buf) {
    b = static_cast<std::byte>(gen >> 56);
    gen *= kPrime64;
  }
  const std::span<const std::byte> s(buf);
  EXPECT_EQ(xxh64(s.first(0), 0), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(xxh64(s.first(0), kPrime32), 0xAC75FDA2929B17EFULL);
  EXPECT_EQ(xxh64(s.first(1), 0), 0xE934A84ADB052768ULL);
  EXPECT_EQ(xxh64(s.first(1), kPrime32), 0x5014607643A9B4C3ULL);
  EXPECT_EQ(xxh64(s.first(4), 0), 0x9136A0DCA57457EEULL);
  EXPECT_EQ(xxh64(s.first(14), 0), 0x8282DCC4994E35C8ULL);
  EXPECT_EQ(xxh64(s.first(14), kPrime32), 0xC3BD6BF63DEB6DF0ULL);
  EXPECT_EQ(xxh64(s.first(222), 0), 0xB641AE8CB691C174ULL);
  EXPECT_EQ(xxh64(s.first(222), kPrime32), 0x20CB8AB7AE10C14AULL);
}

TEST(Xxh64, MatchesLibxxhashOneShot) {
  std::mt19937_64 rng(7);
  std::vector<std::byte> buf(5000);
  for (auto& b : buf)
    b = static_cast<std::byte>(rng());
  for (std::size_t len = 0; len <= 300; ++len) {
    for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, rng()}) {
      const std::size_t at = rng() % 64;  // unaligned starts too
      ASSERT_EQ(xxh64(std::span(buf).subspan(at, len), seed), XXH64(buf.data() + at, len, seed))
          << "len " << len << " seed " << seed;
    }
  }
  for (const std::size_t len : {1000u, 1023u, 1024u, 4096u, 4999u}) {
    EXPECT_EQ(xxh64(std::span(buf).first(len)), XXH64(buf.data(), len, 0));
  }
}

TEST(Xxh64, StreamingMatchesOneShot) {
  std::mt19937_64 rng(99);
  std::vector<std::byte> buf(3000);
  for (auto& b : buf)
    b = static_cast<std::byte>(rng());
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t len = rng() % buf.size();
    const std::uint64_t seed = trial % 3 == 0 ? 0 : rng();
    Xxh64 h(seed);
    std::size_t done = 0;
    while (done < len) {
      const std::size_t step = std::min<std::size_t>(len - done, rng() % 70);
      h.update(std::span(buf).subspan(done, step));
      done += step;
    }
    ASSERT_EQ(h.digest(), XXH64(buf.data(), len, seed)) << "len " << len;
  }
}

}  // namespace
}  // namespace sowdb
