// Looking up a directory of tables: values, move worths, best moves and principal lines.
//
// A table directory (written by `sowdb gen`) holds one file per layer, `layer-NNN.sdb` for
// n = 0..N seeds on the board, and a manifest `sowdb.json` naming the variant. A TableSet opens
// such a directory, opens each layer lazily on first use, and answers every query with a status;
// it never prints, exits or throws after `open`. The directory's layout (names, the scan of its
// layer files, TableSetError) is table_directory.h's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sowdb/format/rule_set.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/manifest.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/table_directory.h"
#include "sowdb/probe/variant.h"

namespace sowdb {

/// The outcome of a probe.
enum class ProbeStatus : std::uint8_t {
  kOk = 0,         ///< The answer is valid.
  kBadPosition,    ///< Not a position of this board: seeds beyond pit 2P-1, or > 255 seeds.
  kTooManyStones,  ///< More seeds on the board than the tables hold (n > max_stones()).
  kMissingTable,   ///< A layer file needed for the answer could not be found or opened.
  kCorruptTable,   ///< A layer file failed a check or a block failed to read or decode.
  kGameOver,       ///< best_move only: the position has no legal move.
  /// The tables hold the other objective: a competitive query (value, moves, ...) on
  /// co-operative tables, or a co-operative one (reach, ...) on competitive tables.
  kWrongObjective,
  /// cooperative_line only: no joint line reaches the difference asked for.
  kUnreachable,
};

/// The name of `status` without its `k` ("Ok", "BadPosition", ...). Never null. Thread safe.
const char* to_string(ProbeStatus status) noexcept;

/// The default block cache of a layer, in bytes of decoded frames (TableSetOptions::cache_bytes,
/// sowdb_open_options.cache_bytes): 64 KiB, eight depth frames of the generator's 4096-entry
/// blocks.
inline constexpr std::size_t kDefaultCacheBytes = std::size_t{64} << 10;

/// Options of `TableSet::open`. Caches are sized in bytes (cache_bytes, depth_cache_bytes); the
/// block counts beside them are deprecated (2026-11-25; removed before 1.0).
struct TableSetOptions {
  /// DEPRECATED (2026-11-25; removed before 1.0): use cache_bytes. Decoded blocks kept in memory
  /// per layer (value and depth blocks counted separately; see
  /// OpenOptions::cache_blocks). A layer whose blocks all fit (2 per 4096 entries with the
  /// writer's defaults) keeps every decoded block and reads them without a lock, which is what
  /// an engine probing from many threads wants when it can spare about 3 bytes per entry.
  std::size_t cache_blocks = 8;
  /// DEPRECATED (2026-11-25; removed before 1.0): use depth_cache_bytes.
  /// When set, each layer's depth blocks get a cache of their own of this many blocks, and
  /// `cache_blocks` counts value blocks only (see OpenOptions::depth_cache_blocks, also for the
  /// frame each thread keeps): for a caller that reads each depth once but the values again and
  /// again, or one that wants to size the two apart.
  std::optional<std::size_t> depth_cache_blocks;
  /// Verify checksums: the whole file when a layer is first opened, each block when decoded
  /// (FORMAT.md, checks 5, 14 and 17). Off only for forensics.
  bool verify_checksums = true;
  /// Bytes of decoded blocks kept in memory per layer (OpenOptions::cache_bytes: a value frame
  /// costs 1 byte per entry, a depth frame 2, and one cache for both counts every frame at 2).
  /// Unset: `cache_blocks` decides (deprecated; its default, 8 blocks, is this default's 64 KiB
  /// with the generator's 4096-entry blocks). A layer whose blocks all fit (3 bytes per entry)
  /// keeps every decoded block and reads them without a lock, which is what an engine probing
  /// from many threads wants.
  std::optional<std::size_t> cache_bytes;
  /// When set, each layer's depth blocks get a cache of their own of this many bytes, and
  /// `cache_bytes` counts value blocks only (OpenOptions::depth_cache_bytes): for a caller that
  /// reads each depth once but the values again and again. Replaces depth_cache_blocks.
  std::optional<std::size_t> depth_cache_bytes;
  /// Map version 6 layer files read-only instead of reading each lookup's bytes with pread
  /// (OpenOptions::memory_map; docs/LIBRARY.md). Off by default. On, a layer file cut short
  /// while the set is open ends the process with SIGBUS (the library installs no signal
  /// handler); off, it makes the probes that need the lost bytes return kCorruptTable.
  bool memory_map = false;
};

/// One legal move with its worth under perfect play.
struct MoveWorth {
  Move move;      ///< The move: pit, gain, extra turn and the resulting position.
  int worth = 0;  ///< Rules::worth(move, value of move.child): seeds the mover nets from here.
  /// Plies to realise the worth after this move: 0 when the move gains seeds (or ends the game),
  /// else the child's depth (FORMAT.md, "Values and depths").
  int depth = 0;
};

/// The legal moves of a position with their worths, in pit order.
struct MoveWorths {
  std::array<MoveWorth, kMaxPitsPerSide> moves{};  ///< The first `size` entries are valid.
  int size = 0;                                    ///< Number of legal moves, 0..P.

