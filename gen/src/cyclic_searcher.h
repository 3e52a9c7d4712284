// The null-window search under gen::solve_cyclic (cyclic_search.h): tests "is the value of this
// Oware-family position at least beta?" that answer yes, no or "not known yet", sound whatever
// the budget, with a table of the bounds they prove. Internal to sowdb_gen.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "page_mapping.h"
#include "position_keys.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/tables.h"
#include "table_values.h"

namespace sowdb::gen {

/// What a CyclicTable knows of one position.
struct CyclicEntry {
  bool found = false;
  /// True bounds on the value (path-independent: proved for the position itself); -128/127
  /// when nothing was proved on that side.
  int lower = -128;
  int upper = 127;
  int best = -1;  ///< The pit of the best move of the last search here; -1: none.
  /// A test at `unknown_beta` to `unknown_depth` plies (0: none) ended "not known": the same
  /// test again, to no more plies, would be wasted. `estimate` is what it estimated.
  int unknown_beta = 0;
  int unknown_depth = 0;
  int estimate = 0;
  bool unknown_horizon = false;  ///< That test met its horizon (not only repetitions).
};

/// A transposition table of CyclicEntry, 2^bits entries of 16 bytes in buckets of four, for one
/// thread. Keys are exact (no two positions share one). Bounds of one key only ever tighten:
/// two true bounds intersect to a true bound. Within a bucket the entry whose search cost the
/// least gives way. THREAD SAFETY one thread at a time.
class CyclicTable {
 public:
  /// `bits`: log2 of the entries, at least 2. ERRORS std::bad_alloc.
  explicit CyclicTable(int bits);

  /// Bytes the table takes.
  std::size_t bytes() const { return entries_ * sizeof(Slot); }

  /// What is stored for `key` (entry.found false: nothing).
  CyclicEntry find(std::uint64_t key) const;

  /// Tightens the stored bounds of `key` to [lower, upper] (true bounds) and records `best`.
  void prove(std::uint64_t key, int lower, int upper, int best, std::uint64_t work);

  /// Records that a test at `beta` to `depth` plies ended unknown, estimating `estimate`;
  /// `horizon`: it met its horizon.
  void unknown(std::uint64_t key,
               int beta,
               int depth,
               bool horizon,
               int estimate,
               int best,
               std::uint64_t work);

 private:
  struct Slot {
    std::uint64_t key1 = 0;  // key + 1; 0: empty
    std::int8_t lower = -128;
    std::int8_t upper = 127;
    std::int8_t best = -1;
    std::uint8_t work = 0;  // bit width of the positions searched
    std::int8_t unknown_beta = 0;
    std::uint8_t unknown_depth = 0;
    std::int8_t estimate = 0;
    std::uint8_t unknown_horizon = 0;
  };
  Slot& slot_for(std::uint64_t key, std::uint64_t work);
  std::size_t bucket(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_) * 4;
  }

  std::size_t entries_ = 0;
  std::unique_ptr<PageMapping> pages_;
  Slot* slots_ = nullptr;
  int shift_ = 62;
};

/// The outcome of one null-window test.
enum class TestResult : std::uint8_t {
  kHigh,     ///< The value is at least beta; `value` is a lower bound.
  kLow,      ///< The value is below beta; `value` is an upper bound.
  kUnknown,  ///< Not decided within the plies given; `value` is an estimate.
};

/// Null-window tests on Oware-family positions (values: seeds the mover nets from there on,
/// -n..n for n seeds on the board; endless play is worth 0).
///
/// A test searches to a number of plies; a position at that horizon is "unknown" unless the
/// table, the tables or the end of the game settle it. A position met again on the path, an even
/// number of plies after itself (the same player to move: the same game state, so the play can
/// go round for ever), scores 0, endless play; that can only prove something for the root of
/// the test, never for a position between the two: the result of a position whose proof met a
/// repetition of a position above it holds on this path only and is not stored (the graph-history
/// interaction problem). Every other result holds wherever the position is met, and its bound
/// goes into the table. So each kHigh/kLow answer for the root is true whatever the path or the
/// budget (the argument: cyclic_search.cpp's header comment).
///
/// THREAD SAFETY one thread; the table is its own.
class CyclicSearcher {
 public:
  /// `values`, when not null, holds the values of `tables`: every layer, or (built deferred,
  /// read beside the search) those read so far, the others probed through `tables`.
  /// `endless`: score repetitions as endless play (false: a repetition is unknown, which proves
  /// less; kept to measure what scoring them is worth).
  CyclicSearcher(const Rules& rules,
                 const TableSet* tables,
                 const TableValues* values,
                 CyclicTable& table,
                 bool endless = true);

