// What a position's value means for the game in progress: the final score under perfect play
// and who wins, given the seeds already in the stores (README, "Positions and values").
#pragma once

#include <cstdint>
#include <string>

#include "sowdb/probe/variant.h"

namespace sowdb {

/// The game's result for the mover.
enum class GameResult : std::int8_t {
  kLoss = -1,
  kDraw = 0,
  kWin = 1,
};

/// "win", "draw" or "loss" (the words of the CLI's JSON field `result`). Never null. Thread
/// safe.
const char* to_string(GameResult result) noexcept;

/// The end of a game under perfect play by both sides, from the mover's side.
struct GameOutcome {
  /// Seeds in the game: the variant's 2PS (Variant::total_stones()), or the seeds on the board
  /// for a position of a layer above that (tables may hold such layers; their stores are empty).
  int total_seeds = 0;
  /// The mover's final seeds: store_mover + (stones + value) / 2. A whole number, or a half
  /// when endless play splits an odd number of seeds evenly.
  double mover = 0;
  /// The opponent's final seeds: store_opponent + (stones - value) / 2.
  double opponent = 0;
  /// Oware family: a store already holds more than half of total_seeds, which decides the game
  /// whatever the value (docs/RULES.md, the majority rule); `result` says whose store. Always false
  /// in the other families.
  bool decided = false;
  /// kWin or kLoss when `decided` (the mover's or the opponent's store), else the sign of
  /// mover - opponent, that is of store_mover - store_opponent + value.
  GameResult result = GameResult::kDraw;
};

/// Why game_outcome refused its input.
enum class OutcomeStatus : std::uint8_t {
  kOk = 0,       ///< The outcome is valid.
  kImpossible,   ///< The stores and the board hold more seeds than the game (total_seeds).
  kBadArgument,  ///< A negative store, stones outside 0..kMaxBoardStones, or |value| > stones.
};

/// The outcome of the game in progress at a position of `variant` whose value (a table's
/// answer: the mover's seeds from now on minus the opponent's) is `value`, with `stones` seeds on
/// the board and `store_mover`, `store_opponent` seeds already in the stores.
/// PARAMETERS
///   variant    the rules and the board: P pits per side and S seeds per pit, so the game holds
///              2PS seeds (TableSet::variant() for a table directory).
///   value      the position's value, in [-stones, stones].
///   store_mover, store_opponent  seeds already taken, >= 0.
///   stones     seeds on the board, 0..kMaxBoardStones.
///   out        written only on kOk.
///   error      when not null, set to a one-line reason on any other status; the reason of
///              kImpossible names the limit, e.g. "stores 40 + 40 and 1 seed on the board make
///              81 seeds; a game of oware/6x4 holds 48 (2 x 6 pits x 4 seeds)".
/// RETURN kOk; kImpossible when store_mover + store_opponent + stones exceeds the seeds of the
///   game: 2PS, or `stones` when the board alone holds more than 2PS (a layer above the start,
///   whose stores can only be empty); kBadArgument (above).
/// NOTES stores that hold fewer seeds than the game (the CLI's default 0,0 in the middle of a
///   game) are accepted: the final scores then add up to less than total_seeds, but their
///   difference, the result and the majority rule (a store holding more than half of
///   total_seeds) are right.
/// THREAD SAFETY thread safe. Never throws, except std::bad_alloc while composing a reason.
OutcomeStatus game_outcome(const Variant& variant,
                           int value,
                           int store_mover,
                           int store_opponent,
                           int stones,
                           GameOutcome& out,
                           std::string* error = nullptr);

/// game_outcome for a value known only to lie in [lower, upper] (a search's proved bounds).
/// PARAMETERS as game_outcome, `lower` <= `upper` both in [-stones, stones]; `decided` is set
///   true when both ends lead to the same result, and `out` (written on kOk) is then the outcome
///   of `lower`: its result holds for any value in the bounds, its score when they meet.
/// RETURN as game_outcome for each end (the first that is not kOk).
/// THREAD SAFETY thread safe. Never throws, except std::bad_alloc while composing a reason.
OutcomeStatus bounded_outcome(const Variant& variant,
                              int lower,
                              int upper,
                              int store_mover,
                              int store_opponent,
                              int stones,
                              GameOutcome& out,
                              bool& decided,
                              std::string* error = nullptr);

}  // namespace sowdb
