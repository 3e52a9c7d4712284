// The reader of format version 6 (FORMAT.md, "Version 6"): the layout record, code tables,
// block indexes and group hashes checked and held at open (checks 22..24), then single entries
// or whole blocks decoded on demand (checks 16, 25, 26). LayerReader (table_reader.cpp) routes a
// version 6 file here. Not installed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "byte_source.h"
#include "sowdb/format/huffman_code.h"
#include "sowdb/format/table_file.h"
#include "v6_streams.h"

namespace sowdb::table_internal {

class V6Layer {
 public:
  // Checks 22..24 on the file `src` that `info` describes (checks 1..15 passed), whose value
  // table ends at `data_start`. Throws TableError.
  V6Layer(const Source& src, const LayerInfo& info, std::uint64_t data_start);

  // The value-table byte of entry `index` (< info.entries): decodes its value block up to it.
  // `verify`: check the block's group hash first (check 25). Throws TableError.
  std::int8_t value_byte(const Source& src, std::uint64_t index, bool verify) const;

  // The depth of entry `index`: 0 for a value-0 entry, kRecomputeDepth for a "recompute,
  // derived depth" entry, else the stored one (the value block up to the entry, then the depth
  // block up to its stored depth). Throws TableError.
  std::uint16_t depth(const Source& src, std::uint64_t index, bool verify) const;

  // Decodes block `b` whole: the value-table bytes into `values` and the depths (as depth()
  // gives them) into `depths`, each either empty (not asked for) or the block's entry count
  // long. Checks that each stream's tokens end exactly with the block's bytes. Throws
  // TableError.
  void decode_block(const Source& src,
                    std::uint32_t b,
                    std::span<std::int8_t> values,
                    std::span<std::uint16_t> depths,
                    bool verify) const;

 private:
  struct Stream {
    std::vector<std::uint64_t> base;    // a block offset every kIndexGroupBlocks blocks
    std::vector<std::uint8_t> offsets;  // each block's offset from its base, `width` bytes
    std::vector<std::uint32_t> hashes;  // a hash every kHashGroupBlocks blocks
    std::vector<std::uint16_t> tables;  // the decode table of each context, one after another
    std::uint64_t data = 0;             // where the stream starts in the file
    std::uint64_t bytes = 0;
    int width = 2;
  };

  std::uint64_t start(const Stream& s, std::uint64_t b) const;
  std::uint64_t end(const Stream& s, std::uint64_t b) const;
  // Block b's bytes of stream `which`, followed by BitReader::kReadPadding zero bytes, in a
  // buffer of the calling thread (valid until its next read). Checks 16 and 25.
  std::span<const std::uint8_t> read(const Source& src,
                                     int which,
                                     std::uint32_t b,
                                     bool verify) const;
  void load_codes(
      const Source& src, int which, std::uint64_t offset, std::size_t contexts, std::size_t tokens);
  void load_index(const Source& src, int which, std::uint64_t offset);

  LayerInfo info_;
  std::size_t symbols_ = 0;
  std::array<bool, 256> stores_{};
  Stream streams_[2];
};

}  // namespace sowdb::table_internal