  /// Range over the valid entries, for range-for loops.
  const MoveWorth* begin() const { return moves.data(); }
  const MoveWorth* end() const { return moves.data() + size; }
};

/// One ply of a principal line.
struct LineStep {
  int mover = 0;            ///< 0: the player to move at the root; 1: the other player.
  int pit = 0;              ///< The pit sown, 0..P-1, from the mover's side.
  int gain = 0;             ///< Seeds the move sent to the mover's store.
  bool extra_turn = false;  ///< The same player moves again (Kalah family).
  Pits before{};            ///< The position before the move, from the mover's side.
};

/// Why a principal line stopped.
enum class LineEnd : std::uint8_t {
  kGameOver,    ///< The player to move has no legal move.
  kRepetition,  ///< A position repeated: endless play, the remaining seeds split evenly.
  kMaxPlies,    ///< The ply limit was reached.
};

/// A line of best moves (see TableSet::best_move) from a position to the end of the game.
struct PrincipalLine {
  std::vector<LineStep> steps;       ///< The moves played, first to last.
  LineEnd end = LineEnd::kGameOver;  ///< Why the line stopped.
  Pits last{};         ///< The position after the last step, from the side of `last_mover`.
  int last_mover = 0;  ///< Who is to move in `last` (0: the root's mover).
  /// The root mover's gains along the line minus the other player's. Plus the value of `last`
  /// (seen from the root mover), it is the root's value.
  int net_gain = 0;
};

/// A co-operative reachable set (FORMAT.md, "Co-operative tables"): the differences d in
/// [-n, n] (the mover's takes from here on minus the opponent's) that some joint line of play
/// reaches; bit n + d of `bits`.
struct ReachSet {
  int stones = 0;                       ///< n: the differences lie in [-n, n].
  std::array<std::uint64_t, 4> bits{};  ///< Bit n + d (word (n + d) / 64) for each d.

  /// Whether d is in the set (false outside [-n, n]).
  bool contains(int d) const {
    if (d < -stones || d > stones)
      return false;
    const int bit = stones + d;
    return ((bits[static_cast<std::size_t>(bit / 64)] >> (bit % 64)) & 1) != 0;
  }
  /// The differences in rising order.
  std::vector<int> differences() const {
    std::vector<int> out;
    for (int d = -stones; d <= stones; ++d) {
      if (contains(d))
        out.push_back(d);
    }
    return out;
  }
};

/// One legal move with what joint play can still reach after it.
struct MoveReach {
  Move move;  ///< The move: pit, gain, extra turn and the resulting position.
  /// The differences reachable from the position through this move, from the mover's side
  /// (each child difference d mapped to Rules::worth(move, d)); `stones` is the position's n.
  ReachSet reachable;
};

/// The legal moves of a position with their reachable sets, in pit order.
struct MoveReaches {
  std::array<MoveReach, kMaxPitsPerSide> moves{};  ///< The first `size` entries are valid.
  int size = 0;                                    ///< Number of legal moves, 0..P.

