// The alpha-beta search under gen::solve_start: one Searcher per thread, all sharing one
// transposition table. Internal to sowdb_gen.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <utility>

#include "busy_table.h"
#include "position_keys.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/tables.h"
#include "table_values.h"
#include "transposition_table.h"

namespace sowdb::gen {

/// Whether the mover of `pos`, a Kalah-family position where the mover can move, has a move that
/// gains at least one seed at once: a sowing that reaches the store, or one whose last seed
/// lands in an own empty pit and captures. Then the mover ends the game with at least one seed
/// more than now, so the value of `pos` is at least 2 - n for n seeds on the board (values have
/// the parity of n). Under `capture_empty_opposite` this always holds (Irving's `-n + 2` bound):
/// the last seed of the mover's rightmost non-empty pit either reaches the store or lands in an
/// empty pit beyond it, and captures. False for the other families. THREAD SAFETY pure.
bool gains_at_once(const Rules& rules, const Pits& pos);

/// How many nodes a Searcher visits between two calls of its tick (a power of two).
inline constexpr std::uint64_t kTickNodes = 4096;

/// An exact alpha-beta search of an acyclic game (the Kalah family, wari-us) whose values are the
/// seeds the mover nets from a position on (-n..n for n seeds on the board).
///
/// Before a node searches any child it settles what it can of each in O(1) ("peeks"): the end
/// of the game, the tables (exact at every position of at most max_stones() seeds), the bounds
/// -n..n of the seeds left, and the transposition table (enhanced transposition cut-offs). Only
/// the children left open are searched, ordered by the table's best move, extra turns, gains
/// and what shallower searches estimated. Searches of limited depth (iterative deepening) store
/// the depth their bounds were proved to: a subtree that the tables and the end of the game
/// settle entirely is proved to the end (kExact) whatever depth was asked, and only bounds
/// proved to the end are ever used by a search to the end, so its values are exact.
///
/// THREAD SAFETY one Searcher per thread; any number may share a TranspositionTable.
class Searcher {
 public:
  /// `values`, when not null, holds every value of `tables` (read whole), and serves the
  /// lookups in their place.
  Searcher(const Rules& rules,
           const TableSet* tables,
           TranspositionTable& table,
           const TableValues* values = nullptr);

  /// Positions expanded so far (children settled by peeking are not counted).
  std::uint64_t nodes() const { return nodes_; }

  /// Shares the work with the other threads of `busy` (null: none, the default), simplified
  /// ABDADA: at a node of at least `from_stones` seeds, the first move is searched at once and a
  /// later one that another thread is searching is deferred to the end of the node's moves; each
  /// child searched there is marked in `busy` meanwhile. Below `from_stones` the nodes are too
  /// small to be worth the table's atomics.
  void share(BusyTable* busy, int from_stones) {
    busy_ = busy;
    share_from_ = from_stones;
  }

  /// Whether the next test's result is expected below its beta (its root an ALL node, every
  /// move to refute; MTD(f) testing above a lower bound), else above (a CUT node). Nodes an odd
  /// number of plies below are the other kind. At an ALL node of a shared search (see share) no
  /// move need wait for another, so even the first one is deferred when another thread is in it.
  void set_expect_low(bool low) { root_all_ = low; }

  /// Counts into `*hits` (null: not counted) the children settled by gains_at_once.
  void count_futility(std::uint64_t* hits) { futility_hits_ = hits; }

  /// Calls `tick` every kTickNodes nodes, from this thread; it may throw to abandon the search.
  void set_tick(std::function<void()> tick) { tick_ = std::move(tick); }

