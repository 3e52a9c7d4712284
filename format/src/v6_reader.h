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
#include "v6_decode.h"
#include "v6_streams.h"

namespace sowdb::table_internal {

class V6Layer {
 public:
  // Checks 22..24 on the file `src` that `info` describes (checks 1..15 passed), whose value
  // table ends at `data_start`. `map`: copy blocks out of src.map() (OpenOptions::memory_map)
  // instead of reading them with src.read. Throws TableError.
  V6Layer(const Source& src, const LayerInfo& info, std::uint64_t data_start, bool map);

  // The value-table byte of entry `index` (< info.entries): decodes its value block up to it.
  // `verify`: check the block's group hash first (check 25). Throws TableError.
  std::int8_t value_byte(const Source& src, std::uint64_t index, bool verify) const;

  // The depth of entry `index`: 0 for a value-0 entry, kRecomputeDepth for a "recompute,
  // derived depth" entry, else the stored one (the value block up to the entry, then the depth
  // block up to its stored depth). Throws TableError.
  std::uint16_t depth(const Source& src, std::uint64_t index, bool verify) const;

  // Starts loading into the processor's caches the bytes that a lookup of entry `index`
  // (< info.entries) copies from stream `which`: its block's hash group. Does nothing unless
  // the file is mapped (a read with pread has nothing to load ahead without a system call).
  // Never fails.
  void prefetch(int which, std::uint64_t index) const noexcept;

  // value_byte and depth of entry `index` from one walk of its value block. Throws TableError.
  std::uint16_t value_and_depth(const Source& src,
                                std::uint64_t index,
                                bool verify,
                                std::int8_t& byte) const;

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
    v6::DecodeTables tables;
    std::uint64_t data = 0;  // where the stream starts in the file
    std::uint64_t bytes = 0;
    int width = 2;
  };

  std::uint64_t start(const Stream& s, std::uint64_t b) const;
  std::uint64_t end(const Stream& s, std::uint64_t b) const;
  // Block b's bytes of stream `which`, read with pread (or copied out of the mapped file) into
  // a buffer of the calling thread (valid until its next read) that stays readable for
  // BitReader::kReadPadding bytes after them. With `verify` the block's whole hash group is
  // read and its hash checked. Checks 16 and 25.
  std::span<const std::uint8_t> read(const Source& src,
                                     int which,
                                     std::uint32_t b,
                                     bool verify) const;
  // The depth of entry t of block b, whose value walk found the entry's symbol `own` after
  // `stored` stored depths whose symbols' classes (min(symbol, 3)) are classes[0..stored).
  std::uint16_t depth_of(const Source& src,
                         std::uint32_t b,
                         std::uint32_t own,
                         std::span<const std::uint8_t> classes,
                         bool verify) const;
  void load_codes(
      const Source& src, int which, std::uint64_t offset, std::size_t contexts, std::size_t tokens);
  void load_index(const Source& src, int which, std::uint64_t offset);

  LayerInfo info_;
  std::size_t symbols_ = 0;
  std::array<bool, 256> stores_{};
  Stream streams_[2];
  const std::byte* map_ = nullptr;  // the whole file (Source::map), or null: read with pread
};

}  // namespace sowdb::table_internal