  const MoveReach* begin() const { return moves.data(); }
  const MoveReach* end() const { return moves.data() + size; }
};

/// What TableSet::read_layer writes for an entry whose value does not read. Never a value:
/// values are in [-127, 127].
inline constexpr std::int8_t kUnreadableValue = -128;

/// What TableSet::read_layer passes for an entry whose depth does not read.
inline constexpr std::uint16_t kUnreadableDepth = 0xFFFF;

/// One smaller layer as the caller of TableSet::read_layer holds it.
struct LayerValues {
  /// The layer's values in index order, as read_layer wrote them (kUnreadableValue where they
  /// did not read); empty: not at hand, the entries needed are probed through the table set.
  std::span<const std::int8_t> values;
  /// The layer's recompute entries as read_layer reported them (bit i % 64 of word i / 64);
  /// empty: none known, so every entry of `values` counts as a stored one.
  std::span<const std::uint64_t> recompute;
};

/// Options of TableSet::read_layer.
struct ReadLayerOptions {
  /// Runs the independent tasks of each pass (sowdb::Executor: e.g. a tbb::parallel_for
  /// wrapper, since the probe library has no thread library); empty: all on the calling thread.
  /// The results do not depend on it.
  Executor executor;
  /// When set, read_layer also reads the depths and calls this once per block, for disjoint
  /// ranges (entry `first` onwards, in index order) and possibly concurrently from the
  /// executor's threads: each entry's depth as value(position, v, d) gives it, or
  /// kUnreadableDepth where that fails. Unset: no depth frame is read.
  std::function<void(std::uint64_t first, std::span<const std::uint16_t> depths)> depths;
  /// False: recompute entries are not resolved; each keeps the byte the file stores for it
  /// (kRecomputeValue, with its bit set in `recompute`), and the pass over the layer's positions
  /// that resolves them is skipped (for a caller that resolves the few it needs itself). Then
  /// `depths` must be unset.
  bool resolve = true;
  /// When set, called from the executor's threads, possibly concurrently, as work is done:
  /// `done` of `total` units (an entry in each pass). It must not throw.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

/// A directory of tables of one rule set. Create with `open`.
class TableSet {
 public:
  /// Opens the table directory `dir`: reads the manifest and the header of every
  /// `layer-NNN.sdb`, but no values (layers are opened on first use).
  /// PARAMETERS
  ///   dir      a directory written by `sowdb gen` (or gen::generate).
  ///   options  cache size and checksum verification.
  /// RETURN the table set, never null.
  /// ERRORS throws TableSetError (a std::runtime_error; its cause() an OpenError) with a
  ///   one-line message naming `dir` when the directory is missing or unreadable, holds no layer
  ///   files, lacks layer-000.sdb, holds layers of different rule sets, or its manifest
  ///   (sowdb.json) is missing, damaged, edited by hand, written by an older sowdb, or names a
  ///   variant whose rules differ from a layer's header (the message names that file). A
  ///   layer whose header cannot be read does not fail `open`: its probes return kCorruptTable
  ///   later; positions above a missing layer give kMissingTable, naming it.
  /// NOTES the variant (with its seeds per pit) comes from the manifest; the rules from the
  ///   layer headers, which the manifest must agree with.
  /// THREAD SAFETY any number of opens may run in parallel.
  static std::unique_ptr<TableSet> open(const std::filesystem::path& dir,
                                        const TableSetOptions& options = {});

  ~TableSet();
  TableSet(const TableSet&) = delete;
  TableSet& operator=(const TableSet&) = delete;

  /// The variant (canonical name via to_string()). Thread safe.
  const Variant& variant() const noexcept;
  /// The rule set of every layer, normalised. Thread safe.
  const RuleSet& rules() const noexcept;
  /// The rules engine for rules(). Thread safe.
  const Rules& engine() const noexcept;
  /// The largest n such that layers 0..n all exist as files at open. Thread safe.
  int max_stones() const noexcept;
  /// The directory given to open. Thread safe.
  const std::filesystem::path& directory() const noexcept;
  /// What the tables hold: competitive values and depths, or co-operative reachable sets
  /// (`sowdb gen --objective cooperative`). The value probes below answer kWrongObjective on
  /// co-operative tables, the reach probes on competitive ones. Thread safe.
  Objective objective() const noexcept;

