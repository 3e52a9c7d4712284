// XXH64 written from the xxHash specification (github.com/Cyan4973/xxHash, doc/xxhash_spec.md,
// section "XXH64 Algorithm Description"). Every multi-byte read is little-endian, as the
// specification requires, whatever the host byte order.
#include "sowdb/format/xxhash64.h"

#include <cstring>

namespace sowdb {
namespace {

constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

constexpr std::uint64_t rotl(std::uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

std::uint64_t read64(const std::byte* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

std::uint64_t read32(const std::byte* p) {
  std::uint64_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

// Spec step 2: one lane into one accumulator.
constexpr std::uint64_t round(std::uint64_t acc, std::uint64_t lane) {
  acc += lane * kPrime2;
  acc = rotl(acc, 31);
  return acc * kPrime1;
}

// Spec step 3: folds one of the four accumulators into the converged one.
constexpr std::uint64_t merge(std::uint64_t acc, std::uint64_t lane_acc) {
  acc ^= round(0, lane_acc);
  return acc * kPrime1 + kPrime4;
}

// Spec steps 5 and 6: the remaining bytes (< 32) and the final avalanche.
std::uint64_t finish(std::uint64_t acc, const std::byte* p, std::size_t len) {
  while (len >= 8) {
    acc ^= round(0, read64(p));
    acc = rotl(acc, 27) * kPrime1 + kPrime4;
    p += 8;
    len -= 8;
  }
  if (len >= 4) {
    acc ^= read32(p) * kPrime1;
    acc = rotl(acc, 23) * kPrime2 + kPrime3;
    p += 4;
    len -= 4;
  }
  while (len > 0) {
    acc ^= std::to_integer<std::uint64_t>(*p) * kPrime5;
    acc = rotl(acc, 11) * kPrime1;
    ++p;
    --len;
  }
  acc ^= acc >> 33;
  acc *= kPrime2;
  acc ^= acc >> 29;
  acc *= kPrime3;
  acc ^= acc >> 32;
  return acc;
}

void stripe(std::uint64_t acc[4], const std::byte* p) {
  for (int i = 0; i < 4; ++i)
    acc[i] = round(acc[i], read64(p + std::ptrdiff_t{8} * i));
}

std::uint64_t converge(const std::uint64_t acc[4]) {
  std::uint64_t h = rotl(acc[0], 1) + rotl(acc[1], 7) + rotl(acc[2], 12) + rotl(acc[3], 18);
  for (int i = 0; i < 4; ++i)
    h = merge(h, acc[i]);
  return h;
}

}  // namespace

std::uint64_t xxh64(std::span<const std::byte> data, std::uint64_t seed) noexcept {
  Xxh64 h(seed);
  h.update(data);
  return h.digest();
}

Xxh64::Xxh64(std::uint64_t seed) noexcept
    : seed_(seed), acc_{seed + kPrime1 + kPrime2, seed + kPrime2, seed, seed - kPrime1} {}

void Xxh64::update(std::span<const std::byte> data) noexcept {
  // An empty span may have no data pointer, which memcpy must not be given.
  if (data.empty())
    return;
  const std::byte* p = data.data();
  std::size_t len = data.size();
  total_ += len;
  if (buffered_ > 0) {
    const std::size_t take = len < 32 - buffered_ ? len : 32 - buffered_;
    std::memcpy(buffer_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    len -= take;
    if (buffered_ < 32)
      return;
    stripe(acc_, buffer_);
    buffered_ = 0;
  }
  // The accumulators in locals: written through `acc_`, they could alias the input bytes, and
  // the compiler would store and reload them for every stripe (a third of the speed).
  std::uint64_t a0 = acc_[0], a1 = acc_[1], a2 = acc_[2], a3 = acc_[3];
  while (len >= 32) {
    a0 = round(a0, read64(p));
    a1 = round(a1, read64(p + 8));
    a2 = round(a2, read64(p + 16));
    a3 = round(a3, read64(p + 24));
    p += 32;
    len -= 32;
  }
  acc_[0] = a0;
  acc_[1] = a1;
  acc_[2] = a2;
  acc_[3] = a3;
  if (len > 0) {
    std::memcpy(buffer_, p, len);
    buffered_ = len;
  }
}

std::uint64_t Xxh64::digest() const noexcept {
  // Spec step 1: inputs shorter than one stripe never use the four accumulators.
  std::uint64_t acc = total_ >= 32 ? converge(acc_) : seed_ + kPrime5;
  acc += total_;  // spec step 4: the length, modulo 2^64
  return finish(acc, buffer_, buffered_);
}

}  // namespace sowdb
