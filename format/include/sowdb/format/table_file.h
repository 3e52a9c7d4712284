// One table file: one layer (stone count) of one rule set. Byte layout in format/FORMAT.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sowdb/format/rule_set.h"

namespace sowdb {

/// The newest format version this library writes and reads; it reads versions 1.. this
/// (FORMAT.md, "Version").
inline constexpr std::uint16_t kTableFormatVersion = 6;

/// Header flag bit 0 (required, format version 3): the file has recompute entries (FORMAT.md,
/// "Recompute entries").
inline constexpr std::uint32_t kFlagRecompute = 0x1;

/// Header flag bit 1 (required, format version 4, only with kFlagRecompute): a recompute entry is
/// resolved over every legal move, the moves that stay in the layer included, and every child
/// of a recompute entry is a stored entry (FORMAT.md, "Recompute entries", all-moves rule).
inline constexpr std::uint32_t kFlagAllMoves = 0x2;

/// Header flag bit 2 (required, format version 5): the file holds co-operative reachable sets,
/// not values and depths (FORMAT.md, "Co-operative tables").
inline constexpr std::uint32_t kFlagCooperative = 0x4;

/// Most distinct sets a co-operative file may list (FORMAT.md, check 10).
inline constexpr std::uint32_t kMaxSetCount = std::uint32_t{1} << 24;

/// 64-bit words of one reachable set of a layer of `stones` seeds: the set is a bit set over the
/// differences -n..n (bit n + d for d), ceil((2n + 1) / 64) words (FORMAT.md, "Set table").
constexpr int reach_set_words(int stones) {
  return (2 * stones + 1 + 63) / 64;
}

/// What a layer's entries hold (FORMAT.md, "Co-operative tables").
enum class Objective : std::uint8_t {
  kCompetitive = 0,  ///< Values and depths: each player maximises his own takes.
  kCooperative = 1,  ///< Reachable sets: every difference some joint line of play reaches.
};

/// The objective's name as the command line spells it: "competitive" or "cooperative". Never
/// null. Thread safe.
const char* to_string(Objective objective) noexcept;

/// The objective `text` names as to_string spells it; nullopt for any other text. Thread safe.
std::optional<Objective> parse_objective(std::string_view text) noexcept;

/// The objective in prose: "competitive" or "co-operative". Never null. Thread safe.
const char* objective_prose(Objective objective) noexcept;

/// What `LayerReader::value` and `read_all` give for a recompute entry: an entry whose value
/// the file does not hold, because a probe recomputes it from its children, which are stored
/// (FORMAT.md, "Recompute entries"). Never a real value: values are in [-127, 127].
inline constexpr std::int8_t kRecomputeValue = -128;

/// What `LayerReader::depth` and `read_all` give for a recompute entry whose depth the file does
/// not hold: the caller derives it from the recomputed value (0 when the position has no legal
/// move or its value is 0, else 1). A file with recompute entries never stores this depth.
inline constexpr std::uint16_t kRecomputeDepth = 0xFFFF;

/// How a block's depths are stored (FORMAT.md, "Depth encoding").
enum class DepthCodec : std::uint8_t {
  kAll = 0,            ///< Every entry's depth (format version 1).
  kNonZeroValues = 1,  ///< Only where the value is not 0; value 0 means depth 0 (version 2).
  kNone = 2,           ///< No depths: a co-operative file (version 5).
};

/// Largest block the reader accepts, in entries (FORMAT.md, check 10): bounds the memory one
/// decoded block takes (3 bytes an entry).
inline constexpr std::uint32_t kMaxBlockEntries = std::uint32_t{1} << 24;

/// Default entries per block (FORMAT.md, "Blocks").
inline constexpr std::uint32_t kDefaultBlockEntries = std::uint32_t{1} << 12;

/// Default entries per block of a version 6 file (FORMAT.md, "Version 6"): a cold value lookup
/// decodes at most this many entries.
inline constexpr std::uint32_t kDefaultV6BlockEntries = 256;

/// Largest block of a version 6 file, in entries (FORMAT.md, "Version 6", check 22).
inline constexpr std::uint32_t kMaxV6BlockEntries = 65536;

/// Default zstd level of the writer (WriteOptions::zstd_level).
inline constexpr int kDefaultZstdLevel = 1;

/// WriteOptions::zstd_min_match: the writer picks by level.
inline constexpr int kAutoMinMatch = -1;

/// The error every table function throws. `what()` names the file, the failed check (numbered as
/// in FORMAT.md, "Reader checks") and what was found.
struct TableError : std::runtime_error {
  /// What went wrong, coarse enough to act on.
  enum class Code {
    kIo,               ///< The operating system refused: open, read, write, fsync or rename failed.
    kNotATable,        ///< The file does not start with the table magic.
    kVersion,          ///< A format version this reader does not know.
    kUnsupported,      ///< A required flag or a codec this reader does not know.
    kBadHeader,        ///< A header field is out of its range or disagrees with another.
    kRuleMismatch,     ///< A valid table, but not of the rule set or stone count asked for.
    kTruncated,        ///< The file ends early (or has bytes after its footer).
    kCorrupt,          ///< The value table, the seek table or a block is malformed.
    kChecksum,         ///< A checksum does not match the bytes.
    kInvalidArgument,  ///< The caller passed bad data (writer input, span sizes).
  };

