// Per-layer statistics against a count made position by position through the probe library.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <span>
#include <stdexcept>
#include <vector>

#include "analysis_tables.h"
#include "sowdb/analysis/layer_statistics.h"
#include "sowdb/format/index.h"

namespace sowdb {
namespace {

// The statistics of layer n counted one probe at a time (no endless draws).
LayerStatistics counted(const TableSet& set, int n) {
  LayerStatistics s;
  s.n = n;
  const int k = set.rules().pits();
  s.positions = layer_size(k, n);
  double value_sum = 0, depth_sum = 0;
  for (std::uint64_t i = 0; i < s.positions; ++i) {
    Pits board{};
    unrank(i, n, std::span(board.data(), static_cast<std::size_t>(k)));
    int value = 0, depth = 0;
    if (set.value(board, value, depth) != ProbeStatus::kOk)
      throw std::runtime_error("probe failed");
    (value > 0 ? s.wins : value < 0 ? s.losses : s.draws) += 1;
    ++s.values[value];
    value_sum += value;
    if (value != 0) {
      depth_sum += depth;
      if (s.depths.size() <= static_cast<std::size_t>(depth))
        s.depths.resize(static_cast<std::size_t>(depth) + 1);
      ++s.depths[static_cast<std::size_t>(depth)];
    }
    if (depth > s.max_depth) {
      s.max_depth = depth;
      s.max_depth_position = board;
    }
  }
  s.mean_value = value_sum / static_cast<double>(s.positions);
  const std::uint64_t decided = s.wins + s.losses;
  s.mean_depth_decided = decided ? depth_sum / static_cast<double>(decided) : 0;
  return s;
}

class LayerStatisticsTest : public testing::TestWithParam<int> {};

// With 1 and 2 threads: the read's blocks merge in any order into the same statistics.
TEST_P(LayerStatisticsTest, MatchProbingEveryPosition) {
  for (const char* variant : {"oware/6x4", "kalah/4x3"}) {
    const auto set = test::open_competitive(variant, 6);
    int next = 0;
    layer_statistics(
        *set,
        6,
        [&](const LayerStatistics& s) {
          SCOPED_TRACE(std::string(variant) + " n = " + std::to_string(s.n));
          EXPECT_EQ(s.n, next++);
          const LayerStatistics want = counted(*set, s.n);
          EXPECT_EQ(s.positions, want.positions);
          EXPECT_EQ(s.wins, want.wins);
          EXPECT_EQ(s.draws, want.draws);
          EXPECT_EQ(s.losses, want.losses);
          EXPECT_EQ(s.values, want.values);
          EXPECT_EQ(s.depths, want.depths);
          EXPECT_EQ(s.max_depth, want.max_depth);
          EXPECT_EQ(s.max_depth_position, want.max_depth_position);
          EXPECT_DOUBLE_EQ(s.mean_value, want.mean_value);
          EXPECT_DOUBLE_EQ(s.mean_depth_decided, want.mean_depth_decided);
          EXPECT_EQ(s.unreadable, 0u);
          ASSERT_TRUE(s.endless_draws.has_value());
          EXPECT_LE(*s.endless_draws, s.draws);
        },
        GetParam());
    EXPECT_EQ(next, 7);
  }
}

INSTANTIATE_TEST_SUITE_P(Threads,
                         LayerStatisticsTest,
                         testing::Values(1, 2),
                         [](const testing::TestParamInfo<int>& p) {
                           return "threads_" + std::to_string(p.param);
                         });

TEST(LayerStatistics, DamagedLayerThrowsNamingIt) {
  test::TempDir dir("analysis-damaged");
  const auto copy = test::copy_tables(test::generated_dir({"kalah/4x3", 6}), dir.path() / "tables");
  // Zero a stretch in the middle of layer 6's file: its checksum fails.
  const auto file = copy / layer_file_name(6);
  {
    std::FILE* f = std::fopen(file.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, static_cast<long>(std::filesystem::file_size(file) / 2), SEEK_SET);
    const char zeros[64] = {};
    std::fwrite(zeros, 1, sizeof zeros, f);
    std::fclose(f);
  }
  const auto set = TableSet::open(copy);
  int seen = 0;
  try {
    layer_statistics(*set, 6, [&](const LayerStatistics&) { ++seen; });
    FAIL() << "no error for a damaged layer";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("layer 6"), std::string::npos) << e.what();
  }
  EXPECT_EQ(seen, 6);  // the layers below it were reported
}

TEST(CooperativeLayerStatistics, MatchProbingEveryPosition) {
  const auto set = test::open_cooperative();
  int next = 0;
  cooperative_layer_statistics(*set, 12, [&](const CooperativeLayerStatistics& s) {
    SCOPED_TRACE("n = " + std::to_string(s.n));
    EXPECT_EQ(s.n, next++);
    const int k = set->rules().pits();
    EXPECT_EQ(s.positions, layer_size(k, s.n));
    std::uint64_t balanced = 0, differences = 0;
    for (std::uint64_t i = 0; i < s.positions; ++i) {
      Pits board{};
      unrank(i, s.n, std::span(board.data(), static_cast<std::size_t>(k)));
      ReachSet reach;
      ASSERT_EQ(set->reach(board, reach), ProbeStatus::kOk);
      balanced += reach.contains(0) ? 1 : 0;
      differences += reach.differences().size();
    }
    EXPECT_EQ(s.balanced, balanced);
    EXPECT_DOUBLE_EQ(s.balanced_share,
                     static_cast<double>(balanced) / static_cast<double>(s.positions));
    EXPECT_DOUBLE_EQ(s.mean_reachable,
                     static_cast<double>(differences) / static_cast<double>(s.positions));
    EXPECT_EQ(s.bytes_on_disk, std::filesystem::file_size(set->directory() / layer_file_name(s.n)));
    EXPECT_GE(s.distinct_sets, 1u);
  });
  EXPECT_EQ(next, 13);
}

}  // namespace
}  // namespace sowdb
