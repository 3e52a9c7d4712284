// Answering one position: the checks every front end needs (the board against the tables, the
// stores against the game, the objective asked against the one held) and the report of the
// tables' objective, as an answer or a typed refusal. The command line, the server and Python
// call this and show its result; none of them checks a position itself.
#pragma once

#include <optional>
#include <vector>

#include "sowdb/analysis/cooperative_report.h"
#include "sowdb/analysis/position_report.h"
#include "sowdb/analysis/position_search.h"
#include "sowdb/analysis/refusal.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb {

/// A question about one position of a table set.
struct PositionQuery {
  /// The pit counts as the user gave them, mover first, counter-clockwise (any length and any
  /// numbers: answer_position checks them).
  std::vector<long long> board;
  long long store_mover = 0;     ///< Seeds already in the mover's store.
  long long store_opponent = 0;  ///< Seeds already in the opponent's store.
  int max_plies = 1000;          ///< The longest principal line, >= 0.
  /// The objective asked; nullopt: the one the tables hold.
  std::optional<Objective> objective;
  /// A position with more seeds than competitive tables hold is answered by a search within this
  /// budget (search_position); nullopt: refused (kTooManySeeds), as before searches existed.
  std::optional<SearchBudget> search;
};

/// What the tables say about a position: the report of their objective.
struct PositionAnswer {
  Objective objective = Objective::kCompetitive;  ///< Which report is set.
  std::optional<PositionReport> competitive;      ///< Set for competitive tables.
  std::optional<CooperativeReport> cooperative;   ///< Set for co-operative tables.
};

/// Checks `board` as a position of the tables' board.
/// RETURN the board; or kBadPosition (the count is not 2P, or a pit is negative or above
///   kMaxBoardStones: "expected 12 pit counts (2 x 6 pits, mover first), got 13", "pit 3: -1
///   seeds"), kTooManySeeds (more than kMaxBoardStones seeds in all, more than any tables hold).
/// THREAD SAFETY thread safe.
Answer<Pits> check_board(const Rules& rules, const std::vector<long long>& board);

/// Checks stores that no position could go with: stores that alone hold more seeds than a game of
/// `variant`, or a negative store. RETURN nullopt when the stores may be played with; else
/// kBadStores ("the stores alone hold more than a game of oware/6x4, which has 48 seeds (2 x 6
/// pits x 4 seeds)"). THREAD SAFETY thread safe.
std::optional<Refusal> check_stores(const Variant& variant,
                                    long long store_mover,
                                    long long store_opponent);

/// The objective asked against the tables': nullopt when they agree (or none was asked), else
/// kWrongObjective with TableSet::explain's message. THREAD SAFETY thread safe.
std::optional<Refusal> check_objective(const TableSet& set, std::optional<Objective> asked);

/// Answers `query` from `set`: checks the board (check_board), the stores (check_stores, then
/// with the board: game_outcome), the objective (check_objective), the seeds against the tables'
/// top layer, then reports the position (report_position or report_cooperative), or above the
/// top layer of competitive tables searches it when query.search is set (search_position).
/// RETURN the answer, or a refusal: kBadPosition, kTooManySeeds (Refusal::seeds and max_seeds
///   set), kBadStores, kWrongObjective, kBadRequest (max_plies < 0), kMissingTable or
///   kCorruptTable (a layer that failed on the way; Refusal::layer set), kInternal.
/// THREAD SAFETY as TableSet's probes: any number of threads may answer at once.
Answer<PositionAnswer> answer_position(const TableSet& set, const PositionQuery& query);

}  // namespace sowdb
