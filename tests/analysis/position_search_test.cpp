// Positions above the tables answered by search (answer_position with a budget,
// search_position): on small boards of every preset, the value, every move's worth, the result
// and the line agree with complete tables; bounds under budgets too small to prove anything
// still hold the true value.
#include "sowdb/analysis/position_search.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "generated_tables.h"
#include "sowdb/analysis/position_answer.h"
#include "sowdb/analysis/report_json.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb::test {
namespace {

struct Board {
  std::string variant;  // PRESET/PxS
  int partial;          // the top layer of the tables the search is given
};

std::vector<Board> boards() {
  std::vector<Board> out;
  for (const Preset& p : presets()) {
    out.push_back({std::string(p.name) + "/3x2", 5});
    // Oware-family boards of 4 pits repeat positions over long cycles: the 3-pit board and a
    // 2-pit one keep the search's test quick.
    if (p.rules.family == Family::kOware)
      out.push_back({std::string(p.name) + "/2x3", 7});
    else
      out.push_back({std::string(p.name) + "/4x2", 9});
  }
  return out;
}

std::string name_of(const ::testing::TestParamInfo<Board>& info) {
  std::string n = info.param.variant;
  for (char& c : n) {
    if (c == '/' || c == '-')
      c = '_';
  }
  return n;
}

// `count` positions of `seeds` seeds spread at random over the board's pits (seeded).
std::vector<std::vector<long long>> random_positions(int pits,
                                                     int seeds,
                                                     int count,
                                                     unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pit(0, pits - 1);
  std::vector<std::vector<long long>> out;
  for (int i = 0; i < count; ++i) {
    std::vector<long long> b(static_cast<std::size_t>(pits), 0);
    for (int s = 0; s < seeds; ++s)
      ++b[static_cast<std::size_t>(pit(rng))];
    out.push_back(b);
  }
  return out;
}

class PositionSearch : public ::testing::TestWithParam<Board> {
 protected:
  void SetUp() override {
    const Variant v = variant_of(GetParam().variant);
    complete_ = TableSet::open(generated_dir({GetParam().variant, v.total_stones()}));
    partial_ = TableSet::open(generated_dir({GetParam().variant, GetParam().partial}));
  }

  PositionQuery query(const std::vector<long long>& board, const SearchBudget& budget) const {
    PositionQuery q;
    q.board = board;
    q.search = budget;
    return q;
  }

