// Recompute entries (FORMAT.md, "Recompute entries"): tables generated with and without them
// answer every TableSet query identically, the files are version 4 and smaller, the recompute
// entries are exactly those of the minority rule, every recompute entry obeys the one-ply rule
// (its moves that gain seeds lead to stored entries), and resuming
// a directory (with or without recompute entries) reads them back into the same tables; a layer
// that breaks the one-ply rule is reported by the probe and solved again on resume.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "generated_tables.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/solver.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb {
namespace {

namespace fs = std::filesystem;
using test::file_bytes;
using test::generate_into;
using test::generated_dir;
using test::TempDir;

// Every position of layers 0..max_stones: value, depth, moves and best move agree.
void expect_same_answers(const TableSet& a, const TableSet& b, int max_stones) {
  const int pits = a.rules().pits();
  ASSERT_EQ(a.max_stones(), max_stones);
  ASSERT_EQ(b.max_stones(), max_stones);
  for (int n = 0; n <= max_stones; ++n) {
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
    unrank(0, n, span);
    for (std::uint64_t i = 0; i < layer_size(pits, n); ++i, next_position(span)) {
      int va = 0, da = 0, vb = 0, db = 0;
      ASSERT_EQ(a.value(board, va, da), ProbeStatus::kOk) << n << " " << i;
      ASSERT_EQ(b.value(board, vb, db), ProbeStatus::kOk) << n << " " << i;
      ASSERT_EQ(va, vb) << "value, layer " << n << " index " << i;
      ASSERT_EQ(da, db) << "depth, layer " << n << " index " << i;
      int only = 1000;
      ASSERT_EQ(a.value(board, only), ProbeStatus::kOk);
      ASSERT_EQ(only, va) << "value only, layer " << n << " index " << i;
      MoveWorths ma, mb;
      ASSERT_EQ(a.moves(board, ma), ProbeStatus::kOk);
      ASSERT_EQ(b.moves(board, mb), ProbeStatus::kOk);
      ASSERT_EQ(ma.size, mb.size);
      for (int k = 0; k < ma.size; ++k) {
        ASSERT_EQ(ma.moves[k].move.pit, mb.moves[k].move.pit);
        ASSERT_EQ(ma.moves[k].worth, mb.moves[k].worth) << n << " " << i << " move " << k;
        ASSERT_EQ(ma.moves[k].depth, mb.moves[k].depth) << n << " " << i << " move " << k;
      }
      MoveWorth ba, bb;
      const ProbeStatus sa = a.best_move(board, ba);
      ASSERT_EQ(sa, b.best_move(board, bb));
      if (sa == ProbeStatus::kOk) {
        ASSERT_EQ(ba.move.pit, bb.move.pit) << n << " " << i;
        ASSERT_EQ(ba.worth, bb.worth);
        ASSERT_EQ(ba.depth, bb.depth);
      }
    }
  }
}

// The one-ply rule, checked on the raw files of `dir`: every recompute entry's moves that gain
// seeds lead to entries that their (smaller) layer stores, not to recompute entries. Returns
// the number of recompute entries.
std::uint64_t expect_one_ply(const fs::path& dir, int max_stones) {
  const auto tables = TableSet::open(dir);
  const Rules& rules = tables->engine();
  const int pits = rules.board_pits();
  std::vector<std::vector<std::int8_t>> raw(static_cast<std::size_t>(max_stones) + 1);
  std::uint64_t recompute = 0;
  std::uint64_t checked_exits = 0;
  for (int n = 0; n <= max_stones; ++n) {
    const auto reader = LayerReader::open(dir / gen::layer_file_name(n));
    raw[n].resize(reader->info().entries);
    reader->read_all(raw[n], {});
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
    unrank(0, n, span);
    for (std::uint64_t i = 0; i < raw[n].size(); ++i, next_position(span)) {
      if (raw[n][i] != kRecomputeValue)
        continue;
      ++recompute;
      MoveList moves;
      rules.legal_moves(board, moves);
      for (const Move& m : moves) {
        // Version 3 resolves over the moves that gain seeds, version 4 over all of them.
        if (m.gain() == 0 && !reader->info().all_moves)
          continue;
        const std::uint64_t child =
            rank(std::span<const std::uint8_t>(m.child.data(), static_cast<std::size_t>(pits)));
        ++checked_exits;
        EXPECT_NE(raw[n - m.gain()][child], kRecomputeValue)
            << "layer " << n << " index " << i << ": pit " << int{m.pit}
            << " leads to recompute entry " << child << " of layer " << n - m.gain();
      }
    }
  }
  EXPECT_GT(checked_exits, 0u);
  return recompute;
}

struct Case {
  const char* variant;
  int max_stones;
};

// The parameter as a failure list shows it ("oware/3x4 to 14 seeds"), not as bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.variant << " to " << c.max_stones << " seeds";
}