  /// Builds an error with `code` and the full message `message`.
  TableError(Code code, const std::string& message);

  /// The error code.
  Code code() const noexcept { return code_; }

 private:
  Code code_;
};

/// The name of `code` without its `k` ("Io", "NotATable", ...). Never null. Thread safe.
const char* to_string(TableError::Code code) noexcept;

/// What a table file's header says (FORMAT.md, "Header").
struct LayerInfo {
  RuleSet rules;                     ///< The rule set, normalised (RuleSet::normalised()).
  int stones = 0;                    ///< n: seeds on the board in every position of the layer.
  std::uint64_t entries = 0;         ///< layer_size(rules.pits(), stones).
  std::uint32_t block_entries = 0;   ///< Entries per block; the last block may hold fewer.
  std::uint32_t block_count = 0;     ///< ceil(entries / block_entries).
  std::uint16_t format_version = 0;  ///< 1..kTableFormatVersion.
  DepthCodec depth_codec = DepthCodec::kAll;  ///< How the depths are stored.
  /// The file has recompute entries (flag kFlagRecompute, version 3).
  bool recompute = false;
  /// Its recompute entries are resolved over every legal move (flag kFlagAllMoves, version 4);
  /// false: over the moves that gain seeds (version 3).
  bool all_moves = false;
  /// The value-table bytes in symbol order: the distinct values of the layer, and with
  /// `recompute` the recompute bytes -128 and 127 (FORMAT.md, "Recompute entries"). Empty in a
  /// co-operative file.
  std::vector<std::int8_t> value_table;
  /// kCooperative: the file holds reachable sets (flag kFlagCooperative, version 5), listed in
  /// `set_table`; its entries have no value or depth.
  Objective objective = Objective::kCompetitive;
  /// (Co-operative) the distinct sets in symbol order, reach_set_words(stones) words each:
  /// bit n + d of a set (bit (n + d) % 64 of word (n + d) / 64) says that d is reachable.
  std::vector<std::uint64_t> set_table;
  /// (Co-operative) the number of sets in `set_table`; 0 otherwise.
  std::uint32_t set_count = 0;
  std::uint64_t file_size = 0;  ///< Bytes in the file, footer included.
};

/// Runs `tasks` independent tasks, `task(0)` .. `task(tasks - 1)`, each exactly once, in any
/// order and on any threads, and returns when all have finished (rethrowing an exception of a
/// task, if any). The writer uses it to compress blocks in parallel without the format library
/// depending on a thread library; a generator passes e.g. a `tbb::parallel_for` wrapper.
using Executor =
    std::function<void(std::size_t tasks, const std::function<void(std::size_t)>& task)>;

/// Options of `write_layer`.
struct WriteOptions {
  /// Entries per block, 1..kMaxBlockEntries. Smaller blocks: faster random probes, worse ratio.
  std::uint32_t block_entries = kDefaultBlockEntries;
  /// zstd compression level, ZSTD_minCLevel()..ZSTD_maxCLevel(). Output is a pure function of
  /// the input, the options (except `executor` and `progress`) and the zstd library version.
  /// The default, 1, compresses a 4096-entry block 12-24 times faster than level 13, whose
  /// files are 2-3% (Oware) to 10% (Kalah) smaller (docs/BENCHMARKS.md, "zstd level"); 19
  /// gives the smallest files.
  int zstd_level = kDefaultZstdLevel;
  /// zstd's minimum match length (ZSTD_c_minMatch, 3..7), 0 for the level's own, or
  /// kAutoMinMatch: 7 at levels up to 1, 5 above, the smallest frames measured at those levels.
  /// Longer matches also make the frames faster to decode.
  int zstd_min_match = kAutoMinMatch;
  /// How to store the depths. kNonZeroValues (the default, format version 2) needs every entry
  /// with value 0 to have depth 0, which the solver guarantees; kAll writes a version 1 file.
  DepthCodec depth_codec = DepthCodec::kNonZeroValues;
  /// The format version to write: 0 (the default) writes the lowest version 1..5 that
  /// describes the file; 6 writes a competitive layer as format version 6 (FORMAT.md, "Version
  /// 6": small Huffman-coded blocks, values and depths in separate streams), which needs depth
  /// codec kNonZeroValues and block_entries <= kMaxV6BlockEntries (kDefaultV6BlockEntries is
  /// the recommended size) and ignores the zstd options. Co-operative layers
  /// (write_reach_layer) are version 5 only: 6 is kInvalidArgument there.
  std::uint16_t format_version = 0;
  /// Runs the block compression tasks; empty: one after the other on the calling thread. Each
  /// task compresses one block with its thread's zstd context; the blocks are written in order,
  /// so the file's bytes do not depend on the executor.
  Executor executor;
  /// When set, called from the calling thread as blocks are written: entries written so far, of
  /// the layer's total. An exception it throws propagates out of write_layer, which then
  /// removes its temporary file (the generator's stop hook relies on this).
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

/// A layer as the writer reads it, for callers that do not hold a full `uint16` depth array
/// (the generator keeps a depth in one byte plus an overflow map).
struct LayerSource {
  /// layer_size(rules.pits(), stones) values in index order, each in [-n, n].
  std::span<const std::int8_t> values;
  /// Writes the depths of indices `first .. first + out.size() - 1` into `out`. Called once per
  /// block, for disjoint ranges, possibly concurrently from the executor's threads (so it must
  /// be thread safe for disjoint ranges). An exception it throws aborts the write and leaves
  /// the old file in place.
  std::function<void(std::uint64_t first, std::span<std::uint16_t> out)> fill_depths;
  /// Optional: the entries to store as recompute entries (FORMAT.md, "Recompute entries"), one
  /// bit an entry: bit `i % 64` of word `i / 64` marks entry `i`. Empty: none (the file is
  /// version 1 or 2); else ceil(entries / 64) words, bits past the last entry 0. `values` keeps
  /// every entry's true value: a marked entry of value >= 0 is stored with the "recompute,
  /// derived depth" symbol and its depth must be what a reader derives (0 when the value is 0;
  /// 0 or 1 when it is > 0: 0 only for a position with no legal move); a marked entry of value
  /// < 0 is stored with the "recompute, stored depth" symbol and keeps its depth (in a layer of
  /// 127 stones, which has no such symbol, it stores its value). The writer does not check
  /// that the marked values are recomputable: that is the caller's contract. Needs depth codec
  /// kNonZeroValues. Read only, so concurrent reads are safe.
  std::span<const std::uint64_t> recompute;
  /// The marks follow the all-moves rule (format version 4, flag kFlagAllMoves): every marked
  /// entry is stored with the "recompute, stored depth" symbol and keeps its depth (in a layer
  /// of 127 stones: its value), whatever its value. The caller's contract: every child of a
  /// marked entry, over all its legal moves, is a stored entry.
  bool all_moves = false;
};

/// Writes one layer as a table file at `path` (FORMAT.md).
///
/// PARAMETERS
///   path     the file to create or replace.
///   rules    the rule set; its normalised() form is written, so the file reads back normalised.
///   stones   n, 0..kMaxIndexedStones.
///   values   layer_size(rules.pits(), stones) values in index order, each in [-n, n].
///   depths   as many depths to conversion, in index order.
///   options  block size and zstd level.
///   The file is version 1 (depth codec 0), 2 (depth codec 1) or, from the LayerSource overload
///   with recompute entries, 3 (4 under the all-moves rule): the lowest version that describes
///   it.
/// ERRORS
///   Throws TableError: kInvalidArgument for bad input (nothing is created), kIo when the
///   operating system fails (disk full included: every write is checked). It writes to
///   `path` + ".tmp.<pid>" in the same directory, fsyncs it, renames it onto `path` and fsyncs
///   the directory, so `path` holds either its old content or the complete new file, never a
///   partial one; on failure the temporary is removed.
/// THREAD SAFETY
///   Single-threaded per file. Calls for different paths may run in parallel; two concurrent
///   calls for the same path from one process share a temporary name and must not happen.
void write_layer(const std::filesystem::path& path,
                 const RuleSet& rules,
                 int stones,
                 std::span<const std::int8_t> values,
                 std::span<const std::uint16_t> depths,
                 const WriteOptions& options = {});

/// As above, with the depths supplied block by block through `source.fill_depths`.
/// PARAMETERS as above; `source.fill_depths` must be set; `source.recompute` is optional.
/// ERRORS as above; kInvalidArgument also for an empty `fill_depths`, a `recompute` span of the
///   wrong size or with bits past the last entry, recompute entries with depth codec kAll, a
///   derived-depth recompute entry whose depth is not the derived one, or (with recompute
///   entries) a stored depth of kRecomputeDepth. An exception thrown by
///   `fill_depths` or by the executor propagates unchanged (after the temporary is removed).
/// THREAD SAFETY as above; `fill_depths` may be called concurrently (see LayerSource).
void write_layer(const std::filesystem::path& path,
                 const RuleSet& rules,
                 int stones,
                 const LayerSource& source,
                 const WriteOptions& options = {});

/// Writes one layer of co-operative reachable sets as a table file at `path` (FORMAT.md,
/// "Co-operative tables", format version 5).
/// PARAMETERS
///   path, rules, stones  as for write_layer.
///   sets     reach_set_words(stones) words per entry, layer_size(rules.pits(), stones) entries
///            in index order: bit n + d of an entry's words says that difference d is reachable.
///            Every set is non-empty and has no bit above 2n.
///   options  block size, zstd level, executor, progress (the depth codec is ignored).
/// ERRORS as write_layer: kInvalidArgument (nothing created) for a span of the wrong size, an
///   empty set, a bit above 2n, or more than kMaxSetCount distinct sets; kIo when the system
///   fails. The file is replaced atomically.
/// THREAD SAFETY as write_layer.
void write_reach_layer(const std::filesystem::path& path,
                       const RuleSet& rules,
                       int stones,
                       std::span<const std::uint64_t> sets,
                       const WriteOptions& options = {});

/// Options of `LayerReader::open`.
struct OpenOptions {
  /// Decoded blocks kept per reader, value and depth blocks counted separately; 0 caches none.
  /// The least recently used block is evicted first. A lookup, an insertion and an eviction
  /// each take O(1) time whatever the size (a hash map over an LRU list), so a cache of
  /// millions of blocks costs memory, not probe time: about 100 bytes per block plus the
  /// decoded frame (1 byte per entry for values, up to 2 for depths). From 32 blocks on, the cache
  /// is cut by block into up to 16 shards of at least 16 blocks, each an LRU with its own lock, so
  /// that threads probing one reader rarely wait for each other; with room for every frame of
  /// the file (2 * block_count), nothing is evicted and a cached frame is found without a lock.
  /// A version 6 file's blocks are cached alike: a miss decodes the whole block (a depth miss
  /// both of its blocks, keeping the depths), checked then and not when a kept block answers.
  /// With a cache of 0 for a stream, a version 6 lookup decodes its block only up to the entry
  /// (the cheapest lookup when nothing is kept).
  std::size_t cache_blocks = 8;
  /// When set, depth frames go in a cache of their own that holds this many (as many as
  /// block_count: all, found without a lock), and `cache_blocks` counts value frames only (as
  /// many as block_count: all). A reader that reads each depth once, in index order, but the
  /// values again and again (verify) keeps the values without piling up depths. Unless the depth
  /// cache holds them all, each thread also keeps the last depth frame it read (answered
  /// without a lock when the next lookup falls in the same block), outside this count, until it
  /// reads another depth frame or ends: so 0 still keeps one frame per thread. A depth frame
  /// holds on to its block's value frame, so up to cache_blocks + depth_cache_blocks value
  /// frames (plus one per thread) may stay in memory. Unset: one cache of `cache_blocks` frames
  /// of either stream.
  std::optional<std::size_t> depth_cache_blocks;
  /// Verify the header checksum and the whole-file checksum on open and every frame checksum
  /// on decode (FORMAT.md, checks 5, 14 and 17). Turn off only for fuzzing or forensics: without
  /// them the reader still never reads out of bounds or crashes, but a corrupt file may give wrong
  /// values.
  bool verify_checksums = true;
  /// When set, open fails with kRuleMismatch unless the file's rule set equals its normalised()
  /// form.
  std::optional<RuleSet> expected_rules;
  /// When set, open fails with kRuleMismatch unless the file holds this many stones.
  std::optional<int> expected_stones;
  /// When set, the cache is sized in bytes of decoded frames instead, and this replaces
  /// `cache_blocks`: it holds cache_bytes / (block_entries x B) frames, B = 1 for a value frame
  /// and 2 for a depth frame (a shared cache counts every frame at 2). With
  /// `depth_cache_bytes` or `depth_cache_blocks` set, value frames only. Excludes the ~100
  /// bytes of bookkeeping per frame.
  std::optional<std::size_t> cache_bytes;
  /// When set, depth frames get a cache of their own of depth_cache_bytes / (2 x block_entries)
  /// frames, as `depth_cache_blocks` (which it replaces) describes.
  std::optional<std::size_t> depth_cache_bytes;
  /// (Version 6 files; older versions are always read with pread.) Off, the default: a lookup
  /// reads the bytes it decodes (its block's hash group) with pread, so a file cut short or
  /// damaged after open gives a refused lookup (check 16 or 25), never a wrong answer or a
  /// crash. On: the file is mapped read-only at open and a lookup copies those bytes out of
  /// the mapping (no system call per lookup; `prefetch` can start loading them). The library
  /// installs no signal handler: a file cut short while a reader maps it ends the process with
  /// SIGBUS when a lookup touches a page the file no longer has, as with any reader that maps a
  /// file. For a process whose table files are not truncated under it.
  bool memory_map = false;
};

/// Counters of a LayerReader's block cache (OpenOptions::cache_blocks).
struct CacheStats {
  std::uint64_t hits = 0;    ///< Frame lookups answered from the cache.
  std::uint64_t misses = 0;  ///< Frames decoded (by value/depth; read_all bypasses the cache).
  std::size_t cached = 0;    ///< Frames held now, at most cache_blocks (+ depth_cache_blocks).
};

/// Random access to one table file. The file is read with pread on demand (a version 6 file
/// opened with OpenOptions::memory_map: mapped, and its blocks copied out of the mapping), so
/// the reader keeps a file descriptor open; a writer replaces files by rename, which leaves an
/// open reader on the old file.
class LayerReader {
 public:
  /// Opens and checks the table file at `path`: header, sizes, value table, seek table and (if
  /// options.verify_checksums) the whole-file checksum, i.e. FORMAT.md checks 1..15.
  /// RETURN a reader, never null. ERRORS throws TableError with the first failed check's code.
  /// THREAD SAFETY any number of opens may run in parallel.
  static std::unique_ptr<LayerReader> open(const std::filesystem::path& path,
                                           const OpenOptions& options = {});

