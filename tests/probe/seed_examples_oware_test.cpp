// The worked examples of the seed rule documents for the Oware family, as tests of the rules
// engine (docs/RULES.md is the project's model; the seed documents are quoted in the comments):
// seed 004 (pbmserv Wari), seed 000 (Warri Society), seed 003's main rules (abapa), seed 002
// (Kids and Caboodles), and docs/RULES.md's oware reference position. The Kalah and wari-us
// examples: seed_examples_store_test.cpp. Board conventions: seed_examples.h.
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
// Seed 004 (pbmserv Wari): the example game, every board it shows.
//
// The diagrams show "your side" (the 2nd player) on top, houses a..f from right to left, and the
// 1st player's houses a..f below, left to right; sowing runs a..f along the bottom, then a..f
// along the top. So when the 1st player moves, pits 0..5 are the bottom a..f and pits 6..11 the
// top a..f; when the 2nd player moves, pits 0..5 are the top a..f (read right to left) and
// pits 6..11 the bottom a..f.
// ---------------------------------------------------------------------------------------------

struct GameStep {
  const char* what;
  Pits before;   // from the mover's side
  int pit;       // house a..f = pit 0..5
  int captured;  // seeds the move takes
  Pits after;    // the diagram after the move (before it is turned), from the mover's side
  Pits child;    // from the next mover's side
};

TEST(Seed004, ExampleGameOpeningWithBothCaptures) {
  const Rules rules = rules_of("wari-pbm");
  const std::vector<GameStep> steps = {
      // "your opponent decides to move the stones in his second house": b, 4 stones.
      // Diagram: top f..a 4 4 4 4 4 4; bottom a..f 4 _ 5 5 5 5.
      {"1st player moves b",
       board_of({4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}),
       1,
       0,
       board_of({4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4}),
       board_of({4, 4, 4, 4, 4, 4, 4, 0, 5, 5, 5, 5})},
      // "move the stones in your fourth house (d)": top f..a 5 5 _ 4 4 4; bottom 5 1 5 5 5 5.
      {"2nd player moves d",
       board_of({4, 4, 4, 4, 4, 4, 4, 0, 5, 5, 5, 5}),
       3,
       0,
       board_of({4, 4, 4, 0, 5, 5, 5, 1, 5, 5, 5, 5}),
       board_of({5, 1, 5, 5, 5, 5, 4, 4, 4, 0, 5, 5})},
      // "moves the five stones in his sixth house": top f..a 5 6 1 5 5 5; bottom 5 1 5 5 5 _.
      {"1st player moves f",
       board_of({5, 1, 5, 5, 5, 5, 4, 4, 4, 0, 5, 5}),
       5,
       0,
       board_of({5, 1, 5, 5, 5, 0, 5, 5, 5, 1, 6, 5}),
       board_of({5, 5, 5, 1, 6, 5, 5, 1, 5, 5, 5, 0})},
      // "Move the five stones in your third house": top f..a 6 7 2 _ 5 5; bottom 6 2* 5 5 5 _.
      // The last stone makes 2 in the opponent's b: "The score is now 2 to 0"; a holds 6.
      {"2nd player moves c and captures 2",
       board_of({5, 5, 5, 1, 6, 5, 5, 1, 5, 5, 5, 0}),
       2,
       2,
       board_of({5, 5, 0, 2, 7, 6, 6, 0, 5, 5, 5, 0}),
       board_of({6, 0, 5, 5, 5, 0, 5, 5, 0, 2, 7, 6})},
      // "He moves the 5 stones in his fifth house": top f..a 6 7 3* 1 6 6; bottom 6 _ 5 5 _ 1.
      // The last stone makes 3 in your d; your c holds 1: "The score is now 2 to 3".
      {"1st player moves e and captures 3",
       board_of({6, 0, 5, 5, 5, 0, 5, 5, 0, 2, 7, 6}),
       4,
       3,
       board_of({6, 0, 5, 5, 0, 1, 6, 6, 1, 0, 7, 6}),
       board_of({6, 6, 1, 0, 7, 6, 6, 0, 5, 5, 0, 1})},
  };
  for (const GameStep& s : steps) {
    SCOPED_TRACE(s.what);
    std::optional<Move> m = move_from(rules, s.before, s.pit);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->captured, s.captured);
    EXPECT_EQ(m->stored, 0);
    EXPECT_FALSE(m->extra_turn);
    EXPECT_FALSE(m->grand_slam);
    EXPECT_EQ(as_vector(m->child, 12), as_vector(s.child, 12));
    EXPECT_EQ(as_vector(rules.rotate(s.after), 12), as_vector(s.child, 12));
    EXPECT_EQ(stones(s.before, 12), stones(m->child, 12) + s.captured);
  }
  // The steps chain: each child is the next step's position.
  for (std::size_t i = 0; i + 1 < steps.size(); ++i) {
    EXPECT_EQ(as_vector(steps[i].child, 12), as_vector(steps[i + 1].before, 12)) << i;
  }
  // The running score of the text: 2 to 0, then 2 to 3.
  EXPECT_EQ(steps[3].captured, 2);
  EXPECT_EQ(steps[4].captured, 3);
}

