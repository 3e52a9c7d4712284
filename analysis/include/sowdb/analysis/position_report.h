// The position report: what a table directory says about one position of competitive tables
// (value, outcome with the stores, every legal move ranked best first, the principal line).
#pragma once

#include <optional>
#include <vector>

#include "sowdb/probe/outcome.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb {

/// One legal move of a reported position.
struct ReportedMove {
  int pit = 0;       ///< The mover's pit sown, 0..P-1 from the mover's left.
  int worth = 0;     ///< Seeds the mover nets from the position by playing it (perfect play after).
  int depth = 0;     ///< Plies to realise the worth after the move (0 when it gains seeds).
  int gain = 0;      ///< Seeds the move sends to the mover's store: stored + captured.
  int stored = 0;    ///< Seeds sown straight into the mover's store (Kalah family, wari-us).
  int captured = 0;  ///< Seeds captured.
  bool extra_turn = false;  ///< The mover moves again: `after` is from the mover's side.
  /// The game's result for the mover after this move with the report's stores: win, draw or
  /// loss (GameOutcome::result of the worth).
  GameResult category = GameResult::kDraw;
  Pits after{};  ///< The resulting position, from the side of the player to move next.
};

/// Everything the tables say about one position (see report_position).
struct PositionReport {
  Variant variant;         ///< The tables' variant (the board has 2P pits of it).
  Pits board{};            ///< The position, mover first.
  int stones = 0;          ///< Seeds on the board.
  int store_mover = 0;     ///< Seeds already in the mover's store.
  int store_opponent = 0;  ///< Seeds already in the opponent's store.
  int value = 0;           ///< Seeds the mover nets from here under perfect play.
  int depth = 0;           ///< Plies to realise the value (0 when it is 0).
  GameOutcome outcome;     ///< Result and final score with the stores.
  /// The legal moves, best first: highest worth, then the tie-breaks of TableSet::best_move
  /// (quickest win, longest defence, at worth 0 a gaining move then the smallest depth), then
  /// the lowest pit; so moves.front() is the best move. Empty when the game is over.
  std::vector<ReportedMove> moves;
  PrincipalLine line;  ///< Best moves to the end of the game (at most max_plies of them).

  /// The best move's pit; nullopt when the game is over.
  std::optional<int> best() const {
    return moves.empty() ? std::nullopt : std::optional<int>(moves.front().pit);
  }
};

/// Whether move `a` ranks before move `b` of the same position (the order of
/// PositionReport::moves): the order TableSet::best_move picks its move by, completed to a
/// total order by the pit.
bool ranks_before(const ReportedMove& a, const ReportedMove& b);

/// The report of `board` in competitive `set` with the stores holding `store_mover` and
/// `store_opponent` seeds, the principal line cut at `max_plies` plies.
/// ERRORS throws Refused (a std::runtime_error; sowdb/analysis/refusal.h) with refusal_of's
/// refusal on a failed probe (a missing or damaged layer, too many seeds, co-operative tables)
/// and kBadStores with game_outcome's reason for stores the game cannot hold with this board.
/// answer_position (position_answer.h) checks the position first and returns the refusal.
/// THREAD SAFETY as TableSet's probes: any number of threads may report at once.
PositionReport report_position(
    const TableSet& set, const Pits& board, int store_mover, int store_opponent, int max_plies);

}  // namespace sowdb
