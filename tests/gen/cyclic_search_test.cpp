// gen::solve_cyclic (gen/src/cyclic_search.h), the search of Oware-family positions above the
// tables, against complete tables on small boards of the three Oware-family rule sets (oware,
// abapa, ayo: grand slam forbidden, capturing nothing, capturing all), where positions repeat:
// for positions of more seeds than the tables it is given (a partial set, or none), every bound
// contains the complete tables' value (of the position and of each move), and what it says is
// exact is exact; under tiny budgets (a stop after a few tests, a table of a few entries) the
// bounds still hold.
//
// Share of positions proved exact (value and every worth), as ExactWithoutBudget prints it (every
// 7th position of each layer, at most 40 a layer): with repetitions scored as endless play, every
// position of every case, 1710 of 1710 (asserted), in 29.9 M positions searched (48.4 M with one
// ply a round of deepening instead of two). With repetitions left unknown (CyclicKnobs::endless
// false, the plain interval search; a budget of 400 stop checks, about 100 K positions, since such
// a search deepens for ever where the value rests on endless play): oware/3x2 56/200 (no tables)
// and 119/160 (tables 0..5), abapa/3x2 40/160 and 117/200, ayo/3x2 63/200 and 140/160,
// oware/2x3 77/214, abapa/2x3 64/176, ayo/4x1 46/120, oware/4x1 28/120: 750 of 1710, 44%.
#include "cyclic_search.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cyclic_searcher.h"
#include "generated_tables.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"
#include "table_values.h"

namespace sowdb::test {
namespace {

struct Case {
  const char* variant;
  int complete;  // complete tables 0..complete: the truth
  int from;      // positions of from..complete seeds are searched
  int partial;   // over tables 0..partial (below `from`); -1: none
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.variant << " layers " << c.from << ".." << c.complete << ", tables " << c.partial;
}

std::string case_name(const Case& c) {
  std::string s = std::string(c.variant) + "_" + std::to_string(c.from) + "_" +
                  std::to_string(c.complete) + "_tables_" +
                  (c.partial < 0 ? "none" : std::to_string(c.partial));
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  }
  return s;
}

// Every `step`-th position of layer n of a board of `pits` pits, at most `limit` of them.
std::vector<Pits> layer_positions(int pits, int n, std::uint64_t step, std::size_t limit) {
  std::vector<Pits> out;
  const std::uint64_t size = layer_size(pits, n);
  for (std::uint64_t i = 0; i < size && out.size() < limit; i += step) {
    Pits p{};
    if (unrank(i, n, std::span<std::uint8_t>(p.data(), static_cast<std::size_t>(pits))))
      out.push_back(p);
  }
  return out;
}

class CyclicSearch : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const Case c = GetParam();
    rules_ = variant_of(c.variant).rules.normalised();
    engine_ = std::make_unique<Rules>(rules_);
    complete_ = TableSet::open(generated_dir({c.variant, c.complete}));
    if (c.partial >= 0)
      partial_ = TableSet::open(generated_dir({c.variant, c.partial}));
  }

  int truth(const Pits& pos) const {
    int v = 0;
    EXPECT_EQ(complete_->value(pos, v), ProbeStatus::kOk);
    return v;
  }

  // Checks `s`, the search's answer for `pos`, against the complete tables; returns whether it
  // proved the value and every worth.
  bool check(const Pits& pos, const gen::StartSolution& s, bool worths = true) const {
    const int want = truth(pos);
    EXPECT_LE(s.lower, want);
    EXPECT_GE(s.upper, want);
    if (s.lower == s.upper) {
      EXPECT_EQ(s.value, want);
    }
    MoveList moves;
    engine_->legal_moves(pos, moves);
    EXPECT_EQ(static_cast<int>(s.moves.size()), moves.size);
    if (static_cast<int>(s.moves.size()) != moves.size)
      return false;
    bool all = s.lower == s.upper;
    for (int i = 0; i < moves.size; ++i) {
      const Move& m = moves.moves[i];
      const gen::StartMove& sm = s.moves[static_cast<std::size_t>(i)];
      const int worth = Rules::worth(m, truth(m.child));
      EXPECT_EQ(sm.pit, m.pit);
      EXPECT_EQ(sm.gain, m.gain());
      EXPECT_FALSE(sm.extra_turn);
      EXPECT_LE(sm.lower, worth) << "pit " << sm.pit;
      EXPECT_GE(sm.upper, worth) << "pit " << sm.pit;
      if (sm.lower == sm.upper) {
        EXPECT_EQ(sm.worth, worth) << "pit " << sm.pit;
      }
      all = all && sm.lower == sm.upper;
    }
    if (s.lower == s.upper && !s.moves.empty()) {
      // The best move reaches the value.
      bool found = false;
      for (const gen::StartMove& sm : s.moves)
        found = found || (sm.pit == s.best && sm.lower == s.value);
      EXPECT_TRUE(found) << "best " << s.best;
    }
    EXPECT_EQ(s.complete, worths ? all : s.lower == s.upper);
    return all;
  }

  RuleSet rules_;
  std::unique_ptr<Rules> engine_;
  std::unique_ptr<TableSet> complete_;
  std::unique_ptr<TableSet> partial_;
};

