// The position report and the co-operative report against the probe library's own answers,
// position by position over whole layers: the ranking must pick TableSet::best_move's move, and
// every field must be the probe's.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "analysis_tables.h"
#include "sowdb/analysis/cooperative_report.h"
#include "sowdb/analysis/position_report.h"
#include "sowdb/analysis/report_json.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/outcome.h"

namespace sowdb {
namespace {

struct Tables {
  const char* name;  // the test's name
  const char* variant;
  int max_stones;
};

// The name in ctest's list (gtest_discover_tests prints the parameter), not its bytes.
void PrintTo(const Tables& t, std::ostream* os) {
  *os << t.variant << " up to " << t.max_stones;
}

class PositionReportTest : public testing::TestWithParam<Tables> {};

// Every position of layer n of `set`, in index order.
std::vector<Pits> every_position_of_layer(const TableSet& set, int n) {
  const int k = set.rules().pits();
  std::vector<Pits> out(layer_size(k, n));
  for (std::uint64_t i = 0; i < out.size(); ++i)
    unrank(i, n, std::span(out[i].data(), static_cast<std::size_t>(k)));
  return out;
}

// One report against the probe's answers for the same position.
void check_report(const TableSet& set, const Pits& board, int store_a, int store_b) {
  const PositionReport r = report_position(set, board, store_a, store_b, 50);
  int value = 0, depth = 0;
  ASSERT_EQ(set.value(board, value, depth), ProbeStatus::kOk);
  EXPECT_EQ(r.value, value);
  EXPECT_EQ(r.depth, depth);
  MoveWorths moves;
  ASSERT_EQ(set.moves(board, moves), ProbeStatus::kOk);
  ASSERT_EQ(static_cast<int>(r.moves.size()), moves.size);
  EXPECT_TRUE(std::is_sorted(r.moves.begin(), r.moves.end(), ranks_before));
  MoveWorth best;
  if (moves.size == 0) {
    EXPECT_EQ(set.best_move(board, best), ProbeStatus::kGameOver);
    EXPECT_FALSE(r.best());
  } else {
    ASSERT_EQ(set.best_move(board, best), ProbeStatus::kOk);
    EXPECT_EQ(r.best(), best.move.pit);
    EXPECT_EQ(r.moves.front().worth, value);
  }
  for (const MoveWorth& m : moves) {
    const auto it = std::find_if(
        r.moves.begin(), r.moves.end(), [&](const ReportedMove& x) { return x.pit == m.move.pit; });
    ASSERT_NE(it, r.moves.end()) << "pit " << int{m.move.pit};
    EXPECT_EQ(it->worth, m.worth);
    EXPECT_EQ(it->depth, m.depth);
    EXPECT_EQ(it->gain, m.move.gain());
    EXPECT_EQ(it->stored + it->captured, it->gain);
    EXPECT_EQ(it->extra_turn, m.move.extra_turn);
    EXPECT_EQ(it->after, m.move.child);
    GameOutcome o;
    ASSERT_EQ(game_outcome(set.variant(), m.worth, store_a, store_b, r.stones, o),
              OutcomeStatus::kOk);
    EXPECT_EQ(it->category, o.result);
  }
  PrincipalLine line;
  ASSERT_EQ(set.principal_line(board, line, 50), ProbeStatus::kOk);
  ASSERT_EQ(r.line.steps.size(), line.steps.size());
  for (std::size_t i = 0; i < line.steps.size(); ++i)
    EXPECT_EQ(r.line.steps[i].pit, line.steps[i].pit);
  EXPECT_EQ(r.line.end, line.end);
}

TEST_P(PositionReportTest, EveryPositionMatchesTheProbe) {
  const Tables& t = GetParam();
  const auto set = test::open_competitive(t.variant, t.max_stones);
  for (int n = 0; n <= t.max_stones; ++n) {
    for (const Pits& board : every_position_of_layer(*set, n)) {
      check_report(*set, board, 0, 0);
      if (HasFatalFailure() || HasNonfatalFailure()) {
        ADD_FAILURE() << "at n = " << n;
        return;
      }
    }
  }
}

// With the stores set, the category is the game's result, not the sign of the worth: in Oware
// a store of more than half the seeds has decided the game whatever the move.
TEST_P(PositionReportTest, CategoriesFollowTheStores) {
  const Tables& t = GetParam();
  const auto set = test::open_competitive(t.variant, t.max_stones);
  const int total = set->variant().total_stones();
  const int n = t.max_stones;
  for (const Pits& board : every_position_of_layer(*set, n)) {
    // Every seed not on the board in the mover's store.
    check_report(*set, board, total - n, 0);
    if (HasFatalFailure() || HasNonfatalFailure())
      return;
  }
}

// The report's JSON is written as text (to_json_text, what the server sends); to_json parses
// it. The text must be exactly nlohmann's compact dump of itself: keys sorted, its number and
// string forms, so that the server and `sowdb probe --json` print the same bytes.
void check_json_text(const PositionReport& r) {
  const std::string text = to_json_text(r);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j.dump(), text);
  EXPECT_EQ(j["value"], r.value);
  EXPECT_EQ(j["moves"].size(), r.moves.size());
  EXPECT_EQ(j["line_steps"].size(), r.line.steps.size());
  EXPECT_EQ(j["variant"], r.variant.to_string());
}

TEST_P(PositionReportTest, JsonTextIsItsOwnCompactDump) {
  const Tables& t = GetParam();
  const auto set = test::open_competitive(t.variant, t.max_stones);
  const int n = t.max_stones;
  for (const Pits& board : every_position_of_layer(*set, n)) {
    check_json_text(report_position(*set, board, 1, 2, 50));
    if (HasFatalFailure() || HasNonfatalFailure())
      return;
  }
}

// Halves of seeds (endless play splits an odd number) are doubles; a game over has no best.
TEST(PositionReportJson, HalfSeedsAndGameOver) {
  const auto set = test::open_competitive("oware/6x4", 5);
  PositionReport r = report_position(*set, Pits{}, 0, 0, 50);
  ASSERT_TRUE(r.moves.empty());
  r.outcome.mover = 2.5;
  r.outcome.opponent = -0.5;
  check_json_text(r);
  const nlohmann::json j = nlohmann::json::parse(to_json_text(r));
  EXPECT_EQ(j["final"], nlohmann::json::parse("[2.5,-0.5]"));
  EXPECT_TRUE(j["best"].is_null());
  EXPECT_EQ(j["game_over"], true);
}

// Strings are escaped as nlohmann escapes them: quotes, backslashes, every control character
// (short forms where JSON has them), runs of plain and UTF-8 text between them.
TEST(PositionReportJson, StringsAreEscapedAsNlohmannEscapes) {
  const auto set = test::open_competitive("oware/6x4", 5);
  PositionReport r = report_position(*set, Pits{}, 0, 0, 50);
  r.search.emplace();
  std::string text = "plain \"quoted\" back\\slash caf\xc3\xa9 ";
  for (int c = 1; c < 0x20; ++c) {
    text += static_cast<char>(c);
    text += "ab";
  }
  text += "\"\"\\";
  for (const std::string& s : {text, std::string(), std::string("\""), std::string("x")}) {
    r.search->stopped_by = s;
    check_json_text(r);
    if (!s.empty()) {
      EXPECT_EQ(nlohmann::json::parse(to_json_text(r))["search"]["stopped_by"], s);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants,
                         PositionReportTest,
                         testing::Values(Tables{"kalah_4x3", "kalah/4x3", 8},
                                         Tables{"oware_6x4", "oware/6x4", 5},
                                         Tables{"wari_us_3x3", "wari-us/3x3", 8}),
                         [](const testing::TestParamInfo<Tables>& p) {
                           return std::string(p.param.name);
                         });

// Layers 0..8 (2,000 positions): a co-operative line takes milliseconds.
TEST(CooperativeReportTest, EveryPositionMatchesTheProbe) {
  const auto set = test::open_cooperative();
  for (int n = 0; n <= 8; ++n) {
    for (const Pits& board : every_position_of_layer(*set, n)) {
      const CooperativeReport r = report_cooperative(*set, board, 1, 3, 60);
      ReachSet reach;
      ASSERT_EQ(set->reach(board, reach), ProbeStatus::kOk);
      EXPECT_EQ(r.reachable.differences(), reach.differences());
      EXPECT_EQ(r.target, 2);
      EXPECT_EQ(r.balanced, reach.contains(2));
      MoveReaches moves;
      ASSERT_EQ(set->reach_moves(board, moves), ProbeStatus::kOk);
      ASSERT_EQ(r.moves.size, moves.size);
      for (int i = 0; i < moves.size; ++i) {
        EXPECT_EQ(r.moves.moves[i].move.pit, moves.moves[i].move.pit);
        EXPECT_EQ(r.balancing(r.moves.moves[i]), moves.moves[i].reachable.contains(2));
      }
      // A balanced position has a line, starting with a balancing move.
      if (r.balanced && moves.size > 0) {
        ASSERT_FALSE(r.line.steps.empty());
        const int first = r.line.steps.front().pit;
        EXPECT_TRUE(std::any_of(moves.begin(), moves.end(), [&](const MoveReach& m) {
          return m.move.pit == first && m.reachable.contains(2);
        }));
      }
      if (!r.balanced) {
        EXPECT_TRUE(r.line.steps.empty());
      }
      if (HasFailure())
        return;
    }
  }
}

TEST(CooperativeReportTest, CompetitiveTablesAreRefused) {
  const auto set = test::open_competitive("kalah/4x3", 4);
  Pits board{};
  board[0] = 1;
  EXPECT_THROW(report_cooperative(*set, board, 0, 0, 10), std::runtime_error);
  const auto coop = test::open_cooperative();
  EXPECT_THROW(report_position(*coop, board, 0, 0, 10), std::runtime_error);
}

}  // namespace
}  // namespace sowdb