class SameAnswers : public testing::TestWithParam<Case> {};

TEST_P(SameAnswers, WithAndWithoutRecomputeEntries) {
  const Case c = GetParam();
  const fs::path& on = generated_dir({c.variant, c.max_stones});
  const fs::path& off = generated_dir({c.variant, c.max_stones, false});
  std::uint64_t bytes_on = 0;
  std::uint64_t bytes_off = 0;
  int with_recompute = 0;
  for (int n = 0; n <= c.max_stones; ++n) {
    const LayerInfo a = read_info(on / gen::layer_file_name(n));
    const LayerInfo b = read_info(off / gen::layer_file_name(n));
    EXPECT_LE(b.format_version, 2) << n;
    EXPECT_FALSE(b.recompute);
    EXPECT_EQ(a.format_version == 4, a.recompute);
    EXPECT_EQ(a.all_moves, a.recompute);
    with_recompute += a.recompute;
    bytes_on += a.file_size;
    bytes_off += b.file_size;
  }
  EXPECT_GT(with_recompute, 0);
  EXPECT_LT(bytes_on, bytes_off);
  EXPECT_GT(expect_one_ply(on, c.max_stones), 0u);
  const auto a = TableSet::open(on);
  const auto b = TableSet::open(off);
  expect_same_answers(*a, *b, c.max_stones);
}

// The minority rule (gen::SolveOptions::mark), checked on the raw files: an entry is a recompute
// entry exactly when the mover holds fewer than half of the seeds and no move of it that gains
// seeds leads to a recompute entry; and then no move of it at all does (the all-moves rule).
TEST_P(SameAnswers, RecomputeEntriesFollowTheMinorityRule) {
  const Case c = GetParam();
  const fs::path& dir = generated_dir({c.variant, c.max_stones});
  const RuleSet rules = parse_variant(c.variant)->rules;
  const Rules engine(rules);
  const int pits = rules.pits();
  const int p = rules.pits_per_side;
  std::vector<std::vector<std::int8_t>> raw(static_cast<std::size_t>(c.max_stones) + 1);
  std::uint64_t marked = 0;
  std::uint64_t minority = 0;
  for (int n = 0; n <= c.max_stones; ++n) {
    auto& layer = raw[static_cast<std::size_t>(n)];
    layer.resize(layer_size(pits, n));
    LayerReader::open(dir / gen::layer_file_name(n))->read_all(layer, {});
  }
  const auto is_marked = [&](int n, const Pits& board) {
    const std::uint64_t i = rank(std::span<const std::uint8_t>(board.data(), pits));
    return raw[static_cast<std::size_t>(n)][i] == kRecomputeValue;
  };
  for (int n = 0; n <= c.max_stones; ++n) {
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
    unrank(0, n, span);
    for (std::uint64_t i = 0; i < layer_size(pits, n); ++i, next_position(span)) {
      int mover = 0;
      for (int x = 0; x < p; ++x)
        mover += board[static_cast<std::size_t>(x)];
      MoveList moves;
      engine.legal_moves(board, moves);
      bool exit_to_mark = false;
      bool move_to_mark = false;
      for (const Move& m : moves) {
        const bool child = is_marked(n - m.gain(), m.child);
        move_to_mark |= child;
        exit_to_mark |= child && m.gain() > 0;
      }
      const bool want = 2 * mover < n && !exit_to_mark;
      const bool got = raw[static_cast<std::size_t>(n)][i] == kRecomputeValue;
      ASSERT_EQ(got, want) << "layer " << n << " index " << i;
      ASSERT_FALSE(got && move_to_mark) << "layer " << n << " index " << i;
      marked += got;
      minority += 2 * mover < n;
    }
  }
  // Most positions where the mover holds the fewer seeds qualify.
  EXPECT_GT(marked, minority / 2);
}

