// gen::solve_start: the search with few or no tables gives, for every first move and every
// continuation after an extra turn, the worth that complete tables give; published values.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <utility>

#include "generated_tables.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb::test {
namespace {

// The tables of `variant` up to `max_stones`, from the per-process cache.
std::unique_ptr<TableSet> tables_of(const std::string& variant, int max_stones) {
  return TableSet::open(generated_dir({variant, max_stones}));
}

// The worths complete tables give the start's moves and continuations, against the solution.
void expect_worths_of_tables(const TableSet& tables, const gen::StartSolution& s) {
  MoveWorths moves;
  ASSERT_EQ(tables.moves(s.start, moves), ProbeStatus::kOk);
  ASSERT_EQ(static_cast<int>(s.moves.size()), moves.size);
  int value = 0;
  ASSERT_EQ(tables.value(s.start, value), ProbeStatus::kOk);
  EXPECT_EQ(s.value, value);
  for (int i = 0; i < moves.size; ++i) {
    const MoveWorth& want = moves.moves[i];
    const gen::StartMove& got = s.moves[static_cast<std::size_t>(i)];
    SCOPED_TRACE("pit " + std::to_string(got.pit));
    EXPECT_EQ(got.pit, want.move.pit);
    EXPECT_EQ(got.worth, want.worth);
    EXPECT_EQ(got.extra_turn, want.move.extra_turn);
    MoveWorths next;
    if (!want.move.extra_turn) {
      EXPECT_TRUE(got.continuations.empty());
      continue;
    }
    ASSERT_EQ(tables.moves(want.move.child, next), ProbeStatus::kOk);
    ASSERT_EQ(static_cast<int>(got.continuations.size()), next.size);
    for (int j = 0; j < next.size; ++j) {
      EXPECT_EQ(got.continuations[static_cast<std::size_t>(j)].worth,
                want.move.gain() + next.moves[j].worth);
    }
  }
}

class SolveStart : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Acyclic,
                         SolveStart,
                         ::testing::Values("kalah/3x2",
                                           "kalah/4x2",
                                           "kalah-irving/3x3",
                                           "kalah-tournament/2x4",
                                           "wari-us/3x2"),
                         [](const auto& param_info) {
                           std::string s = param_info.param;
                           for (char& c : s) {
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           }
                           return s;
                         });

