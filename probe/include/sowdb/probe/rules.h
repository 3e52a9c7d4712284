// The rules engine: legal moves, sowing, captures and the end of the game for every rule set.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "sowdb/format/rule_set.h"

namespace sowdb {

namespace internal {
struct SolverHooks;
}

/// Seeds in each pit. Pits 0..P-1 belong to the player to move (left to right as they see them),
/// pits P..2P-1 to the opponent; pit i faces pit 2P-1-i. Pits at 2P and beyond hold 0.
using Pits = std::array<std::uint8_t, kMaxPits>;

/// What one legal move does.
struct Move {
  Pits child{};               ///< Resulting position, from the side of the player to move next.
  std::uint8_t pit = 0;       ///< The mover's pit sown from, 0..P-1.
  std::uint8_t stored = 0;    ///< Seeds sown into the mover's store (Kalah family, wari-us).
  std::uint8_t captured = 0;  ///< Seeds captured into the mover's store.
  bool extra_turn = false;    ///< The same player moves again: `child` is from their side.
  bool grand_slam = false;    ///< Oware family: the sowing would capture every opposing seed.
  std::uint8_t sowings = 1;   ///< wari-us: sowings in the turn (1 + capture continuations).

  /// Seeds that leave the board for the mover's store.
  int gain() const { return stored + captured; }
};

/// The legal moves of a position, at most one per pit of the mover.
struct MoveList {
  std::array<Move, kMaxPitsPerSide> moves;  ///< The first `size` entries are the moves.
  int size = 0;                             ///< Number of legal moves, 0..P.

  /// Range over the legal moves, for range-for loops.
  const Move* begin() const { return moves.data(); }
  const Move* end() const { return moves.data() + size; }
};

/// Move generation for one rule set. Construction precomputes the sowing tables; afterwards
/// every member is const, allocation-free and thread safe.
class Rules {
 public:
  /// Builds the engine for `rules`. ERRORS throws std::invalid_argument when
  /// `rules.pits_per_side` is not 1..8.
  explicit Rules(const RuleSet& rules);

  /// The rule set, normalised (RuleSet::normalised()).
  const RuleSet& rule_set() const { return rules_; }
  /// Pits per side P.
  int pits_per_side() const { return p_; }
  /// Pits on the board, 2P.
  int board_pits() const { return k_; }
  /// Pits on the board, 2P: board_pits(), under a name that reads as P. Deprecated since
  /// 2026-11-28, removed before 1.0 (as the C API's sowdb_pits): call board_pits() for 2P or
  /// pits_per_side() for P.
  [[deprecated("use board_pits() (2P) or pits_per_side() (P)")]] int pits() const { return k_; }
  /// The fewest seeds a move that gains any gains: 2 in the Oware family (a capture takes pits
  /// of 2 or 3 seeds), else 1 (one seed sown into the store). A move of a position with n seeds
  /// leads to layer n or to a layer of at most n - min_gain() seeds.
  int min_gain() const { return rules_.family == Family::kOware ? 2 : 1; }

  /// Writes every legal move of `board` into `out` (in pit order) and returns how many there
  /// are. Zero means the game is over (see final_value). Requires at most 255 seeds in all.
  int legal_moves(const Pits& board, MoveList& out) const noexcept;

  /// Plays the mover's pit `pit` if that is a legal move: fills `out` exactly as legal_moves
  /// would and returns true; returns false (out unspecified) for an illegal move or pit.
  bool play(const Pits& board, int pit, Move& out) const noexcept;

  /// The mover's seeds minus the opponent's: what the end of the game gives the mover when it
  /// has no legal move (every family lets each player take the seeds on their own side).
  int final_value(const Pits& board) const noexcept;

  /// Seeds on the mover's side (first) and on the opponent's side.
  int own_seeds(const Pits& board) const noexcept {
    std::uint64_t half[2];
    std::memcpy(half, board.data(), sizeof half);
    return byte_sum(half[0] & own_mask_[0]) + byte_sum(half[1] & own_mask_[1]);
  }
  /// Seeds on the opponent's side.
  int opponent_seeds(const Pits& board) const noexcept {
    std::uint64_t half[2];
    std::memcpy(half, board.data(), sizeof half);
    return byte_sum(half[0] & ~own_mask_[0]) + byte_sum(half[1] & ~own_mask_[1]);
  }

