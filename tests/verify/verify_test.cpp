// verify_layer accepts the generator's tables and catches entries that disagree with their
// successors, including a single win stored as a draw and a whole cycle of won and lost
// positions stored as draws.
#include "sowdb/verify/verify.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "generated_tables.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb {
namespace {

namespace fs = std::filesystem;

class VerifyTest : public testing::Test {
 protected:
  // Generates `variant` up to `max_stones` into this test's own directory, for tamper().
  void generate(std::string_view variant, int max_stones) {
    dir_ = tmp_.path() / "tables";
    test::generate_into(dir_, {std::string(variant), max_stones});
    rules_ = test::variant_of(std::string(variant)).rules;
  }
  // Uses the cached tables of `variant` up to `max_stones`, which this test only reads.
  void use_cached(std::string_view variant, int max_stones) {
    dir_ = test::generated_dir({std::string(variant), max_stones});
  }

  std::uint64_t problems(int max_stones) {
    auto tables = TableSet::open(dir_);
    std::uint64_t total = 0;
    for (int n = 0; n <= max_stones; ++n)
      total += verify_layer(*tables, n, gen::tbb_executor()).problems();
    return total;
  }

  // Rewrites layer n with entry `index` changed to value/depth.
  void tamper(int n, std::uint64_t index, int value, int depth) {
    tamper(n, {{index, {value, depth}}});
  }

  // Rewrites layer n with each entry of `changes` (index -> value, depth) changed.
  void tamper(int n, const std::map<std::uint64_t, std::pair<int, int>>& changes) {
    const fs::path path = dir_ / gen::layer_file_name(n);
    auto reader = LayerReader::open(path);
    const std::uint64_t size = reader->info().entries;
    std::vector<std::int8_t> values(size);
    std::vector<std::uint16_t> depths(size);
    reader->read_all(values, depths);
    reader.reset();
    // Recompute entries (the generator's default) read as sentinels: take their values and
    // depths from the tables, which recompute them.
    auto tables = TableSet::open(dir_);
    const int pits = rules_.pits();
    Pits board{};
    for (std::uint64_t i = 0; i < size; ++i) {
      if (values[i] != kRecomputeValue && depths[i] != kRecomputeDepth)
        continue;
      unrank(i, n, std::span(board.data(), static_cast<std::size_t>(pits)));
      int v = 0;
      int d = 0;
      ASSERT_EQ(tables->value(board, v, d), ProbeStatus::kOk);
      values[i] = static_cast<std::int8_t>(v);
      depths[i] = static_cast<std::uint16_t>(d);
    }
    tables.reset();
    for (const auto& [index, change] : changes) {
      values[index] = static_cast<std::int8_t>(change.first);
      depths[index] = static_cast<std::uint16_t>(change.second);
    }
    WriteOptions options;
    options.depth_codec = DepthCodec::kAll;
    write_layer(path, rules_, n, values, depths, options);
  }

