// Building blocks of sowdb_format_candidates (issue #43): the library's canonical Huffman codes
// and bit I/O (sowdb/format/huffman_code.h, format version 6's coder) with a decode table at
// hand, and the stream of independently decodable blocks that every candidate encoding
// produces.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "sowdb/format/huffman_code.h"

namespace sowdb::bench {

using huffman::kCodeBits;

/// The library's canonical code (sowdb/format/huffman_code.h) with its decode table.
struct Code : huffman::Code {
  huffman::DecodeTable table;  ///< 2^kCodeBits entries.
};

/// The library's code of `freq` (huffman::build_code) and its decode table.
inline Code build_code(const std::vector<std::uint64_t>& freq) {
  Code c;
  static_cast<huffman::Code&>(c) = huffman::build_code(freq);
  c.table = huffman::decode_table(c);
  return c;
}

/// Bits a model of `codes` costs: 4 bits per (context, token) code length.
std::size_t model_bytes(const std::vector<Code>& codes);

using huffman::BitWriter;

/// The library's bit reader, decoding tokens of a Code (its streams keep 8 bytes of padding).
class BitReader : public huffman::BitReader {
 public:
  using huffman::BitReader::BitReader;
  /// The next token of `code` (refill() first); the streams measured here are well formed.
  std::uint32_t token(const Code& code) {
    return static_cast<std::uint32_t>(huffman::BitReader::token(code.table));
  }
};

/// Independently decodable blocks laid end to end, followed by 8 bytes of padding.
struct BlockStream {
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint64_t> start;  ///< Block b is bytes[start[b] .. start[b + 1]).
  std::size_t model = 0;             ///< Bytes of per-layer tables (codes, dictionary).

  /// Bytes of a block-start index a file would hold: a u64 every 64 blocks and a u16 offset
  /// from it per block (every group of 64 blocks measured here is below 64 KiB; else 4 bytes).
  std::size_t index_bytes() const;
  /// Blocks + index + model.
  std::size_t total() const { return bytes.size() - 8 + index_bytes() + model; }
  void close_block() { start.push_back(bytes.size()); }
  /// Blocks g * blocks .. (g + 1) * blocks - 1, g = block / blocks.
  std::span<const std::uint8_t> group(std::uint64_t block, std::uint32_t blocks) const {
    const std::uint64_t first = block / blocks * blocks;
    const std::uint64_t last = std::min<std::uint64_t>(first + blocks, start.size() - 1);
    return {bytes.data() + start[first], start[last] - start[first]};
  }
  void finish() { bytes.resize(bytes.size() + 8, 0); }
};

}  // namespace sowdb::bench