INSTANTIATE_TEST_SUITE_P(Variants,
                         CyclicSearch,
                         ::testing::Values(Case{"oware/3x2", 10, 6, -1},
                                           Case{"oware/3x2", 10, 7, 5},
                                           Case{"abapa/3x2", 10, 7, -1},
                                           Case{"abapa/3x2", 10, 6, 3},
                                           Case{"ayo/3x2", 10, 6, -1},
                                           Case{"ayo/3x2", 10, 7, 4},
                                           Case{"oware/2x3", 12, 5, -1},
                                           Case{"abapa/2x3", 12, 8, 6},
                                           Case{"ayo/4x1", 7, 5, 3},
                                           Case{"oware/4x1", 7, 5, -1}),
                         [](const auto& param_info) { return case_name(param_info.param); });

// With no limit, every exact answer is the tables' and every bound holds; and, with endless
// play scored, every position is proved (printed, with the share without that scoring).
TEST_P(CyclicSearch, ExactWithoutBudget) {
  const Case c = GetParam();
  const int pits = engine_->board_pits();
  for (const bool endless : {true, false}) {
    int asked = 0;
    int proved = 0;
    std::uint64_t nodes = 0;
    for (int n = c.from; n <= c.complete; ++n) {
      for (const Pits& pos : layer_positions(pits, n, 7, 40)) {
        SCOPED_TRACE("layer " + std::to_string(n) + ", endless " + std::to_string(endless));
        gen::SolveStartOptions options;
        options.tables = partial_.get();
        options.table_bits = 14;
        gen::CyclicKnobs knobs;
        knobs.endless = endless;
        // Without endless scoring a position whose value rests on endless play is never proved:
        // its search would deepen to the searcher's limit, so it gets a budget.
        int calls = 0;
        if (!endless)
          options.stop = [&calls] { return ++calls > 400; };
        const gen::StartSolution s = gen::solve_cyclic(rules_, pos, options, knobs);
        EXPECT_EQ(s.stones, n);
        EXPECT_EQ(s.start, pos);
        EXPECT_EQ(s.tables_max, c.partial);
        ++asked;
        proved += check(pos, s) ? 1 : 0;
        nodes += s.nodes;
      }
    }
    std::printf("%s endless %d: %d of %d positions proved exact, %llu positions searched\n",
                case_name(c).c_str(),
                endless ? 1 : 0,
                proved,
                asked,
                static_cast<unsigned long long>(nodes));
    EXPECT_GT(asked, 40);
    if (endless) {
      EXPECT_EQ(proved, asked);
    }
  }
}

