// Published values that complete tables must reproduce (README.md, "Checking the tables").
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "generated_tables.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/solver.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb {
namespace {

using test::board_of;

// Every layer 0..max_stones of a variant, in memory.
class Tables {
 public:
  Tables(std::string_view variant, int max_stones) : rules_(parse_variant(variant)->rules) {
    for (int n = 0; n <= max_stones; ++n) {
      layers_.push_back(gen::solve_layer(
          rules_, n, [this](int m) -> const std::int8_t* { return layers_[m].value.data(); }));
    }
  }

  int value(const Pits& board) const {
    const int k = rules_.pits();
    int n = 0;
    for (int i = 0; i < k; ++i)
      n += board[i];
    return layers_.at(n).value.at(rank(std::span<const std::uint8_t>(board.data(), k)));
  }

  // The worth of each legal move, by pit (absent moves: none).
  std::vector<int> worths(const Pits& board) const {
    Rules rules(rules_);
    MoveList moves;
    rules.legal_moves(board, moves);
    std::vector<int> out;
    for (const Move& m : moves)
      out.push_back(Rules::worth(m, value(m.child)));
    return out;
  }

 private:
  RuleSet rules_;
  std::vector<gen::Layer> layers_;
};

Pits start(int pits_per_side, int seeds) {
  Pits b{};
  for (int i = 0; i < 2 * pits_per_side; ++i)
    b[i] = static_cast<std::uint8_t>(seeds);
  return b;
}

// Romein & Bal's Awari databases: this position is worth 0 and its six moves -1 -1 -2 -2 -2 0.
TEST(PublishedValues, OwareRomeinBalPosition) {
  const Tables tables("oware", 16);
  const Pits board = board_of({1, 1, 1, 1, 1, 2, 4, 2, 3, 0, 0, 0});
  EXPECT_EQ(tables.value(board), 0);
  EXPECT_EQ(tables.worths(board), (std::vector<int>{-1, -1, -2, -2, -2, 0}));
}

// Irving, Donkers & Uiterwijk, "Solving Kalah": Kalah(4,3) is a first-player win by 8 with the
// empty-capture rule; the usual tournament rules give 6.
TEST(PublishedValues, KalahFourByThree) {
  const Tables irving("kalah-irving/4x3", 24);
  EXPECT_EQ(irving.value(start(4, 3)), 8);
  const Tables tournament("kalah-tournament/4x3", 24);
  EXPECT_EQ(tournament.value(start(4, 3)), 6);
}

// Seed 001's end rule (the player to move with no seeds ends the game; the other keeps theirs)
// has no published value; the start value of Kalah(4,3) must at least agree with a second,
// independent route: the best move's worth.
TEST(PublishedValues, KalahSeed001FourByThree) {
  const Tables seed001("kalah/4x3", 24);
  const int v = seed001.value(start(4, 3));
  const std::vector<int> worths = seed001.worths(start(4, 3));
  ASSERT_FALSE(worths.empty());
  EXPECT_EQ(v, *std::max_element(worths.begin(), worths.end()));
  RecordProperty("kalah_4x3_start_value", v);
  std::printf("kalah/4x3 (seed 001 end rule) start value: %+d\n", v);
}

// The generator's tables are the same bytes whatever the thread count: a sowing family with
// cycles, one without, and one with the grand-slam and origin options (one case each, so that
// scripts/tsan.sh can run two of them: each takes about 45 s under ThreadSanitizer).
class Generate : public ::testing::TestWithParam<std::string_view> {};

TEST_P(Generate, TablesAreByteIdenticalForOneAndTwoThreads) {
  const std::string variant(GetParam());
  const test::TempDir base("threads");
  std::vector<std::filesystem::path> dirs;
  for (int threads : {1, 2}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
    dirs.push_back(base / (variant + "-" + std::to_string(threads)));
    test::generate_into(dirs.back(), {variant, 12});
  }
  for (int n = 0; n <= 12; ++n) {
    const auto name = gen::layer_file_name(n);
    const auto one = test::file_bytes(dirs[0] / name);
    ASSERT_FALSE(one.empty()) << name;
    EXPECT_TRUE(one == test::file_bytes(dirs[1] / name)) << name << " differs";
  }
}

INSTANTIATE_TEST_SUITE_P(Variants,
                         Generate,
                         ::testing::Values("oware", "kalah-tournament", "wari-us"),
                         [](const ::testing::TestParamInfo<std::string_view>& param) {
                           std::string name(param.param);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace sowdb