  /// The value and depth of `position` (FORMAT.md, "Values and depths": value in [-n, n] from the
  /// mover's side, depth in plies to realise it).
  /// PARAMETERS position: pits 0..2P-1, mover first; pits 2P and up must be 0.
  ///   value, depth: written only on kOk.
  /// RETURN kOk, kBadPosition, kTooManyStones, kMissingTable or kCorruptTable (also for a
  ///   recompute entry that does not resolve).
  /// NOTES a recompute entry (FORMAT.md, "Recompute entries") is resolved here: every legal move
  ///   of the position is looked up, a move that gains seeds in its smaller layer and one that
  ///   gains nothing in the same layer; the entries they reach are stored values (the format's
  ///   all-moves rule), and the best worth is the value. The depth is read from the file, or
  ///   derived (0 for value 0, else 1) for a "recompute, derived depth" entry. So a probe reads
  ///   at most 1 + P value entries and one depth entry, never more. Answers are the same as from
  ///   tables without recompute entries. A recompute entry whose move leads to another
  ///   recompute entry (a file that breaks the rule) gives kCorruptTable, explained by
  ///   layer_error().
  /// THREAD SAFETY thread safe; never throws.
  ProbeStatus value(const Pits& position, int& value, int& depth) const noexcept;

  /// The value of `position` alone, for engines that do not need the depth: as the value of
  /// `value(position, value, depth)`, but the depth frames of the tables are never read or
  /// decoded (a cold probe decodes one value block, plus up to P value blocks of its children's
  /// layers, its own included, for a recompute entry), and the depth cache stays untouched.
  /// PARAMETERS position: as above. value: written only on kOk.
  /// RETURN kOk, kBadPosition, kTooManyStones, kMissingTable or kCorruptTable.
  /// THREAD SAFETY thread safe; never throws.
  ProbeStatus value(const Pits& position, int& value) const noexcept;

  /// Hints that `value(position, value)` comes soon, for a caller that knows several positions
  /// it will probe (a search's children): where the entry's block is decoded already and every
  /// block of its layer is kept (TableSetOptions::cache_blocks), the entry starts on its way to
  /// the processor's cache, so that the probes' memory latencies overlap. Otherwise, and for a
  /// position no table holds, it does nothing; it never reads a file or fails.
  /// THREAD SAFETY thread safe; never throws.
  void prefetch(const Pits& position) const noexcept;

  /// Every legal move of `position` with its worth and depth, in pit order. A finished game
  /// gives kOk and no moves.
  /// RETURN as `value`. `out` is complete only on kOk.
  /// THREAD SAFETY thread safe; never throws.
  ProbeStatus moves(const Pits& position, MoveWorths& out) const noexcept;

  /// The best move of `position`: value first, then depth. With v the position's value, among
  /// the moves worth v: v > 0 the one of smallest depth (the quickest win); v < 0 the one of
  /// largest depth (the longest defence); v = 0 a move that gains seeds, else the smallest
  /// depth; remaining ties go to the lowest pit. Along best moves from a position of value
  /// v != 0 the depth falls by one each ply until seeds are gained, so play progresses.
  /// RETURN as `moves`, plus kGameOver when there is no legal move.
  /// THREAD SAFETY thread safe; never throws.
  ProbeStatus best_move(const Pits& position, MoveWorth& out) const noexcept;

  /// Plays best moves from `position` until the game ends, a position repeats (same position,
  /// same player to move, no seeds gained in between) or `max_plies` moves were made.
  /// RETURN as `moves`; on an error `out` holds the steps made so far.
  /// THREAD SAFETY thread safe; never throws (a failed allocation gives kCorruptTable).
  ProbeStatus principal_line(const Pits& position,
                             PrincipalLine& out,
                             int max_plies = 1000) const noexcept;

  /// (Co-operative tables) the reachable set R(position): every difference d (the mover's takes
  /// from here on minus the opponent's) that some joint line of play reaches. With stores A
  /// (the mover's) and B, the game can still end with equal stores exactly when B - A is in it.
  /// PARAMETERS position: as for `value`. out: written only on kOk.
  /// RETURN kOk, kWrongObjective (competitive tables), kBadPosition, kTooManyStones,
  ///   kMissingTable or kCorruptTable. One set lookup (one value block at most).
  /// THREAD SAFETY thread safe; never throws.
  ProbeStatus reach(const Pits& position, ReachSet& out) const noexcept;

