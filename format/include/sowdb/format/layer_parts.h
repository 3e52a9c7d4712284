// The steps of write_layer, for writers that compress one layer in parts, in different
// processes (the distributed generator, decision record 0010): count the values of each part,
// plan the layer's encoding from the sum, compress each part's blocks, and assemble the file
// from the blocks' sizes and checksums. The bytes are those write_layer writes for the same
// layer and options (FORMAT.md, unchanged); write_layer itself is built from these steps.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sowdb/format/rule_set.h"
#include "sowdb/format/table_file.h"
#include "sowdb/format/xxhash64.h"

namespace sowdb {

/// How often each value occurs in a layer or a part of one, by value byte
/// (`static_cast<std::uint8_t>(value)`): over all entries and over the recompute entries. The
/// counts of the parts of a layer add up to the layer's.
struct ValueCounts {
  std::array<std::uint64_t, 256> all{};     ///< Every entry.
  std::array<std::uint64_t, 256> marked{};  ///< The entries marked as recompute entries.

  /// Adds `other`'s counts to these.
  ValueCounts& operator+=(const ValueCounts& other);
};

/// Counts the values of `part.values` and of the entries `part.recompute` marks (bit `i % 64` of
/// word `i / 64` for entry i of the part; empty: none). `part.fill_depths` is not used. Runs
/// on `executor` (empty: the calling thread). Thread safe.
ValueCounts count_layer_values(const LayerSource& part, const Executor& executor = {});

/// One block compressed: its value frame and depth frame, as the file stores them.
struct EncodedBlock {
  std::vector<std::byte> values;
  std::vector<std::byte> depths;
};

/// What the seek table records of a block, its offset apart (FORMAT.md, "Seek table"). Plain
/// data of 16 bytes, so it can be sent between processes as bytes.
struct BlockSummary {
  std::uint32_t value_size = 0;  ///< Bytes of the value frame.
  std::uint32_t depth_size = 0;  ///< Bytes of the depth frame.
  std::uint32_t value_hash = 0;  ///< Low 32 bits of the value frame's XXH64.
  std::uint32_t depth_hash = 0;  ///< Low 32 bits of the depth frame's XXH64.

  /// The summary of `block`.
  static BlockSummary of(const EncodedBlock& block);
};

/// A competitive layer's encoding (value table, symbols, version and flags), fixed from the
/// whole layer's value counts before any block is compressed. Immutable once built.
class LayerEncoder {
 public:
  /// Plans the layer as write_layer would for a LayerSource whose values have `counts` (summed
  /// over all parts), with recompute marks given when `marks` is true and LayerSource::all_moves
  /// equal to `all_moves`.
  /// PARAMETERS
  ///   name     the file's name, for error messages only.
  ///   rules, stones, options  as for write_layer (executor and progress are not used here).
  /// ERRORS
  ///   Throws TableError kInvalidArgument as write_layer does for a rule set, stone count or
  ///   option out of range, a value outside [-n, n], or marks with depth codec kAll; also for
  ///   WriteOptions::format_version 6, which only write_layer writes.
  LayerEncoder(const std::string& name,
               const RuleSet& rules,
               int stones,
               const ValueCounts& counts,
               bool marks,
               bool all_moves,
               const WriteOptions& options);

  /// The header fields (file_size is 0: it is known only once every block is compressed).
  const LayerInfo& info() const { return info_; }

  /// The file's first bytes: the header and the value table. The first block follows them.
  std::vector<std::byte> head() const;

  /// The value-table byte an entry of value `value` stores (FORMAT.md, "Recompute entries"):
  /// its value, or a recompute byte when `marked` and the plan keeps recompute entries. Thread
  /// safe.
  std::int8_t stored_byte(std::int8_t value, bool marked) const {
    return byte_of_[marked && use_recompute_ ? 1 : 0][static_cast<std::uint8_t>(value)];
  }

  /// The symbol of value-table byte `byte` (its position in info().value_table). Thread safe.
  std::uint8_t symbol(std::int8_t byte) const { return symbol_[static_cast<std::uint8_t>(byte)]; }

  /// Whether the plan keeps recompute entries (info().recompute). Thread safe.
  bool uses_recompute() const { return use_recompute_; }

  /// Blocks [first, last) of the layer that `part` holds whole: `part` covers the layer's
  /// entries [part_first, part_first + part.values.size()), its recompute marks and its
  /// fill_depths indexed from the part's first entry (0), as count_layer_values takes them.
  /// Compresses block b on the executor's threads as write_layer does, `batch` blocks at a
  /// time, and passes each batch in block order to `take(first_block_of_batch, blocks)`.
  /// ERRORS
  ///   Throws TableError kInvalidArgument when the part does not hold a block whole, or for a
  ///   depth the codec cannot store (as write_layer); exceptions of fill_depths, the executor
  ///   and `take` propagate.
  /// THREAD SAFETY
  ///   The encoder may be shared by concurrent calls; fill_depths as in LayerSource.
  void encode(std::uint64_t first,
              std::uint64_t last,
              const LayerSource& part,
              std::uint64_t part_first,
              const Executor& executor,
              std::size_t batch,
              const std::function<void(std::uint64_t, std::span<EncodedBlock>)>& take) const;

