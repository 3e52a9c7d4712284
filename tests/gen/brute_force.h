// An independent brute-force solver for the tests: it shares only the rules engine (Rules, Pits)
// with the generator. Every layer is enumerated explicitly into a map keyed by the board, and
// values and depths are computed by plain fixpoint iteration straight from their definitions
// (docs/RULES.md, the board; gen/solver.h, Layer). Slow on purpose: tiny boards only.
#pragma once

#include <cctype>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sowdb/format/rule_set.h"
#include "sowdb/probe/rules.h"

namespace sowdb::test {

/// Every position of one layer (a fixed stone count) with its value and depth.
struct BruteLayer {
  int stones = 0;
  std::map<Pits, std::size_t> index;  ///< Board -> position number in the vectors below.
  std::vector<Pits> boards;           ///< In the order of our own enumeration (not format's).
  std::vector<int> value;
  std::vector<int> depth;
};

/// Value and depth of one position.
struct BruteEntry {
  int value = 0;
  int depth = 0;
};

/// Solves the layers of one rule set from 0 stones up.
class BruteForce {
 public:
  explicit BruteForce(const RuleSet& rules);

  const Rules& rules() const { return rules_; }

  /// Solves every layer up to and including `stones` that is not solved yet. Throws
  /// std::logic_error when a property the definitions rely on fails (see brute_force.cpp).
  void solve_through(int stones);

  /// Largest stone count solved so far, -1 before any.
  int solved_through() const { return static_cast<int>(layers_.size()) - 1; }

  const BruteLayer& layer(int stones) const { return layers_.at(stones); }

  /// Value and depth of `board`, whose layer must be solved. Throws std::out_of_range otherwise.
  BruteEntry at(const Pits& board) const;

 private:
  void solve_layer(int stones);

  Rules rules_;
  int pits_;
  std::vector<BruteLayer> layers_;
};

/// Every board with `stones` seeds on `pits` pits (pits beyond hold 0), by plain recursion.
std::vector<Pits> enumerate_boards(int pits, int stones);

/// Seeds on a board.
int stones_on(const Pits& board);

/// A cycle of in-layer moves (moves that gain nothing) in layer `stones`, as the boards along it
/// (first board repeated at the end), or an empty vector when the in-layer move graph is acyclic.
std::vector<Pits> find_in_layer_cycle(const Rules& rules, int stones);

/// "[a b c | d e f]": the mover's pits, then the opponent's.
std::string board_text(const Pits& board, int pits_per_side);

/// The co-operative objective's sets, board by board.
using Reach = std::map<Pits, std::set<int>>;

/// R(p) (docs/RULES.md, "The co-operative objective") for every board of layers 0..max_stones,
/// by iteration to the least fixed point from the definition: a finished game's split, each
/// move's child set mapped through the move, and 0 for a board on a cycle of moves. With
/// `endless` false the last rule is left out: the differences a line that ends the game reaches.
Reach brute_reach(const Rules& rules, int max_stones, bool endless = true);

/// A GoogleTest parameter name for `variant` on `pits` pits a side: "wari_kc_P3".
inline std::string param_name(const std::string& variant, int pits) {
  std::string name = variant + "_P" + std::to_string(pits);
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  }
  return name;
}

}  // namespace sowdb::test