INSTANTIATE_TEST_SUITE_P(Variants,
                         SameAnswers,
                         testing::Values(Case{"oware/3x4", 14},
                                         Case{"kalah/4x3", 12},
                                         Case{"wari-us/3x4", 14},
                                         Case{"abapa/6x4", 8},
                                         Case{"kalah-irving/3x4", 12}),
                         [](const testing::TestParamInfo<Case>& param) {
                           std::string name = param.param.variant;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           return name;
                         });

// Layers of more than gen::kMaxMarkedStones stones (values that need all 8 bits of a byte) get no
// recompute entries, and read the smaller layers' marked bytes right: a 1-pit board past that
// answers as without recompute entries, in a run from scratch and in one resumed below it.
TEST(RecomputeEntries, LayersPastTheMarkedBytes) {
  for (const char* variant : {"oware/1x40", "kalah/1x40"}) {
    SCOPED_TRACE(variant);
    constexpr int kTop = 70;
    const fs::path& on = generated_dir({variant, kTop});
    const fs::path& off = generated_dir({variant, kTop, false});
    int marked_layers = 0;
    for (int n = 0; n <= kTop; ++n) {
      const LayerInfo info = read_info(on / gen::layer_file_name(n));
      EXPECT_FALSE(n > gen::kMaxMarkedStones && info.recompute) << n;
      marked_layers += info.recompute;
    }
    EXPECT_GT(marked_layers, 10);
    expect_same_answers(*TableSet::open(on), *TableSet::open(off), kTop);
    TempDir resumed("resumed");
    generate_into(resumed.path(), {variant, 40});
    generate_into(resumed.path(), {variant, kTop});
    for (int n = 0; n <= kTop; ++n) {
      EXPECT_EQ(file_bytes(resumed.path() / gen::layer_file_name(n)),
                file_bytes(on / gen::layer_file_name(n)))
          << n;
    }
  }
}

// Resuming reads recompute entries back as values (the generator resolves them from the smaller
// layers) and rebuilds which entries are recompute entries, so the layers it then solves are
// byte for byte those of a run from scratch. Over version 2 files (no recompute entries) the
// layers above may mark more entries than a fresh run (the one-ply rule looks at the smaller
// layers' files), but give the same answers and keep the rule.
TEST(RecomputeResume, ResumedLayersMatchAFreshRun) {
  for (const bool first_with_recompute : {true, false}) {
    SCOPED_TRACE(first_with_recompute);
    const fs::path& fresh = generated_dir({"oware/3x4", 10});
    TempDir resumed("resumed");
    generate_into(resumed.path(), {"oware/3x4", 7, first_with_recompute});
    const auto reports = generate_into(resumed.path(), {"oware/3x4", 10});
    ASSERT_EQ(reports.size(), 11u);
    for (int n = 0; n <= 10; ++n) {
      EXPECT_EQ(reports[static_cast<std::size_t>(n)].reused, n <= 7) << n;
      const auto name = gen::layer_file_name(n);
      if (first_with_recompute) {
        EXPECT_EQ(file_bytes(resumed.path() / name), file_bytes(fresh / name)) << n;
      }
    }
    expect_one_ply(resumed.path(), 10);
    expect_same_answers(*TableSet::open(fresh), *TableSet::open(resumed.path()), 10);
  }
}