  test::TempDir tmp_{"verify"};
  fs::path dir_;
  RuleSet rules_;
};

TEST_F(VerifyTest, GeneratedTablesVerify) {
  for (std::string_view variant : {"oware/3x4", "abapa/3x4", "kalah/3x4", "wari-us/3x4"}) {
    SCOPED_TRACE(std::string(variant));
    use_cached(variant, 10);
    EXPECT_EQ(problems(10), 0u);
  }
}

TEST_F(VerifyTest, CatchesAWrongValueAndAWrongDepth) {
  generate("oware/3x4", 8);
  auto tables = TableSet::open(dir_);
  // Find a position worth something, and one worth 0 with moves, in layer 8.
  const int n = 8;
  Pits board{};
  std::uint64_t won = ~0ull;
  std::uint64_t drawn = ~0ull;
  for (std::uint64_t i = 0; i < layer_size(6, n); ++i) {
    unrank(i, n, std::span(board.data(), 6));
    int v = 0;
    int d = 0;
    MoveWorths moves;
    ASSERT_EQ(tables->value(board, v, d), ProbeStatus::kOk);
    ASSERT_EQ(tables->moves(board, moves), ProbeStatus::kOk);
    if (v > 0 && d > 1 && won == ~0ull)
      won = i;
    if (v == 0 && moves.size > 0 && drawn == ~0ull)
      drawn = i;
  }
  ASSERT_NE(won, ~0ull);
  ASSERT_NE(drawn, ~0ull);
  tables.reset();

  int v = 0;
  int d = 0;
  {
    auto t = TableSet::open(dir_);
    unrank(won, n, std::span(board.data(), 6));
    t->value(board, v, d);
  }
  tamper(n, won, v, d + 2);  // right value, wrong depth
  EXPECT_GT(problems(n), 0u);
  tamper(n, won, 0, 0);  // a win stored as a draw
  EXPECT_GT(problems(n), 0u);
  tamper(n, won, v, d);  // restored
  EXPECT_EQ(problems(n), 0u);
  tamper(n, drawn, 1, 1);  // a draw stored as a win
  EXPECT_GT(problems(n), 0u);
}

// An entry the table set cannot read (a damaged block of a smaller layer) makes every position
// that moves to it unreadable, not wrong; the layer itself is all unreadable.
TEST_F(VerifyTest, AnUnreadableSuccessorIsNotAWrongValue) {
  generate("oware/3x4", 8);
  const fs::path path = dir_ / gen::layer_file_name(6);
  // The first block's value frame follows the 64-byte header and the padded value table.
  const std::uint64_t first_frame =
      64 + (LayerReader::open(path)->info().value_table.size() + 7) / 8 * 8;
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(first_frame) + 4);
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    f.seekp(static_cast<std::streamoff>(first_frame) + 4);
    f.write(&c, 1);
  }
  auto tables = TableSet::open(dir_);
  Verifier verifier(*tables, std::nullopt, gen::tbb_executor());
  const VerifyReport six = verifier.verify(6);
  EXPECT_EQ(six.unreadable, six.positions);
  const VerifyReport eight = verifier.verify(8);
  EXPECT_GT(eight.unreadable, 0u);
  EXPECT_LT(eight.unreadable, eight.positions);
  EXPECT_EQ(eight.bad_values, 0u);
  EXPECT_EQ(eight.bad_depths, 0u);
  // The same through a fresh Verifier, which reads layers 0..8 itself.
  const VerifyReport again = verify_layer(*tables, 8, gen::tbb_executor());
  EXPECT_EQ(again.unreadable, eight.unreadable);
  EXPECT_EQ(again.bad_values, 0u);
}

// The counts of verifying layer n by probing every position and every successor through the
// table set, one at a time: what the Verifier's arrays must reproduce.
VerifyReport probe_every_successor(const TableSet& tables, int n) {
  const Rules& rules = tables.engine();
  const int pits = rules.board_pits();
  VerifyReport r;
  r.positions = layer_size(pits, n);
  Pits board{};
  const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
  unrank(0, n, span);
  for (std::uint64_t i = 0; i < r.positions; ++i, next_position(span)) {
    int value = 0;
    int depth = 0;
    MoveWorths moves;
    if (tables.value(board, value, depth) != ProbeStatus::kOk ||
        tables.moves(board, moves) != ProbeStatus::kOk) {
      ++r.unreadable;
      continue;
    }
    int want = moves.size == 0 ? rules.final_value(board) : -1000;
    for (const MoveWorth& m : moves)
      want = std::max(want, m.worth);
    int want_depth = 0;
    if (moves.size > 0 && want != 0) {
      int pick = want > 0 ? 1 << 30 : -1;
      for (const MoveWorth& m : moves) {
        if (m.worth == want)
          pick = want > 0 ? std::min(pick, m.depth) : std::max(pick, m.depth);
      }
      want_depth = 1 + pick;
    }
    r.bad_values += value != want;
    r.bad_depths += value == want && depth != want_depth;
  }
  return r;
}

