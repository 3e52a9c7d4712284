// Counts in the project's messages: "1 seed", "2 seeds", and where a game's seeds come from.
// Internal to the project (not installed).
#pragma once

#include <string>
#include <string_view>

#include "sowdb/probe/variant.h"

namespace sowdb::internal {

/// `n` followed by `one` when n is 1, else by `many`: "1 seed", "0 seeds", "3 entries".
/// Thread safe.
template <typename Count>
std::string count_text(Count n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

/// Where the seeds of a game of `variant` come from: "2 x 6 pits x 4 seeds" for oware/6x4.
/// Thread safe.
inline std::string game_seeds_breakdown(const Variant& variant) {
  return "2 x " + count_text(variant.rules.pits_per_side, "pit", "pits") + " x " +
         count_text(variant.seeds_per_pit, "seed", "seeds");
}

}  // namespace sowdb::internal
