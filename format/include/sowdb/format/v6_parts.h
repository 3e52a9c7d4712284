// The steps of write_layer for format version 6 (FORMAT.md, "Version 6"), for writers that code
// one layer in parts, in different processes (the distributed generator, decision record 0010):
// count each part's tokens, build the codes from the sum, code each part's blocks, and assemble
// the file from the head and each section's pieces of the parts, in file order. The bytes are
// those write_layer writes with WriteOptions::format_version 6 for the same layer and options
// (FORMAT.md, unchanged); write_layer itself is built from these steps, with one part.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sowdb/format/layer_parts.h"
#include "sowdb/format/rule_set.h"
#include "sowdb/format/table_file.h"

namespace sowdb {

namespace table_internal::v6 {
class Coder;
}

/// Every part but an empty one starts at a block that is a multiple of this: a "Block index"
/// group (64 blocks, four "Group hashes" groups of 16), so that each group lies in one part.
inline constexpr std::uint32_t kV6PartBlocks = 64;

/// The sections of a version 6 file that follow its head (V6LayerEncoder::head), in file order,
/// each the concatenation of every part's piece in block order, then V6LayerEncoder::padding
/// zero bytes (FORMAT.md, "Layout"). The footer follows the last.
enum class V6Section : int {
  kValueBases,    ///< "Block index" of the value stream: a u64 base every 64 blocks.
  kValueOffsets,  ///< Then each block's offset from its base.
  kDepthBases,    ///< The same for the depth stream.
  kDepthOffsets,
  kValueHashes,  ///< "Group hashes" of the value stream: a u32 every 16 blocks.
  kDepthHashes,  ///< The same for the depth stream.
  kValueStream,  ///< The value stream's blocks.
  kDepthStream,  ///< The depth stream's blocks.
};
/// The number of V6Section values.
inline constexpr int kV6Sections = 8;

/// The token counts of every code context of a layer or a part of one (FORMAT.md, "Code
/// tables"), by context then token; the counts of the parts of a layer add up to the layer's.
/// Plain integers, so that processes can sum them (MPI_Allreduce).
struct V6TokenCounts {
  std::vector<std::uint64_t> values;  ///< The value stream's contexts.
  std::vector<std::uint64_t> depths;  ///< The depth stream's contexts.
  /// 256 counts: element d counts the ranges of blocks counted whose largest depth is d (255:
  /// 255 or more), so the layer's largest depth is the last element that is not 0.
  std::vector<std::uint64_t> deepest;

  /// Adds `other`'s counts to these (the sizes must match, or these be empty).
  V6TokenCounts& operator+=(const V6TokenCounts& other);
};

/// What the whole file's layout needs of the parts, the same for every part: each stream's
/// bytes summed over the parts, and each block index's width (v6_index_width of the largest
/// V6Part::max_offset over the parts).
struct V6Streams {
  std::array<std::uint64_t, 2> bytes{};  ///< Value stream, depth stream.
  std::array<int, 2> width{2, 2};        ///< Bytes of a block offset: 2 or 4.
};

/// The index width of a stream whose blocks start at most `max_offset` bytes after their index
/// group's base ("Block index"): 2 when it fits 16 bits, else 4.
inline int v6_index_width(std::uint64_t max_offset) {
  return max_offset <= 0xFFFF ? 2 : 4;
}

/// One part's coded blocks [first_block(), last_block()) in both streams, and, once placed, its
/// pieces of the index and hash sections. Movable; not thread safe.
class V6Part {
 public:
  std::uint64_t first_block() const { return first_; }
  std::uint64_t last_block() const { return last_; }
  /// Bytes of stream `s` (0 values, 1 depths) of the part's blocks.
  std::uint64_t stream_bytes(int s) const { return stream_[s].size(); }
  /// The largest distance in stream `s` from a block's start to its index group's base.
  std::uint64_t max_offset(int s) const { return max_offset_[s]; }

  /// Builds the part's pieces of the index and hash sections: its blocks start at byte
  /// `start[s]` of stream s (the bytes of the parts before it), the indexes are
  /// `width` wide. Throws TableError kInvalidArgument when an offset does not fit `width`.
  void place(const std::array<std::uint64_t, 2>& start, const std::array<int, 2>& width);
  /// The part's bytes of `section` (the index and hash sections once placed; empty before).
  std::span<const std::byte> piece(V6Section section) const;
  /// Where the piece starts in its section (once placed).
  std::uint64_t piece_offset(V6Section section) const;
  /// Frees the piece's memory; piece() is then empty.
  void release(V6Section section);