// "wari move 2346 me xxxx a": you moved 1 stone from your first house into your second house.
// Diagram after it: top f..a 17 1 4 _ 1 _; bottom a..f _ 3 _ _ _ _.
constexpr int kBeforeMoveInHand[12] = {1, 0, 0, 4, 1, 17, 0, 3, 0, 0, 0, 0};
// The same board from the 1st player's side: "Your opponent has only one move".
constexpr int kOpponentOnlyMove[12] = {0, 3, 0, 0, 0, 0, 0, 1, 0, 4, 1, 17};
// After "wari move 2346 him xxxx b": bottom a..f _ _ 1 1 1 _, from your side.
constexpr int kBeforeGrandSlam[12] = {0, 1, 0, 4, 1, 17, 0, 0, 1, 1, 1, 0};

Pits from_array(const int (&a)[12]) {
  Pits p{};
  for (int i = 0; i < 12; ++i)
    p[i] = static_cast<std::uint8_t>(a[i]);
  return p;
}

TEST(Seed004, MoveInHandAndTheOpponentsOnlyMove) {
  const Rules rules = rules_of("wari-pbm");
  std::optional<Move> a = move_from(rules, from_array(kBeforeMoveInHand), 0);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->captured, 0);
  EXPECT_EQ(as_vector(a->child, 12), as_vector(from_array(kOpponentOnlyMove), 12));

  // "Your opponent has only one move": b, 3 stones, into c d e.
  EXPECT_EQ(legal_pits(rules, from_array(kOpponentOnlyMove)), std::vector<int>{1});
  std::optional<Move> b = move_from(rules, from_array(kOpponentOnlyMove), 1);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->captured, 0);
  EXPECT_EQ(as_vector(b->child, 12), as_vector(from_array(kBeforeGrandSlam), 12));
}