  /// Turns the board so that the opponent becomes the mover.
  Pits rotate(const Pits& board) const noexcept {
    // The board as one 128-bit number in two 64-bit halves, pit i in byte i: turning it is a
    // rotation of its low 2P bytes by P bytes (pits 2P and up are zero).
    std::uint64_t x[2];
    std::memcpy(x, board.data(), sizeof x);
    const int shift = 8 * p_;
    std::uint64_t r[2];
    if (shift == 64) {
      r[0] = x[1];
      r[1] = x[0];
    } else {
      // x >> shift, plus (x's low `shift` bits) << shift; 8 <= shift < 64.
      const std::uint64_t low = x[0] & ((std::uint64_t{1} << shift) - 1);
      r[0] = (x[0] >> shift) | (x[1] << (64 - shift)) | (low << shift);
      r[1] = (x[1] >> shift) | (low >> (64 - shift));
    }
    Pits out;
    std::memcpy(out.data(), r, sizeof r);
    return out;
  }

  /// The value of a move: its gain plus (extra turn) or minus the value of its child.
  static int worth(const Move& m, int child_value) noexcept {
    return worth(m.gain(), m.extra_turn, child_value);
  }
  /// The same for a move known by its gain and whether it gives an extra turn.
  static int worth(int gain, bool extra_turn, int child_value) noexcept {
    return gain + (extra_turn ? child_value : -child_value);
  }

 private:
  // The generator's hooks into the sowing tables (sowdb/probe/internal/solver_hooks.h).
  friend struct internal::SolverHooks;

  // Marks the mover's store in path_.
  static constexpr std::uint8_t kStore = 255;

  // Sows `seeds` from pit `origin` into `b`; returns the last pit sown (kStore for the store) and
  // adds the seeds sown into the store to `stored`.
  int sow(Pits& b, int origin, int seeds, int& stored) const noexcept {
    const SowStep& st = sow_table_[origin * kSowRows + seeds];
    // Empty the origin and add the row, 8 pits at a time: no pit overflows (a board holds at
    // most 255 seeds), so a 64-bit addition adds each byte on its own.
    add_row(b, keep_origin_[origin], st.add);
    stored += st.stored;
    return st.last;
  }
  // b = (b & keep) + add, bytewise, for rows whose sums fit in a byte.
  static void add_row(Pits& b, const Pits& keep, const Pits& add) noexcept {
    std::uint64_t x[2];
    std::uint64_t k[2];
    std::uint64_t y[2];
    std::memcpy(x, b.data(), sizeof x);
    std::memcpy(k, keep.data(), sizeof k);
    std::memcpy(y, add.data(), sizeof y);
    x[0] = (x[0] & k[0]) + y[0];
    x[1] = (x[1] & k[1]) + y[1];
    std::memcpy(b.data(), x, sizeof x);
  }
  // Sum of the 8 bytes of x (at most 255 in all).
  static int byte_sum(std::uint64_t x) noexcept {
    return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
  }
  bool kalah_over(const Pits& board) const noexcept;
  // One move from the mover's non-empty pit `i`, without the grand-slam legality rule; false
  // when the feeding rule forbids it.
  bool oware_move(const Pits& board, int i, int opponent_seeds, Move& m) const noexcept;
  // docs/RULES.md, the Oware family, item 4: under `forbidden` a grand slam is legal only when
  // every legal move is one. Drops the grand slams among moves[0..count) unless all `legal` legal
  // moves (`grand_slams` of them grand slams) are; returns how many moves are kept.
  int drop_forbidden_grand_slams(MoveList& moves,
                                 int count,
                                 int grand_slams,
                                 int legal) const noexcept;
  void kalah_move(const Pits& board, int i, Move& m) const noexcept;
  void wari_us_move(const Pits& board, int i, Move& m) const noexcept;

  RuleSet rules_;
  int p_;
  int k_;
  std::uint64_t own_mask_[2] = {0, 0};  // bytes of the mover's pits in the board's two halves
  int cycle_;                           // sowing positions in one lap for a sowing from any origin
  // path_[origin][j] = the j-th place sown from origin (a pit, or kStore), j < cycle_.
  std::array<std::array<std::uint8_t, 2 * kMaxPits + 2>, kMaxPitsPerSide> path_{};

  // What sowing s seeds from an origin does, for every s a pit can hold: the inner loop of the
  // generator adds one 16-byte row instead of walking the path.
  struct SowStep {
    Pits add{};                  // seeds added to each pit (the origin's own refill on laps)
    std::uint8_t last = 0;       // the last place sown (a pit, or kStore)
    std::uint8_t stored = 0;     // seeds sown into the store
    std::uint8_t opp_added = 0;  // seeds sown into the opponent's pits
  };
  static constexpr int kSowRows = 256;
  std::array<Pits, kMaxPitsPerSide> keep_origin_{};  // 0xff in every pit but the origin
  std::vector<SowStep> sow_table_;                   // [origin * kSowRows + seeds]
};

}  // namespace sowdb
