// The candidate encodings of format version 6 (issue #43) that sowdb_format_candidates measures:
// each re-encodes one layer's value symbols and depths in memory, as two streams of
// independently decodable blocks, and decodes single entries without any cache.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sowdb/format/table_file.h"

namespace sowdb::bench {

/// One layer as its file stores it: the value-table symbol of every entry and the depths.
struct Layer {
  sowdb::LayerInfo info;
  std::filesystem::path path;
  std::vector<std::uint8_t> symbol;     ///< Value-table symbol of each entry.
  std::vector<std::uint16_t> depth;     ///< Depth of each entry (kRecomputeDepth when derived).
  std::array<bool, 256> stores{};       ///< Symbol stores a depth (byte neither 0 nor -128).
  std::array<bool, 256> mark{};         ///< Symbol is a recompute byte.
  std::array<int, 2> unstored{-1, -1};  ///< The symbols that store no depth (-1: none).
  int symbols = 0;                      ///< value_table size.
};

/// Reads layer `n` of `dir` (any version 2..4 file).
Layer load_layer(const std::filesystem::path& dir, int n);

/// What decoding an entry's value leaves for decoding its depth.
struct Cursor {
  std::uint32_t stored_before = 0;  ///< Depth-storing entries before the entry in its block.
  std::uint32_t stored_total = 0;   ///< Depth-storing entries in the block (zstd candidates).
  std::uint8_t symbol = 0;          ///< The entry's symbol.
};

/// One candidate encoding. encode() once, then any number of lookups (one thread).
class Candidate {
 public:
  virtual ~Candidate() = default;
  virtual std::string name() const = 0;
  /// Decodes every entry as the layer holds it (false: a bound, the recompute marks dropped).
  virtual bool exact() const { return true; }
  /// Encodes the whole layer; returns {value seconds, depth seconds}.
  virtual std::array<double, 2> encode(const Layer& layer) = 0;
  /// Bytes of the value stream and of the depth stream (blocks, block index, tables).
  virtual std::size_t value_bytes() const = 0;
  virtual std::size_t depth_bytes() const = 0;
  /// The symbol of entry `i`, decoding only its block (or the block's prefix up to it).
  virtual std::uint8_t value(std::uint64_t i, Cursor& c) = 0;
  /// The bytes of the `blocks` consecutive value blocks (aligned to `blocks`) holding entry `i`:
  /// what a checksum per group of blocks would cover. Empty when the candidate has no such
  /// stream.
  virtual std::span<const std::uint8_t> value_group(std::uint64_t i, std::uint32_t blocks) const {
    (void)i;
    (void)blocks;
    return {};
  }
  /// The stored depth of entry `i`, right after value(i, c) (which may leave the decoded
  /// value block for it) and only when its symbol stores one.
  virtual std::uint16_t depth(std::uint64_t i, const Cursor& c) = 0;
};

/// (a) The file as written: zstd frames of block_entries entries, seek table (version 2..5).
std::unique_ptr<Candidate> make_file_candidate();

/// (b) Canonical Huffman per layer over blocks of `entries` entries: values coded with the
/// previous symbol as context plus run tokens; depths with the previous depth (depth_context
/// 0), the entry's value symbol (1), both (2), both and runs of equal depths (3) as context.
/// `fill`: the recompute entries take their neighbour's symbol (a bound: not decodable).
/// `depth_entries`: entries a depth block covers, a divisor of `entries` (0: `entries`).
/// `order2`: the value context also classes the symbol before the previous one (the same, a
/// recompute symbol, another).
std::unique_ptr<Candidate> make_huffman_candidate(
    std::uint32_t entries, int depth_context, bool fill, std::uint32_t depth_entries, bool order2);

/// (c) zstd frames (magicless, no size or checksum fields) of `entries`-entry blocks, with a
/// dictionary of `dict_bytes` trained per layer and stream (0: no dictionary), at `level`.
std::unique_ptr<Candidate> make_zstd_candidate(std::uint32_t entries,
                                               std::size_t dict_bytes,
                                               int level);

}  // namespace sowdb::bench
