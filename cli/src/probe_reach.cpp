// `sowdb probe` on co-operative tables.
#include "probe_reach.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "board_text.h"
#include "line_json.h"

namespace sowdb::cli {

namespace {}  // namespace

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

ReachReport probe_reach(
    const TableSet& set, const Pits& board, int store_mover, int store_opponent, int max_plies) {
  ReachReport r;
  r.board = board;
  r.store_mover = store_mover;
  r.store_opponent = store_opponent;
  r.target = store_opponent - store_mover;
  for (int i = 0; i < set.rules().pits(); ++i)
    r.stones += board[i];
  ProbeStatus s = set.reach(board, r.reachable);
  if (s == ProbeStatus::kOk)
    s = set.reach_moves(board, r.moves);
  if (s == ProbeStatus::kOk) {
    r.balanced = r.reachable.contains(r.target);
    if (r.balanced)
      s = set.cooperative_line(board, r.target, r.line, max_plies);
  }
  if (s != ProbeStatus::kOk)
    throw std::runtime_error(set.explain(s, board));
  return r;
}

nlohmann::json reach_report_json(const TableSet& set, const ReachReport& r) {
  const Rules& rules = set.engine();
  nlohmann::json j;
  j["variant"] = set.variant().to_string();
  j["objective"] = "cooperative";
  j["pits"] = pits_vector(rules, r.board);
  j["stones"] = r.stones;
  j["stores"] = {r.store_mover, r.store_opponent};
  j["target"] = r.target;
  j["balanced"] = r.balanced;
  j["reachable"] = r.reachable.differences();
  j["game_over"] = r.moves.size == 0;
  nlohmann::json moves = nlohmann::json::array();
  nlohmann::json balancing = nlohmann::json::array();
  for (const MoveReach& m : r.moves) {
    const bool b = m.reachable.contains(r.target);
    if (b)
      balancing.push_back(m.move.pit);
    moves.push_back({{"pit", m.move.pit},
                     {"gain", m.move.gain()},
                     {"extra_turn", m.move.extra_turn},
                     {"reachable", m.reachable.differences()},
                     {"balancing", b}});
  }
  j["moves"] = moves;
  j["balancing_moves"] = balancing;
  put_line(j, rules, r.line);
  // Where the line ends, from the side of the player to move there (0: the root's mover).
  j["line_last"] = pits_vector(rules, r.line.last);
  j["line_last_mover"] = r.line.last_mover;
  if (!r.balanced)
    j["line_end"] = nullptr;
  return j;
}

void print_reach_text(const TableSet& set, const ReachReport& r) {
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
