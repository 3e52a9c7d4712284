// A block's two streams as zstd frames (FORMAT.md, "Blocks", "Value encoding" and "Depth
// encoding"): encoding for the writer, and decoding with "Reader checks" 18..21 for the reader.
// Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "sowdb/format/table_file.h"

namespace sowdb::table_internal {

// Depth codec 1 stores a depth where the value-table byte is neither 0 nor kRecomputeValue.
inline bool stores_depth(std::int8_t byte) {
  return byte != 0 && byte != kRecomputeValue;
}

// How many of the `len` bytes at p store a depth: eight at a time, a byte counting when its
// low seven bits are not all zero (0 and -128 are the two bytes whose are).
inline std::size_t count_stored(const std::int8_t* p, std::size_t len) {
  constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const auto count8 = [](std::uint64_t w) {
    const std::uint64_t x = w & kLow7;
    return static_cast<std::size_t>(__builtin_popcountll((x + kLow7) & kHigh));
  };
  std::size_t count = 0;
  std::size_t k = 0;
  for (; k + 8 <= len; k += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + k, 8);
    count += count8(w);
  }
  if (k < len) {
    std::uint64_t w = 0;  // the bytes past `len` count as 0: no depth
    std::memcpy(&w, p + k, len - k);
    count += count8(w);
  }
  return count;
}

// --- Encoding (the writer). ------------------------------------------------------------------

// A block's value frame: `symbols`, one byte an entry, compressed with `options`' parameters.
std::vector<std::byte> encode_value_frame(std::span<const std::byte> symbols,
                                          const WriteOptions& options,
                                          const std::string& where);

// A block's depth frame, for entries `first` onwards: `bytes` are their value-table bytes,
// `values` their values and `depths` their depths, which this overwrites. Throws
// kInvalidArgument for a depth the encoding cannot hold: with `recompute`, a stored
// kRecomputeDepth; with depth codec 1, a depth that is not the one a reader derives.
std::vector<std::byte> encode_depth_frame(std::span<const std::int8_t> bytes,
                                          std::span<const std::int8_t> values,
                                          std::span<std::uint16_t> depths,
                                          bool recompute,
                                          std::uint64_t first,
                                          const WriteOptions& options,
                                          const std::string& where);

// --- Decoding (the reader). ------------------------------------------------------------------

// A block's depth frame as decoded for probes: the byte planes as stored, and (depth codec 1)
// how many depths the block stores before each run of 64 entries, so that one depth is found
// in O(1) without spreading all of them out (which cost more than decoding the frame).
struct DepthFrame {
  static constexpr int kRunShift = 6;
  static constexpr std::size_t kRun = std::size_t{1} << kRunShift;

  std::vector<std::uint8_t> planes;  // the m low bytes, the m high bytes, one spare zero byte
  std::size_t stored = 0;            // m
  std::vector<std::uint32_t> before;

  // The depth of the block's entry i. `block_values`: the block's value-table bytes with depth
  // codec 1, null with depth codec 0.
  std::uint16_t at(std::size_t i, const std::int8_t* block_values) const {
    std::size_t j = i;
    if (block_values) {
      const std::int8_t v = block_values[i];
      if (!stores_depth(v))
        return v == 0 ? std::uint16_t{0} : kRecomputeDepth;
      const std::size_t run = i >> kRunShift;
      j = before[run] + count_stored(block_values + (run << kRunShift), i & (kRun - 1));
    }
    return static_cast<std::uint16_t>(planes[j] | (planes[stored + j] << 8));
  }
};

// Checks 18..20: decodes the value frame `frame` of out.size() entries into their value-table
// bytes (`value_table` in symbol order).
void decode_value_frame(std::span<const std::byte> frame,
                        std::span<const std::int8_t> value_table,
                        std::span<std::int8_t> out,
                        const std::string& where);

// Checks 18..20 for a co-operative file: decodes the value frame `frame` of a block of `entries`
// entries into its symbols' byte planes (`out`: entries * set_symbol_width(set_count) bytes),
// each symbol below `set_count`.
void decode_set_frame(std::span<const std::byte> frame,
                      std::uint32_t set_count,
                      std::size_t entries,
                      std::span<std::int8_t> out,
                      const std::string& where);

// Checks 18 and 19 for a co-operative file's depth frame, which holds nothing.
void check_empty_depth_frame(std::span<const std::byte> frame, const std::string& where);

// A co-operative block's depth frame: an empty zstd frame.
std::vector<std::byte> encode_empty_frame(const WriteOptions& options, const std::string& where);

// Checks 18, 19 and 21: decodes the depth frame `frame` of a block of `entries` entries.
// `values` are the block's value-table bytes (depth codec 1: they say how many depths the
// frame holds); `recompute`: the file has recompute entries. The result goes into `out`, whose
// buffers are reused (a cache recycles its evicted frames).
void decode_depth_frame(std::span<const std::byte> frame,
                        std::span<const std::int8_t> values,
                        std::size_t entries,
                        DepthCodec codec,
                        bool recompute,
                        const std::string& where,
                        DepthFrame& out);

// Every depth of a decoded depth frame into `out`, one an entry, kRecomputeDepth where the
// file stores none for a recompute entry. `values` as for decode_depth_frame.
void expand_depths(const DepthFrame& f,
                   std::span<const std::int8_t> values,
                   DepthCodec codec,
                   std::span<std::uint16_t> out);

}  // namespace sowdb::table_internal