  std::unique_ptr<TableSet> complete_;
  std::unique_ptr<TableSet> partial_;
};

INSTANTIATE_TEST_SUITE_P(EveryPreset, PositionSearch, ::testing::ValuesIn(boards()), name_of);

TEST_P(PositionSearch, ExactAboveTheTablesAsCompleteTablesSay) {
  const Variant v = complete_->variant();
  const int pits = complete_->engine().board_pits();
  SearchBudget budget;
  budget.seconds = 0;  // no limit: every search ends with exact answers
  int searched = 0;
  for (int seeds = GetParam().partial + 1; seeds <= v.total_stones(); ++seeds) {
    for (const auto& board :
         random_positions(pits, seeds, 12, 17u + static_cast<unsigned>(seeds))) {
      SCOPED_TRACE(::testing::PrintToString(board));
      PositionQuery q = query(board, budget);
      // The result is judged with stores, as the tables judge it.
      q.store_mover = seeds < v.total_stones() ? 1 : 0;
      const Answer<PositionAnswer> got = answer_position(*partial_, q);
      ASSERT_TRUE(got) << got.refusal().message;
      q.search.reset();
      const Answer<PositionAnswer> want = answer_position(*complete_, q);
      ASSERT_TRUE(want) << want.refusal().message;
      const PositionReport& g = *got->competitive;
      const PositionReport& w = *want->competitive;
      ASSERT_EQ(g.method, AnswerMethod::kSearch);
      ASSERT_EQ(w.method, AnswerMethod::kTable);
      ++searched;
      ASSERT_TRUE(g.search && g.search->complete);
      EXPECT_EQ(g.lower, w.value);
      EXPECT_EQ(g.upper, w.value);
      EXPECT_EQ(g.value, w.value);
      EXPECT_TRUE(g.outcome_known);
      EXPECT_EQ(g.outcome.result, w.outcome.result);
      EXPECT_EQ(g.outcome.mover, w.outcome.mover);
      ASSERT_EQ(g.moves.size(), w.moves.size());
      for (const ReportedMove& wm : w.moves) {
        bool found = false;
        for (const ReportedMove& gm : g.moves) {
          if (gm.pit != wm.pit)
            continue;
          found = true;
          EXPECT_TRUE(gm.exact()) << "pit " << gm.pit;
          EXPECT_EQ(gm.worth, wm.worth) << "pit " << gm.pit;
          EXPECT_EQ(gm.category, wm.category) << "pit " << gm.pit;
          EXPECT_EQ(gm.after, wm.after);
        }
        EXPECT_TRUE(found) << "pit " << wm.pit;
      }
      if (!g.moves.empty()) {
        // The best move is proved, worth the value, and the line starts with it.
        ASSERT_TRUE(g.best().has_value());
        EXPECT_EQ(g.moves.front().worth, w.value);
        ASSERT_FALSE(g.line.steps.empty());
        EXPECT_EQ(g.line.steps.front().pit, *g.best());
        // The line continues as the tables' from the position after the best move when they
        // hold it: it ends where a complete line ends (the game over, or endless play).
        if (g.line_proved) {
          EXPECT_NE(g.line.end, LineEnd::kMaxPlies);
        }
      } else {
        EXPECT_TRUE(g.line.steps.empty());
      }
      // The JSON says how the answer came, and that every figure is exact.
      const auto j = to_json(g);
      EXPECT_EQ(j["method"], "search");
      EXPECT_EQ(j["value"], w.value);
      EXPECT_TRUE(j["depth"].is_null());
    }
  }
  EXPECT_GT(searched, 0);
}

TEST_P(PositionSearch, BoundsUnderTinyBudgetsHoldTheTrueValue) {
  const Variant v = complete_->variant();
  const int pits = complete_->engine().board_pits();
  for (int seeds = GetParam().partial + 1; seeds <= v.total_stones(); seeds += 2) {
    for (const auto& board : random_positions(pits, seeds, 6, 99u + static_cast<unsigned>(seeds))) {
      SCOPED_TRACE(::testing::PrintToString(board));
      PositionQuery plain;
      plain.board = board;
      const PositionReport w = *answer_position(*complete_, plain)->competitive;
      // Stopped at once, after one question, after a few: whatever is proved holds.
      for (int calls : {0, 1, 2, 4}) {
        SearchBudget budget;
        budget.seconds = 0;
        budget.hash_mib = 1;
        auto asked = std::make_shared<int>(0);
        budget.stop = [asked, calls] { return (*asked)++ >= calls; };
        const Answer<PositionAnswer> got = answer_position(*partial_, query(board, budget));
        ASSERT_TRUE(got) << got.refusal().message;
        const PositionReport& g = *got->competitive;
        EXPECT_LE(g.lower, w.value) << calls;
        EXPECT_GE(g.upper, w.value) << calls;
        for (const ReportedMove& wm : w.moves) {
          for (const ReportedMove& gm : g.moves) {
            if (gm.pit == wm.pit) {
              EXPECT_LE(gm.lower, wm.worth) << "pit " << gm.pit << ", " << calls;
              EXPECT_GE(gm.upper, wm.worth) << "pit " << gm.pit << ", " << calls;
            }
          }
        }
        // A move proved best (the only one, or one proved at least as good as the others) is
        // one the tables rank best.
        if (g.best()) {
          for (const ReportedMove& wm : w.moves) {
            if (wm.pit == *g.best()) {
              EXPECT_EQ(wm.worth, w.value) << calls;
            }
          }
        }
      }
    }
  }
}

TEST_P(PositionSearch, ProvedOnceAnswersFromTheProofStore) {
  const Variant v = complete_->variant();
  const int pits = complete_->engine().board_pits();
  TempDir dir("proofs");
  ProofStore store(dir.path() / "p.sowproof", v.rules, ProofStoreOptions{1 << 20, false, {}});
  ASSERT_TRUE(store.writable());
  SearchBudget budget;
  budget.seconds = 0;
  budget.proofs = &store;
  for (const auto& board : random_positions(pits, v.total_stones(), 8, 5u)) {
    SCOPED_TRACE(::testing::PrintToString(board));
    PositionQuery plain;
    plain.board = board;
    const PositionReport w = *answer_position(*complete_, plain)->competitive;
    const PositionReport first = *answer_position(*partial_, query(board, budget))->competitive;
    const PositionReport again = *answer_position(*partial_, query(board, budget))->competitive;
    ASSERT_TRUE(first.search && again.search);
    EXPECT_FALSE(first.search->stored);
    EXPECT_TRUE(again.search->stored);
    EXPECT_EQ(again.search->positions, 0u);
    EXPECT_EQ(again.value, w.value);
    EXPECT_TRUE(again.exact());
    ASSERT_EQ(again.moves.size(), w.moves.size());
    for (const ReportedMove& gm : again.moves) {
      for (const ReportedMove& wm : w.moves) {
        if (gm.pit == wm.pit) {
          EXPECT_EQ(gm.worth, wm.worth);
          EXPECT_TRUE(gm.exact());
        }
      }
    }
    EXPECT_EQ(again.best(), first.best());
    EXPECT_EQ(to_json(again)["line"], to_json(first)["line"]);
  }
}

// A book keeps a value and a best move without the worths: asked for every worth, the search
// gives that value and best move at once, stopped before it searched anything, and, left to
// finish, proves every worth from the known value as it would without it.
TEST_P(PositionSearch, AValueInTheStoreAnswersAtOnceAndTheWorthsFollow) {
  const Variant v = complete_->variant();
  const int pits = complete_->engine().board_pits();
  TempDir dir("proofs");
  ProofStore store(dir.path() / "p.sowproof", v.rules, ProofStoreOptions{1 << 20, false, {}});
  ASSERT_TRUE(store.writable());
  for (const auto& board : random_positions(pits, v.total_stones(), 8, 17u)) {
    SCOPED_TRACE(::testing::PrintToString(board));
    PositionQuery plain;
    plain.board = board;
    const PositionReport w = *answer_position(*complete_, plain)->competitive;
    SearchBudget value_only;
    value_only.seconds = 0;
    value_only.worths = false;
    value_only.proofs = &store;
    const PositionReport book = *answer_position(*partial_, query(board, value_only))->competitive;
    ASSERT_TRUE(book.exact());
    if (w.moves.empty())
      continue;
    SearchBudget stopped;
    stopped.seconds = 0;
    stopped.proofs = &store;
    stopped.stop = [] { return true; };
    const PositionReport at_once = *answer_position(*partial_, query(board, stopped))->competitive;
    EXPECT_TRUE(at_once.exact());
    EXPECT_EQ(at_once.value, w.value);
    ASSERT_TRUE(at_once.best());
    for (const ReportedMove& wm : w.moves) {
      for (const ReportedMove& gm : at_once.moves) {
        if (gm.pit == wm.pit) {
          EXPECT_LE(gm.lower, wm.worth) << "pit " << gm.pit;
          EXPECT_GE(gm.upper, wm.worth) << "pit " << gm.pit;
        }
      }
      if (wm.pit == *at_once.best()) {
        EXPECT_EQ(wm.worth, w.value);
      }
    }
    SearchBudget full;
    full.seconds = 0;
    full.proofs = &store;
    const PositionReport worths = *answer_position(*partial_, query(board, full))->competitive;
    EXPECT_EQ(worths.value, w.value);
    ASSERT_EQ(worths.moves.size(), w.moves.size());
    for (const ReportedMove& gm : worths.moves) {
      for (const ReportedMove& wm : w.moves) {
        if (gm.pit == wm.pit) {
          EXPECT_TRUE(gm.exact()) << "pit " << gm.pit;
          EXPECT_EQ(gm.worth, wm.worth) << "pit " << gm.pit;
        }
      }
    }
  }
}

TEST(PositionSearchRefusals, WithoutABudgetAboveTheTablesIsRefused) {
  const auto set = TableSet::open(generated_dir({"kalah/3x2", 5}));
  PositionQuery q;
  q.board = {2, 2, 2, 2, 2, 2};
  const Answer<PositionAnswer> a = answer_position(*set, q);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.refusal().kind, RefusalKind::kTooManySeeds);
  q.search = SearchBudget{};
  q.search->seconds = -1;
  const Answer<PositionAnswer> bad = answer_position(*set, q);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.refusal().kind, RefusalKind::kBadRequest);
}

TEST(PositionSearchRefusals, TablePositionsKeepTheTablesAnswer) {
  const auto set = TableSet::open(generated_dir({"kalah/3x2", 5}));
  PositionQuery q;
  q.board = {1, 0, 1, 1, 0, 1};
  q.search = SearchBudget{};
  const Answer<PositionAnswer> a = answer_position(*set, q);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->competitive->method, AnswerMethod::kTable);
  EXPECT_FALSE(a->competitive->search.has_value());
  EXPECT_EQ(to_json(*a->competitive)["method"], "table");
}

}  // namespace
}  // namespace sowdb::test