  /// As `open`, for a table held in memory (the reader takes the bytes). For tests and fuzzing.
  static std::unique_ptr<LayerReader> open_memory(std::vector<std::byte> bytes,
                                                  const OpenOptions& options = {});

  ~LayerReader();
  LayerReader(const LayerReader&) = delete;
  LayerReader& operator=(const LayerReader&) = delete;

  /// The header's content. Thread safe.
  const LayerInfo& info() const noexcept;

  /// The value of the position with index `index` (see index.h), in [-n, n], or
  /// kRecomputeValue for a recompute entry (only when info().recompute): the caller recomputes
  /// it from the position's moves into smaller layers (FORMAT.md, "Recompute entries").
  /// RETURN nullopt when index >= info().entries or when its block fails to read or decode
  /// (FORMAT.md checks 16..21); never a wrong value from a corrupt block.
  /// NOTES decodes only the value stream of the one block needed; recent blocks are cached
  /// (OpenOptions::cache_blocks, least recently used evicted first, O(1) per lookup).
  /// THREAD SAFETY thread safe: the cache is behind mutexes, decoding happens outside them (two
  /// threads missing on the same block may both decode it; one copy is kept).
  std::optional<std::int8_t> value(std::uint64_t index) const noexcept;

  /// Hints that `value(index)` comes soon: when the entry's value block is decoded and held in
  /// a cache that keeps every block (OpenOptions::cache_blocks), starts loading the entry into
  /// the processor's cache, so that several lookups' memory latencies overlap; in a version 6
  /// file opened with OpenOptions::memory_map, reads the block index and starts loading the
  /// bytes the lookup will copy and hash (the entry's group of value blocks). Does nothing
  /// otherwise (it never decodes, locks, fails or makes a system call).
  /// THREAD SAFETY thread safe.
  void prefetch(std::uint64_t index) const noexcept;

