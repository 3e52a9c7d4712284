// The generator's hooks into the rules engine: shortcuts that its solvers' inner loops take
// instead of building every Move. Not installed: engines see only sowdb/probe/rules.h, so these
// may change with every solver optimisation.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include "sowdb/probe/rules.h"

namespace sowdb::internal {

/// Static access to the sowing tables of a Rules object. Every function is thread safe and
/// allocation free, as Rules' own.
struct SolverHooks {
  /// Marks the mover's store in sowing_path().
  static constexpr std::uint8_t kStore = Rules::kStore;

  /// Oware family, for a solver's first pass over a layer: the legal moves of `board` split
  /// into those that keep every seed on the board and those that gain seeds. Writes the moves
  /// that gain seeds into `exits` (in pit order, as legal_moves would build them) and returns
  /// the number of legal moves that gain nothing in `quiet`. Returns the number of legal moves,
  /// as legal_moves; 0 means the game is over. Same moves as legal_moves, without building
  /// the moves that gain nothing (most of them).
  static int oware_exits(const Rules& rules,
                         const Pits& board,
                         MoveList& exits,
                         int& quiet) noexcept;

  /// Oware family, for predecessor searches: replays the mover's pit `pit` of `board` and tells
  /// whether it is a legal move that leaves every seed on the board (no capture; a grand slam
  /// under kNoCapture captures nothing) and leads to the child `rules.rotate(turned_child)`.
  /// Same answer as play() followed by a check of Move::gain() == 0 and
  /// Move::child == rotate(turned_child), without building the Move. The child comes turned
  /// because a predecessor search has it so for all its candidates: the sown board is compared
  /// as it lies, with no rotation per candidate.
  static bool oware_quiet_move_to_turned(const Rules& rules,
                                         const Pits& board,
                                         int pit,
                                         const Pits& turned_child) noexcept {
    if (pit < 0 || pit >= rules.p_ || board[pit] == 0)
      return false;
    const Rules::SowStep& st = rules.sow_table_[pit * Rules::kSowRows + board[pit]];
    Pits sown = board;
    Rules::add_row(sown, rules.keep_origin_[pit], st.add);
    // A capture empties pits, so a move that captures cannot lead to `child` unsown; check the
    // cheap equality first.
    if (std::memcmp(sown.data(), turned_child.data(), sizeof sown) != 0)
      return false;
    const int opp_after = rules.opponent_seeds(board) + st.opp_added;
    if (opp_after == 0)
      return false;  // feeding rule: an empty opponent must be fed
    // The sown board equals turned_child: its pits are read from there.
    int captured = 0;
    for (int at = st.last; at >= rules.p_; --at) {
      const int seeds = turned_child[at];
      if (seeds != 2 && seeds != 3)
        break;
      captured += seeds;
    }
    // A capturing move gains seeds, but for a grand slam under kNoCapture, which captures
    // nothing (and is legal; under kForbidden a legal grand slam captures).
    return captured == 0 ||
           (captured == opp_after && rules.rules_.grand_slam == GrandSlam::kNoCapture);
  }

  /// Places sown from `origin` in one lap, in order: pit numbers, or kStore for the mover's store.
  static std::span<const std::uint8_t> sowing_path(const Rules& rules, int origin) noexcept {
    return {rules.path_[origin].data(), static_cast<std::size_t>(rules.cycle_)};
  }

  /// Seeds that sowing `seeds` (1..255) from the mover's pit `origin` adds to each pit, the
  /// origin's own refill on laps included (the origin is emptied first).
  static const Pits& sowing_add(const Rules& rules, int origin, int seeds) noexcept {
    return rules.sow_table_[origin * Rules::kSowRows + seeds].add;
  }
  /// Seeds that sowing `seeds` from `origin` puts into the mover's store.
  static int sowing_stored(const Rules& rules, int origin, int seeds) noexcept {
    return rules.sow_table_[origin * Rules::kSowRows + seeds].stored;
  }
};

}  // namespace sowdb::internal
