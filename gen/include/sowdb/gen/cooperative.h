// The co-operative objective (seed 002's "Win-Win Wari"): which final differences a game can
// still reach when both players play together.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "sowdb/format/rule_set.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/variant.h"

namespace sowdb::gen {

/// The reachable sets of one layer. For a position p with n seeds, R(p) is the least set of
/// differences d (seeds the mover takes from here on minus seeds the opponent takes) that some
/// joint line of play reaches (docs/RULES.md, "The co-operative objective"):
///   - a finished game reaches exactly its final split;
///   - a move that gains g seeds to child c reaches {g - d : d in R(c)}, or {g + d} after an
///     extra turn;
///   - a position on a cycle of moves may be played forever, the seeds left split evenly: d = 0.
/// Every d lies in [-n, n]; the set is stored as bits: bit n + d of the position's `words`
/// 64-bit words.
struct ReachLayer {
  int stones = 0;                   ///< n.
  int words = 1;                    ///< 64-bit words per position: reach_set_words(n).
  std::vector<std::uint64_t> sets;  ///< Position i's set in sets[i * words .. + words).

  /// Whether d is in position i's set (|d| <= n).
  bool contains(std::uint64_t i, int d) const {
    const int bit = stones + d;
    return ((sets[i * static_cast<std::uint64_t>(words) + static_cast<unsigned>(bit) / 64] >>
             (bit % 64)) &
            1) != 0;
  }
};

/// Solves layer `stones` of `rules` for the co-operative objective. `smaller(m)` gives the solved
/// layer m for every m < stones. Within the layer the sets are closed over the strongly connected
/// components of the moves that gain nothing, taken children first, so the result is the least
/// fixed point of the rules above, computed in time linear in the moves. Runs on the calling
/// thread. `progress`, when set, is called now and then with the fraction done, in [0, 1] (from
/// the calling thread; it must not throw). Throws std::invalid_argument for a stone count out of
/// range.
ReachLayer solve_reach_layer(const RuleSet& rules,
                             int stones,
                             const std::function<const ReachLayer&(int stones)>& smaller,
                             const std::function<void(double)>& progress = {});

/// Bytes of memory solve_reach_layer needs while it solves a layer of `positions` positions of
/// `stones` seeds, the layer's own sets included (the smaller layers' sets not).
long double reach_working_bytes(long double positions, int stones);

/// The co-operative objective at a start position.
struct ReachStart {
  /// One first move.
  struct Move {
    int pit = 0;                 ///< The mover's pit, 0..P-1.
    int gain = 0;                ///< Seeds it sends to the mover's store.
    bool extra_turn = false;     ///< The same player moves again.
    std::vector<int> reachable;  ///< Differences (first player minus second) still reachable.
    bool balancing = false;      ///< 0 is among them: the game can still end balanced.
  };
  std::vector<int> reachable;   ///< R(start), ascending: every difference a joint line reaches.
  bool balanced = false;        ///< 0 is in R(start).
  std::vector<Move> moves;      ///< Every legal first move, in pit order.
  std::uint64_t positions = 0;  ///< Positions solved (every layer 0..2PS).
};

/// Thrown by solve_reach_start for a board whose layers hold more than it may solve in memory.
struct TooLarge : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Solves every layer 0..2PS of `variant` in memory (solve_reach_layer) and answers for its
/// start position (S seeds in each pit, stores empty). ERRORS throws TooLarge, before any work,
/// when the layers hold more than `max_positions` positions (about 8 bytes each are kept, and
/// about 40 per position of the layer being solved).
ReachStart solve_reach_start(const Variant& variant, std::uint64_t max_positions = 200000000);

}  // namespace sowdb::gen
