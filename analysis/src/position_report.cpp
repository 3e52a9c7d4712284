#include "sowdb/analysis/position_report.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sowdb/analysis/refusal.h"

namespace sowdb {

const char* to_string(AnswerMethod method) noexcept {
  return method == AnswerMethod::kSearch ? "search" : "table";
}

bool ranks_before(const ReportedMove& a, const ReportedMove& b) {
  if (a.worth != b.worth)
    return a.worth > b.worth;
  // TableSet::best_move's tie-breaks among moves of the same worth v.
  if (a.depth != b.depth) {
    if (a.worth > 0)
      return a.depth < b.depth;  // the quickest win
    if (a.worth < 0)
      return a.depth > b.depth;  // the longest defence
  }
  if (a.worth == 0 && (a.gain > 0) != (b.gain > 0))
    return a.gain > 0;
  if (a.depth != b.depth)
    return a.depth < b.depth;
  return a.pit < b.pit;
}

PositionReport report_position(
    const TableSet& set, const Pits& board, int store_mover, int store_opponent, int max_plies) {
  PositionReport r;
  r.variant = set.variant();
  r.board = board;
  r.store_mover = store_mover;
  r.store_opponent = store_opponent;
  for (int i = 0; i < r.variant.rules.pits(); ++i)
    r.stones += board[i];
  MoveWorths moves;
  ProbeStatus s = set.value(board, r.value, r.depth);
  r.lower = r.upper = r.value;
  std::string error;
  if (s == ProbeStatus::kOk) {
    if (game_outcome(
            r.variant, r.value, store_mover, store_opponent, r.stones, r.outcome, &error) !=
        OutcomeStatus::kOk) {
      throw Refused(RefusalKind::kBadStores, error);
    }
    s = set.moves(board, moves);
  }
  if (s == ProbeStatus::kOk)
    s = set.principal_line(board, r.line, max_plies);
  if (s != ProbeStatus::kOk)
    throw Refused(refusal_of(s, set, board));
  for (const MoveWorth& m : moves) {
    ReportedMove rm;
    rm.pit = m.move.pit;
    rm.worth = rm.lower = rm.upper = m.worth;
    rm.depth = m.depth;
    rm.gain = m.move.gain();
    rm.stored = m.move.stored;
    rm.captured = m.move.captured;
    rm.extra_turn = m.move.extra_turn;
    rm.after = m.move.child;
    // The worth is a value of this position, so the stores and the board make the same game.
    GameOutcome o;
    if (game_outcome(r.variant, m.worth, store_mover, store_opponent, r.stones, o, &error) !=
        OutcomeStatus::kOk) {
      throw Refused(RefusalKind::kBadStores, error);
    }
    rm.category = o.result;
    r.moves.push_back(rm);
  }
  std::sort(r.moves.begin(), r.moves.end(), ranks_before);
  return r;
}

}  // namespace sowdb