 private:
  friend class V6LayerEncoder;
  std::uint64_t first_ = 0, last_ = 0;
  std::array<std::uint64_t, 2> start_{};
  std::array<int, 2> width_{2, 2};
  std::array<std::uint64_t, 2> max_offset_{};
  std::vector<std::uint8_t> stream_[2];
  std::vector<std::uint32_t> sizes_[2];  // each block's bytes in each stream
  std::vector<std::byte> pieces_[6];     // the index and hash sections' pieces
};

/// A competitive layer's version 6 encoding, planned from the whole layer's value counts (its
/// value table and recompute bytes, as LayerEncoder plans versions 2..4), then given the codes
/// of the whole layer's token counts. Not copyable; const calls are thread safe.
class V6LayerEncoder {
 public:
  /// As LayerEncoder's constructor, for `options` that ask for format version 6.
  /// ERRORS
  ///   Throws TableError kInvalidArgument as write_layer does: LayerEncoder's refusals, and
  ///   options.format_version other than 6, depth codec kAll or block_entries above
  ///   kMaxV6BlockEntries.
  V6LayerEncoder(const std::string& name,
                 const RuleSet& rules,
                 int stones,
                 const ValueCounts& counts,
                 bool marks,
                 bool all_moves,
                 const WriteOptions& options);
  ~V6LayerEncoder();
  V6LayerEncoder(const V6LayerEncoder&) = delete;
  V6LayerEncoder& operator=(const V6LayerEncoder&) = delete;

  /// The header fields (format_version 6; file_size 0).
  const LayerInfo& info() const;

  /// The token counts of blocks [first, last) of `part`, which covers the layer's entries from
  /// `part_first` on as LayerEncoder::encode takes it; on the executor's threads.
  /// ERRORS throws TableError kInvalidArgument when the part does not hold a block whole, or
  ///   for a depth the file cannot store; exceptions of fill_depths and the executor propagate.
  V6TokenCounts count(const LayerSource& part,
                      std::uint64_t part_first,
                      std::uint64_t first,
                      std::uint64_t last,
                      const Executor& executor) const;

  /// Sets the codes from the whole layer's token counts (summed over the parts). Not thread
  /// safe. Throws TableError kInvalidArgument for counts of other contexts.
  void set_codes(const V6TokenCounts& layer);

  /// Codes blocks [first, last) of `part` (as count takes it; first a multiple of
  /// kV6PartBlocks unless the range is empty) into a V6Part; `progress(blocks done)` after each
  /// round of blocks. ERRORS as count's, and kInvalidArgument before set_codes or for a first
  /// block off kV6PartBlocks.
  V6Part encode(const LayerSource& part,
                std::uint64_t part_first,
                std::uint64_t first,
                std::uint64_t last,
                const Executor& executor,
                const std::function<void(std::uint64_t)>& progress = {}) const;

  /// The file's bytes before its first section: header, value table, layout record and code
  /// tables (after set_codes).
  std::vector<std::byte> head(const V6Streams& streams) const;
  /// Where `section` starts in the file.
  std::uint64_t section_offset(V6Section section, const V6Streams& streams) const;
  /// The zero bytes after the last part's piece of `section`.
  std::uint64_t padding(V6Section section, const V6Streams& streams) const;
  /// Where the footer starts (the file's size is this plus the footer's 16 bytes).
  std::uint64_t footer_offset(const V6Streams& streams) const;

 private:
  std::string name_;
  std::unique_ptr<LayerEncoder> plan_;
  LayerInfo info_;
  std::unique_ptr<table_internal::v6::Coder> coder_;
};

/// Writes a version 6 file from bytes that arrive in file order: V6LayerEncoder::head at
/// construction, then each section's pieces and padding, then finish() writes the footer. Like
/// write_layer it writes temporary_path(`path`, its process id) and renames it onto `path` only
/// in finish(); destroyed unfinished, it removes the temporary.
class V6FileWriter {
 public:
  /// Creates the temporary and writes `head`; the file's footer will start at `footer_offset`.
  /// Throws TableError kIo when the temporary cannot be created or written.
  V6FileWriter(const std::filesystem::path& path,
               std::span<const std::byte> head,
               std::uint64_t footer_offset);
  ~V6FileWriter();
  V6FileWriter(const V6FileWriter&) = delete;
  V6FileWriter& operator=(const V6FileWriter&) = delete;

  /// Appends bytes. Throws TableError kInvalidArgument past the footer's offset, kIo when a
  /// write fails.
  void append(std::span<const std::byte> bytes);
  /// Appends `count` zero bytes (a section's padding), as append.
  void pad(std::uint64_t count);
  /// Bytes written so far, the head's included.
  std::uint64_t written() const;
  /// Writes the footer, fsyncs and renames the temporary onto `path`. Throws TableError
  /// kInvalidArgument when the bytes written stop short of the footer's offset, kIo when the
  /// system fails.
  void finish();

 private:
  struct File;
  std::unique_ptr<File> file_;
  std::string name_;
  std::uint64_t footer_offset_ = 0;
};

/// Finishes a version 6 file whose sections are written: `temporary` holds its first
/// `footer_offset` bytes (written by any number of writers). Reads them back for the file
/// checksum, writes the footer after them (cutting off anything past it), fsyncs the file,
/// renames it onto `path` and fsyncs the directory.
/// ERRORS throws TableError kIo naming the file as finish_layer_file does; the temporary is
///   then removed and `path` left as it was.
/// THREAD SAFETY one call per file, once every writer of its bytes has closed it.
void finish_v6_layer_file(const std::filesystem::path& temporary,
                          const std::filesystem::path& path,
                          std::uint64_t footer_offset);

}  // namespace sowdb
