// game_outcome (C++) and sowdb_game_outcome (C): the final score, the Oware majority and the
// refusal of stores that the game cannot hold.
#include "sowdb/probe/outcome.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sowdb/format/table_file.h"
#include "sowdb/probe/manifest.h"
#include "sowdb/probe/sowdb.h"
#include "test_support.h"

extern "C" int sowdb_c_outcome_check(const char* dir);

namespace sowdb::test {
namespace {
namespace fs = std::filesystem;

Variant variant(const std::string& text) {
  std::string error;
  auto v = parse_variant(text, &error);
  if (!v)
    throw std::runtime_error(error);
  return *v;
}

TEST(GameOutcome, FinalScoreFollowsTheValue) {
  GameOutcome o;
  // Kalah: no majority rule, the result is the sign of A - B + value.
  ASSERT_EQ(game_outcome(variant("kalah/4x3"), -3, 5, 2, 9, o), OutcomeStatus::kOk);
  EXPECT_EQ(o.total_seeds, 24);
  EXPECT_EQ(o.mover, 5 + (9 - 3) / 2.0);
  EXPECT_EQ(o.opponent, 2 + (9 + 3) / 2.0);
  EXPECT_FALSE(o.decided);
  EXPECT_EQ(o.result, GameResult::kDraw);  // 5 - 2 - 3 = 0
  ASSERT_EQ(game_outcome(variant("kalah/4x3"), -4, 5, 2, 9, o), OutcomeStatus::kOk);
  EXPECT_EQ(o.result, GameResult::kLoss);
  EXPECT_EQ(o.mover, 7.5);  // endless play splits an odd number of seeds: a half seed each
  EXPECT_EQ(o.opponent, 8.5);
  // A store far ahead decides nothing outside the Oware family.
  ASSERT_EQ(game_outcome(variant("kalah/4x3"), -8, 14, 0, 10, o), OutcomeStatus::kOk);
  EXPECT_FALSE(o.decided);
  EXPECT_EQ(o.result, GameResult::kWin);
}

// The majority is out of the game's 2PS seeds, not out of the stores and board given: 20 of
// 48 is no majority even when only 37 seeds are accounted for (issue 20, item 6).
TEST(GameOutcome, OwareMajorityIsOutOfTheGamesSeeds) {
  const Variant oware = variant("oware");
  GameOutcome o;
  ASSERT_EQ(game_outcome(oware, 0, 20, 5, 12, o), OutcomeStatus::kOk);
  EXPECT_EQ(o.total_seeds, 48);
  EXPECT_FALSE(o.decided);
  EXPECT_EQ(o.result, GameResult::kWin);
  EXPECT_EQ(o.mover, 26);
  EXPECT_EQ(o.opponent, 11);
  ASSERT_EQ(game_outcome(oware, -12, 24, 0, 12, o), OutcomeStatus::kOk);  // 24 is half, no more
  EXPECT_FALSE(o.decided);
  EXPECT_EQ(o.result, GameResult::kWin);
  ASSERT_EQ(game_outcome(oware, -12, 25, 0, 12, o), OutcomeStatus::kOk);
  EXPECT_TRUE(o.decided);
  EXPECT_EQ(o.result, GameResult::kWin);
  ASSERT_EQ(game_outcome(oware, 12, 0, 25, 12, o), OutcomeStatus::kOk);
  EXPECT_TRUE(o.decided);
  EXPECT_EQ(o.result, GameResult::kLoss);
}

TEST(GameOutcome, ImpossibleTotalsAreRefusedWithTheLimit) {
  const Variant oware = variant("oware");
  GameOutcome o;
  o.total_seeds = -7;  // untouched on a refusal
  std::string error;
  EXPECT_EQ(game_outcome(oware, 1, 40, 40, 1, o, &error), OutcomeStatus::kImpossible);
  EXPECT_EQ(error,
            "stores 40 + 40 and 1 seed on the board make 81 seeds; a game of oware/6x4 holds 48 "
            "(2 x 6 pits x 4 seeds)");
  EXPECT_EQ(o.total_seeds, -7);
  EXPECT_EQ(game_outcome(oware, 0, 20, 17, 12, o), OutcomeStatus::kImpossible);
  EXPECT_EQ(game_outcome(oware, 0, 20, 16, 12, o), OutcomeStatus::kOk);  // exactly 48
  EXPECT_EQ(game_outcome(oware, 0, 256, 0, 0, o), OutcomeStatus::kImpossible);
  // Stores near INT_MAX do not overflow into a possible total.
  EXPECT_EQ(game_outcome(oware, 0, INT_MAX, INT_MAX, 10, o), OutcomeStatus::kImpossible);
  EXPECT_EQ(game_outcome(variant("kalah/1x1"), 0, 1, 0, 2, o, &error), OutcomeStatus::kImpossible);
  EXPECT_EQ(error,
            "stores 1 + 0 and 2 seeds on the board make 3 seeds; a game of kalah/1x1 holds 2 "
            "(2 x 1 pit x 1 seed)");
}

// Tables may hold layers above the start's 2PS seeds: such a position is a game of its own
// seeds, with empty stores.
TEST(GameOutcome, PositionsAboveTheStartHaveEmptyStores) {
  const Variant small = variant("oware/1x4");  // 8 seeds
  GameOutcome o;
  ASSERT_EQ(game_outcome(small, 2, 0, 0, 24, o), OutcomeStatus::kOk);
  EXPECT_EQ(o.total_seeds, 24);
  EXPECT_EQ(o.mover, 13);
  EXPECT_EQ(o.opponent, 11);
  EXPECT_FALSE(o.decided);
  EXPECT_EQ(o.result, GameResult::kWin);
  std::string error;
  EXPECT_EQ(game_outcome(small, 2, 1, 0, 24, o, &error), OutcomeStatus::kImpossible);
  EXPECT_NE(error.find("holds 8"), std::string::npos) << error;
  EXPECT_NE(error.find("empty stores"), std::string::npos) << error;
}

TEST(GameOutcome, BadArgumentsAreRefused) {
  const Variant oware = variant("oware");
  GameOutcome o;
  std::string error;
  EXPECT_EQ(game_outcome(oware, 0, -1, 0, 4, o, &error), OutcomeStatus::kBadArgument);
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(game_outcome(oware, 0, 0, -1, 4, o), OutcomeStatus::kBadArgument);
  EXPECT_EQ(game_outcome(oware, 0, 0, 0, -1, o), OutcomeStatus::kBadArgument);
  EXPECT_EQ(game_outcome(oware, 0, 0, 0, 256, o), OutcomeStatus::kBadArgument);
  EXPECT_EQ(game_outcome(oware, 5, 0, 0, 4, o), OutcomeStatus::kBadArgument);
  EXPECT_EQ(game_outcome(oware, -5, 0, 0, 4, o), OutcomeStatus::kBadArgument);
}

// Every possible input of a small Oware game: the scores add up to the seeds accounted for,
// differ by A - B + value, and the result and the majority follow the majority rule
// (docs/RULES.md).
TEST(GameOutcome, EveryInputOfASmallGame) {
  const Variant v = variant("abapa/2x3");  // 12 seeds
  for (int n = 0; n <= 12; ++n) {
    for (int a = 0; a + n <= 13; ++a) {
      for (int b = 0; a + b + n <= 13; ++b) {
        for (int value = -n; value <= n; ++value) {
          GameOutcome o;
          const OutcomeStatus s = game_outcome(v, value, a, b, n, o);
          if (a + b + n > 12) {
            EXPECT_EQ(s, OutcomeStatus::kImpossible) << a << " " << b << " " << n;
            continue;
          }
          ASSERT_EQ(s, OutcomeStatus::kOk) << a << " " << b << " " << n;
          EXPECT_EQ(o.mover + o.opponent, a + b + n);
          EXPECT_EQ(o.mover - o.opponent, a - b + value);
          EXPECT_EQ(o.decided, 2 * a > 12 || 2 * b > 12);
          const int margin = a - b + value;
          const GameResult want = 2 * a > 12   ? GameResult::kWin
                                  : 2 * b > 12 ? GameResult::kLoss
                                  : margin > 0 ? GameResult::kWin
                                  : margin < 0 ? GameResult::kLoss
                                               : GameResult::kDraw;
          EXPECT_EQ(o.result, want) << a << " " << b << " " << n << " " << value;
        }
      }
    }
  }
  EXPECT_STREQ(to_string(GameResult::kWin), "win");
  EXPECT_STREQ(to_string(GameResult::kDraw), "draw");
  EXPECT_STREQ(to_string(GameResult::kLoss), "loss");
}

// Bounds decide the result exactly when every value between them leads to the same one.
TEST(GameOutcome, BoundsDecideWhenEveryValueInThemAgrees) {
  for (const char* name : {"kalah/2x3", "oware/2x3"}) {
    const Variant v = variant(name);  // 12 seeds
    for (int n = 0; n <= 12; ++n) {
      for (int a = 0; a + n <= 12; ++a) {
        const int b = 12 - a - n;
        for (int lower = -n; lower <= n; ++lower) {
          for (int upper = lower; upper <= n; ++upper) {
            GameOutcome got;
            bool decided = false;
            ASSERT_EQ(bounded_outcome(v, lower, upper, a, b, n, got, decided), OutcomeStatus::kOk);
            GameOutcome first;
            ASSERT_EQ(game_outcome(v, lower, a, b, n, first), OutcomeStatus::kOk);
            bool same = true;
            for (int value = lower; value <= upper; ++value) {
              GameOutcome o;
              ASSERT_EQ(game_outcome(v, value, a, b, n, o), OutcomeStatus::kOk);
              same = same && o.result == first.result;
            }
            EXPECT_EQ(decided, same)
                << name << " " << a << " " << b << " [" << lower << ", " << upper << "]";
            EXPECT_EQ(got.result, first.result);
            EXPECT_EQ(got.mover, first.mover);
          }
        }
      }
    }
    GameOutcome o;
    bool decided = false;
    std::string why;
    EXPECT_EQ(bounded_outcome(v, -1, 30, 0, 0, 6, o, decided, &why), OutcomeStatus::kBadArgument);
    EXPECT_NE(why.find("value 30"), std::string::npos) << why;
    EXPECT_EQ(bounded_outcome(v, 0, 2, 10, 10, 6, o, decided), OutcomeStatus::kImpossible);
  }
}

// sowdb_game_outcome answers as game_outcome for the variant of the manifest, and refuses what
// game_outcome refuses with SOWDB_ERR_ARGUMENT and the reason.
TEST(GameOutcomeC, AgreesWithCppAndRefusesImpossibleStores) {
  TempDir tmp("outcome");
  const fs::path dir = tmp / "t";
  fs::create_directories(dir);
  RuleSet rules;  // oware
  rules.pits_per_side = 2;
  rules = rules.normalised();
  for (int n = 0; n <= 2; ++n) {
    const std::uint64_t size = n == 0 ? 1 : n == 1 ? 4 : 10;  // C(n + 3, 3)
    std::vector<std::int8_t> values(size, 0);
    std::vector<std::uint16_t> depths(size, 0);
    write_layer(dir / ("layer-00" + std::to_string(n) + ".sdb"), rules, n, values, depths, {});
  }
  write_manifest(dir, variant("oware/2x3"));

  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(dir.c_str(), nullptr, &h), SOWDB_OK) << sowdb_last_error();
  const Variant v = variant("oware/2x3");
  for (int n = 0; n <= 12; ++n) {
    for (int a = 0; a <= 13; ++a) {
      for (int value = -n; value <= n; value += 3) {
        GameOutcome want;
        const OutcomeStatus s = game_outcome(v, value, a, 1, n, want);
        sowdb_outcome got{};
        const sowdb_status c = sowdb_game_outcome(h, value, a, 1, n, &got);
        if (s != OutcomeStatus::kOk) {
          EXPECT_EQ(c, SOWDB_ERR_ARGUMENT);
          continue;
        }
        ASSERT_EQ(c, SOWDB_OK) << sowdb_last_error();
        EXPECT_EQ(got.total_seeds, want.total_seeds);
        EXPECT_EQ(got.final_mover, want.mover);
        EXPECT_EQ(got.final_opponent, want.opponent);
        EXPECT_EQ(got.result, static_cast<int>(want.result));
        EXPECT_EQ(got.decided, want.decided ? 1 : 0);
      }
    }
  }
  sowdb_outcome o{};
  EXPECT_EQ(sowdb_game_outcome(h, 0, 10, 3, 0, &o), SOWDB_ERR_ARGUMENT);
  EXPECT_STREQ(sowdb_last_error(),
               "stores 10 + 3 and 0 seeds on the board make 13 seeds; a game of oware/2x3 holds "
               "12 (2 x 2 pits x 3 seeds)");
  EXPECT_EQ(sowdb_game_outcome(h, 0, 1, 1, 2, nullptr), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(sowdb_game_outcome(nullptr, 0, 1, 1, 2, &o), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(sowdb_game_outcome(h, 3, 1, 1, 2, &o), SOWDB_ERR_ARGUMENT);  // |value| > stones
  sowdb_close(h);
  // The same from C99.
  EXPECT_EQ(sowdb_c_outcome_check(dir.c_str()), 0);
}

}  // namespace
}  // namespace sowdb::test