// A cycle of in-layer moves of layer n (moves that gain nothing), every position on it worth
// something (value != 0), found through the table set: positions by index, in move order. Empty
// when the layer has none.
std::vector<std::uint64_t> cycle_of_won_or_lost_positions(const TableSet& tables, int n) {
  const Rules& rules = tables.engine();
  const int pits = rules.board_pits();
  const std::uint64_t size = layer_size(pits, n);
  // The graph: an edge per move that gains nothing, between positions of value != 0.
  std::vector<std::vector<std::uint64_t>> next(size);
  Pits board{};
  const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
  unrank(0, n, span);
  std::vector<bool> worth_something(size);
  for (std::uint64_t i = 0; i < size; ++i, next_position(span)) {
    int v = 0;
    int d = 0;
    EXPECT_EQ(tables.value(board, v, d), ProbeStatus::kOk);
    worth_something[i] = v != 0;
    MoveList moves;
    rules.legal_moves(board, moves);
    for (const Move& m : moves) {
      if (m.gain() == 0) {
        next[i].push_back(
            rank(std::span<const std::uint8_t>(m.child.data(), static_cast<std::size_t>(pits))));
      }
    }
  }
  // Depth-first search; a move back to a position on the current path closes a cycle.
  enum Colour : std::uint8_t { kNew, kOnPath, kDone };
  std::vector<Colour> colour(size, kNew);
  for (std::uint64_t root = 0; root < size; ++root) {
    if (!worth_something[root] || colour[root] != kNew)
      continue;
    std::vector<std::pair<std::uint64_t, std::size_t>> path{{root, 0}};  // position, next move
    colour[root] = kOnPath;
    while (!path.empty()) {
      auto& [u, j] = path.back();
      if (j == next[u].size()) {
        colour[u] = kDone;
        path.pop_back();
        continue;
      }
      const std::uint64_t c = next[u][j++];
      if (!worth_something[c] || colour[c] == kDone)
        continue;
      if (colour[c] == kOnPath) {
        std::vector<std::uint64_t> cycle;
        auto it =
            std::find_if(path.begin(), path.end(), [c](const auto& e) { return e.first == c; });
        for (; it != path.end(); ++it)
          cycle.push_back(it->first);
        return cycle;
      }
      colour[c] = kOnPath;
      path.emplace_back(c, 0);
    }
  }
  return {};
}

// The case verify.h names: every position of a cycle of in-layer moves, all of them won or
// lost, stored as a draw (value 0, depth 0), written with the format library. Each one's move
// along the cycle is then worth 0, as on a cycle of true draws, but some position of the cycle
// keeps a move out of it worth more than 0 (where a winning line leaves the cycle), and
// positions outside it see their moves into it change worth: verify counts them as bad values,
// as probing every successor through the table set does.
TEST_F(VerifyTest, CatchesACycleStoredAsDraws) {
  constexpr int kTop = 8;
  generate("oware/3x4", kTop);
  std::vector<std::uint64_t> cycle;
  int n = kTop;
  {
    auto tables = TableSet::open(dir_);
    for (; n > 0 && cycle.empty(); --n)
      cycle = cycle_of_won_or_lost_positions(*tables, n);
    ++n;
  }
  ASSERT_GE(cycle.size(), 2u) << "no cycle of positions worth something in layers 1.." << kTop;
  ASSERT_EQ(problems(kTop), 0u);
  std::map<std::uint64_t, std::pair<int, int>> draws;
  for (const std::uint64_t i : cycle)
    draws[i] = {0, 0};
  ASSERT_EQ(draws.size(), cycle.size());
  tamper(n, draws);

  auto tables = TableSet::open(dir_);
  // The positions of the cycle whose own moves show the wrong 0.
  int caught_on_cycle = 0;
  for (const std::uint64_t i : cycle) {
    Pits board{};
    unrank(i, n, std::span(board.data(), 6));
    int v = 1;
    int d = 1;
    MoveWorths moves;
    ASSERT_EQ(tables->value(board, v, d), ProbeStatus::kOk);
    ASSERT_EQ(tables->moves(board, moves), ProbeStatus::kOk);
    ASSERT_EQ(v, 0);
    int best = -1000;
    for (const MoveWorth& m : moves)
      best = std::max(best, m.worth);
    caught_on_cycle += best != 0;
  }
  EXPECT_GT(caught_on_cycle, 0);
  const VerifyReport want = probe_every_successor(*tables, n);
  EXPECT_GE(want.bad_values, static_cast<std::uint64_t>(caught_on_cycle));
  const VerifyReport got = verify_layer(*tables, n, gen::tbb_executor());
  EXPECT_EQ(got.bad_values, want.bad_values);
  EXPECT_EQ(got.bad_depths, want.bad_depths);
  EXPECT_EQ(got.unreadable, 0u);
  EXPECT_GT(got.problems(), 0u);
}

