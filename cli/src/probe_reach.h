// `sowdb probe` on co-operative tables (`sowdb gen --objective cooperative`): what joint play can
// still reach from a position, and a line to a balanced end.
#pragma once

#include <nlohmann/json.hpp>

#include "sowdb/probe/tables.h"

namespace sowdb::cli {

/// Everything `probe` reports about one position of co-operative tables.
struct ReachReport {
  Pits board{};
  int stones = 0;
  int store_mover = 0;
  int store_opponent = 0;
  /// What the mover must take more than the opponent from here for equal stores: B - A.
  int target = 0;
  ReachSet reachable;
  bool balanced = false;  ///< target is in `reachable`.
  MoveReaches moves;
  PrincipalLine line;  ///< A joint line to a balanced end (empty when there is none).
};

/// Looks `board` up in co-operative `set` with the stores already holding `store_mover` and
/// `store_opponent`. Throws std::runtime_error (the table set's explanation) on a failed probe.
ReachReport probe_reach(
    const TableSet& set, const Pits& board, int store_mover, int store_opponent, int max_plies);

/// The report as `probe --json` prints it: "objective": "cooperative", "balanced", "reachable"
/// (the differences, rising), "balancing_moves" (pits), "moves" ({pit, gain, extra_turn,
/// reachable, balancing}), "line" (pits), "line_steps", "line_end", and the position's fields.
nlohmann::json reach_report_json(const TableSet& set, const ReachReport& r);

/// The report as text, on stdout.
void print_reach_text(const TableSet& set, const ReachReport& r);

/// Differences as text with runs joined: "-4..-2, 0, 2..4"; "none" when empty.
std::string differences_text(const std::vector<int>& d);

}  // namespace sowdb::cli