TEST_P(SolveStart, SearchAgreesWithCompleteTables) {
  const Variant v = *parse_variant(GetParam());
  const auto complete = tables_of(GetParam(), v.total_stones());
  gen::SolveStartOptions options;
  options.tables = complete.get();
  const gen::StartSolution by_tables = gen::solve_start(v, options);
  EXPECT_TRUE(by_tables.by_tables);
  EXPECT_EQ(by_tables.nodes, 0u);
  expect_worths_of_tables(*complete, by_tables);
  // The search, with no tables and with tables of the first few layers, read whole before the
  // search (the default), probed through the block cache (preload_limit 0), or read beside the
  // search after a delay (preload_delay): one that never comes (every probe through the block
  // cache), and one that comes at once (the layers used as they are read, from any point of the
  // search on: the bytes read depend on the timing).
  struct Search {
    const TableSet* tables;
    std::int64_t preload;
    double delay;
    const char* what;
  };
  const auto few = tables_of(GetParam(), 4);
  const std::array<Search, 5> searches{{{nullptr, -1, 0, "no tables"},
                                        {few.get(), -1, 0, "tables up to 4, read whole"},
                                        {few.get(), 0, 0, "tables up to 4, probed"},
                                        {few.get(), -1, 1e6, "tables up to 4, read too late"},
                                        {few.get(), -1, 1e-9, "tables up to 4, read beside"}}};
  for (const auto& [tables, preload, delay, what] : searches) {
    SCOPED_TRACE(what);
    options.tables = tables;
    options.preload_limit = preload;
    options.preload_delay = delay;
    options.table_bits = 12;  // small, so that entries are replaced too
    const gen::StartSolution searched = gen::solve_start(v, options);
    EXPECT_FALSE(searched.by_tables);
    EXPECT_GT(searched.nodes, 0u);
    if (delay == 0) {
      EXPECT_EQ(searched.preloaded_bytes > 0, tables && preload != 0);
    } else if (delay > 1) {
      EXPECT_EQ(searched.preloaded_bytes, 0u);
    }
    expect_worths_of_tables(*complete, searched);
    EXPECT_EQ(searched.best, by_tables.best);
    // The same with the value proved before the worths.
    options.value_first = true;
    const gen::StartSolution value_first = gen::solve_start(v, options);
    options.value_first = false;
    EXPECT_GT(value_first.nodes, 0u);
    expect_worths_of_tables(*complete, value_first);
    EXPECT_EQ(value_first.best, by_tables.best);
    // Only the value and a best move: the same value, a move that reaches it, and bounds that
    // hold every worth.
    options.worths = false;
    const gen::StartSolution value_only = gen::solve_start(v, options);
    options.worths = true;
    EXPECT_TRUE(value_only.complete);
    EXPECT_EQ(value_only.value, by_tables.value);
    EXPECT_EQ(value_only.lower, value_only.upper);
    ASSERT_EQ(value_only.moves.size(), by_tables.moves.size());
    bool best_found = value_only.moves.empty();
    for (std::size_t i = 0; i < by_tables.moves.size(); ++i) {
      const gen::StartMove& m = value_only.moves[i];
      EXPECT_LE(m.lower, by_tables.moves[i].worth) << m.pit;
      EXPECT_GE(m.upper, by_tables.moves[i].worth) << m.pit;
      if (m.pit == value_only.best) {
        EXPECT_EQ(by_tables.moves[i].worth, by_tables.value);
        best_found = true;
      }
    }
    EXPECT_TRUE(best_found);
  }
}

// Values read whole by one reader beside the searches (a server's or a Python session's, read
// from the first search on): each search that uses them, whatever layers are read by then, has
// the tables' answer. A bound too small for the values gives no reader.
TEST_P(SolveStart, SharedReadingBesideAgreesWithCompleteTables) {
  const Variant v = *parse_variant(GetParam());
  const auto complete = tables_of(GetParam(), v.total_stones());
  gen::SolveStartOptions options;
  options.tables = complete.get();
  const gen::StartSolution by_tables = gen::solve_start(v, options);
  const std::shared_ptr<const TableSet> few = tables_of(GetParam(), 4);
  EXPECT_EQ(gen::PreloadedValues::read_beside(few, 1), nullptr);
  const auto shared = gen::PreloadedValues::read_beside(few);
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->max_stones(), 4);
  options.tables = few.get();
  options.preloaded = shared;
  options.preload_limit = 0;
  options.table_bits = 12;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    const gen::StartSolution searched = gen::solve_start(v, options);
    EXPECT_FALSE(searched.by_tables);
    expect_worths_of_tables(*complete, searched);
    EXPECT_EQ(searched.best, by_tables.best);
    EXPECT_LE(shared->bytes(), gen::preload_bytes(*few));
  }
}

