#include "sowdb/probe/outcome.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "sowdb/probe/internal/count_text.h"

namespace sowdb {

using internal::count_text;

const char* to_string(GameResult result) noexcept {
  switch (result) {
    case GameResult::kWin:
      return "win";
    case GameResult::kDraw:
      return "draw";
    case GameResult::kLoss:
      return "loss";
  }
  return "draw";
}

OutcomeStatus game_outcome(const Variant& variant,
                           int value,
                           int store_mover,
                           int store_opponent,
                           int stones,
                           GameOutcome& out,
                           std::string* error) {
  std::string why;
  if (store_mover < 0 || store_opponent < 0) {
    why = "stores " + std::to_string(store_mover) + " and " + std::to_string(store_opponent) +
          ": a store cannot hold fewer than 0 seeds";
  } else if (stones < 0 || stones > kMaxBoardStones) {
    why = std::to_string(stones) + " seeds on the board: a board holds 0.." +
          std::to_string(kMaxBoardStones);
  } else if (std::abs(value) > stones) {
    why = "value " + std::to_string(value) + " with " + count_text(stones, "seed", "seeds") +
          " on the board: a value lies in [-" + std::to_string(stones) + ", " +
          std::to_string(stones) + "]";
  }
  if (!why.empty()) {
    if (error)
      *error = std::move(why);
    return OutcomeStatus::kBadArgument;
  }
  const int game = variant.total_stones();
  // Tables may hold layers above the start position's 2PS seeds (gen writes any layer up to
  // 127): such a position is a game of its own seeds, with nothing in the stores yet.
  const int total = std::max(game, stones);
  // In 64 bits: the stores are the caller's numbers, possibly near INT_MAX.
  const long long held = static_cast<long long>(store_mover) + store_opponent + stones;
  if (held > total) {
    if (error) {
      *error = "stores " + std::to_string(store_mover) + " + " + std::to_string(store_opponent) +
               " and " + count_text(stones, "seed", "seeds") + " on the board make " +
               std::to_string(held) + " seeds; a game of " + variant.to_string() + " holds " +
               std::to_string(game) + " (" + internal::game_seeds_breakdown(variant) + ")";
      if (stones > game)
        *error += ", and a position with more seeds on the board than that has empty stores";
    }
    return OutcomeStatus::kImpossible;
  }
  GameOutcome o;
  o.total_seeds = total;
  // Endless play splits the remaining seeds evenly, so a half seed is possible.
  o.mover = store_mover + (stones + value) / 2.0;
  o.opponent = store_opponent + (stones - value) / 2.0;
  if (variant.rules.family == Family::kOware) {
    // Seeds never leave a store, so a store with more than half of the game's seeds has won
    // however the rest is shared (docs/RULES.md, the majority rule). Out of the game's seeds, not
    // of the stores and board given: stores given as 0,0 mid-game hold less than the game.
    if (2 * store_mover > total) {
      o.decided = true;
      o.result = GameResult::kWin;
    } else if (2 * store_opponent > total) {
      o.decided = true;
      o.result = GameResult::kLoss;
    }
  }
  if (!o.decided) {
    const int margin = store_mover - store_opponent + value;
    o.result = margin > 0 ? GameResult::kWin : margin < 0 ? GameResult::kLoss : GameResult::kDraw;
  }
  out = o;
  return OutcomeStatus::kOk;
}

OutcomeStatus bounded_outcome(const Variant& variant,
                              int lower,
                              int upper,
                              int store_mover,
                              int store_opponent,
                              int stones,
                              GameOutcome& out,
                              bool& decided,
                              std::string* error) {
  GameOutcome low;
  GameOutcome high;
  OutcomeStatus status =
      game_outcome(variant, lower, store_mover, store_opponent, stones, low, error);
  if (status == OutcomeStatus::kOk)
    status = game_outcome(variant, upper, store_mover, store_opponent, stones, high, error);
  if (status != OutcomeStatus::kOk)
    return status;
  out = low;
  decided = low.result == high.result;
  return OutcomeStatus::kOk;
}

}  // namespace sowdb
