#include "sowdb/analysis/cooperative_report.h"

#include <stdexcept>

#include "sowdb/analysis/refusal.h"

namespace sowdb {

CooperativeReport report_cooperative(
    const TableSet& set, const Pits& board, int store_mover, int store_opponent, int max_plies) {
  CooperativeReport r;
  r.variant = set.variant();
  r.board = board;
  r.store_mover = store_mover;
  r.store_opponent = store_opponent;
  r.target = store_opponent - store_mover;
  for (int i = 0; i < r.variant.rules.pits(); ++i)
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
    throw Refused(refusal_of(s, set, board));
  return r;
}

}  // namespace sowdb