 private:
  EncodedBlock encode_block(std::uint64_t b,
                            const LayerSource& part,
                            std::uint64_t part_first) const;

  std::string name_;
  LayerInfo info_;
  WriteOptions options_;
  bool use_recompute_ = false;
  std::array<std::uint8_t, 256> symbol_{};  // by value-table byte
  std::array<std::int8_t, 256> byte_of_[2]{};
};

/// The seek table of a file whose first block starts at `data_start` (head().size()), from the
/// summaries of all its blocks in order (FORMAT.md, "Seek table"). Thread safe.
std::vector<std::byte> seek_table_bytes(std::uint64_t data_start,
                                        std::span<const BlockSummary> blocks);

/// The footer of a file whose bytes before the footer `hash` has been fed (16 bytes). Thread
/// safe.
std::vector<std::byte> footer_bytes(const Xxh64& hash);

/// What a writer puts between a table file's name and its process id to name the temporary it
/// writes the file under (temporary_path).
inline constexpr const char* kTemporaryInfix = ".tmp.";

/// The temporary under which process `pid` writes the table file `path` before renaming it onto
/// `path` (FORMAT.md, "Writing"): `path` + ".tmp.<pid>", in the same directory. write_layer,
/// LayerFileWriter and the writers that call finish_layer_file all name it so, so that a run
/// that finds one of a process that no longer exists can remove it. Thread safe.
std::filesystem::path temporary_path(const std::filesystem::path& path, long pid);

/// Finishes a table file whose blocks are written: `temporary` holds the file's head (head(),
/// `data_start` bytes), then every block's value and depth frames in block order, as `blocks`
/// summarises them (written by any number of writers, each block at `data_start` plus the sizes
/// of the blocks before it). Reads those bytes back for the file checksum, writes the seek
/// table and the footer after them (cutting off anything past the footer), fsyncs the file,
/// renames it onto `path` and fsyncs the directory. The file is then the one write_layer writes
/// for the same layer and options.
/// ERRORS throws TableError kIo naming the file when the temporary cannot be opened or is
///   shorter than its blocks, or a read, write, fsync or the rename fails; the temporary is
///   then removed and `path` left as it was.
/// THREAD SAFETY one call per file, once every writer of its blocks has closed it.
void finish_layer_file(const std::filesystem::path& temporary,
                       const std::filesystem::path& path,
                       std::uint64_t data_start,
                       std::span<const BlockSummary> blocks);

/// Writes one table file from bytes that arrive in file order: `head` at construction, then
/// the blocks, then finish() writes the seek table and the footer. Like write_layer, it writes
/// temporary_path(`path`, its process id) and renames it onto `path` only in finish(), so `path`
/// never holds an incomplete file; destroyed unfinished, it removes the temporary.
class LayerFileWriter {
 public:
  /// Creates the temporary and writes `head`; `block_count` blocks must follow. Throws
  /// TableError kIo when the temporary cannot be created or written.
  LayerFileWriter(const std::filesystem::path& path,
                  std::span<const std::byte> head,
                  std::uint32_t block_count);
  ~LayerFileWriter();
  LayerFileWriter(const LayerFileWriter&) = delete;
  LayerFileWriter& operator=(const LayerFileWriter&) = delete;

  /// Appends blocks: their summaries and their frames, each block's value frame then its
  /// depth frame, concatenated as `bytes` (sum of the summaries' sizes). Throws TableError
  /// kInvalidArgument when the sizes do not add up or more blocks than announced arrive, kIo
  /// when a write fails.
  void append(std::span<const BlockSummary> blocks, std::span<const std::byte> bytes);
  /// Appends one block.
  void append(const EncodedBlock& block);
  /// Blocks appended so far.
  std::uint64_t blocks() const { return summaries_.size(); }

  /// Writes the seek table and the footer, fsyncs and renames the temporary onto `path`.
  /// Throws TableError kInvalidArgument when fewer blocks than announced were appended, kIo
  /// when the system fails.
  void finish();

 private:
  struct File;
  std::unique_ptr<File> file_;
  std::string name_;
  std::uint64_t data_start_ = 0;
  std::uint32_t block_count_ = 0;
  std::vector<BlockSummary> summaries_;
};

}  // namespace sowdb