  /// Positions expanded so far.
  std::uint64_t nodes() const { return nodes_; }
  /// Whether a test since the last clear_horizon() stopped at its horizon (a deeper test could
  /// decide more).
  bool horizon_hit() const { return horizon_hit_; }
  void clear_horizon() { horizon_hit_ = false; }

  /// Reuse results that hold on the path only, while it lasts (true, the default); false: each
  /// position met again is searched again (kept to measure what the reuse saves).
  void set_reuse(bool reuse) { reuse_ = reuse; }

  /// Answer "unknown" at once where the same test, as deep or deeper, was unknown before (false,
  /// the default): it saves positions, but a test left unknown on one path may be proved on
  /// another by a repetition that only that path has, and with the cache such positions never
  /// got proved (oware/3x2: 185 of 200 positions of 6..10 seeds proved, 200 without it).
  void set_cache_unknown(bool cache) { cache_unknown_ = cache; }

  /// Called every 256 positions; may throw to abandon the test (the table stays sound).
  void set_tick(std::function<void()> tick) { tick_ = std::move(tick); }

  /// The key of `pos` (n seeds, above the tables): its index among all positions of its board.
  std::uint64_t key_of(const Pits& pos, int n) const;

  /// The tables' value of `pos` (n seeds, at most tables_max()). ERRORS std::runtime_error with
  /// the tables' explanation when a probe fails.
  int probe(const Pits& pos, int n) const;
  int tables_max() const { return tables_max_; }

  /// Whether the value of `pos` (n seeds, above the tables, the mover has a move) is at least
  /// `beta`, searching `depth` plies, `pos` the root of the path.
  TestResult test(const Pits& pos, int n, int beta, int depth, int& value);

  /// The table's true bounds on the value of `pos` (n seeds above the tables), clamped to
  /// [-n, n].
  void bounds(const Pits& pos, int n, int& lower, int& upper) const;
  /// The table's entry for `pos`.
  CyclicEntry entry(const Pits& pos, int n) const { return table_.find(key_of(pos, n)); }

  static constexpr int kMaxDepth = 240;

 private:
  struct Result {
    int value;
    TestResult result;
    int low;   // the shallowest ply of a repetition the result depends on; kNoLow: none...
    int high;  // ...and at most this deep (-1: none)
  };
  static constexpr int kNoLow = 1 << 20;
  // A result that holds on the path it was found on, while the ancestors it depends on are on
  // the path (the frame at ply `high` is still searched): a position met again below them, at
  // the same parity of ply and in the same test, has the same proof.
  struct Provisional {
    std::uint64_t key1 = 0;  // key + 1; 0: empty
    std::uint64_t frame = 0;
    std::int16_t value = 0;
    std::int16_t beta = 0;
    std::int16_t low = 0;
    std::int16_t high = 0;
    std::uint8_t parity = 0;
    TestResult result = TestResult::kUnknown;
  };
  static constexpr int kProvisionalBits = 14;
  Provisional& provisional(std::uint64_t key, int ply) {
    const std::uint64_t h = (key * 2 + static_cast<std::uint64_t>(ply & 1)) * 0x9E3779B97F4A7C15ULL;
    return provisional_[static_cast<std::size_t>(h >> (64 - kProvisionalBits))];
  }
  // Records a proved result at `ply` that depends on repetitions above it.
  Result keep(std::uint64_t key, int ply, int beta, Result r);

  Result search(const Pits& pos, int n, std::uint64_t key, int beta, int depth, int ply);
  // The ply of an ancestor of the position at `ply` (key) an even number of plies up; -1: none.
  int repeated(std::uint64_t key, int n, int ply) const;
  int recompute(const Pits& pos, int n) const;
  std::uint64_t index_of(const Pits& pos) const { return keys_.index(pos); }

  const Rules& rules_;
  const TableSet* tables_;
  const TableValues* values_;
  CyclicTable& table_;
  bool endless_;
  int tables_max_;
  PositionKeys keys_;
  std::array<std::uint64_t, kMaxDepth + 2> path_key_{};
  std::array<int, kMaxDepth + 2> path_n_{};
  std::array<std::uint64_t, kMaxDepth + 2> path_frame_{};  // which visit of the position
  std::uint64_t frames_ = 0;
  std::vector<Provisional> provisional_;
  bool reuse_ = true;
  bool cache_unknown_ = false;
  std::uint64_t nodes_ = 0;
  bool horizon_hit_ = false;
  std::function<void()> tick_;
};

}  // namespace sowdb::gen