// Two threads sharing the search (issue 44): the value's MTD(f) tests searched by both at once,
// moves another thread is in deferred from every node (share_above 0), and a thread with no
// task left joining another's; the value and every worth are those of complete tables.
TEST_P(SolveStart, TwoThreadsSharingTheSearchAgreeWithCompleteTables) {
  const Variant v = *parse_variant(GetParam());
  const auto complete = tables_of(GetParam(), v.total_stones());
  const auto few = tables_of(GetParam(), 4);
  gen::run_with_threads(2, [&] {
    for (const TableSet* tables :
         {static_cast<const TableSet*>(nullptr), static_cast<const TableSet*>(few.get())}) {
      SCOPED_TRACE(tables ? "tables up to 4" : "no tables");
      gen::SolveStartOptions options;
      options.tables = tables;
      options.table_bits = 12;
      options.share_above = 0;
      for (const bool value_first : {false, true}) {
        options.value_first = value_first;
        const gen::StartSolution s = gen::solve_start(v, options);
        EXPECT_TRUE(s.complete);
        expect_worths_of_tables(*complete, s);
      }
      options.worths = false;
      const gen::StartSolution value_only = gen::solve_start(v, options);
      EXPECT_TRUE(value_only.complete);
      int value = 0;
      ASSERT_EQ(complete->value(v.start(), value), ProbeStatus::kOk);
      EXPECT_EQ(value_only.value, value);
      EXPECT_EQ(value_only.lower, value);
      EXPECT_EQ(value_only.upper, value);
    }
  });
}

// Irving, Donkers & Uiterwijk: Kalah(4,3) is a first-player win by 8 under their rules, by 6 with
// the tournament rule; seed 001's end rule (kalah) gives 6 too. Searched with tables to 10 seeds.
TEST(SolveStartPublished, KalahFourByThree) {
  for (const auto& [variant, value] : {std::pair{"kalah-irving/4x3", 8},
                                       std::pair{"kalah-tournament/4x3", 6},
                                       std::pair{"kalah/4x3", 6}}) {
    // Plain copies: a lambda below captures them (clang 14 cannot capture structured bindings).
    const char* const name = variant;
    const int want = value;
    SCOPED_TRACE(name);
    const Variant v = *parse_variant(name);
    const auto tables = tables_of(name, 10);
    gen::SolveStartOptions options;
    options.tables = tables.get();
    gen::SolveProgress last;
    options.progress = [&](const gen::SolveProgress& p) {
      EXPECT_LE(p.done, p.total);
      // The bounds hold the value all along.
      EXPECT_LE(p.lower, want);
      EXPECT_GE(p.upper, want);
      last = p;
    };
    const gen::StartSolution s = gen::solve_start(v, options);
    EXPECT_EQ(s.stones, 24);
    EXPECT_EQ(s.value, want);
    EXPECT_GT(s.nodes, 0u);
    EXPECT_EQ(last.nodes, s.nodes);
    EXPECT_EQ(last.done, last.total);
    EXPECT_EQ(last.lower, want);
    EXPECT_EQ(last.upper, want);
  }
}

