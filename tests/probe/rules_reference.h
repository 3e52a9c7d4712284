// A reference implementation of the rules of docs/RULES.md for the property tests of the rules
// engine (rules_property_test.cpp): straightforward, one seed at a time, no tables, written apart
// from the engine so that the two can be compared move by move.
#pragma once

#include <array>

#include "sowdb/format/rule_set.h"
#include "sowdb/probe/rules.h"

namespace sowdb::test {

inline constexpr int kRefStore = -1;  // the mover's store, as a place of the sowing

struct RefMove {
  int pit = 0;
  Pits child{};
  int stored = 0;
  int captured = 0;
  bool extra_turn = false;
  bool grand_slam = false;
  int sowings = 1;
};

struct RefMoves {
  std::array<RefMove, kMaxPitsPerSide> moves;
  int size = 0;
  // What the reference saw, for the coverage counters.
  bool feeding_dropped = false;  // the feeding rule removed a move
  bool slam_dropped = false;     // `forbidden` removed a grand slam
  bool order_mattered = false;   // grand-slam filter before feeding would have left no move
};

inline int side_seeds(const Pits& b, int from, int to) {
  int s = 0;
  for (int i = from; i < to; ++i)
    s += b[i];
  return s;
}

inline Pits turn_board(const Pits& b, int p) {
  Pits r{};
  const int q = p < kMaxPitsPerSide ? p : kMaxPitsPerSide;  // a bound the optimiser can see
  for (int i = 0; i < q; ++i) {
    r[i] = b[p + i];
    r[p + i] = b[i];
  }
  return r;
}

// The place after `place` in the direction of sowing. Oware: pits only. Kalah and wari-us: the
// mover's store sits between pit P-1 and pit P; the opponent's store is never sown.
inline int next_place(bool has_store, int p, int place) {
  if (place == kRefStore)
    return p;
  if (has_store && place == p - 1)
    return kRefStore;
  return (place + 1) % (2 * p);
}

struct Sowing {
  int last = 0;         // last place sown
  int last_before = 0;  // seeds the last place held before the last seed (pits only)
  int stored = 0;
  bool lapped = false;  // some place received two seeds
};

// Takes every seed of `origin` and sows them one by one.
inline Sowing sow_one_by_one(const RuleSet& r, Pits& b, int origin) {
  const int p = r.pits_per_side;
  const bool has_store = r.family != Family::kOware;
  int seeds = b[origin];
  b[origin] = 0;
  Sowing s;
  int place = origin;
  std::array<int, 2 * kMaxPits + 1> received{};
  while (seeds > 0) {
    place = next_place(has_store, p, place);
    if (place == origin && r.skip_origin)
      continue;
    if (place == kRefStore) {
      ++s.stored;
      if (++received[std::size_t{2} * kMaxPits] > 1)
        s.lapped = true;
    } else {
      s.last_before = b[place];
      ++b[place];
      if (++received[place] > 1)
        s.lapped = true;
    }
    --seeds;
  }
  s.last = place;
  return s;
}

// docs/RULES.md, Oware family, items 1-5.
inline RefMoves oware_reference(const RuleSet& r, const Pits& board) {
  const int p = r.pits_per_side;
  RefMoves out;
  std::vector<RefMove> candidates;
  const bool opponent_empty = side_seeds(board, p, 2 * p) == 0;
  for (int i = 0; i < p; ++i) {
    if (board[i] == 0)
      continue;
    RefMove m;
    m.pit = i;
    Pits b = board;
    const Sowing s = sow_one_by_one(r, b, i);
    // Item 4: the mover must sow at least one seed into an empty opponent's pits.
    if (opponent_empty) {
      bool fed = false;
      for (int j = p; j < 2 * p; ++j)
        fed = fed || b[j] > 0;
      if (!fed) {
        out.feeding_dropped = true;
        continue;
      }
    }
    // Item 2: the run of 2s and 3s ending at the last pit, on the opponent's side.
    Pits after_capture = b;
    int captured = 0;
    for (int j = s.last; j >= p && (b[j] == 2 || b[j] == 3); --j) {
      captured += b[j];
      after_capture[j] = 0;
    }
    // Item 3: a grand slam leaves the opponent's side empty.
    m.grand_slam = captured > 0 && side_seeds(after_capture, p, 2 * p) == 0;
    if (captured > 0 && !(m.grand_slam && r.grand_slam == GrandSlam::kNoCapture)) {
      m.captured = captured;
      b = after_capture;
    }
    m.child = turn_board(b, p);
    candidates.push_back(m);
  }
  // Item 3, `forbidden`, among the moves the feeding rule left.
  bool any_plain = false;
  bool any_slam = false;
  for (const RefMove& m : candidates) {
    any_plain = any_plain || !m.grand_slam;
    any_slam = any_slam || m.grand_slam;
  }
  if (r.grand_slam == GrandSlam::kForbidden && any_slam && !any_plain && out.feeding_dropped) {
    out.order_mattered = true;
  }
  for (const RefMove& m : candidates) {
    if (r.grand_slam == GrandSlam::kForbidden && m.grand_slam && any_plain) {
      out.slam_dropped = true;
      continue;
    }
    out.moves[out.size++] = m;
  }
  return out;
}

// docs/RULES.md, Kalah.
inline RefMoves kalah_reference(const RuleSet& r, const Pits& board) {
  const int p = r.pits_per_side;
  RefMoves out;
  if (r.end == KalahEnd::kEmptySide &&
      (side_seeds(board, 0, p) == 0 || side_seeds(board, p, 2 * p) == 0)) {
    return out;
  }
  for (int i = 0; i < p; ++i) {
    if (board[i] == 0)
      continue;
    RefMove m;
    m.pit = i;
    Pits b = board;
    const Sowing s = sow_one_by_one(r, b, i);
    m.stored = s.stored;
    m.extra_turn = s.last == kRefStore;
    if (s.last != kRefStore && s.last < p && s.last_before == 0) {
      const int opposite = 2 * p - 1 - s.last;
      if (b[opposite] > 0 || r.capture_empty_opposite) {
        m.captured = b[s.last] + b[opposite];
        b[s.last] = 0;
        b[opposite] = 0;
      }
    }
    m.child = m.extra_turn ? b : turn_board(b, p);
    out.moves[out.size++] = m;
  }
  return out;
}

// docs/RULES.md, seed 003's alternate rules.
inline RefMoves wari_us_reference(const RuleSet& r, const Pits& board) {
  const int p = r.pits_per_side;
  RefMoves out;
  for (int i = 0; i < p; ++i) {
    if (board[i] == 0)
      continue;
    RefMove m;
    m.pit = i;
    m.sowings = 0;
    Pits b = board;
    int origin = i;
    while (true) {
      ++m.sowings;
      const Sowing s = sow_one_by_one(r, b, origin);
      m.stored += s.stored;
      if (s.last == kRefStore || s.last >= p)
        break;  // no capture from the store or over there
      const int opposite = 2 * p - 1 - s.last;
      if (b[opposite] != 2)
        break;
      m.captured += 2;
      b[opposite] = 0;
      if (s.last == 0)
        break;  // no own pit clockwise of pit 0
      if (b[s.last - 1] == 0)
        break;  // the pit clockwise is empty
      origin = s.last - 1;
    }
    m.child = turn_board(b, p);
    out.moves[out.size++] = m;
  }
  return out;
}

inline RefMoves reference_moves(const RuleSet& r, const Pits& board) {
  switch (r.family) {
    case Family::kOware:
      return oware_reference(r, board);
    case Family::kKalah:
      return kalah_reference(r, board);
    case Family::kWariUs:
      return wari_us_reference(r, board);
  }
  return {};
}

}  // namespace sowdb::test
