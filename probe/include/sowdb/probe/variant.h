// Named rule systems (presets) and their canonical text form (README, "Variants").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sowdb/format/rule_set.h"
#include "sowdb/probe/rules.h"

namespace sowdb {

/// Largest number of seeds on a board: a pit count is one byte.
inline constexpr int kMaxBoardStones = 255;

/// A named rule system (docs/RULES.md) with the document it comes from.
struct Preset {
  std::string_view name;         ///< e.g. "oware".
  RuleSet rules;                 ///< Rules on the standard board of 6 pits per side.
  std::string_view source;       ///< Where the rules come from (seed document or paper).
  std::string_view description;  ///< One line on what sets it apart.
};

/// Every preset, in the order of docs/RULES.md. Thread safe (constant data).
std::span<const Preset> presets() noexcept;

/// The preset called `name`, or nullptr. Thread safe.
const Preset* find_preset(std::string_view name) noexcept;

/// A rule system on a concrete board: a preset, its rules (options may differ from the preset's)
/// and the seeds per pit S of the start position.
struct Variant {
  std::string preset = "oware";  ///< The preset's name, e.g. "oware".
  RuleSet rules;                 ///< The rules, the preset's with any options applied.
  int seeds_per_pit = 4;         ///< S: seeds in each pit at the start.

  /// Canonical text form `PRESET/PxS[/OPTION=VALUE,...]`, listing (in a fixed order) only the
  /// options that differ from the preset. parse_variant(to_string()) gives back this variant.
  std::string to_string() const;

  /// Stones on the board at the start: 2 * P * S.
  int total_stones() const { return rules.pits() * seeds_per_pit; }

  /// The start position: S seeds in each of the 2P pits, from the first player's side.
  /// Thread safe.
  Pits start() const;

  bool operator==(const Variant&) const = default;
};

/// Parses `PRESET`, `PRESET/PxS` or `PRESET/PxS/OPTION=VALUE,...` (options: skip_origin=on|off,
/// grand_slam=capture|no_capture|forbidden, capture_empty_opposite=on|off,
/// end=no_move|empty_side). A preset alone means its standard board 6x4.
/// Returns nullopt and a one-line reason in `*error` (if given) on bad input:
/// unknown preset or option, P outside 1..8, S < 1, more than kMaxBoardStones seeds,
/// an option that does not apply to the family. Thread safe.
std::optional<Variant> parse_variant(std::string_view text, std::string* error = nullptr);

/// Text of each option value as used in the canonical form ("oware", "no_capture",
/// "empty_side", ...). Never empty for a valid enumerator. Thread safe.
std::string_view to_string(Family family) noexcept;
std::string_view to_string(GrandSlam grand_slam) noexcept;
std::string_view to_string(KalahEnd end) noexcept;

}  // namespace sowdb
