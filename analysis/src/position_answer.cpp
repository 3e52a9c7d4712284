#include "sowdb/analysis/position_answer.h"

#include <exception>
#include <string>

#include "sowdb/probe/internal/count_text.h"
#include "sowdb/probe/outcome.h"

namespace sowdb {
namespace {

using internal::count_text;

// Any store beyond kMaxBoardStones is as impossible as this one, in every game: clamped to it,
// stores sum without overflow.
constexpr long long kBeyondAnyGame = kMaxBoardStones + 1;

// The search keeps values of -128..127 (gen::solve_position); a position of more seeds keeps the
// tables' refusal.
constexpr int kMaxSearchSeeds = 127;

int clamp_store(long long s) {
  return static_cast<int>(std::min(s, kBeyondAnyGame));
}

// The refusal of a position with more seeds than the tables hold, when the tables say so (above
// a missing layer the probe names the missing file instead, and the report says it).
std::optional<Refusal> check_seeds(const TableSet& set, const Pits& board, int seeds) {
  if (seeds <= set.max_stones())
    return std::nullopt;
  int value = 0;
  ReachSet reach;
  const ProbeStatus s = set.objective() == Objective::kCooperative ? set.reach(board, reach)
                                                                   : set.value(board, value);
  if (s != ProbeStatus::kTooManyStones)
    return std::nullopt;
  return refusal_of(s, set, board);
}

}  // namespace

Answer<Pits> check_board(const Rules& rules, const std::vector<long long>& board) {
  const int k = rules.board_pits();
  if (static_cast<long long>(board.size()) != k) {
    return Refusal{RefusalKind::kBadPosition,
                   "expected " + std::to_string(k) + " pit counts (2 x " +
                       count_text(rules.pits_per_side(), "pit", "pits") + ", mover first), got " +
                       std::to_string(board.size())};
  }
  Pits pits{};
  long long total = 0;
  for (int i = 0; i < k; ++i) {
    const long long v = board[static_cast<std::size_t>(i)];
    if (v < 0) {
      return Refusal{
          RefusalKind::kBadPosition,
          "pit " + std::to_string(i) + ": seed count " + std::to_string(v) + " is negative"};
    }
    total += std::min(v, kBeyondAnyGame);
    if (total > kMaxBoardStones) {
      Refusal r{RefusalKind::kTooManySeeds,
                "too many seeds: a board holds at most " + std::to_string(kMaxBoardStones)};
      r.max_seeds = kMaxBoardStones;
      return r;
    }
    pits[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v);
  }
  return pits;
}

std::optional<Refusal> check_stores(const Variant& variant,
                                    long long store_mover,
                                    long long store_opponent) {
  if (store_mover < 0 || store_opponent < 0)
    return Refusal{RefusalKind::kBadStores, "a store holds 0 seeds or more"};
  GameOutcome o;
  if (game_outcome(variant, 0, clamp_store(store_mover), clamp_store(store_opponent), 0, o) ==
      OutcomeStatus::kImpossible) {
    return Refusal{RefusalKind::kBadStores,
                   "the stores alone hold more than a game of " + variant.to_string() +
                       ", which has " + std::to_string(variant.total_stones()) + " seeds (" +
                       internal::game_seeds_breakdown(variant) + ")"};
  }
  return std::nullopt;
}

std::optional<Refusal> check_objective(const TableSet& set, std::optional<Objective> asked) {
  if (!asked || *asked == set.objective())
    return std::nullopt;
  return refusal_of(ProbeStatus::kWrongObjective, set, Pits{});
}

Answer<PositionAnswer> answer_position(const TableSet& set, const PositionQuery& query) {
  if (query.max_plies < 0)
    return Refusal{RefusalKind::kBadRequest, "max_plies must be 0 or more"};
  const Answer<Pits> board = check_board(set.engine(), query.board);
  if (!board)
    return board.refusal();
  if (auto r = check_objective(set, query.objective))
    return *r;
  int seeds = 0;
  for (const auto p : *board)
    seeds += p;
  const std::optional<Refusal> above = check_seeds(set, *board, seeds);
  const bool search = above && query.search && set.objective() == Objective::kCompetitive &&
                      seeds <= kMaxSearchSeeds;
  if (above && !search)
    return *above;
  if (auto r = check_stores(set.variant(), query.store_mover, query.store_opponent))
    return *r;
  const int mover = clamp_store(query.store_mover);
  const int opponent = clamp_store(query.store_opponent);
  GameOutcome o;
  std::string why;
  if (game_outcome(set.variant(), 0, mover, opponent, seeds, o, &why) != OutcomeStatus::kOk)
    return Refusal{RefusalKind::kBadStores, why};
  PositionAnswer a;
  a.objective = set.objective();
  try {
    if (search)
      a.competitive = search_position(set, *board, mover, opponent, query.max_plies, *query.search);
    else if (a.objective == Objective::kCooperative)
      a.cooperative = report_cooperative(set, *board, mover, opponent, query.max_plies);
    else
      a.competitive = report_position(set, *board, mover, opponent, query.max_plies);
  } catch (...) {
    return refusal_of(std::current_exception());
  }
  return a;
}

}  // namespace sowdb