// "Now hit him with a GRAND SLAM by moving the 17 stones from your sixth house twice around the
// board": top f..a _ 2 5 1 2 1; bottom a..f 2* 2* 3* 3* 3* 2*. "You take 15 stones".
TEST(Seed004, GrandSlamOf17SeedsTakes15UnderWariPbmAndAyo) {
  const std::vector<int> sown = {1, 2, 1, 5, 2, 0, 2, 2, 3, 3, 3, 2};
  for (const char* variant : {"wari-pbm", "ayo"}) {
    SCOPED_TRACE(variant);
    const Rules rules = rules_of(variant);
    const Pits board = from_array(kBeforeGrandSlam);
    EXPECT_EQ(legal_pits(rules, board), (std::vector<int>{1, 3, 4, 5}));
    std::optional<Move> m = move_from(rules, board, 5);
    ASSERT_TRUE(m.has_value());
    EXPECT_TRUE(m->grand_slam);
    EXPECT_EQ(m->captured, 15);
    // The opponent is left with nothing; from their side: 0 0 0 0 0 0 | 1 2 1 5 2 0.
    EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 1, 5, 2, 0}));
    Pits after_sowing{};
    for (int i = 0; i < 12; ++i)
      after_sowing[i] = static_cast<std::uint8_t>(sown[i]);
    EXPECT_EQ(stones(after_sowing, 12), 26);
    EXPECT_EQ(stones(m->child, 12) + m->captured, 26);
    // The 1st player is to move with no stones: no legal move, the game ends and the 2nd player
    // keeps the 11 on their side.
    EXPECT_TRUE(legal_pits(rules, m->child).empty());
    EXPECT_EQ(rules.final_value(m->child), -11);
  }
}

TEST(Seed004, SameGrandSlamUnderAbapaCapturesNothing) {
  for (const char* variant : {"abapa", "warri", "wari-modar"}) {
    SCOPED_TRACE(variant);
    const Rules rules = rules_of(variant);
    const Pits board = from_array(kBeforeGrandSlam);
    EXPECT_EQ(legal_pits(rules, board), (std::vector<int>{1, 3, 4, 5}));
    std::optional<Move> m = move_from(rules, board, 5);
    ASSERT_TRUE(m.has_value());
    EXPECT_TRUE(m->grand_slam);
    EXPECT_EQ(m->captured, 0);
    // The sown board of the diagram, turned to the opponent's side.
    EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{2, 2, 3, 3, 3, 2, 1, 2, 1, 5, 2, 0}));
  }
}

TEST(Seed004, SameGrandSlamUnderOwareIsIllegalWhileAnotherMoveExists) {
  for (const char* variant : {"oware", "wari-kc"}) {
    SCOPED_TRACE(variant);
    const Rules rules = rules_of(variant);
    const Pits board = from_array(kBeforeGrandSlam);
    EXPECT_EQ(legal_pits(rules, board), (std::vector<int>{1, 3, 4}));
    MoveList list;
    rules.legal_moves(board, list);
    for (const Move& m : list) {
      EXPECT_FALSE(m.grand_slam);
      EXPECT_EQ(m.captured, 0);
    }
    // With the 17 in the sixth house as the only move, the grand slam is forced and captures.
    const Pits forced = board_of({0, 0, 0, 0, 0, 17, 0, 0, 1, 1, 1, 0});
    EXPECT_EQ(legal_pits(rules, forced), std::vector<int>{5});
    std::optional<Move> m = move_from(rules, forced, 5);
    ASSERT_TRUE(m.has_value());
    EXPECT_TRUE(m->grand_slam);
    EXPECT_EQ(m->captured, 15);
    EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0}));
  }
}

// ---------------------------------------------------------------------------------------------
// Seed 000 (Warri Society, "INSTRUCTIONS FOR PLAYING WARRI"): the sample moves described in
// words, on boards consistent with the words.
// ---------------------------------------------------------------------------------------------

// "If player A moves cup #5 they will end in cup #3 on player B's side" (start position).
TEST(Seed000, Rule1MoveOfCup5EndsInCup3OfB) {
  const Rules rules = rules_of("warri");
  std::optional<Move> m = move_from(rules, board_of({4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}), 4);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->captured, 0);
  // A: 4 4 4 4 _ 5; B: 5 5 5 4 4 4 (B's cup #3 received the last marble); B to move.
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 0, 5}));
}

// "If player A moves cup #4 they will end in cup #3 on player B's side winning 3 marbles".
TEST(Seed000, Rule2CaptureOfThreeInOneCup) {
  const Rules rules = rules_of("warri");
  // Cup #4 holds 5 (cups #5, #6, B#1, B#2, B#3); B's cup #3 holds 2, B's cup #2 holds 4.
  const Pits board = board_of({4, 4, 4, 5, 4, 4, 4, 4, 2, 4, 4, 4});
  std::optional<Move> m = move_from(rules, board, 3);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->captured, 3);
  EXPECT_FALSE(m->grand_slam);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{5, 5, 0, 4, 4, 4, 4, 4, 4, 0, 5, 5}));
}

