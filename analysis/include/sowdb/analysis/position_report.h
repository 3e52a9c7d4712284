// The position report: what a table directory says about one position of competitive tables
// (value, outcome with the stores, every legal move ranked best first, the principal line).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sowdb/probe/outcome.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb {

/// How a position was answered.
enum class AnswerMethod : std::uint8_t {
  kTable,   ///< The tables hold the position: every figure is exact.
  kSearch,  ///< A search above the tables: bounds, exact where they meet.
};

/// "table" or "search". Never null.
const char* to_string(AnswerMethod method) noexcept;

/// One legal move of a reported position.
struct ReportedMove {
  int pit = 0;  ///< The mover's pit sown, 0..P-1 from the mover's left.
  /// Seeds the mover nets from the position by playing it (perfect play after); after a search
  /// that did not prove it (lower < upper), 0.
  int worth = 0;
  /// Bounds on the worth: both equal `worth` when it is known (always, from the tables).
  int lower = 0;
  int upper = 0;
  /// Plies to realise the worth after the move (0 when it gains seeds); tables only (0 after a
  /// search).
  int depth = 0;
  int gain = 0;             ///< Seeds the move sends to the mover's store: stored + captured.
  int stored = 0;           ///< Seeds sown straight into the mover's store (Kalah family, wari-us).
  int captured = 0;         ///< Seeds captured.
  bool extra_turn = false;  ///< The mover moves again: `after` is from the mover's side.
  /// The game's result for the mover after this move with the report's stores: win, draw or
  /// loss (GameOutcome::result of the worth); meaningful only when category_known.
  GameResult category = GameResult::kDraw;
  /// The bounds decide the category (always, from the tables).
  bool category_known = true;
  Pits after{};  ///< The resulting position, from the side of the player to move next.

  /// The worth is known exactly.
  bool exact() const { return lower == upper; }
};

/// How a search above the tables went (PositionReport::search).
struct SearchFacts {
  std::uint64_t positions = 0;  ///< Positions the search expanded.
  double seconds = 0;           ///< Its wall time.
  /// Every figure asked was proved: the value, and every move's worth when they were asked.
  bool complete = false;
  /// Why it stopped before that: "time_limit", "positions", "stopped" (the caller's stop); empty
  /// when complete.
  std::string stopped_by;
  int tables_max = -1;  ///< The tables' top layer it probed below (-1: none).
  /// The pit of the best move found so far when none is proved best (-1: none).
  int best_found = -1;
  /// The answer came from the proof store (positions proved by an earlier search): nothing was
  /// searched now.
  bool stored = false;
  /// Seconds from the start of the search until the value was proved, and until a best move
  /// was (with the value); -1: not proved. 0 for an answer from the proof store. They tell a
  /// caller who asked for every worth how soon the value alone came.
  double value_seconds = -1;
  double best_seconds = -1;
};

/// Everything the tables say about one position (see report_position).
struct PositionReport {
  Variant variant;         ///< The tables' variant (the board has 2P pits of it).
  Pits board{};            ///< The position, mover first.
  int stones = 0;          ///< Seeds on the board.
  int store_mover = 0;     ///< Seeds already in the mover's store.
  int store_opponent = 0;  ///< Seeds already in the opponent's store.
  /// Seeds the mover nets from here under perfect play; 0 when a search did not prove it.
  int value = 0;
  int depth = 0;  ///< Plies to realise the value (0 when it is 0); tables only (0 after a search).
  /// Bounds on the value: both equal `value` when it is known (always, from the tables).
  int lower = 0;
  int upper = 0;
  AnswerMethod method = AnswerMethod::kTable;  ///< Tables or search.
  /// Result and final score with the stores: the result is meaningful when outcome_known, the
  /// final score and `decided` when the value is exact too.
  GameOutcome outcome;
  bool outcome_known = true;          ///< The bounds decide the result (always, from the tables).
  std::optional<SearchFacts> search;  ///< Set when method is kSearch.
  /// The legal moves, best first: highest worth, then the tie-breaks of TableSet::best_move
  /// (quickest win, longest defence, at worth 0 a gaining move then the smallest depth), then
  /// the lowest pit; so moves.front() is the best move. Empty when the game is over.
  std::vector<ReportedMove> moves;
  PrincipalLine line;  ///< Best moves to the end of the game (at most max_plies of them).
  /// After a search: false when `line` stops where the best move is not proved (its end is
  /// then kMaxPlies, and line.last the position it reached). Always true from the tables.
  bool line_proved = true;

  /// The best move's pit; nullopt when the game is over, or when a search did not prove one
  /// best (SearchFacts::best_found then gives the best found so far).
  std::optional<int> best() const {
    if (moves.empty() || (method == AnswerMethod::kSearch && !best_proved))
      return std::nullopt;
    return moves.front().pit;
  }
  /// The value is known exactly.
  bool exact() const { return lower == upper; }
  /// A search proved moves.front() at least as good as every other move.
  bool best_proved = false;
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
