// gen::solve_start resumed (issue 44): every checkpoint it gives holds only proved bounds, and a
// search that starts from one (SolveStartOptions::known_lower/known_upper/known_worths) gives
// the answer of a search from nothing, with no more positions; an answer known whole needs none.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "generated_tables.h"
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

}  // namespace
}  // namespace sowdb::test
