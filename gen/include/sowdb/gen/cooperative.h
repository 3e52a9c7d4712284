// The co-operative objective (seed 002's "Win-Win Wari"): which final differences a game can
// still reach when both players play together.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sowdb/format/rule_set.h"

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
  int words = 1;                    ///< 64-bit words per position: ceil((2n + 1) / 64).
  std::vector<std::uint64_t> sets;  ///< Position i's set in sets[i * words .. + words).

  /// Whether d is in position i's set (|d| <= n).
  bool contains(std::uint64_t i, int d) const {
    const int bit = stones + d;
    return ((sets[i * static_cast<std::uint64_t>(words) + static_cast<unsigned>(bit) / 64] >>
             (bit % 64)) &
            1) != 0;
  }
};

/// Words per position of a layer of `stones` seeds.
inline int reach_words(int stones) {
  return (2 * stones + 1 + 63) / 64;
}

/// Solves layer `stones` of `rules` for the co-operative objective. `smaller(m)` gives the solved
/// layer m for every m < stones. Within the layer the sets are closed over the strongly connected
/// components of the moves that gain nothing, taken children first, so the result is the least
/// fixed point of the rules above, computed in time linear in the moves. Runs on the calling
/// thread. Throws std::invalid_argument for a stone count out of range.
ReachLayer solve_reach_layer(const RuleSet& rules,
                             int stones,
                             const std::function<const ReachLayer&(int stones)>& smaller);

}  // namespace sowdb::gen