  /// The depth to conversion of the position with index `index`. As `value`, for the depth
  /// stream; kRecomputeDepth for a recompute entry whose depth the file does not store (a
  /// recompute entry of value < 0 stores its depth, and this returns it).
  /// NOTES with depth codec 1 this decodes the block's value stream too.
  std::optional<std::uint16_t> depth(std::uint64_t index) const noexcept;

  /// A value and its depth, as `value` and `depth` give them.
  struct ValueDepth {
    std::int8_t value = 0;
    std::uint16_t depth = 0;
  };

  /// `value(index)` and `depth(index)` from one lookup: a version 6 file's value block is
  /// walked once for both (two calls walk it twice). RETURN nullopt when either would be
  /// nullopt. THREAD SAFETY as `value`.
  std::optional<ValueDepth> value_and_depth(std::uint64_t index) const noexcept;

  /// (Co-operative file) the symbol of the entry `index`: its set is
  /// `info().set_table[symbol * reach_set_words(n) ..]` (see `set`). RETURN nullopt for an index
  /// out of range, a block that fails to read or decode, or a file that is not co-operative
  /// (whose `value` and `depth` answer instead; on a co-operative file they give nullopt).
  /// THREAD SAFETY as `value`.
  std::optional<std::uint32_t> set_symbol(std::uint64_t index) const noexcept;

