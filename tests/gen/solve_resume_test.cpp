// gen::solve_start resumed (issue 44): every checkpoint it gives holds only proved bounds, and a
// search that starts from one (SolveStartOptions::known_lower/known_upper/known_worths) gives
// the answer of a search from nothing, with no more positions; an answer known whole needs none.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "generated_tables.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb::test {
namespace {

// The bounds of `s` on every first move and continuation, as known worths.
std::vector<gen::KnownWorth> known_of(const gen::StartSolution& s) {
  std::vector<gen::KnownWorth> known;
  for (const gen::StartMove& m : s.moves) {
    known.push_back({m.pit, -1, m.lower, m.upper});
    for (const gen::StartMove& c : m.continuations)
      known.push_back({m.pit, c.pit, c.lower, c.upper});
  }
  return known;
}

// `s` bounds every worth of `want` (an answer proved whole) and its value.
void expect_holds(const gen::StartSolution& s, const gen::StartSolution& want) {
  EXPECT_LE(s.lower, want.value);
  EXPECT_GE(s.upper, want.value);
  ASSERT_EQ(s.moves.size(), want.moves.size());
  for (std::size_t i = 0; i < s.moves.size(); ++i) {
    const gen::StartMove& m = s.moves[i];
    SCOPED_TRACE("pit " + std::to_string(m.pit));
    EXPECT_LE(m.lower, want.moves[i].worth);
    EXPECT_GE(m.upper, want.moves[i].worth);
    ASSERT_EQ(m.continuations.size(), want.moves[i].continuations.size());
    for (std::size_t j = 0; j < m.continuations.size(); ++j) {
      EXPECT_LE(m.continuations[j].lower, want.moves[i].continuations[j].worth);
      EXPECT_GE(m.continuations[j].upper, want.moves[i].continuations[j].worth);
    }
  }
}

// The same answer: value, best move, every worth and continuation.
void expect_same(const gen::StartSolution& got, const gen::StartSolution& want) {
  EXPECT_TRUE(got.complete);
  EXPECT_EQ(got.value, want.value);
  EXPECT_EQ(got.best, want.best);
  ASSERT_EQ(got.moves.size(), want.moves.size());
  for (std::size_t i = 0; i < got.moves.size(); ++i) {
    EXPECT_EQ(got.moves[i].worth, want.moves[i].worth) << got.moves[i].pit;
    EXPECT_EQ(got.moves[i].lower, got.moves[i].upper) << got.moves[i].pit;
    ASSERT_EQ(got.moves[i].continuations.size(), want.moves[i].continuations.size());
    for (std::size_t j = 0; j < got.moves[i].continuations.size(); ++j)
      EXPECT_EQ(got.moves[i].continuations[j].worth, want.moves[i].continuations[j].worth);
  }
}

TEST(SolveStartResume, CheckpointsHoldAndResumeGivesTheAnswer) {
  for (const char* name : {"kalah-irving/4x3", "kalah-tournament/3x3"}) {
    SCOPED_TRACE(name);
    const Variant v = *parse_variant(name);
    const auto tables = TableSet::open(generated_dir({name, 6}));
    gen::SolveStartOptions options;
    options.tables = tables.get();
    options.table_bits = 14;
    const gen::StartSolution whole = gen::solve_start(v, options);
    ASSERT_TRUE(whole.complete);
    ASSERT_GT(whole.nodes, 0u);

    // A checkpoint at every chance: each holds the answer.
    std::vector<gen::StartSolution> checkpoints;
    options.checkpoint_seconds = 1e-9;
    options.checkpoint = [&](const gen::StartSolution& s) {
      EXPECT_FALSE(s.complete);
      checkpoints.push_back(s);
    };
    expect_same(gen::solve_start(v, options), whole);
    options.checkpoint = nullptr;
    ASSERT_GE(checkpoints.size(), 2u);
    for (const gen::StartSolution& c : checkpoints)
      expect_holds(c, whole);

    // Resumed from the one half way: the same answer, no more positions than from nothing.
    const gen::StartSolution& half = checkpoints[checkpoints.size() / 2];
    options.known_lower = half.lower;
    options.known_upper = half.upper;
    options.known_worths = known_of(half);
    const gen::StartSolution resumed = gen::solve_start(v, options);
    expect_same(resumed, whole);
    EXPECT_LE(resumed.nodes, whole.nodes);

    // Known whole: answered without a position searched.
    options.known_lower = options.known_upper = whole.value;
    options.known_worths = known_of(whole);
    const gen::StartSolution known = gen::solve_start(v, options);
    expect_same(known, whole);
    EXPECT_EQ(known.nodes, 0u);

    // Only a lower bound on every worth (each exact worth's lower half): the upper halves are
    // searched, to the same answer.
    options.known_lower = -v.total_stones();
    options.known_upper = v.total_stones();
    for (gen::KnownWorth& k : options.known_worths)
      k.upper = v.total_stones();
    expect_same(gen::solve_start(v, options), whole);

    // Bounds of one move (without an extra turn) that do not intersect are refused.
    int pit = -1;
    for (const gen::StartMove& m : whole.moves) {
      if (m.continuations.empty())
        pit = m.pit;
    }
    ASSERT_GE(pit, 0);
    options.known_worths = {{pit, -1, 3, 5}, {pit, -1, 6, 9}};
    EXPECT_THROW(gen::solve_start(v, options), gen::InvalidRequest);
  }
}

// The bounds a search keeps of its transposition table (StartSolution::proved) are true of
// their positions, and a search stopped in the middle of a null-window test goes on from them:
// the same value, and fewer positions than a search from the start's bounds alone.
TEST(SolveStartResume, ProvedPositionsCarryAStoppedSearchOver) {
  for (const char* name : {"kalah-tournament/4x4", "kalah-irving/4x4"}) {
    SCOPED_TRACE(name);
    const Variant v = *parse_variant(name);
    const auto tables = TableSet::open(generated_dir({name, 8}));
    gen::run_with_threads(1, [&] {
      gen::SolveStartOptions options;
      options.tables = tables.get();
      options.table_bits = 18;
      options.worths = false;
      options.keep_positions = std::size_t{1} << 20;
      const gen::StartSolution whole = gen::solve_start(v, options);
      ASSERT_TRUE(whole.complete);
      EXPECT_TRUE(whole.proved.empty());  // a finished search keeps its answer only

      // Stopped half way, in the middle of a null-window test.
      int calls = 0;
      const std::uint64_t ticks = whole.nodes / 2 / 4096;
      ASSERT_GT(ticks, 2u);
      options.stop = [&] { return static_cast<std::uint64_t>(++calls) > ticks; };
      // Checkpoints at every chance: the first carries the table's positions.
      int checkpoints = 0;
      int carrying = 0;
      options.checkpoint_seconds = 1e-9;
      options.checkpoint = [&](const gen::StartSolution& s) {
        ++checkpoints;
        carrying += s.proved.empty() ? 0 : 1;
      };
      const gen::StartSolution stopped = gen::solve_start(v, options);
      options.stop = nullptr;
      options.checkpoint = nullptr;
      EXPECT_GE(checkpoints, 1);
      EXPECT_GE(carrying, 1);
      ASSERT_FALSE(stopped.complete);
      ASSERT_GT(stopped.proved.size(), 10u);
      ASSERT_LT(stopped.proved.size(), stopped.nodes / 50);
      // Each kept bound holds: one position in ten, solved again from nothing (complete
      // tables of a board of 32 seeds on 8 pits would take 77 M positions).
      gen::SolveStartOptions fresh;
      fresh.tables = tables.get();
      fresh.table_bits = 18;
      fresh.worths = false;
      for (std::size_t i = 0; i < stopped.proved.size(); ++i) {
        const gen::ProvedPosition& p = stopped.proved[i];
        EXPECT_GE(p.work, gen::kKeepLeastWork) << i;
        if (i > 0) {
          EXPECT_LE(p.work, stopped.proved[i - 1].work) << i;
        }
        if (i % 10 != 5)
          continue;
        const gen::StartSolution s = gen::solve_position(v.rules, p.position, fresh);
        ASSERT_TRUE(s.complete);
        EXPECT_LE(p.lower, s.value) << i;
        EXPECT_GE(p.upper, s.value) << i;
      }

      // Both from the start's bounds proved before the stop; one from the positions too.
      options.keep_positions = 0;
      options.known_lower = stopped.lower;
      options.known_upper = stopped.upper;
      const gen::StartSolution again = gen::solve_start(v, options);
      options.known_positions = stopped.proved;
      const gen::StartSolution resumed = gen::solve_start(v, options);
      EXPECT_EQ(resumed.seeded, stopped.proved.size());
      ASSERT_TRUE(resumed.complete);
      EXPECT_EQ(resumed.value, whole.value);
      EXPECT_EQ(again.value, whole.value);
      // kalah-tournament/4x4 (2026-11-30): 169,676 positions against 226,498 after a stop at
      // 110,592 with 883 positions kept (with a table of 2^20 entries kept whole, 102,547).
      EXPECT_GE(again.nodes, resumed.nodes + stopped.nodes / 4);

      // Positions of more seeds than the start, or of another board, are not put in the table;
      // bounds that contradict each other are refused.
      gen::ProvedPosition big = stopped.proved.front();
      big.position[0] = static_cast<std::uint8_t>(big.position[0] + v.total_stones());
      gen::ProvedPosition off = stopped.proved.front();
      off.position[static_cast<std::size_t>(2 * v.rules.pits_per_side)] = 1;
      options.known_positions = {big, off};
      EXPECT_EQ(gen::solve_start(v, options).seeded, 0u);
      gen::ProvedPosition low = stopped.proved.front();
      gen::ProvedPosition high = low;
      low.upper = low.lower = -5;
      high.lower = high.upper = 5;
      options.known_positions = {low, high};
      EXPECT_THROW(gen::solve_start(v, options), gen::InvalidRequest);
    });
  }
}

}  // namespace
}  // namespace sowdb::test