// "winning 3 marbles from B's cup #3; 2 marbles from cup #2; and 2 marbles from cup #1".
TEST(Seed000, Rule3MultipleCaptureThreeTwoTwo) {
  const Pits board = board_of({4, 4, 4, 5, 4, 4, 1, 1, 2, 4, 4, 4});
  for (const char* variant : {"warri", "ayo", "oware"}) {
    SCOPED_TRACE(variant);
    const Rules rules = rules_of(variant);
    std::optional<Move> m = move_from(rules, board, 3);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->captured, 3 + 2 + 2);
    EXPECT_FALSE(m->grand_slam);
    EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{0, 0, 0, 4, 4, 4, 4, 4, 4, 0, 5, 5}));
  }
}

// "Marbles can only be won from cups on the opponents' side": the run stops at B's cup #1 even
// when A's cup #6 then holds 2 or 3.
TEST(Seed000, Rule3RunStopsAtTheOpponentsFirstCup) {
  const Rules rules = rules_of("warri");
  // A's cup #6 holds 1 and receives one: 2. B's cups #1, #2 end with 2 and 3.
  const Pits board = board_of({0, 0, 0, 0, 3, 1, 1, 2, 5, 5, 5, 5});
  std::optional<Move> m = move_from(rules, board, 4);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->captured, 5);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{0, 0, 5, 5, 5, 5, 0, 0, 0, 0, 0, 2}));
}

// The Important Note: under Warri Society rules "no capture is possible if it would leave an
// opponent with no marbles"; Ayo captures them.
TEST(Seed000, NoteWarriCannotWipeOutAyoCan) {
  const Pits board = board_of({4, 4, 4, 5, 4, 4, 1, 1, 2, 0, 0, 0});
  {
    const Rules rules = rules_of("warri");
    std::optional<Move> m = move_from(rules, board, 3);
    ASSERT_TRUE(m.has_value());
    EXPECT_TRUE(m->grand_slam);
    EXPECT_EQ(m->captured, 0);
    EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{2, 2, 3, 0, 0, 0, 4, 4, 4, 0, 5, 5}));
  }
  {
    const Rules rules = rules_of("ayo");
    std::optional<Move> m = move_from(rules, board, 3);
    ASSERT_TRUE(m.has_value());
    EXPECT_TRUE(m->grand_slam);
    EXPECT_EQ(m->captured, 7);
    EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{0, 0, 0, 0, 0, 0, 4, 4, 4, 0, 5, 5}));
  }
}

// "If player A moves cup #5 they will end in cup #2 on player B's side after having placed 1
// marble into each cup except the storehouses and the cup moved from, which is skipped."
// Cup #5 holds 14: 11 around the board (skipping cup #5), then cup #6, B#1, B#2.
TEST(Seed000, Rule4SkippingTheCupMovedFromWith12OrMore) {
  const Rules rules = rules_of("warri");
  const Pits board = board_of({0, 2, 2, 2, 14, 2, 4, 4, 4, 4, 5, 5});
  ASSERT_EQ(stones(board, 12), 48);
  std::optional<Move> m = move_from(rules, board, 4);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->captured, 0);
  // A: 1 3 3 3 _ 4 (cup #5 stays empty); B: 6 6 5 5 6 6.
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{6, 6, 5, 5, 6, 6, 1, 3, 3, 3, 0, 4}));
  // Without skip_origin the 12th marble goes back into cup #5 and the last lands in B's cup #1.
  const Rules no_skip = rules_of("warri/6x4/skip_origin=off");
  std::optional<Move> n = move_from(no_skip, board, 4);
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(as_vector(n->child, 12), (std::vector<int>{6, 5, 5, 5, 6, 6, 1, 3, 3, 3, 1, 4}));
}