// A layer written under the old chaining rule (every recomputable entry marked, whether or not
// its exits lead to recompute entries) is reported by the probe as corrupt, with the one-ply
// rule named, and solved again on resume into the file a fresh run writes.
TEST(RecomputeResume, ChainedLayerIsReportedAndRebuilt) {
  TempDir dir("dir");
  constexpr int kLayer = 9;
  generate_into(dir.path(), {"oware/3x4", kLayer});
  const fs::path path = dir.path() / gen::layer_file_name(kLayer);
  const auto good = file_bytes(path);
  const RuleSet rules = parse_variant("oware/3x4")->rules;
  const std::uint64_t size = layer_size(6, kLayer);
  std::vector<std::int8_t> values(size);
  std::vector<std::uint16_t> depths(size);
  std::vector<std::uint64_t> mask((size + 63) / 64);
  std::uint64_t chained = 0;
  {
    const auto tables = TableSet::open(dir.path());
    const Rules& engine = tables->engine();
    std::vector<std::vector<std::int8_t>> raw(kLayer);
    for (int n = 0; n < kLayer; ++n) {
      raw[n].resize(layer_size(6, n));
      LayerReader::open(dir.path() / gen::layer_file_name(n))->read_all(raw[n], {});
    }
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), 6);
    unrank(0, kLayer, span);
    for (std::uint64_t i = 0; i < size; ++i, next_position(span)) {
      int v = 0, d = 0;
      ASSERT_EQ(tables->value(board, v, d), ProbeStatus::kOk);
      values[i] = static_cast<std::int8_t>(v);
      depths[i] = static_cast<std::uint16_t>(d);
      // Recomputable (the chaining rule): no legal move, or the best exit gives the value.
      MoveList moves;
      bool recomputable = engine.legal_moves(board, moves) == 0;
      bool via_recompute = false;
      std::optional<int> best;
      for (const Move& m : moves) {
        if (m.gain() == 0)
          continue;
        int cv = 0, cd = 0;
        ASSERT_EQ(tables->value(m.child, cv, cd), ProbeStatus::kOk);
        best = best ? std::max(*best, Rules::worth(m, cv)) : Rules::worth(m, cv);
        const std::uint64_t c = rank(std::span<const std::uint8_t>(m.child.data(), 6));
        via_recompute |= raw[kLayer - m.gain()][c] == kRecomputeValue;
      }
      recomputable |= best && *best == v;
      if (recomputable) {
        mask[i / 64] |= std::uint64_t{1} << (i % 64);
        chained += via_recompute;
      }
    }
  }
  ASSERT_GT(chained, 0u);
  LayerSource source;
  source.values = values;
  source.recompute = mask;
  source.fill_depths = [&](std::uint64_t first, std::span<std::uint16_t> out) {
    std::copy_n(depths.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
  };
  write_layer(path, rules, kLayer, source);
  EXPECT_NE(file_bytes(path), good);  // the chaining rule marks other entries
  {
    const auto tables = TableSet::open(dir.path());
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), 6);
    unrank(0, kLayer, span);
    std::uint64_t corrupt = 0;
    for (std::uint64_t i = 0; i < size; ++i, next_position(span)) {
      int v = 0;
      const ProbeStatus s = tables->value(board, v);
      if (s == ProbeStatus::kOk)
        EXPECT_EQ(v, values[i]) << i;
      else
        corrupt += s == ProbeStatus::kCorruptTable;
    }
    EXPECT_EQ(corrupt, chained);
    const std::string error = tables->layer_error(kLayer);
    EXPECT_NE(error.find("one-ply rule"), std::string::npos) << error;
  }
  const auto reports = generate_into(dir.path(), {"oware/3x4", kLayer});
  EXPECT_FALSE(reports.back().reused);
  for (int n = 0; n < kLayer; ++n)
    EXPECT_TRUE(reports[static_cast<std::size_t>(n)].reused) << n;
  EXPECT_EQ(file_bytes(path), good);
}

// A layer whose recompute entries do not resolve (a recompute entry with legal moves but no move
// that gains seeds) is solved again on resume, and the probe reports it as corrupt.
TEST(RecomputeResume, UnresolvableLayerIsRebuilt) {
  TempDir dir("dir");
  generate_into(dir.path(), {"oware/3x4", 6});
  const fs::path path = dir.path() / gen::layer_file_name(6);
  const auto good = file_bytes(path);
  // Rewrite layer 6 with every entry of value >= 0 marked, depths as the format requires.
  const RuleSet rules = parse_variant("oware/3x4")->rules;
  std::vector<std::int8_t> values(layer_size(6, 6));
  std::vector<std::uint16_t> depths(values.size());
  {
    const auto tables = TableSet::open(dir.path());
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), 6);
    unrank(0, 6, span);
    for (std::uint64_t i = 0; i < values.size(); ++i, next_position(span)) {
      int v = 0, d = 0;
      ASSERT_EQ(tables->value(board, v, d), ProbeStatus::kOk);
      values[i] = static_cast<std::int8_t>(v);
      depths[i] = static_cast<std::uint16_t>(v > 0 ? 1 : v == 0 ? 0 : d);
    }
  }
  std::vector<std::uint64_t> mask((values.size() + 63) / 64);
  for (std::uint64_t i = 0; i < values.size(); ++i)
    if (values[i] >= 0)
      mask[i / 64] |= std::uint64_t{1} << (i % 64);
  LayerSource source;
  source.values = values;
  source.recompute = mask;
  source.fill_depths = [&](std::uint64_t first, std::span<std::uint16_t> out) {
    std::copy_n(depths.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
  };
  write_layer(path, rules, 6, source);
  // Some marked position has legal moves but none that gains seeds: the probe says corrupt.
  {
    const auto tables = TableSet::open(dir.path());
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), 6);
    unrank(0, 6, span);
    int corrupt = 0;
    for (std::uint64_t i = 0; i < values.size(); ++i, next_position(span)) {
      int v = 0, d = 0;
      corrupt += tables->value(board, v, d) == ProbeStatus::kCorruptTable;
    }
    EXPECT_GT(corrupt, 0);
    EXPECT_NE(tables->layer_error(6).find("recompute entry"), std::string::npos)
        << tables->layer_error(6);
  }
  const auto reports = generate_into(dir.path(), {"oware/3x4", 6});
  EXPECT_FALSE(reports.back().reused);
  EXPECT_EQ(file_bytes(path), good);
}

