// The co-operative report: what co-operative tables (`sowdb gen --objective cooperative`) say
// about one position: the differences joint play still reaches, per move, and a line to a
// balanced end.
#pragma once

#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb {

/// Everything co-operative tables say about one position (see report_cooperative).
struct CooperativeReport {
  Variant variant;  ///< The tables' variant.
  Pits board{};     ///< The position, mover first.
  int stones = 0;   ///< Seeds on the board.
  int store_mover = 0;
  int store_opponent = 0;
  /// What the mover must take more than the opponent from here for equal stores: B - A.
  int target = 0;
  ReachSet reachable;     ///< Every difference some joint line reaches from here.
  bool balanced = false;  ///< `target` is in `reachable`.
  MoveReaches moves;      ///< Every legal move with what it keeps reachable, in pit order.
  PrincipalLine line;     ///< A joint line to a balanced end (no steps when there is none).

  /// Whether `m` (one of `moves`) keeps a balanced end reachable.
  bool balancing(const MoveReach& m) const { return m.reachable.contains(target); }
};

/// The report of `board` in co-operative `set` with the stores holding `store_mover` and
/// `store_opponent`, the line cut at `max_plies` plies.
/// ERRORS throws Refused (a std::runtime_error) with refusal_of's refusal on a failed probe.
/// THREAD SAFETY as TableSet's probes.
CooperativeReport report_cooperative(
    const TableSet& set, const Pits& board, int store_mover, int store_opponent, int max_plies);

}  // namespace sowdb
