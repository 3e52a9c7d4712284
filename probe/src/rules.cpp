#include "sowdb/probe/rules.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "sowdb/probe/internal/solver_hooks.h"

namespace sowdb {

Rules::Rules(const RuleSet& rules)
    : rules_(rules.normalised()), p_(rules.pits_per_side), k_(2 * rules.pits_per_side) {
  // The tables below are sized for kMaxPitsPerSide: a larger board would write past them.
  if (p_ < 1 || p_ > kMaxPitsPerSide) {
    throw std::invalid_argument("Rules: pits per side must be 1.." +
                                std::to_string(kMaxPitsPerSide) + ", not " + std::to_string(p_));
  }
  const bool store = rules_.family != Family::kOware;
  // The places of the board in sowing order (docs/RULES.md: Oware skips the stores; Kalah and
  // wari-us sow the mover's own store, between pit P-1 and pit P). A pit i < P sits at ring[i].
  std::array<std::uint8_t, 2 * kMaxPits + 1> ring{};
  int ring_size = 0;
  for (int pit = 0; pit < k_; ++pit) {
    ring[ring_size++] = static_cast<std::uint8_t>(pit);
    if (store && pit == p_ - 1)
      ring[ring_size++] = kStore;
  }
  // One lap starting after the origin: from pit P-1 the first seed goes into the store.
  for (int origin = 0; origin < p_; ++origin) {
    int n = 0;
    for (int step = 1; step <= ring_size; ++step) {
      const std::uint8_t place = ring[(origin + step) % ring_size];
      if (place == origin && rules_.skip_origin)
        continue;
      path_[origin][n++] = place;
    }
    cycle_ = n;
  }
  for (int i = 0; i < p_; ++i)
    own_mask_[i / 8] |= std::uint64_t{0xff} << (8 * (i % 8));
  for (int origin = 0; origin < p_; ++origin) {
    keep_origin_[origin].fill(0xff);
    keep_origin_[origin][origin] = 0;
  }
  sow_table_.resize(static_cast<std::size_t>(p_) * kSowRows);
  for (int origin = 0; origin < p_; ++origin) {
    for (int seeds = 1; seeds < kSowRows; ++seeds) {
      SowStep& st = sow_table_[origin * kSowRows + seeds];
      for (int j = 0; j < seeds; ++j) {
        const std::uint8_t place = path_[origin][j % cycle_];
        if (place == kStore) {
          ++st.stored;
        } else {
          ++st.add[place];
          if (place >= p_)
            ++st.opp_added;
        }
        st.last = place;
      }
    }
  }
}

int Rules::final_value(const Pits& board) const noexcept {
  return own_seeds(board) - opponent_seeds(board);
}

int Rules::drop_forbidden_grand_slams(MoveList& moves,
                                      int count,
                                      int grand_slams,
                                      int legal) const noexcept {
  if (rules_.grand_slam != GrandSlam::kForbidden || grand_slams == 0 || grand_slams == legal)
    return count;
  int kept = 0;
  for (int j = 0; j < count; ++j) {
    if (!moves.moves[j].grand_slam)
      moves.moves[kept++] = moves.moves[j];
  }
  return kept;
}

int Rules::legal_moves(const Pits& board, MoveList& out) const noexcept {
  int n = 0;
  switch (rules_.family) {
    case Family::kOware: {
      // docs/RULES.md, the Oware family, items 3-4: the feeding rule first, then (under
      // `forbidden`) the grand-slam rule among the moves that remain.
      const int opponent = opponent_seeds(board);
      int grand_slams = 0;
      for (int i = 0; i < p_; ++i) {
        if (board[i] != 0 && oware_move(board, i, opponent, out.moves[n])) {
          grand_slams += out.moves[n].grand_slam;
          ++n;
        }
      }
      n = drop_forbidden_grand_slams(out, n, grand_slams, n);
      break;
    }
    case Family::kKalah:
      if (kalah_over(board))
        break;
      for (int i = 0; i < p_; ++i) {
        if (board[i] != 0)
          kalah_move(board, i, out.moves[n++]);
      }
      break;
    case Family::kWariUs:
      for (int i = 0; i < p_; ++i) {
        if (board[i] != 0)
          wari_us_move(board, i, out.moves[n++]);
      }
      break;
  }
  out.size = n;
  return n;
}

}  // namespace sowdb

namespace sowdb::internal {

int SolverHooks::oware_exits(const Rules& rules,
                             const Pits& board,
                             MoveList& exits,
                             int& quiet) noexcept {
  // The moves legal_moves keeps, told apart without sowing the quiet ones: a sowing captures
  // only when its last seed lands on the opponent's side, in a pit it brings to 2 or 3 seeds.
  const int p = rules.p_;
  const int opponent = rules.opponent_seeds(board);
  int legal = 0;
  int grand_slams = 0;
  int gaining = 0;
  quiet = 0;
  for (int i = 0; i < p; ++i) {
    const int seeds = board[i];
    if (seeds == 0)
      continue;
    const Rules::SowStep& st = rules.sow_table_[i * Rules::kSowRows + seeds];
    if (opponent + st.opp_added == 0)
      continue;  // feeding rule
    ++legal;
    const int last = st.last;
    const int at_last = last >= p ? board[last] + st.add[last] : 0;
    if (at_last != 2 && at_last != 3) {
      ++quiet;
      continue;
    }
    Move& m = exits.moves[gaining];
    rules.oware_move(board, i, opponent, m);
    grand_slams += m.grand_slam;
    if (m.gain() == 0) {
      ++quiet;  // a grand slam that captures nothing (kNoCapture)
      continue;
    }
    ++gaining;
  }
  // Under kForbidden every grand slam captures, so each is one of the exits.
  const int kept = rules.drop_forbidden_grand_slams(exits, gaining, grand_slams, legal);
  legal -= gaining - kept;
  exits.size = kept;
  return legal;
}

}  // namespace sowdb::internal

