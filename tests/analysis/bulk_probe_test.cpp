// probe_bulk against the probe library's single calls, at several thread counts, with positions
// the tables cannot answer mixed in; the layer walks against rank/unrank.
#include "sowdb/analysis/bulk_probe.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include "analysis_tables.h"
#include "sowdb/format/index.h"

namespace sowdb {
namespace {

// `rows` random boards of `pits` pits: most from layers 0..max_stones + 2 (so some hold more
// seeds than the tables), uniform within their layer.
std::vector<std::uint8_t> random_boards(int pits, int max_stones, std::size_t rows) {
  std::mt19937_64 rng(42);
  std::vector<std::uint8_t> out(rows * static_cast<std::size_t>(pits));
  for (std::size_t i = 0; i < rows; ++i) {
    const int n = static_cast<int>(rng() % static_cast<std::uint64_t>(max_stones + 3));
    unrank(
        rng() % layer_size(pits, n),
        n,
        std::span(out.data() + i * static_cast<std::size_t>(pits), static_cast<std::size_t>(pits)));
  }
  return out;
}

TEST(ProbeBulk, AgreesWithSingleProbesAtEveryThreadCount) {
  for (const char* variant : {"oware/4x3", "kalah/4x3"}) {
    SCOPED_TRACE(variant);
    const auto set = test::open_competitive(variant, 10);
    const int pits = set->engine().board_pits();
    constexpr std::size_t kRows = 20000;
    std::vector<std::uint8_t> boards = random_boards(pits, 10, kRows);
    boards[0] = 200;  // 200 seeds and more: not a position of any table
    boards[1] = 100;
    for (const int threads : {1, 2, 3}) {
      std::vector<std::int8_t> values(kRows);
      std::vector<std::uint16_t> depths(kRows);
      std::vector<std::int8_t> best(kRows);
      std::vector<std::uint8_t> status(kRows);
      probe_bulk(*set, boards, {values, depths, best, status}, threads);
      std::vector<std::int8_t> values_only(kRows);
      std::vector<std::uint8_t> status_only(kRows);
      probe_bulk(*set, boards, {values_only, {}, {}, status_only}, threads);
      int too_many = 0;
      for (std::size_t i = 0; i < kRows; ++i) {
        Pits b{};
        std::copy_n(boards.begin() + static_cast<std::ptrdiff_t>(i * pits), pits, b.begin());
        int v = 0;
        int d = 0;
        const ProbeStatus s = set->value(b, v, d);
        ASSERT_EQ(status[i], static_cast<std::uint8_t>(s)) << i;
        ASSERT_EQ(status_only[i], static_cast<std::uint8_t>(s)) << i;
        too_many += s == ProbeStatus::kTooManyStones;
        if (s != ProbeStatus::kOk) {
          EXPECT_EQ(values[i], kUnreadableValue);
          EXPECT_EQ(depths[i], kUnreadableDepth);
          EXPECT_EQ(best[i], -1);
          continue;
        }
        ASSERT_EQ(values[i], v) << i;
        ASSERT_EQ(values_only[i], v) << i;
        ASSERT_EQ(depths[i], d) << i;
        MoveWorth m;
        const ProbeStatus bs = set->best_move(b, m);
        ASSERT_EQ(best[i], bs == ProbeStatus::kGameOver ? -1 : m.move.pit) << i;
      }
      EXPECT_GT(too_many, 0);
      EXPECT_EQ(status[0], static_cast<std::uint8_t>(ProbeStatus::kBadPosition));
    }
  }
}

TEST(ProbeBulk, RefusesSpansOfTheWrongSize) {
  const auto set = test::open_competitive("oware/4x3", 10);
  std::vector<std::uint8_t> boards(std::size_t{8} * 3);
  std::vector<std::uint8_t> status(3);
  std::vector<std::int8_t> values(2);
  EXPECT_THROW(probe_bulk(*set, std::span(boards).first(20), {{}, {}, {}, status}),
               std::invalid_argument);
  EXPECT_THROW(probe_bulk(*set, boards, {values, {}, {}, status}), std::invalid_argument);
  EXPECT_THROW(probe_bulk(*set, boards, {{}, {}, {}, std::span(status).first(2)}),
               std::invalid_argument);
  probe_bulk(*set, {}, {});  // no boards: nothing to do
}

TEST(LayerPositions, WalkTheLayerInIndexOrder) {
  constexpr int kPits = 8;
  constexpr int kStones = 9;
  const std::uint64_t size = layer_size(kPits, kStones);
  for (const std::uint64_t first : {std::uint64_t{0}, std::uint64_t{777}, size - 5}) {
    const std::uint64_t count = std::min<std::uint64_t>(5000, size - first);
    std::vector<std::uint8_t> rows(count * kPits);
    layer_positions(kPits, kStones, first, rows);
    std::vector<std::uint64_t> indices(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      ASSERT_EQ(rank(std::span<const std::uint8_t>(rows).subspan(i * kPits, kPits)), first + i);
      indices[i] = first + i;
    }
    for (const int threads : {1, 2}) {
      std::vector<std::uint8_t> again(rows.size());
      positions_of_indices(kPits, kStones, indices, again, threads);
      EXPECT_EQ(again, rows);
    }
  }
  std::vector<std::uint8_t> two(std::size_t{2} * kPits);
  EXPECT_THROW(layer_positions(kPits, kStones, size - 1, two), std::invalid_argument);
  const std::vector<std::uint64_t> bad = {0, size};
  EXPECT_THROW(positions_of_indices(kPits, kStones, bad, two), std::invalid_argument);
  EXPECT_THROW(layer_positions(kPits, -1, 0, two), std::invalid_argument);
  EXPECT_THROW(layer_positions(3, 2, 0, two), std::invalid_argument);
}

}  // namespace
}  // namespace sowdb
