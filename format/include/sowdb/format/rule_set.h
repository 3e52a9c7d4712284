// The rule set of a table, written out field by field (FORMAT.md, "Rule set").
#pragma once

#include <cstdint>

namespace sowdb {

/// The largest number of pits per side any board may have.
inline constexpr int kMaxPitsPerSide = 8;
/// The largest number of pits on a board (both sides).
inline constexpr int kMaxPits = 2 * kMaxPitsPerSide;

/// Rule family: decides how seeds are sown and what a move captures (docs/RULES.md).
enum class Family : std::uint8_t {
  kOware = 0,   ///< Stores are never sown into; captures of 2 or 3 on the opponent's side.
  kKalah = 1,   ///< The mover's store is sown into; extra turn; capture of the opposite pit.
  kWariUs = 2,  ///< Seed 003's alternate rules: store sown into, captures of exactly 2, chains.
};

/// What a grand slam (a capture of every seed left on the opponent's side) does, Oware family.
enum class GrandSlam : std::uint8_t {
  kCapture = 0,    ///< It captures them all.
  kNoCapture = 1,  ///< The move is legal but captures nothing.
  kForbidden = 2,  ///< Illegal unless every legal move is one; when forced it captures all.
};

/// When a Kalah-family game ends.
enum class KalahEnd : std::uint8_t {
  kNoMove = 0,     ///< The player to move has no seeds: the other takes the seeds on their side.
  kEmptySide = 1,  ///< Either side is empty after a move: each takes the seeds on their own side.
};

/// The complete rule set of one board: everything a table's values depend on.
///
/// Options that do not apply to a family hold their normalised value (see `normalised()`), so two
/// rule sets compare equal exactly when they give the same game.
struct RuleSet {
  Family family = Family::kOware;
  std::uint8_t pits_per_side = 6;                ///< P, 1..8.
  bool skip_origin = true;                       ///< A lapping sowing skips the emptied origin pit.
  GrandSlam grand_slam = GrandSlam::kForbidden;  ///< Oware family only.
  bool capture_empty_opposite = false;           ///< Kalah family: the lone last seed is taken too.
  KalahEnd end = KalahEnd::kNoMove;              ///< Kalah family only.

  /// Number of pits on the board, 2P.
  constexpr int pits() const { return 2 * pits_per_side; }

  /// The same rule set with every option that does not apply to its family set to its default.
  constexpr RuleSet normalised() const {
    RuleSet r = *this;
    if (family != Family::kOware)
      r.grand_slam = GrandSlam::kCapture;
    if (family != Family::kKalah) {
      r.capture_empty_opposite = false;
      r.end = KalahEnd::kNoMove;
    }
    return r;
  }

  bool operator==(const RuleSet&) const = default;
};

}  // namespace sowdb
