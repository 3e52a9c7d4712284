// The rules engine: legal moves, sowing, captures and the end of the game for every rule set.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "sowdb/format/rule_set.h"

namespace sowdb {

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
  int pits() const { return k_; }
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
    // The board as one 128-bit number, pit i in byte i: turning it is a rotation of its low 2P
    // bytes by P bytes (pits 2P and up are zero).
    U128 x;
    std::memcpy(&x, board.data(), sizeof x);
    const U128 r = rotate_bits(x);
    Pits out;
    std::memcpy(out.data(), &r, sizeof r);
    return out;
  }

  /// Oware family, for a solver's first pass over a layer: the legal moves of `board` split
  /// into those that keep every seed on the board and those that gain seeds. Writes the moves
  /// that gain seeds into `exits` (in pit order, as legal_moves would build them) and returns
  /// the number of legal moves that gain nothing in `quiet`. Returns the number of legal moves,
  /// as legal_moves; 0 means the game is over. Same moves as legal_moves, without building
  /// the moves that gain nothing (most of them). Thread safe.
  int oware_exits(const Pits& board, MoveList& exits, int& quiet) const noexcept;

  /// Oware family, for predecessor searches: replays the mover's pit `pit` of `board` and tells
  /// whether it is a legal move that leaves every seed on the board (no capture; a grand slam
  /// under kNoCapture captures nothing) and leads to the child `rotate(turned_child)`. Same
  /// answer as play() followed by a check of Move::gain() == 0 and
  /// Move::child == rotate(turned_child), without building the Move. The child comes turned
  /// because a predecessor search has it so for all its candidates: the sown board is compared
  /// as it lies, with no rotation per candidate. Thread safe.
  bool oware_quiet_move_to_turned(const Pits& board,
                                  int pit,
                                  const Pits& turned_child) const noexcept {
    if (pit < 0 || pit >= p_ || board[pit] == 0)
      return false;
    const SowStep& st = sow_table_[pit * kSowRows + board[pit]];
    U128 x;
    U128 add;
    U128 keep;
    U128 want;
    std::memcpy(&x, board.data(), sizeof x);
    std::memcpy(&add, st.add.data(), sizeof add);
    std::memcpy(&keep, keep_origin_[pit].data(), sizeof keep);
    std::memcpy(&want, turned_child.data(), sizeof want);
    x = (x & keep) + add;
    // A capture empties pits, so a move that captures cannot lead to `child` unsown; check the
    // cheap equality first.
    if (x != want)
      return false;
    const int opp_after = opponent_seeds(board) + st.opp_added;
    if (opp_after == 0)
      return false;  // feeding rule: an empty opponent must be fed
    // The sown board equals turned_child: its pits are read from there.
    int captured = 0;
    for (int at = st.last; at >= p_; --at) {
      const int seeds = turned_child[at];
      if (seeds != 2 && seeds != 3)
        break;
      captured += seeds;
    }
    // A capturing move gains seeds, but for a grand slam under kNoCapture, which captures
    // nothing (and is legal; under kForbidden a legal grand slam captures).
    return captured == 0 || (captured == opp_after && rules_.grand_slam == GrandSlam::kNoCapture);
  }

  /// Places sown from `origin` in one lap, in order: pit numbers, or kStore for the mover's store.
  std::span<const std::uint8_t> sowing_path(int origin) const noexcept {
    return {path_[origin].data(), static_cast<std::size_t>(cycle_)};
  }

  /// Seeds that sowing `seeds` (1..255) from the mover's pit `origin` adds to each pit, the
  /// origin's own refill on laps included (the origin is emptied first).
  const Pits& sowing_add(int origin, int seeds) const noexcept {
    return sow_table_[origin * kSowRows + seeds].add;
  }
  /// Seeds that sowing `seeds` from `origin` puts into the mover's store.
  int sowing_stored(int origin, int seeds) const noexcept {
    return sow_table_[origin * kSowRows + seeds].stored;
  }

  /// Marks the mover's store in sowing_path().
  static constexpr std::uint8_t kStore = 255;

  /// The value of a move: its gain plus (extra turn) or minus the value of its child.
  static int worth(const Move& m, int child_value) noexcept {
    return m.gain() + (m.extra_turn ? child_value : -child_value);
  }

 private:
  __extension__ typedef unsigned __int128 U128;
  // rotate() on the board as a number.
  U128 rotate_bits(U128 x) const noexcept {
    const int shift = 8 * p_;
    const U128 low_mask = shift < 64 ? (static_cast<U128>(1) << shift) - 1 : ~static_cast<U128>(0);
    return (x >> shift) | ((x & low_mask) << shift);
  }
  // Sows `seeds` from pit `origin` into `b`; returns the last pit sown (kStore for the store) and
  // adds the seeds sown into the store to `stored`.
  int sow(Pits& b, int origin, int seeds, int& stored) const noexcept {
    const SowStep& st = sow_table_[origin * kSowRows + seeds];
    // Empty the origin and add the row as 16-lane byte vectors (a byte store followed by a
    // vector load would stall store forwarding); no lane overflows, a board holds <= 255 seeds.
    typedef std::uint8_t V16 __attribute__((vector_size(16)));
    V16 x;
    V16 y;
    V16 keep;
    std::memcpy(&x, b.data(), sizeof x);
    std::memcpy(&y, st.add.data(), sizeof y);
    std::memcpy(&keep, keep_origin_[origin].data(), sizeof keep);
    x = (x & keep) + y;
    std::memcpy(b.data(), &x, sizeof x);
    stored += st.stored;
    return st.last;
  }
  // Sum of the 8 bytes of x (at most 255 in all).
  static int byte_sum(std::uint64_t x) noexcept {
    return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
  }
  bool kalah_over(const Pits& board) const noexcept;
  // One move from the mover's non-empty pit `i`, without the grand-slam legality rule; false
  // when the feeding rule forbids it.
  bool oware_move(const Pits& board, int i, int opponent_seeds, Move& m) const noexcept;
  // VARIANTS.md, Oware family, item 5: under `forbidden` a grand slam is legal only when every
  // legal move is one. Drops the grand slams among moves[0..count) unless all `legal` legal
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
