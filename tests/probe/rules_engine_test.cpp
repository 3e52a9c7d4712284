// The rules engine beyond legal_moves: rotate turns the board, the solver's hooks (the Oware
// predecessor search's quiet replay, oware_exits) agree with play and legal_moves on random
// positions of every Oware-family configuration, and boards outside 1..8 pits are refused.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "rule_positions.h"
#include "sowdb/probe/internal/solver_hooks.h"
#include "sowdb/probe/rules.h"

namespace sowdb::test {
namespace {

TEST(RulesProperty, RotateTurnsTheBoard) {
  PositionSource source(0x5eed0004);
  for (int p = 1; p <= kMaxPitsPerSide; ++p) {
    RuleSet r;
    r.pits_per_side = static_cast<std::uint8_t>(p);
    const Rules rules(r);
    EXPECT_EQ(rules.pits_per_side(), p);
    EXPECT_EQ(rules.board_pits(), 2 * p);
    // The deprecated name of 2P answers the same until it is removed (as c_api_test's sowdb_pits).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    EXPECT_EQ(rules.pits(), 2 * p);
#pragma GCC diagnostic pop
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
}  // namespace sowdb::test
