// Property tests of the rules engine: over millions of random positions of every preset, P = 1..8,
// Rules::legal_moves agrees move by move with a straightforward reference implementation of
// VARIANTS.md written here (sowing one seed at a time, no tables), conserves seeds and only moves
// from the mover's non-empty pits. The random positions are biased so that captures, grand slams,
// feeding, empty sides and laps happen; each such case must be hit a minimum number of times.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sowdb/probe/internal/solver_hooks.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"

namespace sowdb {
namespace {

// ---------------------------------------------------------------------------------------------
// The reference implementation of VARIANTS.md.
// ---------------------------------------------------------------------------------------------

constexpr int kRefStore = -1;  // the mover's store, as a place of the sowing

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

int side_seeds(const Pits& b, int from, int to) {
  int s = 0;
  for (int i = from; i < to; ++i)
    s += b[i];
  return s;
}

Pits turn_board(const Pits& b, int p) {
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
int next_place(bool has_store, int p, int place) {
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
Sowing sow_one_by_one(const RuleSet& r, Pits& b, int origin) {
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
      if (++received[2 * kMaxPits] > 1)
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

// VARIANTS.md, Oware family, items 1-5.
RefMoves oware_reference(const RuleSet& r, const Pits& board) {
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

// VARIANTS.md, Kalah.
RefMoves kalah_reference(const RuleSet& r, const Pits& board) {
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

// VARIANTS.md, seed 003's alternate rules.
RefMoves wari_us_reference(const RuleSet& r, const Pits& board) {
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

RefMoves reference_moves(const RuleSet& r, const Pits& board) {
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

// ---------------------------------------------------------------------------------------------
// Comparison and coverage.
// ---------------------------------------------------------------------------------------------

std::string board_text(const Pits& b, int p) {
  std::ostringstream os;
  for (int i = 0; i < 2 * p; ++i)
    os << (i ? " " : "") << int(b[i]);
  return os.str();
}

bool same_move(const Move& a, const Move& b) {
  return a.pit == b.pit && a.child == b.child && a.stored == b.stored && a.captured == b.captured &&
         a.extra_turn == b.extra_turn && a.grand_slam == b.grand_slam && a.sowings == b.sowings;
}

// Coverage counters: name -> hits.
using Coverage = std::map<std::string, long>;

class Checker {
 public:
  Checker(const RuleSet& rules, std::string name)
      : rules_(rules), engine_(rules), name_(std::move(name)) {}

  // Checks one position; a mismatch is reported (the first few per checker) and counted.
  void check(const Pits& board, Coverage& cov) {
    const int p = rules_.pits_per_side;
    const int k = 2 * p;
    ++cov["positions"];
    MoveList list;
    // Poison the output so stale data cannot pass.
    for (Move& m : list.moves)
      m.child.fill(std::uint8_t{0xEE});
    list.size = -1;
    const int n = engine_.legal_moves(board, list);
    const RefMoves ref = reference_moves(rules_, board);
    const int before = side_seeds(board, 0, k);
    const int own = side_seeds(board, 0, p);
    const int opp = side_seeds(board, p, k);
    if (n != list.size)
      fail(board, "return value " + std::to_string(n) + " != size");
    if (n != ref.size) {
      fail(board,
           "engine has " + std::to_string(n) + " moves, reference " + std::to_string(ref.size));
      return;
    }
    if (n == 0) {
      ++cov["no legal move"];
      if (own == 0)
        ++cov["no move: own side empty"];
      if (own > 0 && opp == 0)
        ++cov["no move: opponent empty, mover has seeds"];
      if (own > 0 && opp > 0)
        ++cov["no move: both sides hold seeds"];
      if (engine_.final_value(board) != own - opp)
        fail(board, "final_value");
      if (engine_.own_seeds(board) != own || engine_.opponent_seeds(board) != opp) {
        fail(board, "own_seeds/opponent_seeds");
      }
    }
    if (own > 0 && opp == 0 && n > 0)
      ++cov["moves with the opponent empty"];
    if (ref.feeding_dropped && n > 0)
      ++cov["feeding rule removed a move"];
    if (ref.slam_dropped)
      ++cov["forbidden grand slam removed"];
    if (ref.order_mattered)
      ++cov["feeding before grand slam decides"];
    // Rules::play agrees with the list: true exactly for the listed pits, with the same move.
    for (int pit = -1; pit <= p; ++pit) {
      Move played;
      const bool legal = engine_.play(board, pit, played);
      const Move* listed = nullptr;
      for (int j = 0; j < n; ++j) {
        if (list.moves[j].pit == pit)
          listed = &list.moves[j];
      }
      if (legal != (listed != nullptr)) {
        fail(board, "play(" + std::to_string(pit) + ") says " + (legal ? "legal" : "illegal"));
      } else if (listed && !same_move(played, *listed)) {
        fail(board, "play(" + std::to_string(pit) + ") differs from legal_moves");
      }
    }
    int last_pit = -1;
    for (int j = 0; j < n; ++j) {
      const Move& m = list.moves[j];
      const RefMove& r = ref.moves[j];
      if (m.pit <= last_pit || m.pit >= p || board[m.pit] == 0) {
        fail(board, "move from pit " + std::to_string(m.pit) + " (not an own non-empty pit)");
      }
      last_pit = m.pit;
      if (m.pit != r.pit || m.child != r.child || m.stored != r.stored ||
          m.captured != r.captured || m.extra_turn != r.extra_turn ||
          m.grand_slam != r.grand_slam || m.sowings != r.sowings) {
        std::ostringstream os;
        os << "pit " << int(m.pit) << "/" << r.pit << ": child " << board_text(m.child, p) << " / "
           << board_text(r.child, p) << ", stored " << int(m.stored) << "/" << r.stored
           << ", captured " << int(m.captured) << "/" << r.captured << ", extra " << m.extra_turn
           << "/" << r.extra_turn << ", slam " << m.grand_slam << "/" << r.grand_slam
           << ", sowings " << int(m.sowings) << "/" << r.sowings;
        fail(board, os.str());
      }
      // Seeds are conserved and nothing appears beyond the board.
      if (side_seeds(m.child, 0, k) + m.captured + m.stored != before)
        fail(board, "conservation");
      for (int i = k; i < kMaxPits; ++i) {
        if (m.child[i] != 0)
          fail(board, "seeds beyond pit 2P-1");
      }
      if (m.gain() != m.captured + m.stored)
        fail(board, "gain");
      count_move(board, m, cov);
    }
  }

  int failures() const { return failures_; }

 private:
  void count_move(const Pits& board, const Move& m, Coverage& cov) {
    const int p = rules_.pits_per_side;
    const int seeds = board[m.pit];
    // A lap: the sowing reaches every place of the board and comes round again.
    const int cycle =
        2 * p - (rules_.skip_origin ? 1 : 0) + (rules_.family == Family::kOware ? 0 : 1);
    if (seeds > cycle)
      ++cov["lap"];
    if (seeds >= 2 * p)
      ++cov[">= 2P seeds in the pit sown"];
    if (m.captured > 0)
      ++cov["capture"];
    if (m.stored > 0)
      ++cov["sown into the store"];
    if (m.extra_turn)
      ++cov["extra turn"];
    if (m.sowings >= 2)
      ++cov["capture continued by another sowing"];
    if (m.sowings >= 3)
      ++cov["three or more sowings"];
    if (m.grand_slam) {
      ++cov["grand slam"];
      ++cov[m.captured > 0 ? "grand slam captured" : "grand slam without capture"];
    }
    if (rules_.family == Family::kOware && m.grand_slam &&
        rules_.grand_slam == GrandSlam::kForbidden) {
      ++cov["forced grand slam under forbidden"];
    }
    if (rules_.family == Family::kOware && m.captured > 0 && !m.grand_slam) {
      ++cov["capture leaving the opponent seeds"];
    }
    if (rules_.family == Family::kKalah && m.captured == 1)
      ++cov["lone last seed captured"];
    if (rules_.family == Family::kKalah && m.captured > 0 && seeds >= cycle) {
      ++cov["capture after a lap"];
    }
    if (rules_.family == Family::kWariUs && m.captured > 0 && m.stored > 0) {
      ++cov["capture and store in one turn"];
    }
  }

  void fail(const Pits& board, const std::string& what) {
    if (failures_++ < 5) {
      ADD_FAILURE() << name_ << " P=" << int(rules_.pits_per_side) << " board "
                    << board_text(board, rules_.pits_per_side) << ": " << what;
    }
  }

  RuleSet rules_;
  Rules engine_;
  std::string name_;
  int failures_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Biased random positions.
// ---------------------------------------------------------------------------------------------

class PositionSource {
 public:
  explicit PositionSource(std::uint64_t seed) : rng_(seed) {}

  Pits next(int p) {
    const int k = 2 * p;
    Pits b{};
    const int mode = uniform(0, 7);
    switch (mode) {
      case 0:  // small counts everywhere: 2s and 3s, captures
        for (int i = 0; i < k; ++i)
          b[i] = small(0, 3);
        break;
      case 1:  // a sparse opponent: grand slams
        for (int i = 0; i < p; ++i)
          b[i] = small(0, 4);
        for (int i = p; i < k; ++i)
          b[i] = chance(60) ? 0 : small(1, 2);
        break;
      case 2:  // the opponent empty: feeding
        for (int i = 0; i < p; ++i)
          b[i] = chance(40) ? 0 : small(1, k + 3);
        break;
      case 3:  // the mover empty, or one seed left
        for (int i = p; i < k; ++i)
          b[i] = small(0, 5);
        if (chance(50))
          b[uniform(0, p - 1)] = 1;
        break;
      case 4:  // a lap: one big pit
        for (int i = 0; i < k; ++i)
          b[i] = chance(50) ? 0 : small(1, 3);
        b[uniform(0, p - 1)] = small(2 * p - 1, 4 * p + 3);
        break;
      case 5:  // a lap against a sparse or empty opponent
        for (int i = 0; i < p; ++i)
          b[i] = chance(50) ? 0 : small(1, 2);
        for (int i = p; i < k; ++i)
          b[i] = chance(70) ? 0 : 1;
        b[uniform(0, p - 1)] = small(2 * p - 1, 4 * p + 3);
        break;
      case 6:  // near the end of a game
        for (int i = 0; i < k; ++i)
          b[i] = chance(70) ? 0 : small(1, 3);
        break;
      default:  // anything
        for (int i = 0; i < k; ++i)
          b[i] = small(0, 9);
        break;
    }
    return b;
  }

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::uint8_t small(int lo, int hi) { return static_cast<std::uint8_t>(uniform(lo, hi)); }
  bool chance(int percent) { return uniform(0, 99) < percent; }

  std::mt19937_64 rng_;
};

struct Config {
  std::string name;
  RuleSet rules;  // pits_per_side is set per board size
};

// Every preset with skip_origin both ways, plus the option combinations no preset has.
std::vector<Config> configs_of(Family family) {
  std::vector<Config> out;
  for (const Preset& p : presets()) {
    if (p.rules.family != family)
      continue;
    for (bool skip : {true, false}) {
      RuleSet r = p.rules;
      r.skip_origin = skip;
      out.push_back({std::string(p.name) + (skip ? "/skip_origin=on" : "/skip_origin=off"), r});
    }
  }
  if (family == Family::kKalah) {
    RuleSet r = find_preset("kalah")->rules;
    r.capture_empty_opposite = true;
    out.push_back({"kalah/capture_empty_opposite=on,end=no_move", r});
  }
  return out;
}

void run_family(Family family, int positions_per_board, std::uint64_t seed, Coverage& cov) {
  PositionSource source(seed);
  for (const Config& c : configs_of(family)) {
    for (int p = 1; p <= kMaxPitsPerSide; ++p) {
      RuleSet r = c.rules;
      r.pits_per_side = static_cast<std::uint8_t>(p);
      Checker checker(r, c.name);
      for (int i = 0; i < positions_per_board && checker.failures() == 0; ++i) {
        checker.check(source.next(p), cov);
      }
      ASSERT_EQ(checker.failures(), 0) << c.name << " P=" << p;
    }
  }
}

void expect_hits(const Coverage& cov, const std::string& what, long minimum) {
  auto it = cov.find(what);
  const long hits = it == cov.end() ? 0 : it->second;
  EXPECT_GE(hits, minimum) << "case '" << what << "' hit only " << hits << " times";
}

constexpr int kPositionsPerBoard = 40000;

TEST(RulesProperty, OwareFamilyAgreesWithTheReference) {
  Coverage cov;
  run_family(Family::kOware, kPositionsPerBoard, 0x5eed0001, cov);
  expect_hits(cov, "positions", 14L * 8 * kPositionsPerBoard);
  expect_hits(cov, "capture leaving the opponent seeds", 100000);
  expect_hits(cov, "grand slam captured", 10000);
  expect_hits(cov, "grand slam without capture", 10000);
  expect_hits(cov, "forbidden grand slam removed", 5000);
  expect_hits(cov, "forced grand slam under forbidden", 5000);
  expect_hits(cov, "feeding rule removed a move", 10000);
  expect_hits(cov, "feeding before grand slam decides", 50);
  expect_hits(cov, "moves with the opponent empty", 10000);
  expect_hits(cov, "no move: own side empty", 10000);
  expect_hits(cov, "no move: opponent empty, mover has seeds", 5000);
  expect_hits(cov, "lap", 50000);
  expect_hits(cov, ">= 2P seeds in the pit sown", 50000);
  for (const auto& [what, hits] : cov)
    RecordProperty(what, std::to_string(hits));
}

TEST(RulesProperty, KalahFamilyAgreesWithTheReference) {
  Coverage cov;
  run_family(Family::kKalah, kPositionsPerBoard, 0x5eed0002, cov);
  expect_hits(cov, "positions", 7L * 8 * kPositionsPerBoard);
  expect_hits(cov, "capture", 50000);
  expect_hits(cov, "lone last seed captured", 5000);
  expect_hits(cov, "capture after a lap", 1000);
  expect_hits(cov, "extra turn", 50000);
  expect_hits(cov, "sown into the store", 100000);
  expect_hits(cov, "moves with the opponent empty", 5000);  // end=no_move plays on
  expect_hits(cov, "no move: own side empty", 10000);
  expect_hits(cov, "no move: opponent empty, mover has seeds", 5000);  // end=empty_side
  expect_hits(cov, "lap", 20000);
  expect_hits(cov, ">= 2P seeds in the pit sown", 50000);
  for (const auto& [what, hits] : cov)
    RecordProperty(what, std::to_string(hits));
}

TEST(RulesProperty, WariUsAgreesWithTheReference) {
  Coverage cov;
  run_family(Family::kWariUs, 2 * kPositionsPerBoard, 0x5eed0003, cov);
  expect_hits(cov, "positions", 2L * 8 * 2 * kPositionsPerBoard);
  expect_hits(cov, "capture", 20000);
  expect_hits(cov, "capture continued by another sowing", 5000);
  expect_hits(cov, "three or more sowings", 200);
  expect_hits(cov, "capture and store in one turn", 1000);
  expect_hits(cov, "moves with the opponent empty", 5000);  // no feeding rule
  expect_hits(cov, "no move: own side empty", 10000);
  expect_hits(cov, "lap", 10000);
  for (const auto& [what, hits] : cov)
    RecordProperty(what, std::to_string(hits));
}

// Every position with few seeds on the small boards, exhaustively.
void for_each_position(int pits, int max_stones, const std::function<void(const Pits&)>& f) {
  Pits b{};
  std::function<void(int, int)> fill = [&](int i, int left) {
    if (i == pits) {
      f(b);
      return;
    }
    for (int s = 0; s <= left; ++s) {
      b[i] = static_cast<std::uint8_t>(s);
      fill(i + 1, left - s);
    }
    b[i] = 0;
  };
  fill(0, max_stones);
}

TEST(RulesProperty, SmallBoardsExhaustively) {
  Coverage cov;
  const int max_stones[] = {0, 24, 14, 9};  // by P
  long positions = 0;
  for (Family family : {Family::kOware, Family::kKalah, Family::kWariUs}) {
    for (const Config& c : configs_of(family)) {
      for (int p = 1; p <= 3; ++p) {
        RuleSet r = c.rules;
        r.pits_per_side = static_cast<std::uint8_t>(p);
        Checker checker(r, c.name);
        for_each_position(2 * p, max_stones[p], [&](const Pits& b) {
          if (checker.failures() == 0)
            checker.check(b, cov);
          ++positions;
        });
        ASSERT_EQ(checker.failures(), 0) << c.name << " P=" << p;
      }
    }
  }
  EXPECT_GT(positions, 100000);
  expect_hits(cov, "feeding before grand slam decides", 10);
  expect_hits(cov, "grand slam captured", 1000);
}

TEST(RulesProperty, RotateTurnsTheBoard) {
  PositionSource source(0x5eed0004);
  for (int p = 1; p <= kMaxPitsPerSide; ++p) {
    RuleSet r;
    r.pits_per_side = static_cast<std::uint8_t>(p);
    const Rules rules(r);
    EXPECT_EQ(rules.pits_per_side(), p);
    EXPECT_EQ(rules.pits(), 2 * p);
    for (int i = 0; i < 1000; ++i) {
      const Pits b = source.next(p);
      const Pits t = rules.rotate(b);
      EXPECT_EQ(rules.rotate(t), b);
      EXPECT_EQ(rules.own_seeds(t), rules.opponent_seeds(b));
      EXPECT_EQ(rules.final_value(t), -rules.final_value(b));
      for (int j = 0; j < p; ++j)
        EXPECT_EQ(t[j], b[p + j]);
    }
  }
}

// Calls f(name, P, rules, board) for `boards` boards of `source` on every Oware-family
// configuration and board size P = 1..8; stops at the first fatal failure (an ASSERT in f
// returns from f only).
template <typename F>
void for_each_oware_board(PositionSource& source, int boards, F&& f) {
  for (const Config& c : configs_of(Family::kOware)) {
    for (int p = 1; p <= kMaxPitsPerSide; ++p) {
      RuleSet r = c.rules;
      r.pits_per_side = static_cast<std::uint8_t>(p);
      const Rules rules(r);
      for (int i = 0; i < boards; ++i) {
        f(c.name, p, rules, source.next(p));
        if (::testing::Test::HasFatalFailure())
          return;
      }
    }
  }
}

// The predecessor search's replay gives play()'s answer: true for the board a sowing leaves
// exactly when the move is legal and gains nothing (the feeding rule, captures and grand slams
// decide the rest); any other child is refused.
TEST(RulesProperty, OwareQuietReplayAgreesWithPlay) {
  PositionSource source(0x5eed0005);
  long quiet = 0;
  long not_quiet = 0;
  long refused = 0;
  for_each_oware_board(
      source, 2000, [&](const std::string& name, int p, const Rules& rules, const Pits& b) {
        for (int pit = 0; pit < p; ++pit) {
          if (b[pit] == 0)
            continue;
          // The board as the sowing leaves it, before any capture: the turned child of a quiet
          // move.
          Pits sown = b;
          sown[pit] = 0;
          const Pits& add = internal::SolverHooks::sowing_add(rules, pit, b[pit]);
          for (int j = 0; j < 2 * p; ++j)
            sown[j] = static_cast<std::uint8_t>(sown[j] + add[j]);
          Move m;
          const bool expect = rules.play(b, pit, m) && m.gain() == 0;
          ASSERT_EQ(internal::SolverHooks::oware_quiet_move_to_turned(rules, b, pit, sown), expect)
              << name << " P=" << p << " pit " << pit;
          if (expect) {
            ASSERT_EQ(rules.rotate(m.child), sown);
            ++quiet;
          } else {
            ++not_quiet;
          }
          // One seed moved between two pits: the same total, another board.
          const int from = (pit + 1) % (2 * p);
          const int to = (pit + 2) % (2 * p);
          if (sown[from] > 0 && from != to) {
            Pits other = sown;
            --other[from];
            ++other[to];
            EXPECT_FALSE(internal::SolverHooks::oware_quiet_move_to_turned(rules, b, pit, other))
                << name << " P=" << p << " pit " << pit;
            ++refused;
          }
        }
      });
  EXPECT_GT(quiet, 10000);
  EXPECT_GT(not_quiet, 10000);
  EXPECT_GT(refused, 10000);
}

// The solver's first pass splits the moves with oware_exits: the same legal moves as
// legal_moves, the ones that gain seeds built exactly alike, the others only counted.
TEST(RulesProperty, OwareExitsAgreeWithLegalMoves) {
  PositionSource source(0x5eed0006);
  long exits = 0;
  long quiet = 0;
  long over = 0;
  for_each_oware_board(
      source, 3000, [&](const std::string& name, int p, const Rules& rules, const Pits& b) {
        MoveList all;
        const int legal = rules.legal_moves(b, all);
        MoveList gaining;
        int in_layer = -1;
        ASSERT_EQ(internal::SolverHooks::oware_exits(rules, b, gaining, in_layer), legal)
            << name << " P=" << p;
        std::vector<const Move*> expect;
        int expect_quiet = 0;
        for (const Move& m : all) {
          if (m.gain() == 0)
            ++expect_quiet;
          else
            expect.push_back(&m);
        }
        ASSERT_EQ(in_layer, expect_quiet) << name << " P=" << p;
        ASSERT_EQ(gaining.size, static_cast<int>(expect.size())) << name << " P=" << p;
        for (int j = 0; j < gaining.size; ++j) {
          const Move& got = gaining.moves[j];
          const Move& want = *expect[static_cast<std::size_t>(j)];
          ASSERT_EQ(got.pit, want.pit);
          ASSERT_EQ(got.captured, want.captured);
          ASSERT_EQ(got.stored, want.stored);
          ASSERT_EQ(got.grand_slam, want.grand_slam);
          ASSERT_EQ(got.extra_turn, want.extra_turn);
          ASSERT_EQ(got.child, want.child);
        }
        exits += gaining.size;
        quiet += in_layer;
        over += legal == 0;
      });
  EXPECT_GT(exits, 10000);
  EXPECT_GT(quiet, 10000);
  EXPECT_GT(over, 1000);
}

// A board the engine's tables cannot hold is refused, not written past.
TEST(RulesProperty, RefusesBoardsOutsideOneToEightPits) {
  for (int p : {0, kMaxPitsPerSide + 1, 255}) {
    RuleSet r;
    r.pits_per_side = static_cast<std::uint8_t>(p);
    EXPECT_THROW(Rules{r}, std::invalid_argument) << "P = " << p;
  }
}

}  // namespace
}  // namespace sowdb