// Tables that break their own rules: layer 8 rewritten as a version 3 file (recompute entries
// resolved over the moves that gain seeds, byte -128: depth derived) with three recompute entries
// whose exits are then changed so that those entries recompute to negative values, which byte
// -128 does not allow (their value reads, their depth does not). The Verifier counts bad and
// unreadable entries as probing every successor through the table set does, layer by layer.
TEST_F(VerifyTest, CountsAsProbingEverySuccessorOnBrokenTables) {
  constexpr int kTop = 10;
  constexpr int kLayer = 8;
  generate("oware/3x4", kTop);
  const fs::path path = dir_ / gen::layer_file_name(kLayer);
  const std::uint64_t size = LayerReader::open(path)->info().entries;
  std::vector<std::int8_t> values(size);
  std::vector<std::uint16_t> depths(size);
  std::vector<std::uint64_t> mask((size + 63) / 64, 0);
  // Entries of value >= 0 and derived depth whose moves that gain seeds all gain 2 (into layer
  // 6): their children get the largest value there is, 6, so that each such entry recomputes to
  // 2 - 6 < 0.
  std::map<std::uint64_t, std::pair<int, int>> changes;
  int broken = 0;
  {
    auto tables = TableSet::open(dir_);
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), 6);
    unrank(0, kLayer, span);
    for (std::uint64_t i = 0; i < size; ++i, next_position(span)) {
      int v = 0;
      int d = 0;
      ASSERT_EQ(tables->value(board, v, d), ProbeStatus::kOk);
      values[i] = static_cast<std::int8_t>(v);
      depths[i] = static_cast<std::uint16_t>(d);
      MoveList moves;
      if (broken == 3 || v < 0 || d > 1 || tables->engine().legal_moves(board, moves) == 0)
        continue;
      std::vector<std::uint64_t> children;
      bool all_two = true;
      for (const Move& m : moves) {
        if (m.gain() == 0)
          continue;
        all_two &= m.gain() == 2;
        children.push_back(rank(std::span<const std::uint8_t>(m.child.data(), 6)));
      }
      if (!all_two || children.empty())
        continue;
      for (const std::uint64_t c : children)
        changes[c] = {kLayer - 2, 1};
      mask[i / 64] |= std::uint64_t{1} << (i % 64);
      ++broken;
    }
  }
  LayerSource source;
  source.values = values;
  source.recompute = mask;
  source.fill_depths = [&](std::uint64_t first, std::span<std::uint16_t> out) {
    std::copy_n(depths.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
  };
  write_layer(path, rules_, kLayer, source, WriteOptions{});
  ASSERT_EQ(LayerReader::open(path)->info().format_version, 3);
  ASSERT_EQ(broken, 3);
  tamper(kLayer - 2, changes);
  auto tables = TableSet::open(dir_);
  Verifier verifier(*tables, std::nullopt, gen::tbb_executor());
  std::uint64_t unreadable = 0;
  std::uint64_t bad = 0;
  for (int n = 0; n <= kTop; ++n) {
    SCOPED_TRACE(n);
    const VerifyReport want = probe_every_successor(*tables, n);
    const VerifyReport got = verifier.verify(n);
    EXPECT_EQ(got.positions, want.positions);
    EXPECT_EQ(got.bad_values, want.bad_values);
    EXPECT_EQ(got.bad_depths, want.bad_depths);
    EXPECT_EQ(got.unreadable, want.unreadable);
    unreadable += want.unreadable;
    bad += want.bad_values + want.bad_depths;
  }
  // The case this test is for: entries whose depth does not read, and wrong values besides.
  EXPECT_GE(unreadable, 3u);
  EXPECT_GT(bad, 0u);
}

}  // namespace
}  // namespace sowdb
