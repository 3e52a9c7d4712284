// What every part of the table file code shares: FORMAT.md's constants that belong to no one
// record, little-endian integers, the checks' errors and the block arithmetic. Not installed.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "sowdb/format/table_file.h"
#include "sowdb/format/xxhash64.h"

namespace sowdb::table_internal {

using Code = TableError::Code;

// "Header" and "Footer": the magic numbers that open and close a file.
constexpr std::array<std::uint8_t, 8> kMagicBytes = {0x89, 'S', 'O', 'W', 'D', 'B', '\r', '\n'};
constexpr std::array<std::uint8_t, 8> kFooterMagicBytes = {'S', 'O', 'W', 'D', 'B', 'E', 'N', 'D'};
// "Recompute entries": the value-table byte of the "recompute, stored depth" symbol (the
// "recompute, derived depth" symbol's byte is kRecomputeValue). Only in layers of at most
// kMaxStonesWithStoredRecompute stones, where 127 is not a value.
constexpr std::int8_t kStoredRecomputeByte = 127;
constexpr int kMaxStonesWithStoredRecompute = 126;

// --- Little-endian integers ("Conventions": every integer is little-endian). ----------------

inline void put_le(std::byte* p, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
}

inline std::uint64_t get_le(const std::byte* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

inline std::uint64_t pad8(std::uint64_t n) {
  return (n + 7) & ~std::uint64_t{7};
}

// "Seek table": a frame's hash is the low half of its XXH64.
inline std::uint32_t hash32(std::span<const std::byte> bytes) {
  return static_cast<std::uint32_t>(xxh64(bytes) & 0xFFFFFFFFu);
}

// Whether `bytes` are the magic `magic` (a prefix of it when `bytes` is shorter).
inline bool matches_magic(std::span<const std::byte> bytes, std::span<const std::uint8_t> magic) {
  return bytes.size() <= magic.size() &&
         std::equal(bytes.begin(), bytes.end(), magic.begin(), [](std::byte a, std::uint8_t b) {
           return std::to_integer<std::uint8_t>(a) == b;
         });
}

// --- Errors ("Reader checks"). --------------------------------------------------------------

inline std::string errno_text(int err) {
  return std::strerror(err);
}

// `n` and its noun, singular for one: "1 byte", "12 bytes".
template <typename Count>
inline std::string count_text(Count n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

[[noreturn]] inline void fail(Code code, const std::string& where, const std::string& what) {
  throw TableError(code, where + ": " + what);
}

[[noreturn]] inline void fail_check(Code code,
                                    const std::string& where,
                                    int check,
                                    const std::string& what) {
  throw TableError(code, where + ": check " + std::to_string(check) + ": " + what);
}

// --- Blocks ("Blocks"). ---------------------------------------------------------------------

inline std::uint64_t block_count_for(std::uint64_t entries, std::uint32_t block_entries) {
  return entries / block_entries + (entries % block_entries != 0 ? 1 : 0);
}

// The entries in block `b`: block_entries except possibly in the last block.
inline std::uint32_t entries_in_block(const LayerInfo& info, std::uint32_t b) {
  const std::uint64_t first = std::uint64_t{b} * info.block_entries;
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>(info.block_entries, info.entries - first));
}

// "Set symbols": bytes per symbol of a co-operative file with `set_count` sets.
inline int set_symbol_width(std::uint32_t set_count) {
  return set_count <= (1u << 8) ? 1 : set_count <= (1u << 16) ? 2 : 3;
}

// Symbol i of a block of `k` entries whose symbols are stored as `width` byte planes.
inline std::uint32_t plane_symbol(const std::int8_t* planes,
                                  std::size_t k,
                                  int width,
                                  std::size_t i) {
  std::uint32_t s = static_cast<std::uint8_t>(planes[i]);
  for (int b = 1; b < width; ++b)
    s |= std::uint32_t{static_cast<std::uint8_t>(planes[b * k + i])} << (8 * b);
  return s;
}

}  // namespace sowdb::table_internal