// A search stopped early (SolveStartOptions::stop) returns bounds that hold the exact answers of
// a search that ran to the end: on the value and on every move and continuation.
TEST(SolveStartStopped, BoundsHoldTheExactAnswers) {
  const tbb::global_control two_threads(tbb::global_control::max_allowed_parallelism, 2);
  const Variant v = *parse_variant("kalah-irving/4x4");
  // Few tables: a search large enough to be stopped several times (over tables 0..6 it expanded
  // 260-270 K positions, two threads sharing the work in a varying order: too near the bound
  // below).
  const auto tables = tables_of("kalah-irving/4x4", 5);
  gen::SolveStartOptions options;
  options.tables = tables.get();
  // The value first: the larger search of the two.
  options.value_first = true;
  const gen::StartSolution exact = gen::solve_start(v, options);
  ASSERT_TRUE(exact.complete);
  EXPECT_EQ(exact.lower, exact.value);
  EXPECT_EQ(exact.upper, exact.value);
  // More positions than the stopped searches below expand: each of two threads asks `stop` every
  // 2^16 positions, so a search stopped at the second question has expanded at most 3 x 2^16.
  // (2 threads sharing the work expand 260-290 K positions here, TSan's scheduling the fewest:
  // a stop at the third question, up to 4 x 2^16 = 262,144, was too near; 2026-11-29.)
  ASSERT_GT(exact.nodes, 3u << 16);
  options.worths = false;
  const gen::StartSolution value_only = gen::solve_start(v, options);
  ASSERT_EQ(value_only.value, exact.value);
  // Each thread asks `stop` every 2^16 positions: at most two threads (below), so a search
  // of more than 2 * 2^16 positions is stopped at the first question.
  ASSERT_GT(value_only.nodes, 2u << 16);
  struct Stop {
    int asked;
    bool worths;
    bool value_first;
  };
  for (const Stop& stop :
       {Stop{1, true, false}, Stop{1, true, true}, Stop{2, true, true}, Stop{1, false, false}}) {
    SCOPED_TRACE(std::to_string(stop.asked) + (stop.worths ? " every worth" : " value only") +
                 (stop.value_first ? ", value first" : ""));
    std::atomic<int> calls{0};
    options.stop = [&calls, asked = stop.asked] { return ++calls >= asked; };
    options.worths = stop.worths;
    options.value_first = stop.value_first;
    const gen::StartSolution stopped = gen::solve_start(v, options);
    EXPECT_FALSE(stopped.complete);
    EXPECT_LT(stopped.nodes, exact.nodes);
    EXPECT_LE(stopped.lower, exact.value);
    EXPECT_GE(stopped.upper, exact.value);
    // The value may be pinned down before every worth is.
    if (stopped.lower == stopped.upper) {
      EXPECT_EQ(stopped.value, exact.value);
    }
    ASSERT_EQ(stopped.moves.size(), exact.moves.size());
    for (std::size_t i = 0; i < exact.moves.size(); ++i) {
      const gen::StartMove& m = stopped.moves[i];
      EXPECT_LE(m.lower, exact.moves[i].worth) << m.pit;
      EXPECT_GE(m.upper, exact.moves[i].worth) << m.pit;
      if (m.lower == m.upper) {
        EXPECT_EQ(m.worth, exact.moves[i].worth) << m.pit;
      }
      ASSERT_EQ(m.continuations.size(), exact.moves[i].continuations.size());
      for (std::size_t j = 0; j < m.continuations.size(); ++j) {
        EXPECT_LE(m.continuations[j].lower, exact.moves[i].continuations[j].worth);
        EXPECT_GE(m.continuations[j].upper, exact.moves[i].continuations[j].worth);
      }
    }
  }
}

TEST(SolveStartRefuses, OwareWithoutCompleteTables) {
  const Variant v = *parse_variant("oware/2x2");
  EXPECT_THROW(gen::solve_start(v), gen::InvalidRequest);
  const auto few = tables_of("oware/2x2", 4);
  gen::SolveStartOptions options;
  options.tables = few.get();
  // The refusal names the tables that would answer; its message states the cause and leaves
  // the command that builds them to the front end (no flag, no `sowdb gen`).
  try {
    gen::solve_start(v, options);
    ADD_FAILURE() << "no refusal";
  } catch (const gen::NeedsCompleteTables& e) {
    EXPECT_EQ(e.variant.to_string(), "oware/2x2");
    EXPECT_EQ(e.stones, 8);
    EXPECT_EQ(e.objective, Objective::kCompetitive);
    const std::string what = e.what();
    EXPECT_NE(what.find("positions can repeat"), std::string::npos) << what;
    EXPECT_NE(what.find("the tables hold up to 4"), std::string::npos) << what;
    EXPECT_EQ(what.find("--"), std::string::npos) << what;
    EXPECT_EQ(what.find("sowdb"), std::string::npos) << what;
  }
  const auto all = tables_of("oware/2x2", 8);
  options.tables = all.get();
  const gen::StartSolution s = gen::solve_start(v, options);
  EXPECT_TRUE(s.by_tables);
  expect_worths_of_tables(*all, s);
  // Tables of other rules are refused.
  options.tables = all.get();
  EXPECT_THROW(gen::solve_start(*parse_variant("kalah/2x2"), options), gen::InvalidRequest);
}

}  // namespace
}  // namespace sowdb::test