// "Since player B has no marbles in any of their cups player A must give them a marble from their
// cup #6. This is the only cup that player A has that would reach the empty cups of player B."
TEST(Seed000, Rule5MandatoryFeeding) {
  const Rules rules = rules_of("warri");
  const Pits board = board_of({1, 1, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(legal_pits(rules, board), std::vector<int>{5});
  std::optional<Move> m = move_from(rules, board, 5);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{1, 0, 0, 0, 0, 0, 1, 1, 0, 2, 0, 0}));
}

// "But player A has no cups that would reach player B. The game would now end and player A would
// keep the marbles in their cups."
TEST(Seed000, Rule5NoFeedingMoveEndsTheGame) {
  for (const char* variant : {"warri", "oware", "ayo"}) {
    SCOPED_TRACE(variant);
    const Rules rules = rules_of(variant);
    const Pits board = board_of({3, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0});
    EXPECT_TRUE(legal_pits(rules, board).empty());
    EXPECT_EQ(rules.final_value(board), 7);
  }
}

// ---------------------------------------------------------------------------------------------
// Seed 003 (Modar Neznanich): the main rules are abapa's (presets wari-modar, abapa).
// ---------------------------------------------------------------------------------------------

// "Should there be enough markers that a complete circle of the board is made, the cup just
// emptied is skipped over." "if the next cup clockwise from the captured cup has only two or three
// markers in it, that cup is likewise captured [...] AND is an opponent's cup."
TEST(Seed003, MainRulesSkipTheEmptiedCupAndCaptureClockwise) {
  const Rules rules = rules_of("wari-modar");
  // 18 from pit 1: one lap of 11 places skipping pit 1, then 7 more (pits 2..8).
  const Pits board = board_of({0, 18, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1});
  std::optional<Move> m = move_from(rules, board, 1);
  ASSERT_TRUE(m.has_value());
  // After sowing: 1 0 2 2 2 2 | 3 2 3 1 1 2; pits 8, 7, 6 hold 3, 2, 3: captured 8.
  EXPECT_EQ(m->captured, 8);
  EXPECT_FALSE(m->grand_slam);
  EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{0, 0, 0, 1, 1, 2, 1, 0, 2, 2, 2, 2}));
}

// "In capturing cups, if there is only one opponent cup left with markers in it, you cannot
// capture it." (read as abapa's grand slam without capture).
TEST(Seed003, MainRulesCannotCaptureTheLastOpponentCup) {
  for (const char* variant : {"wari-modar", "abapa"}) {
    SCOPED_TRACE(variant);
    const Rules rules = rules_of(variant);
    const Pits board = board_of({0, 0, 0, 0, 3, 1, 1, 0, 0, 0, 0, 0});
    EXPECT_EQ(legal_pits(rules, board), (std::vector<int>{4, 5}));
    std::optional<Move> m = move_from(rules, board, 5);
    ASSERT_TRUE(m.has_value());
    EXPECT_TRUE(m->grand_slam);
    EXPECT_EQ(m->captured, 0);
    EXPECT_EQ(as_vector(m->child, 12), (std::vector<int>{2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0}));
  }
}

// "you cannot leave your opponent with all empty cups if you have a move that would put some
// pieces in one or more of his cups." "When one side of the board is all empty, play is ended
// [...] each player takes any markers left on his side".
TEST(Seed003, MainRulesFeedingAndTheEnd) {
  const Rules rules = rules_of("wari-modar");
  EXPECT_EQ(legal_pits(rules, board_of({0, 3, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0})), std::vector<int>{3});
  const Pits own_empty = board_of({0, 0, 0, 0, 0, 0, 1, 0, 4, 0, 0, 2});
  EXPECT_TRUE(legal_pits(rules, own_empty).empty());
  EXPECT_EQ(rules.final_value(own_empty), -7);
}

