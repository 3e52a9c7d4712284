// The worked examples of the seed rule documents for the rule systems with stores, as tests of
// the rules engine (docs/RULES.md is the project's model; the seed documents are quoted in the
// comments): seed 001 (Warri Society's single lap mancala, preset kalah) and seed 003's alternate
// rules (preset wari-us). The Oware family: seed_examples_oware_test.cpp. Board conventions:
// seed_examples.h.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "seed_examples.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb::test {
namespace {

// ---------------------------------------------------------------------------------------------
// Seed 001 (Warri Society, "SINGLE LAP MANCALA"): preset kalah. The mover's store lies between
// pit 5 (cup #6) and the opponent's cup #1 (pit 6).
// ---------------------------------------------------------------------------------------------

// "If player A moves cup #5 they will end in cup #2 on player B's side" (start position).
TEST(Seed001, SampleMove1Cup5EndsInCup2OfB) {
  const Rules rules = rules_of("kalah");
  std::optional<Move> m = move_from(rules, board_of({4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}), 4);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->stored, 1);
  EXPECT_EQ(m->captured, 0);
  EXPECT_FALSE(m->extra_turn);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{5, 5, 4, 4, 4, 4, 4, 4, 4, 4, 0, 5}));
}

// "If player A moves cup #3 they will end in their storehouse and get to move again".
TEST(Seed001, SampleMove2EndInStoreGivesAnExtraTurn) {
  const Rules rules = rules_of("kalah");
  std::optional<Move> m = move_from(rules, board_of({4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}), 2);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->stored, 1);
  EXPECT_TRUE(m->extra_turn);
  // The same player moves again: the child is from A's side.
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{4, 4, 0, 5, 5, 5, 4, 4, 4, 4, 4, 4}));
}

// The last seed of a sowing from cup #6 goes straight into the store.
TEST(Seed001, OneSeedFromTheLastCupGoesIntoTheStore) {
  const Rules rules = rules_of("kalah");
  std::optional<Move> m = move_from(rules, board_of({4, 4, 4, 4, 4, 1, 4, 4, 4, 4, 4, 4}), 5);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->stored, 1);
  EXPECT_TRUE(m->extra_turn);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4}));
}

// "If player A moves cup #2 they will place their last marble into cup #5, winning that marble
// and the contents of cup #2 on player B's side and place these 7 marbles into their storehouse."
// Cup #5 (pit 4) faces B's cup #2 (pit 7), which holds 6.
TEST(Seed001, SampleMove3CaptureOfSixPlusOne) {
  const Rules rules = rules_of("kalah");
  const Pits board = board_of({4, 3, 4, 4, 0, 4, 4, 6, 4, 4, 4, 4});
  std::optional<Move> m = move_from(rules, board, 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->captured, 7);
  EXPECT_EQ(m->stored, 0);
  EXPECT_FALSE(m->extra_turn);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{4, 0, 4, 4, 4, 4, 4, 0, 5, 5, 0, 4}));
}

// "If player B moves cup #6 they will place their last marble into their storehouse and have no
// marbles left in their playing cups. [...] Player A takes the remaining marbles".
TEST(Seed001, SampleMove4LastSeedIntoStoreEndsTheGame) {
  const Rules rules = rules_of("kalah");
  // B is the mover here: B's cups first.
  const Pits board = board_of({0, 0, 0, 0, 0, 1, 3, 2, 0, 1, 4, 2});
  EXPECT_EQ(legal_pits(rules, board), std::vector<int>{5});
  std::optional<Move> m = move_from(rules, board, 5);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->stored, 1);
  EXPECT_TRUE(m->extra_turn);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{0, 0, 0, 0, 0, 0, 3, 2, 0, 1, 4, 2}));
  // B moves again but has nothing to move: the game ends, A takes the 12 on their side.
  EXPECT_TRUE(legal_pits(rules, m->child).empty());
  EXPECT_EQ(rules.final_value(m->child), -12);
}