  /// Bounds on the value of `pos` (n seeds) for its mover, to the end of the game: MTD(f) from
  /// `guess`; `proved` is told the bounds after each null-window test and may return true to
  /// stop (the bounds so far are returned). `lower` and `upper`: bounds proved beforehand (a
  /// proof store's), where MTD(f) starts instead of -n..n, so no test repeats their proof; wrong
  /// ones give wrong values.
  std::pair<int, int> value(const Pits& pos,
                            int n,
                            int guess,
                            const std::function<bool(int, int)>& proved,
                            int lower = -kMaxBoardStones - 1,
                            int upper = kMaxBoardStones + 1);

  /// An estimate of the value of `pos`: MTD(f) of kFirstDepth plies, then kDeepening more at a
  /// time up to `max_depth`, positions at the horizon estimated at 0 (no more seeds gained).
  /// The searches leave best moves and bounds in the table for the searches that follow.
  /// `exact` is set when the bounds were proved to the end of the game on the way.
  int estimate(const Pits& pos, int n, int guess, int max_depth, bool& exact);

  /// Whether the value of `pos` (n seeds) for its mover is at least `beta`: a null-window test
  /// to the end of the game. Fail-soft: a result >= beta is a lower bound, below beta an upper
  /// bound.
  int test(const Pits& pos, int n, int beta);

  /// What the table holds for `pos` (n seeds), of any depth; e.found false: nothing.
  TableEntry entry(const Pits& pos, int n) const;

  static constexpr int kFirstDepth = 5;
  static constexpr int kDeepening = 3;

 private:
  /// The key of `pos` (n seeds): its index among all positions of its board, layer by layer.
  std::uint64_t key_of(const Pits& pos, int n) const { return keys_.key(pos, n); }
  /// The index of `pos` within its layer.
  std::uint64_t index_of(const Pits& pos) const { return keys_.index(pos); }
  // MTD(f) of `depth` plies (kExact: to the end), from `guess`; `proven`: the least depth any
  // of its tests was proved to.
  std::pair<int, int> mtdf(const Pits& pos,
                           int n,
                           int guess,
                           int depth,
                           int& proven,
                           const std::function<bool(int, int)>& enough,
                           int lower = -kMaxBoardStones - 1,
                           int upper = kMaxBoardStones + 1);
  // Fail-soft alpha-beta on the window (alpha, beta) to `depth` plies; `proven` is set to the
  // depth the result holds to (kExact: it is a true bound, or the value).
  int search(
      const Pits& pos, int n, std::uint64_t key, int alpha, int beta, int depth, int& proven);
  // The value of `pos` when the game is over there (the mover cannot move); false otherwise.
  bool over(const Pits& pos, int& value) const;
  // The tables' value of `pos` (n seeds, at most tables_max_), whose index is `index`.
  int probe(const Pits& pos, int n, std::uint64_t index) const {
    // A layer not read (yet: SolveStartOptions::preload_delay) is probed through the tables.
    const std::int8_t* layer = values_ ? values_->layer(n) : nullptr;
    if (!layer)
      return probe(pos);
    const int v = layer[index];
    return v != kRecomputeValue ? v : recompute(pos, n);
  }
  // The value of a recompute entry of `values_`: the best worth of its moves.
  int recompute(const Pits& pos, int n) const;
  int probe(const Pits& pos, int n) const { return probe(pos, n, index_of(pos)); }
  int probe(const Pits& pos) const;
  void store(std::uint64_t key,
             int n,
             int v,
             int alpha,
             int beta,
             int pit,
             int proven,
             int lower,
             int upper,
             int known,
             std::uint64_t nodes_before);

  const Rules& rules_;
  const TableSet* tables_;
  const TableValues* values_;
  int tables_max_;
  PositionKeys keys_;
  bool kalah_;
  bool empty_side_;
  TranspositionTable& table_;
  BusyTable* busy_ = nullptr;
  int share_from_ = 0;
  bool root_all_ = false;
  int ply_ = 0;  // below the test's root, counted at the nodes that share only
  std::uint64_t nodes_ = 0;
  std::uint64_t* futility_hits_ = nullptr;
  std::function<void()> tick_;
};

}  // namespace sowdb::gen