// ---------------------------------------------------------------------------------------------
// Seed 002 (Kids and Caboodles): presets wari-kc and oware.
// ---------------------------------------------------------------------------------------------

// "You're not allowed to make a move that would take away all of the other player's pieces
// unless there is no other move you can possibly make."
TEST(Seed002, GrandSlamForbiddenUnlessForced) {
  for (const char* variant : {"wari-kc", "oware"}) {
    SCOPED_TRACE(variant);
    const Rules rules = rules_of(variant);
    // Pit 5 (2) makes 2 and 2 in pits 6, 7: everything the opponent has.
    const Pits board = board_of({1, 0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0});
    EXPECT_EQ(legal_pits(rules, board), std::vector<int>{0});
    const Pits forced = board_of({0, 0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0});
    EXPECT_EQ(legal_pits(rules, forced), std::vector<int>{5});
    std::optional<Move> m = move_from(rules, forced, 5);
    ASSERT_TRUE(m.has_value());
    EXPECT_TRUE(m->grand_slam);
    EXPECT_EQ(m->captured, 4);
    EXPECT_TRUE(legal_pits(rules, m->child).empty());
  }
}

// "If there are enough picked-up pieces to go around the board more than once, don't put any
// pieces back in the empty circle". "If the other player's side get emptied [...] you have to use
// your turn to put some pieces back onto their side." "The game ends when there are no more
// pieces to pick up on one side of the board and no moves that can be made to add any pieces
// back to the empty side."
TEST(Seed002, SkipFeedAndEnd) {
  const Rules rules = rules_of("wari-kc");
  std::optional<Move> lap = move_from(rules, board_of({12, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4}), 0);
  ASSERT_TRUE(lap.has_value());
  EXPECT_EQ(as_vector(lap->child, 12), (std::vector<int>{5, 5, 5, 5, 5, 5, 0, 2, 1, 1, 1, 1}));
  EXPECT_EQ(legal_pits(rules, board_of({0, 0, 5, 1, 0, 0, 0, 0, 0, 0, 0, 0})), std::vector<int>{2});
  const Pits stuck = board_of({2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_TRUE(legal_pits(rules, stuck).empty());
  EXPECT_EQ(rules.final_value(stuck), 3);
}

// docs/RULES.md's reference position for oware: `1 1 1 1 1 2 4 2 3 0 0 0` has six moves.
TEST(VariantsReference, OwarePositionHasSixMoves) {
  const Rules rules = rules_of("oware");
  const Pits board = board_of({1, 1, 1, 1, 1, 2, 4, 2, 3, 0, 0, 0});
  MoveList list;
  ASSERT_EQ(rules.legal_moves(board, list), 6);
  const std::vector<std::vector<int>> children = {
      {4, 2, 3, 0, 0, 0, 0, 2, 1, 1, 1, 2},
      {4, 2, 3, 0, 0, 0, 1, 0, 2, 1, 1, 2},
      {4, 2, 3, 0, 0, 0, 1, 1, 0, 2, 1, 2},
      {4, 2, 3, 0, 0, 0, 1, 1, 1, 0, 2, 2},
      {4, 2, 3, 0, 0, 0, 1, 1, 1, 1, 0, 3},
      // Pit 5: 2 seeds into pits 6 (5) and 7 (3): captures 3; pit 6 holds 5.
      {5, 0, 3, 0, 0, 0, 1, 1, 1, 1, 1, 0},
  };
  for (int i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    const Move& m = list.moves[i];
    EXPECT_EQ(m.pit, i);
    EXPECT_EQ(m.captured, i == 5 ? 3 : 0);
    EXPECT_FALSE(m.grand_slam);
    EXPECT_FALSE(m.extra_turn);
    EXPECT_EQ(m.stored, 0);
    EXPECT_EQ(as_vector(m.child, 12), children[i]);
  }
}

}  // namespace
}  // namespace sowdb::test