// Under no_move a mover with seeds plays on while the opponent is empty; under empty_side the
// game is already over there.
TEST(Seed001, NoMoveVersusEmptySide) {
  const Pits board = board_of({0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(legal_pits(rules_of("kalah"), board), (std::vector<int>{1, 5}));
  for (const char* variant : {"kalah-tournament", "kalah-irving", "kalah/6x4/end=empty_side"}) {
    SCOPED_TRACE(variant);
    const Rules rules = rules_of(variant);
    EXPECT_TRUE(legal_pits(rules, board).empty());
    EXPECT_EQ(rules.final_value(board), 3);
  }
}

// docs/RULES.md Kalah 3: "was empty" includes the emptied origin after a lap (13 seeds from a
// pit: 12 places, then the origin itself); capture_empty_opposite takes a lone last seed.
TEST(Seed001, CaptureIntoTheEmptiedOriginAndCaptureEmptyOpposite) {
  const Rules rules = rules_of("kalah");
  const Pits lap = board_of({13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
  std::optional<Move> m = move_from(rules, lap, 0);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->stored, 1);
  EXPECT_EQ(m->captured, 1 + 3);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1}));

  // The last seed lands in the empty pit 3, which faces the empty pit 8.
  const Pits lone = board_of({0, 0, 1, 0, 0, 0, 4, 4, 0, 4, 4, 4});
  std::optional<Move> plain = move_from(rules, lone, 2);
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->captured, 0);
  EXPECT_EQ(as_vector(plain->child, 12), (std::vector<int>{4, 4, 0, 4, 4, 4, 0, 0, 0, 1, 0, 0}));
  const Rules irving = rules_of("kalah-irving");
  std::optional<Move> taken = move_from(irving, lone, 2);
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->captured, 1);
  EXPECT_EQ(as_vector(taken->child, 12), (std::vector<int>{4, 4, 0, 4, 4, 4, 0, 0, 0, 0, 0, 0}));
}

// ---------------------------------------------------------------------------------------------
// Seed 003's alternate rules: preset wari-us (docs/RULES.md, `wari-us`).
// ---------------------------------------------------------------------------------------------

// "1. [...] a marker IS placed in the reservoirs" (the own store; docs/RULES.md skips the
// opponent's). "2. If a complete circle of the board is made, a marker IS placed back in the cup
// just emptied."
TEST(Seed003Alternate, StoreIsSownAndTheOriginIsNotSkipped) {
  const Rules rules = rules_of("wari-us");
  // 14 from pit 0: 1..5, store, 6..11, 0, 1.
  const Pits board = board_of({14, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4});
  std::optional<Move> m = move_from(rules, board, 0);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->stored, 1);
  EXPECT_EQ(m->captured, 0);  // pit 1 faces pit 10, which holds 5
  EXPECT_FALSE(m->extra_turn);
  EXPECT_EQ(m->sowings, 1);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{5, 5, 5, 5, 5, 5, 1, 2, 1, 1, 1, 1}));
}

// "3. [...] the last marker put down must be in your own cup which is opposite an opponent's cup
// with just two markers in it. 4. To capture a cup it must have only two markers (not 2 OR 3)."
TEST(Seed003Alternate, CaptureExactlyTwoOppositeAnOwnPit) {
  const Rules rules = rules_of("wari-us");
  // Pit 0's seed lands in pit 1, which faces pit 10.
  std::optional<Move> two = move_from(rules, board_of({1, 0, 0, 0, 0, 3, 4, 4, 4, 4, 2, 4}), 0);
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->captured, 2);
  EXPECT_EQ(two->sowings, 1);  // pit 0, clockwise of pit 1, is empty: the turn ends
  EXPECT_EQ(as_vector(two->child, 12), (std::vector<int>{4, 4, 4, 4, 0, 4, 0, 1, 0, 0, 0, 3}));
  std::optional<Move> three = move_from(rules, board_of({1, 0, 0, 0, 0, 3, 4, 4, 4, 4, 3, 4}), 0);
  ASSERT_TRUE(three.has_value());
  EXPECT_EQ(three->captured, 0);
  // The own pit that receives the last seed may hold any number of seeds.
  std::optional<Move> full = move_from(rules, board_of({1, 7, 0, 0, 0, 3, 4, 4, 4, 4, 2, 4}), 0);
  ASSERT_TRUE(full.has_value());
  EXPECT_EQ(full->captured, 2);
  // A last seed on the opponent's side captures nothing, whatever it makes there.
  std::optional<Move> far = move_from(rules, board_of({0, 0, 0, 0, 0, 3, 1, 1, 4, 4, 4, 4}), 5);
  ASSERT_TRUE(far.has_value());
  EXPECT_EQ(far->captured, 0);
  EXPECT_EQ(far->stored, 1);
}