  /// (Co-operative tables) every legal move of `position` with the differences still reachable
  /// through it, from the mover's side, in pit order (their union is reach(position), plus 0
  /// where play from it can go on forever). A finished game gives kOk and no moves.
  /// RETURN as `reach`. THREAD SAFETY thread safe; never throws.
  ProbeStatus reach_moves(const Pits& position, MoveReaches& out) const noexcept;

  /// (Co-operative tables) a joint line of play from `position` that ends with the mover's takes
  /// minus the opponent's equal to `target` (B - A for stores A, B: a balanced end). Each step
  /// keeps the target reachable; a move that gains seeds is taken whenever one keeps it, else
  /// the line takes the fewest moves that gain nothing to a position where one does (a
  /// breadth-first search in the layer), so it always progresses. Only when the target is 0 and
  /// only endless play reaches it does the line end in a repetition (kRepetition, the seeds left
  /// split evenly); else it ends with the game (kGameOver), or at `max_plies` (kMaxPlies).
  /// `net_gain` is the root mover's gains minus the other player's along the line.
  /// RETURN kOk, kUnreachable (target not in reach(position); `out` empty), or as `reach`.
  /// NOTES the search may visit every position of a layer that moves gaining nothing join.
  /// THREAD SAFETY thread safe; never throws (a failed allocation gives kCorruptTable).
  ProbeStatus cooperative_line(const Pits& position,
                               int target,
                               PrincipalLine& out,
                               int max_plies = 1000) const noexcept;

  /// Reads every entry of layer `stones` in index order: for the caller that wants a whole layer
  /// (verify, statistics) rather than a position. Each block is decoded once, and recompute
  /// entries are resolved from the caller's arrays of the smaller layers with the rules that
  /// `value` uses, so reading a layer costs no block cache.
  /// PARAMETERS
  ///   stones     n, 0..max_stones().
  ///   below      below[m] for the layers m < n that the caller holds (read by read_layer
  ///              before); shorter than n, or an entry with empty values: that layer's entries
  ///              are probed through the table set when a recompute entry needs them.
  ///   values     layer_size(pits, n) entries, written: each entry's value as
  ///              value(position, v) gives it, or kUnreadableValue where that fails
  ///              (unresolved recompute entries too when options.resolve is false).
  ///   recompute  when not null, set to the layer's recompute entries (one bit each, bit i % 64
  ///              of word i / 64), for a later call's `below`; empty when the file has none.
  ///   options    executor, depths, progress.
  /// RETURN kOk when every value (and every depth asked for) read; else the status of a failure
  ///   (kMissingTable or kCorruptTable; layer_error() says why), the other entries still read.
  ///   kTooManyStones when n > max_stones().
  /// NOTES an entry of `below` with recompute bits lets the format's rule (every child of a
  ///   recompute entry is stored) be checked as `value` checks it: a recompute entry whose move
  ///   leads to one of them does not read. Without the bits such a child counts as stored, and
  ///   the entry reads as the child's value gives it.
  /// ERRORS throws std::invalid_argument when `values` or an entry of `below` has the wrong
  ///   size, std::bad_alloc when memory runs out; an exception of the executor or a callback
  ///   propagates.
  /// THREAD SAFETY thread safe; the work runs on the executor.
  ProbeStatus read_layer(int stones,
                         std::span<const LayerValues> below,
                         std::span<std::int8_t> values,
                         std::vector<std::uint64_t>* recompute,
                         const ReadLayerOptions& options = {}) const;

  /// The error recorded for layer `stones`: why it failed to open, or the last block that
  /// failed to read. Empty when there is none. Thread safe.
  std::string layer_error(int stones) const;

  /// A one-line explanation of a failed probe of `position` that returned `status`, e.g.
  /// "position has 20 seeds; tables in DIR hold up to 16". For kMissingTable and
  /// kCorruptTable it names the layer file that made this thread's last failed probe fail
  /// (called on another thread, the largest damaged layer the position could reach). Thread
  /// safe.
  std::string explain(ProbeStatus status, const Pits& position) const;

  /// The layer that explain(kMissingTable or kCorruptTable, position) names: the one that made
  /// this thread's last failed probe fail, else the largest failed layer the position could
  /// reach; -1 when no layer at or below the position's seeds has failed. Thread safe.
  int failed_layer(const Pits& position) const;

  struct Impl;

 private:
  explicit TableSet(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sowdb
