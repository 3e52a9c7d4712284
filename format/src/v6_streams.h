// Format version 6 (FORMAT.md, "Version 6"): the constants, the section layout and the token
// rules that the writer (v6_writer.cpp) and the reader (v6_reader.cpp) share. Not installed.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "table_common.h"

namespace sowdb::table_internal::v6 {

// "Value stream": the lengths of the run tokens, token V + r being a run of kRunLengths[r].
constexpr std::array<std::uint16_t, 31> kRunLengths = {
    2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,  13,  14,  15,  16, 17,
    20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 256};
constexpr std::uint32_t kRunTokens = kRunLengths.size();
// "Depth stream": 0..254 literal depths, the escape, then the run tokens.
constexpr std::uint32_t kDepthEscape = 255;
constexpr std::uint32_t kDepthTokens = kDepthEscape + 1 + kRunTokens;
constexpr std::uint32_t kDepthBuckets = 16;
constexpr std::uint32_t kDepthContexts = 4 * kDepthBuckets;
// "Block index" and "Group hashes".
constexpr std::uint32_t kIndexGroupBlocks = 64;
constexpr std::uint32_t kHashGroupBlocks = 16;
// "Version 6": the largest block_entries, and the default.
constexpr std::uint32_t kMaxBlockEntries = 65536;
constexpr std::uint32_t kDefaultBlockEntries = 256;
// "Layout record".
constexpr std::size_t kLayoutSize = 32;
constexpr std::uint8_t kValueCodec = 2;

// Value contexts of a file with `symbols` value-table entries: one a symbol, then the start.
inline std::size_t value_contexts(std::size_t symbols) {
  return symbols + 1;
}
inline std::size_t value_tokens(std::size_t symbols) {
  return symbols + kRunTokens;
}

// The depth context of stored depth `j` of a block, the one before it being `prev`, its entry's
// value-table symbol `symbol`.
inline std::uint32_t depth_context(std::uint32_t j, std::uint32_t prev, std::uint32_t symbol) {
  const std::uint32_t bucket = j == 0 ? 0 : 1 + std::min<std::uint32_t>(prev, kDepthBuckets - 2);
  return 4 * bucket + std::min<std::uint32_t>(symbol, 3);
}

// The longest run token not longer than `run` (run >= 2).
inline std::uint32_t run_token(std::size_t run) {
  std::uint32_t r = kRunTokens - 1;
  while (kRunLengths[r] > run)
    --r;
  return r;
}

// Where each section of a version 6 file is ("Layout").
struct Layout {
  std::uint64_t layout = 0;      // the layout record
  std::uint64_t codes[2] = {};   // code lengths: values, depths
  std::uint64_t index[2] = {};   // block index
  std::uint64_t hashes[2] = {};  // group hashes
  std::uint64_t data[2] = {};    // the streams' blocks
  std::uint64_t bytes[2] = {};   // the streams' sizes
  int width[2] = {2, 2};         // bytes of a block offset in the index
  std::uint64_t footer = 0;      // where the footer starts
};

inline std::uint64_t code_bytes(std::size_t contexts, std::size_t tokens) {
  return pad8((std::uint64_t{contexts} * tokens + 1) / 2);
}
inline std::uint64_t index_bytes(std::uint32_t blocks, int width) {
  return 8 * ((std::uint64_t{blocks} + kIndexGroupBlocks - 1) / kIndexGroupBlocks) +
         pad8(std::uint64_t{blocks} * static_cast<std::uint64_t>(width));
}
inline std::uint64_t hash_bytes(std::uint32_t blocks) {
  return pad8(4 * ((std::uint64_t{blocks} + kHashGroupBlocks - 1) / kHashGroupBlocks));
}

// The layout of a file whose value table ends at `data_start`, given its record's fields.
inline Layout make_layout(std::uint64_t data_start,
                          std::size_t symbols,
                          std::uint32_t blocks,
                          const std::uint64_t stream_bytes[2],
                          const int width[2]) {
  Layout l;
  l.layout = data_start;
  l.codes[0] = data_start + kLayoutSize;
  l.codes[1] = l.codes[0] + code_bytes(value_contexts(symbols), value_tokens(symbols));
  l.index[0] = l.codes[1] + code_bytes(kDepthContexts, kDepthTokens);
  for (int s = 0; s < 2; ++s) {
    l.width[s] = width[s];
    l.bytes[s] = stream_bytes[s];
  }
  l.index[1] = l.index[0] + index_bytes(blocks, width[0]);
  l.hashes[0] = l.index[1] + index_bytes(blocks, width[1]);
  l.hashes[1] = l.hashes[0] + hash_bytes(blocks);
  l.data[0] = l.hashes[1] + hash_bytes(blocks);
  l.data[1] = l.data[0] + stream_bytes[0];
  l.footer = l.data[1] + stream_bytes[1];
  return l;
}

}  // namespace sowdb::table_internal::v6