namespace sowdb {

bool Rules::play(const Pits& board, int pit, Move& out) const noexcept {
  if (pit < 0 || pit >= p_ || board[pit] == 0)
    return false;
  switch (rules_.family) {
    case Family::kOware: {
      if (!oware_move(board, pit, opponent_seeds(board), out))
        return false;
      if (out.grand_slam && rules_.grand_slam == GrandSlam::kForbidden) {
        // Legal only when every legal move is a grand slam: rare, so take the long way.
        MoveList all;
        legal_moves(board, all);
        for (const Move& m : all) {
          if (m.pit == pit)
            return true;
        }
        return false;
      }
      return true;
    }
    case Family::kKalah:
      if (kalah_over(board))
        return false;
      kalah_move(board, pit, out);
      return true;
    case Family::kWariUs:
      wari_us_move(board, pit, out);
      return true;
  }
  return false;
}

bool Rules::kalah_over(const Pits& board) const noexcept {
  // docs/RULES.md, the Kalah family, item 4: under `empty_side` a position with an empty side is
  // already over.
  return rules_.end == KalahEnd::kEmptySide &&
         (own_seeds(board) == 0 || opponent_seeds(board) == 0);
}

bool Rules::oware_move(const Pits& board, int i, int opponent_seeds, Move& m) const noexcept {
  Pits b = board;
  int stored = 0;
  const int last = sow(b, i, board[i], stored);
  const int opp_after = opponent_seeds + sow_table_[i * kSowRows + board[i]].opp_added;
  if (opp_after == 0)
    return false;  // feeding rule: an empty opponent must be fed
  int captured = 0;
  int first = last;  // one below the lowest pit of the captured run
  while (first >= p_ && (b[first] == 2 || b[first] == 3)) {
    captured += b[first];
    --first;
  }
  m.pit = static_cast<std::uint8_t>(i);
  m.stored = 0;
  m.extra_turn = false;
  m.sowings = 1;
  m.grand_slam = captured > 0 && captured == opp_after;
  if (captured > 0 && !(m.grand_slam && rules_.grand_slam == GrandSlam::kNoCapture)) {
    // Empty pits first+1 .. last in one vector operation (byte stores here would stall the
    // vector loads of rotate()).
    typedef std::uint8_t V16 __attribute__((vector_size(16)));
    const V16 lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    const V16 lo = V16{} + static_cast<std::uint8_t>(first + 1);
    const V16 hi = V16{} + static_cast<std::uint8_t>(last);
    V16 x;
    std::memcpy(&x, b.data(), sizeof x);
    x &= reinterpret_cast<V16>((lane < lo) | (lane > hi));
    std::memcpy(b.data(), &x, sizeof x);
    m.captured = static_cast<std::uint8_t>(captured);
  } else {
    m.captured = 0;
  }
  m.child = rotate(b);
  return true;
}

void Rules::kalah_move(const Pits& board, int i, Move& m) const noexcept {
  Pits b = board;
  int stored = 0;
  const int last = sow(b, i, board[i], stored);
  m.pit = static_cast<std::uint8_t>(i);
  m.stored = static_cast<std::uint8_t>(stored);
  m.captured = 0;
  m.grand_slam = false;
  m.sowings = 1;
  m.extra_turn = last == kStore;
  if (!m.extra_turn && last < p_ && b[last] == 1) {
    const int opposite = k_ - 1 - last;
    if (b[opposite] > 0 || rules_.capture_empty_opposite) {
      m.captured = static_cast<std::uint8_t>(1 + b[opposite]);
      b[last] = 0;
      b[opposite] = 0;
    }
  }
  m.child = m.extra_turn ? b : rotate(b);
}

void Rules::wari_us_move(const Pits& board, int i, Move& m) const noexcept {
  // docs/RULES.md, `wari-us`: a capture of exactly 2 opposite the last seed, then
  // the turn goes on from the own pit just clockwise of it while that pit holds seeds.
  Pits b = board;
  int stored = 0;
  int captured = 0;
  int sowings = 0;
  int origin = i;
  while (true) {
    ++sowings;
    const int last = sow(b, origin, b[origin], stored);
    if (last == kStore || last >= p_)
      break;
    const int opposite = k_ - 1 - last;
    if (b[opposite] != 2)
      break;
    captured += 2;
    b[opposite] = 0;
    if (last == 0 || b[last - 1] == 0)
      break;
    origin = last - 1;
  }
  m.pit = static_cast<std::uint8_t>(i);
  m.stored = static_cast<std::uint8_t>(stored);
  m.captured = static_cast<std::uint8_t>(captured);
  m.extra_turn = false;
  m.grand_slam = false;
  m.sowings = static_cast<std::uint8_t>(sowings);
  m.child = rotate(b);
}

}  // namespace sowdb
