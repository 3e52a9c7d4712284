// The alpha-beta search under gen::solve_start (gen/src/start_searcher.h), position by position,
// against the brute-force solver: exact values, fail-soft null-window tests on both sides of the
// value, and estimates of limited depth interleaved with the exact searches in one small shared
// table, so that a bound proved only to some depth never serves a search to the end.
#include "start_searcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <ostream>
#include <string>

#include "brute_force.h"
#include "generated_tables.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"
#include "table_values.h"
#include "transposition_table.h"

namespace sowdb::test {
namespace {

struct Case {
  const char* variant;
  int max_stones;  // positions of up to this many seeds are searched
  int tables;      // tables of up to this many seeds are probed; -1: none
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.variant << " to " << c.max_stones << " seeds, tables " << c.tables;
}

class StartSearcher : public ::testing::TestWithParam<Case> {};

INSTANTIATE_TEST_SUITE_P(Variants,
                         StartSearcher,
                         ::testing::Values(Case{"kalah/3x2", 10, -1},
                                           Case{"kalah/3x2", 10, 3},
                                           Case{"kalah-irving/3x2", 10, -1},
                                           Case{"kalah-tournament/3x2", 10, -1},
                                           Case{"kalah-tournament/4x2", 8, 2},
                                           Case{"kalah-irving/2x3", 12, -1},
                                           Case{"wari-us/3x2", 9, -1},
                                           Case{"wari-us/3x2", 9, 4}),
                         [](const auto& param_info) {
                           std::string s = std::string(param_info.param.variant) + "_to_" +
                                           std::to_string(param_info.param.max_stones) +
                                           "_tables_" +
                                           (param_info.param.tables < 0
                                                ? "none"
                                                : std::to_string(param_info.param.tables));
                           for (char& c : s) {
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           }
                           return s;
                         });

TEST_P(StartSearcher, AgreesWithBruteForce) {
  const Case c = GetParam();
  const Variant v = *parse_variant(c.variant);
  const RuleSet rules = v.rules.normalised();
  const Rules engine(rules);
  BruteForce brute(rules);
  brute.solve_through(c.max_stones);
  std::unique_ptr<TableSet> tables;
  if (c.tables >= 0)
    tables = TableSet::open(generated_dir({c.variant, c.tables}));
  // A small table (2^8 entries), so that entries are replaced all the time.
  const int key_bits = 24;
  gen::TranspositionTable table(8, key_bits);
  gen::Searcher searcher(engine, tables.get(), table);
  int checked = 0;
  for (int n = 0; n <= c.max_stones; ++n) {
    const BruteLayer& layer = brute.layer(n);
    for (std::size_t i = 0; i < layer.boards.size(); i += 3) {
      const Pits& pos = layer.boards[i];
      const int want = layer.value[i];
      SCOPED_TRACE(std::string(c.variant) + " layer " + std::to_string(n) + " position " +
                   std::to_string(i));
      // An estimate first, which leaves bounds of limited depth in the table.
      bool exact = false;
      const int est = searcher.estimate(pos, n, 0, 5 + static_cast<int>(i % 3) * 3, exact);
      if (exact) {
        EXPECT_EQ(est, want);
      }
      // Null-window tests on both sides of the value: fail-soft bounds on the right side.
      for (const int beta : {want - 2, want, want + 1, want + 3}) {
        const int r = searcher.test(pos, n, beta);
        if (want >= beta) {
          EXPECT_GE(r, beta) << "beta " << beta;
          EXPECT_LE(r, want) << "beta " << beta;
        } else {
          EXPECT_LT(r, beta) << "beta " << beta;
          EXPECT_GE(r, want) << "beta " << beta;
        }
      }
      // MTD(f) from a guess far off.
      const auto got =
          searcher.value(pos, n, (i % 2 == 0) ? n : -n, [](int, int) { return false; });
      EXPECT_EQ(got.first, want);
      EXPECT_EQ(got.second, want);
      ++checked;
    }
  }
  EXPECT_GT(checked, 50);
  EXPECT_GT(searcher.nodes(), 0u);
}

// The tables' values read layer by layer (a deferred TableValues, as a search's background
// reading fills it: SolveStartOptions::preload_delay) hold the bytes of the values read whole; a
// reading cancelled before it starts reads no layer.
TEST(TableValuesDeferred, ReadsTheBytesOfTheWholeRead) {
  const auto tables = TableSet::open(generated_dir({"kalah/3x2", 6}));
  const int pits = tables->rules().pits();
  const gen::TableValues whole(*tables);
  gen::TableValues deferred(*tables, true);
  std::atomic<bool> cancel{true};
  deferred.read_layers(*tables, cancel);
  EXPECT_EQ(deferred.bytes(), 0u);
  for (int n = 0; n <= tables->max_stones(); ++n)
    EXPECT_EQ(deferred.layer(n), nullptr) << n;
  cancel = false;
  deferred.read_layers(*tables, cancel);
  EXPECT_EQ(deferred.bytes(), whole.bytes());
  for (int n = 0; n <= tables->max_stones(); ++n) {
    ASSERT_NE(deferred.layer(n), nullptr) << n;
    const auto size = static_cast<std::size_t>(layer_size(pits, n));
    EXPECT_TRUE(std::equal(whole.layer(n), whole.layer(n) + size, deferred.layer(n))) << n;
  }
}

// A search over values of which no layer is read yet (the reading has not started) probes the
// tables for each layer: the brute force's values, as without them; the same once every layer
// is read.
TEST(TableValuesDeferred, SearchProbesTheLayersNotRead) {
  const Variant v = *parse_variant("kalah/3x2");
  const RuleSet rules = v.rules.normalised();
  const Rules engine(rules);
  BruteForce brute(rules);
  brute.solve_through(10);
  const auto tables = TableSet::open(generated_dir({"kalah/3x2", 4}));
  gen::TableValues values(*tables, true);
  for (const bool read : {false, true}) {
    SCOPED_TRACE(read ? "every layer read" : "no layer read");
    if (read)
      values.read_layers(*tables, std::atomic<bool>{false});
    gen::TranspositionTable table(8, 24);
    gen::Searcher searcher(engine, tables.get(), table, &values);
    int checked = 0;
    for (int n = 5; n <= 10; ++n) {
      const BruteLayer& layer = brute.layer(n);
      for (std::size_t i = 0; i < layer.boards.size(); i += 5) {
        const auto got = searcher.value(layer.boards[i], n, 0, [](int, int) { return false; });
        EXPECT_EQ(got.first, layer.value[i]) << n << " " << i;
        EXPECT_EQ(got.second, layer.value[i]) << n << " " << i;
        ++checked;
      }
    }
    EXPECT_GT(checked, 50);
  }
}

// gains_at_once against the moves themselves, and the bound it gives (a value of at least 2 - n)
// against the brute-force values, on every position of up to 12 seeds; under
// `capture_empty_opposite` it holds wherever the mover can move (Irving's futility bound), under
// the other capture rule the bound without the check would be wrong.
TEST(GainsAtOnce, MatchesTheMovesAndBoundsTheValue) {
  for (const char* name : {"kalah-irving/3x2",
                           "kalah-tournament/3x2",
                           "kalah/3x2",
                           "kalah-irving/2x3",
                           "kalah-tournament/4x2"}) {
    SCOPED_TRACE(name);
    const Variant v = *parse_variant(name);
    const RuleSet rules = v.rules.normalised();
    const Rules engine(rules);
    BruteForce brute(rules);
    const int max_stones = 12;
    brute.solve_through(max_stones);
    int gaining = 0;
    int lowest = 0;  // positions with a move whose value is -n: no seed more for the mover
    for (int n = 1; n <= max_stones; ++n) {
      const BruteLayer& layer = brute.layer(n);
      for (std::size_t i = 0; i < layer.boards.size(); ++i) {
        const Pits& pos = layer.boards[i];
        MoveList moves;
        if (engine.legal_moves(pos, moves) == 0)
          continue;
        bool any = false;
        for (const Move& m : moves)
          any = any || m.gain() > 0;
        const bool got = gen::gains_at_once(engine, pos);
        ASSERT_EQ(got, any) << "layer " << n << " position " << i;
        if (got) {
          ++gaining;
          EXPECT_GE(layer.value[i], 2 - n) << "layer " << n << " position " << i;
        }
        if (rules.capture_empty_opposite) {
          EXPECT_TRUE(got) << "layer " << n << " position " << i;
        }
        if (layer.value[i] == -n)
          ++lowest;
      }
    }
    EXPECT_GT(gaining, 100);
    if (rules.capture_empty_opposite) {
      EXPECT_EQ(lowest, 0);
    } else {
      EXPECT_GT(lowest, 0);  // the bound needs the check under this capture rule
    }
  }
}

// The bound settles children in searches of few seeds (and the values stay those of the brute
// force, AgreesWithBruteForce): it is used, not only defined.
TEST(GainsAtOnce, SettlesChildrenInASearch) {
  const Variant v = *parse_variant("kalah-irving/3x2");
  const Rules engine(v.rules.normalised());
  BruteForce brute(v.rules.normalised());
  brute.solve_through(12);
  gen::TranspositionTable table(12, 24);
  gen::Searcher searcher(engine, nullptr, table);
  std::uint64_t hits = 0;
  searcher.count_futility(&hits);
  for (int n = 6; n <= 12; ++n) {
    const BruteLayer& layer = brute.layer(n);
    for (std::size_t i = 0; i < layer.boards.size(); i += 7) {
      const auto got = searcher.value(layer.boards[i], n, 0, [](int, int) { return false; });
      ASSERT_EQ(got.first, layer.value[i]);
      ASSERT_EQ(got.second, layer.value[i]);
    }
  }
  EXPECT_GT(hits, 0u);
}

}  // namespace
}  // namespace sowdb::test