// The positions of layers 0..max_stones that the probe cannot answer (none when no layer breaks
// the one-ply rule).
std::uint64_t corrupt_entries(const fs::path& dir, int max_stones) {
  const auto tables = TableSet::open(dir);
  const int pits = tables->rules().pits();
  std::uint64_t corrupt = 0;
  for (int n = 0; n <= max_stones; ++n) {
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
    unrank(0, n, span);
    for (std::uint64_t i = 0; i < layer_size(pits, n); ++i, next_position(span)) {
      int v = 0;
      corrupt += tables->value(board, v) != ProbeStatus::kOk;
    }
  }
  return corrupt;
}

// Layers 8..10 are marked against version 2 files of layers 0..7. When a default run below them
// writes layers 6 and 7 again, now with recompute entries, some of those marks lead to recompute
// entries: the run goes on through 8..10, solves the layers that break the one-ply rule again,
// and leaves a directory whose every entry answers. A run that writes nothing stops at its
// --max-stones; one whose memory limit cannot take the layers above refuses with a clear message.
// (Kalah: a move that ends in the store keeps the mover, who then still holds the fewer seeds, so
// marked positions often move to marked ones; in the Oware family the minority rule seldom lets
// a capture reach a marked position.)
TEST(RecomputeResume, RewrittenLayerChecksTheLayersAbove) {
  TempDir dir("dir");
  const fs::path& fresh = generated_dir({"kalah/3x4", 10});
  generate_into(dir.path(), {"kalah/3x4", 7, false});
  generate_into(dir.path(), {"kalah/3x4", 10});
  for (const int n : {6, 7})
    fs::remove(dir.path() / gen::layer_file_name(n));
  const auto reports = generate_into(dir.path(), {"kalah/3x4", 7});
  EXPECT_EQ(corrupt_entries(dir.path(), 10), 0u);
  expect_one_ply(dir.path(), 10);
  ASSERT_EQ(reports.size(), 11u);
  int solved_above = 0;
  for (int n = 8; n <= 10; ++n)
    solved_above += !reports[static_cast<std::size_t>(n)].reused;
  EXPECT_GT(solved_above, 0);
  expect_same_answers(*TableSet::open(fresh), *TableSet::open(dir.path()), 10);
  EXPECT_EQ(generate_into(dir.path(), {"kalah/3x4", 7}).size(), 8u);

  // Layers 0..7 of a 6-pit board fit in 4500 bytes of the memory estimate, layer 8 does not.
  fs::remove(dir.path() / gen::layer_file_name(7));
  try {
    generate_into(dir.path(), {"kalah/3x4", 7}, [](gen::GenerateOptions& options) {
      options.memory_limit_bytes = 4500;
    });
    ADD_FAILURE() << "no refusal";
  } catch (const gen::LayerAboveTooLarge& e) {
    EXPECT_NE(std::string(e.what()).find("holds layer 8, above the largest layer asked for (7)"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.layer, 8);
    EXPECT_EQ(e.max_stones, 7);
    // The library states the cause; the flags to change are the command line's to name.
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sowdb