  /// (Co-operative file) the words of set `symbol`, reach_set_words(n) of them; empty for a
  /// symbol past the set table. Thread safe.
  std::span<const std::uint64_t> set(std::uint32_t symbol) const noexcept;

  /// (Co-operative file) every entry's set symbol, in index order, bypassing the cache.
  /// PARAMETERS out: exactly info().entries long.
  /// ERRORS throws TableError: kInvalidArgument for a wrong span size or a file that is not
  ///   co-operative; else the code of the first failed block check.
  /// THREAD SAFETY thread safe.
  void read_all_symbols(std::span<std::uint32_t> out) const;

  /// (Co-operative file) every entry's set, in index order: reach_set_words(n) words an entry,
  /// as read_all_symbols and `set` give them. PARAMETERS out: exactly info().entries *
  /// reach_set_words(n) long. ERRORS as read_all_symbols. THREAD SAFETY thread safe.
  void read_all_sets(std::span<std::uint64_t> out) const;

  /// The block cache's counters so far. THREAD SAFETY thread safe (a snapshot under the
  /// cache's lock).
  CacheStats cache_stats() const noexcept;

  /// Decodes the whole layer, bypassing the cache. Recompute entries read as kRecomputeValue
  /// and (when the file does not store their depth) kRecomputeDepth, as in `value`/`depth`.
  /// PARAMETERS values, depths: each either empty (that stream is skipped) or exactly
  ///   info().entries long.
  /// ERRORS throws TableError: kInvalidArgument for a wrong span size or a co-operative file
  ///   (read_all_symbols reads those), else the code of the first failed block check (kIo,
  ///   kTruncated, kChecksum, kCorrupt).
  /// THREAD SAFETY thread safe.
  void read_all(std::span<std::int8_t> values, std::span<std::uint16_t> depths) const;