// "5. You do NOT keep capturing opponent cups to the clockwise [...] Although you DO get an
// additional move, but it has to use the markers in the cup clockwise to one you just placed the
// last marker into."
TEST(Seed003Alternate, CaptureContinuesFromTheOwnPitClockwise) {
  const Rules rules = rules_of("wari-us");
  // Pit 0 (3) ends in pit 3 opposite pit 8 (2): capture 2, go on from pit 2 (now 2 seeds),
  // which ends in pit 4 opposite pit 7 (2): capture 2, go on from pit 3 (now 2), which ends in
  // pit 5 opposite pit 6 (5): the turn ends. No backward chain: pit 9 (2) is never taken.
  const Pits board = board_of({3, 0, 1, 0, 0, 0, 5, 2, 2, 2, 4, 4});
  std::optional<Move> m = move_from(rules, board, 0);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->captured, 4);
  EXPECT_EQ(m->stored, 0);
  EXPECT_EQ(m->sowings, 3);
  EXPECT_FALSE(m->extra_turn);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{5, 0, 0, 2, 4, 4, 0, 1, 0, 0, 2, 1}));
}

// A continuation that ends in the store ends the turn, with no extra turn; a last seed in pit 0
// has no own pit clockwise of it.
TEST(Seed003Alternate, StoreAndPitZeroEndTheTurn) {
  const Rules rules = rules_of("wari-us");
  // Pit 1 (4) ends in pit 5 opposite pit 6 (2): capture 2; the turn goes on from pit 4
  // (1 + 1 = 2), which sows pit 5 and the store: the turn ends there.
  const Pits board = board_of({0, 4, 0, 0, 1, 0, 2, 4, 4, 4, 4, 4});
  std::optional<Move> m = move_from(rules, board, 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->captured, 2);
  EXPECT_EQ(m->stored, 1);
  EXPECT_EQ(m->sowings, 2);
  EXPECT_FALSE(m->extra_turn);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{0, 4, 4, 4, 4, 4, 0, 0, 1, 1, 0, 2}));
  // A sowing that ends in the store directly: no extra turn either.
  std::optional<Move> s = move_from(rules, board_of({0, 0, 0, 0, 2, 0, 4, 4, 4, 4, 4, 4}), 4);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->stored, 1);
  EXPECT_FALSE(s->extra_turn);
  EXPECT_EQ(s->sowings, 1);
  // 8 from pit 5: store, 6..11, 0. Pit 0 faces pit 11 (1 + 1 = 2): capture; pit 0 has no own
  // pit clockwise of it, so the turn ends (pit 4's 3 seeds stay).
  const Pits zero = board_of({0, 0, 0, 0, 3, 8, 4, 4, 4, 4, 4, 1});
  std::optional<Move> z = move_from(rules, zero, 5);
  ASSERT_TRUE(z.has_value());
  EXPECT_EQ(z->captured, 2);
  EXPECT_EQ(z->stored, 1);
  EXPECT_EQ(z->sowings, 1);
  EXPECT_EQ(as_vector(z->child, 12), (std::vector<int>{5, 5, 5, 5, 5, 0, 1, 0, 0, 0, 3, 0}));
}

// "6. You CAN capture all of an opponent's cups." No feeding rule either; the game ends when the
// player to move has no stones.
TEST(Seed003Alternate, GrandSlamCapturesAndNoFeeding) {
  const Rules rules = rules_of("wari-us");
  std::optional<Move> m = move_from(rules, board_of({1, 0, 0, 0, 0, 3, 0, 0, 0, 0, 2, 0}), 0);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->captured, 2);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3}));
  EXPECT_TRUE(legal_pits(rules, m->child).empty());
  EXPECT_EQ(rules.final_value(m->child), -4);
  // The opponent is empty and no move feeds: the mover still plays.
  EXPECT_EQ(legal_pits(rules, board_of({1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})),
            (std::vector<int>{0, 1}));
}

}  // namespace
}  // namespace sowdb::test
