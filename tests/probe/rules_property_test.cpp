// Property tests of the rules engine: over millions of random positions of every preset, P = 1..8,
// Rules::legal_moves agrees move by move with a straightforward reference implementation of
// docs/RULES.md written here (sowing one seed at a time, no tables), conserves seeds and only moves
// from the mover's non-empty pits. The random positions are biased so that captures, grand slams,
// feeding, empty sides and laps happen; each such case must be hit a minimum number of times.
// The reference: rules_reference.h; the positions: rule_positions.h.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "rule_positions.h"
#include "rules_reference.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"

namespace sowdb::test {
namespace {

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

}  // namespace
}  // namespace sowdb::test