  /// What `read_block` decoded.
  struct BlockRead {
    bool values = false;  ///< The value stream decoded (or was not asked for).
    bool depths = false;  ///< The depth stream decoded (or was not asked for).
    std::string error;    ///< Why the first stream that failed did, else empty.
  };

  /// Decodes block `block` (entries block * block_entries onwards, entries_in_block of them),
  /// bypassing the cache, as read_all does for the whole layer: for callers that read a layer
  /// in parallel and carry on past a damaged block.
  /// PARAMETERS values, depths: each either empty (that stream is skipped) or exactly the
  ///   block's entry count long. A stream that fails leaves its span unspecified. With depth
  ///   codec 1 the depths need the block's values: they fail with them.
  /// RETURN which streams decoded; a block index past the last fails both.
  /// THREAD SAFETY thread safe; never throws (a failed allocation fails the stream).
  BlockRead read_block(std::uint32_t block,
                       std::span<std::int8_t> values,
                       std::span<std::uint16_t> depths) const noexcept;

  /// Entries in block `block` (the last block may be short); 0 past the last block.
  std::uint32_t block_size(std::uint32_t block) const noexcept;

  struct Impl;

 private:
  explicit LayerReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Reads and checks the header of the table file at `path` (FORMAT.md checks 1..12: header,
/// value table, file size, footer magic), without the seek table, the blocks or the checksum.
/// RETURN its LayerInfo. ERRORS throws TableError. THREAD SAFETY thread safe.
LayerInfo read_info(const std::filesystem::path& path);

}  // namespace sowdb
