// The block coder of format version 6 (FORMAT.md, "Version 6 streams"): the tokens of a block's
// values and depths, their counts over a run of blocks, and the blocks coded with the canonical
// codes built from the whole layer's counts. v6_writer.cpp assembles the file from it. Not
// installed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sowdb/format/huffman_code.h"
#include "sowdb/format/layer_parts.h"
#include "sowdb/format/table_file.h"
#include "sowdb/format/v6_parts.h"

namespace sowdb::table_internal::v6 {

struct BlockData;
struct CodedChunk;

// A part of a layer as the coder reads it: `source` holds the layer's entries from `first` on
// (its values, marks and fill_depths indexed from the part's first entry, 0).
struct PartSource {
  const LayerSource& source;
  std::uint64_t first = 0;
};

// One part's coded blocks: both streams, and each block's bytes in each.
struct CodedBlocks {
  std::vector<std::uint8_t> stream[2];
  std::vector<std::uint32_t> sizes[2];
};

class Coder {
 public:
  // The coder of the layer `plan` describes (its value table and recompute bytes); `name` for
  // error messages. The codes are set by set_codes before encode.
  Coder(const std::string& name, const LayerEncoder& plan);

  // Pass 1: the token counts of blocks [first, last) of `part`, added to `counts` (sized by
  // this call), on the executor's threads.
  void count(const PartSource& part,
             std::uint64_t first,
             std::uint64_t last,
             const Executor& executor,
             V6TokenCounts& counts) const;

  // The canonical codes of the whole layer's counts. Throws TableError kInvalidArgument when
  // the counts do not have the layer's contexts and tokens.
  void set_codes(const V6TokenCounts& layer);

  // Pass 2: codes blocks [first, last) of `part` in block order, in rounds on the executor's
  // threads; `progress(blocks done)` after each round.
  CodedBlocks encode(const PartSource& part,
                     std::uint64_t first,
                     std::uint64_t last,
                     const Executor& executor,
                     const std::function<void(std::uint64_t)>& progress) const;

  // Code lengths of stream s (0 values, 1 depths), context after context.
  const std::vector<huffman::Code>& codes(int s) const { return codes_[s]; }

  // 1 when count counts every block, else k: it counts every k-th block of the layer.
  std::uint64_t sample_step() const;

  std::size_t value_tokens() const;
  std::size_t value_contexts() const;

 private:
  std::size_t load_depths(const PartSource& part, std::uint64_t b, BlockData& d) const;
  void load(const PartSource& part, std::uint64_t b, BlockData& d) const;
  std::uint16_t largest_depth(const PartSource& part, std::uint64_t b, BlockData& d) const;
  [[noreturn]] void report_bad_depth(const PartSource& part,
                                     std::uint64_t first,
                                     std::size_t n,
                                     const std::vector<std::uint16_t>& depths) const;
  template <typename Emit>
  void value_tokens(const BlockData& d, Emit&& emit) const;
  template <typename Emit>
  void depth_tokens(const BlockData& d, Emit&& emit) const;
  void encode_block(const PartSource& part, std::uint64_t b, BlockData& d, CodedChunk& out) const;

  std::string name_;
  const LayerEncoder& plan_;
  const LayerInfo& info_;
  std::size_t symbols_ = 0;
  std::array<bool, 256> stores_{};
  // What load needs of an entry, by (marked << 8) | (value as a byte).
  struct EntryRule {
    std::uint8_t symbol = 0;
    std::uint8_t cls = 0;     // min(symbol, 3)
    std::uint8_t stores = 0;  // 1: the entry stores its depth
    std::uint16_t max_depth = 0;
  };
  std::array<EntryRule, 512> rules_{};
  std::vector<huffman::Code> codes_[2];
  std::vector<std::uint32_t> words_[2];  // (word << 4) | length of [context * tokens + token]
};

}  // namespace sowdb::table_internal::v6
