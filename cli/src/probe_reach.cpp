// `sowdb probe` on co-operative tables.
#include "probe_reach.h"

#include <cstdio>
#include <string>
#include <vector>

#include "board_text.h"

namespace sowdb::cli {

std::string differences_text(const std::vector<int>& d) {
  if (d.empty())
    return "none";
  std::string out;
  for (std::size_t i = 0; i < d.size();) {
    std::size_t j = i;
    while (j + 1 < d.size() && d[j + 1] == d[j] + 1)
      ++j;
    if (!out.empty())
      out += ", ";
    out += std::to_string(d[i]);
    if (j > i)
      out += (j == i + 1 ? ", " : "..") + std::to_string(d[j]);
    i = j + 1;
  }
  return out;
}

void print_reach_text(const TableSet& set, const CooperativeReport& r) {
  const Rules& rules = set.engine();
  std::printf(
      "variant %s, co-operative objective, %s on the board (tables %s hold up to %d)\n\n%s\n",
      set.variant().to_string().c_str(),
      count_text(r.stones, "seed", "seeds").c_str(),
      set.directory().string().c_str(),
      set.max_stones(),
      board_diagram(rules, r.board).c_str());
  std::printf("reachable differences (the mover's takes from here minus the opponent's): %s\n",
              differences_text(r.reachable.differences()).c_str());
  std::printf("stores %d (mover) and %d (opponent): a balanced end needs a difference of %+d: ",
              r.store_mover,
              r.store_opponent,
              r.target);
  if (!r.balanced) {
    std::printf("no joint line reaches it\n");
  } else {
    const double each = (r.store_mover + r.store_opponent + r.stones) / 2.0;
    std::printf("reachable, both stores end with %s\n",
                each == static_cast<int>(each)
                    ? std::to_string(static_cast<int>(each)).c_str()
                    : (std::to_string(static_cast<int>(each)) + ".5").c_str());
  }
  if (r.moves.size == 0) {
    print_game_over(rules, r.board);
    return;
  }
  std::printf("\nmoves (the differences still reachable after each, from the mover's side):\n");
  for (const MoveReach& m : r.moves) {
    const std::string what = gain_text(m.move.gain(), m.move.extra_turn);
    std::printf("  pit %d: %-28s%s%s\n",
                m.move.pit,
                differences_text(m.reachable.differences()).c_str(),
                m.reachable.contains(r.target) ? "  keeps a balanced end" : "",
                what.empty() ? "" : ("  (" + what + ")").c_str());
  }
  if (!r.balanced)
    return;
  std::printf("\na joint line to a balanced end (each position before the move):\n");
  print_line(rules, r.line);
}

}  // namespace sowdb::cli