// A stop after a few tests (and a few positions), and a table of 16 entries: whatever the search
// had proved when it stopped, its bounds hold.
TEST_P(CyclicSearch, BoundsHoldUnderTinyBudgets) {
  const Case c = GetParam();
  const int pits = engine_->board_pits();
  int narrowed = 0;
  int asked = 0;
  for (int n = c.from; n <= c.complete; ++n) {
    for (const Pits& pos : layer_positions(pits, n, 11, 15)) {
      for (const int budget : {1, 2, 4, 9, 30}) {
        for (const bool both_sides : {true, false}) {
          SCOPED_TRACE("layer " + std::to_string(n) + ", budget " + std::to_string(budget));
          int calls = 0;
          gen::SolveStartOptions options;
          options.tables = partial_.get();
          options.table_bits = budget % 2 == 0 ? 4 : 12;
          options.worths = budget != 4;
          options.stop = [&calls, budget] { return ++calls > budget; };
          int reports = 0;
          options.progress = [&](const gen::SolveProgress& p) {
            ++reports;
            EXPECT_LE(p.lower, truth(pos));
            EXPECT_GE(p.upper, truth(pos));
          };
          gen::CyclicKnobs knobs;
          knobs.both_sides = both_sides;
          const gen::StartSolution s = gen::solve_cyclic(rules_, pos, options, knobs);
          if (options.worths) {
            check(pos, s);
          } else {
            EXPECT_LE(s.lower, truth(pos));
            EXPECT_GE(s.upper, truth(pos));
          }
          EXPECT_GE(reports, 1);
          ++asked;
          narrowed += s.upper - s.lower < 2 * n ? 1 : 0;
        }
      }
    }
  }
  EXPECT_GT(asked, 50);
  EXPECT_GT(narrowed, 0);  // the budgets let some bounds narrow, so the checks above bite
}

// The knobs kept for measurement change how much is proved, never what: every bound holds
// under each (a budget of 300 stop checks, about 75 K positions, a position).
TEST_P(CyclicSearch, EveryKnobKeepsTheBoundsSound) {
  const Case c = GetParam();
  const int pits = engine_->board_pits();
  std::vector<gen::CyclicKnobs> variants(5);
  variants[0].reuse = false;
  variants[1].cache_unknown = true;
  variants[2].both_sides = false;
  variants[2].step = 1;
  variants[3].step = 3;
  variants[3].endless = false;
  variants[4].step = 5;
  int proved = 0;
  for (const Pits& pos : layer_positions(pits, c.complete, 17, 12)) {
    for (const gen::CyclicKnobs& knobs : variants) {
      int calls = 0;
      gen::SolveStartOptions options;
      options.tables = partial_.get();
      options.table_bits = 10;
      options.stop = [&calls] { return ++calls > 300; };
      proved += check(pos, gen::solve_cyclic(rules_, pos, options, knobs)) ? 1 : 0;
    }
  }
  EXPECT_GT(proved, 0);
}

// Only the value asked (worths false): the value is exact, a best move reaches it, and the
// bounds of the moves left open hold.
TEST_P(CyclicSearch, ValueOnly) {
  const Case c = GetParam();
  const int pits = engine_->board_pits();
  for (const Pits& pos : layer_positions(pits, c.complete, 13, 25)) {
    gen::SolveStartOptions options;
    options.tables = partial_.get();
    options.worths = false;
    const gen::StartSolution s = gen::solve_cyclic(rules_, pos, options);
    EXPECT_TRUE(s.complete);
    EXPECT_EQ(s.lower, s.upper);
    check(pos, s, false);
  }
}

// Values read in part (a server's or a Python session's reading beside its searches, met by a
// search before it ends: PreloadedValues::read_beside): no layer, the top one, the upper half,
// every one. A layer not read is probed through the tables (a search once dereferenced its
// missing bytes: `sowdb serve` ended on SIGSEGV), and every test the search decides is true.
TEST_P(CyclicSearch, ValuesReadInPartProbeTheTablesForTheRest) {
  const Case c = GetParam();
  if (c.partial < 0)
    GTEST_SKIP() << "no tables below the searched positions";
  const int pits = engine_->board_pits();
  for (const int lowest : {c.partial + 1, c.partial, c.partial / 2, 0}) {
    SCOPED_TRACE("layers " + std::to_string(lowest) + ".." + std::to_string(c.partial) + " read");
    gen::TableValues values(*partial_, true);
    values.read_layers(*partial_, std::atomic<bool>{false}, lowest);
    for (int n = 0; n <= c.partial; ++n) {
      EXPECT_EQ(values.layer(n) != nullptr, n >= lowest) << n;
    }
    gen::CyclicTable table(10);
    gen::CyclicSearcher searcher(*engine_, partial_.get(), &values, table);
    int decided = 0;
    for (int n = c.from; n <= c.complete; ++n) {
      for (const Pits& pos : layer_positions(pits, n, 5, 12)) {
        MoveList moves;
        if (engine_->legal_moves(pos, moves) == 0)
          continue;
        const int want = truth(pos);
        for (const int beta : {want, want + 1}) {
          int v = 0;
          const gen::TestResult r = searcher.test(pos, n, beta, 16, v);
          if (r == gen::TestResult::kHigh) {
            EXPECT_GE(want, beta) << "layer " << n << ", value " << v;
          } else if (r == gen::TestResult::kLow) {
            EXPECT_LT(want, beta) << "layer " << n << ", value " << v;
          }
          decided += r != gen::TestResult::kUnknown ? 1 : 0;
        }
      }
    }
    EXPECT_GT(decided, 0);
  }
}

TEST(CyclicSearchErrors, RefusesOtherFamiliesAndOtherTables) {
  const RuleSet kalah = variant_of("kalah/3x2").rules.normalised();
  gen::SolveStartOptions options;
  EXPECT_THROW(gen::solve_cyclic(kalah, board_of({2, 2, 2, 2, 2, 2}), options),
               gen::InvalidRequest);
  const std::unique_ptr<TableSet> ayo = TableSet::open(generated_dir({"ayo/3x2", 4}));
  options.tables = ayo.get();
  const RuleSet oware = variant_of("oware/3x2").rules.normalised();
  EXPECT_THROW(gen::solve_cyclic(oware, board_of({2, 2, 2, 2, 2, 2}), options),
               gen::InvalidRequest);
  options.tables = nullptr;
  EXPECT_THROW(gen::solve_cyclic(oware, board_of({2, 2, 2, 2, 2, 2, 1}), options),
               gen::InvalidRequest);
}

// The tables answer a position they cover, and the end of the game one where the mover cannot
// move: nothing searched.
TEST(CyclicSearchTables, AnswersFromTablesAndTheEnd) {
  const RuleSet oware = variant_of("oware/3x2").rules.normalised();
  const std::unique_ptr<TableSet> tables = TableSet::open(generated_dir({"oware/3x2", 8}));
  gen::SolveStartOptions options;
  options.tables = tables.get();
  const Pits pos = board_of({1, 2, 0, 3, 1, 1});
  const gen::StartSolution s = gen::solve_cyclic(oware, pos, options);
  int want = 0;
  ASSERT_EQ(tables->value(pos, want), ProbeStatus::kOk);
  EXPECT_TRUE(s.by_tables);
  EXPECT_TRUE(s.complete);
  EXPECT_EQ(s.value, want);
  EXPECT_EQ(s.nodes, 0u);
  EXPECT_EQ(s.table_bytes, 0u);
  const gen::StartSolution over = gen::solve_cyclic(oware, board_of({0, 0, 0, 3, 1, 1}), options);
  EXPECT_TRUE(over.complete);
  EXPECT_EQ(over.value, -5);
  EXPECT_TRUE(over.moves.empty());
  EXPECT_EQ(over.best, -1);
}

}  // namespace
}  // namespace sowdb::test
