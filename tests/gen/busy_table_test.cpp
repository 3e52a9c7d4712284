// The positions being searched (gen/src/busy_table.h): marks counted per thread and undone, a
// full set that marks nothing, threads marking at once; and searchers that defer the moves it
// says are busy (simplified ABDADA), alone and on two threads, against the brute force.
#include "busy_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "brute_force.h"
#include "position_keys.h"
#include "sowdb/probe/variant.h"
#include "start_searcher.h"
#include "transposition_table.h"

namespace sowdb::test {
namespace {

TEST(BusyTable, MarksAreCountedAndUndone) {
  gen::BusyTable busy;
  EXPECT_FALSE(busy.busy(7));
  const int first = busy.mark(7);
  ASSERT_GE(first, 0);
  EXPECT_TRUE(busy.busy(7));
  EXPECT_FALSE(busy.busy(8));
  // A second thread in the same position: one unmark leaves it busy, the second frees it.
  const int second = busy.mark(7);
  ASSERT_GE(second, 0);
  busy.unmark(first);
  EXPECT_TRUE(busy.busy(7));
  busy.unmark(second);
  EXPECT_FALSE(busy.busy(7));
  busy.unmark(-1);  // a mark that failed: nothing to undo
  EXPECT_FALSE(busy.busy(7));
}

TEST(BusyTable, AFullSetMarksNothing) {
  // One set: kWays positions fill it.
  gen::BusyTable busy(gen::BusyTable::kWayBits);
  ASSERT_EQ(busy.slots(), static_cast<std::size_t>(gen::BusyTable::kWays));
  std::vector<int> slots;
  for (std::uint64_t key = 0; key < gen::BusyTable::kWays; ++key) {
    slots.push_back(busy.mark(key));
    ASSERT_GE(slots.back(), 0) << key;
  }
  const std::uint64_t extra = gen::BusyTable::kWays;
  EXPECT_EQ(busy.mark(extra), -1);
  EXPECT_FALSE(busy.busy(extra));
  // A position already marked still counts one more thread.
  const int again = busy.mark(3);
  EXPECT_GE(again, 0);
  busy.unmark(again);
  busy.unmark(slots[0]);
  EXPECT_FALSE(busy.busy(0));
  const int freed = busy.mark(extra);
  EXPECT_GE(freed, 0);
  EXPECT_TRUE(busy.busy(extra));
  for (std::uint64_t key = 1; key < gen::BusyTable::kWays; ++key)
    EXPECT_TRUE(busy.busy(key)) << key;
}

TEST(BusyTable, ThreadsMarkAndUnmarkAtOnce) {
  gen::BusyTable busy(6);
  constexpr std::uint64_t kKeys = 40;
  auto work = [&busy](std::uint64_t seed) {
    for (int round = 0; round < 2000; ++round) {
      const std::uint64_t key = (seed + static_cast<std::uint64_t>(round) * 7) % kKeys;
      const int slot = busy.mark(key);
      if (slot >= 0) {
        EXPECT_TRUE(busy.busy(key));
      }
      busy.unmark(slot);
    }
  };
  std::thread a(work, 1);
  std::thread b(work, 2);
  a.join();
  b.join();
  for (std::uint64_t key = 0; key < kKeys; ++key)
    EXPECT_FALSE(busy.busy(key)) << key;
}

// Every position of `variant` up to `max_stones` seeds (every third) by MTD(f) and by
// null-window tests on both sides of its value, from `searcher`; with `busy`, every child of
// the position is marked busy first, as if another thread were searching each, so that every
// move the sharing searcher can defer is deferred.
void expect_values(const char* variant,
                   int max_stones,
                   gen::Searcher& searcher,
                   gen::BusyTable* busy,
                   int& checked) {
  const RuleSet rules = parse_variant(variant)->rules.normalised();
  const Rules engine(rules);
  BruteForce brute(rules);
  brute.solve_through(max_stones);
  const gen::PositionKeys keys(engine.board_pits());
  for (int n = 0; n <= max_stones; ++n) {
    const BruteLayer& layer = brute.layer(n);
    for (std::size_t i = 0; i < layer.boards.size(); i += 3) {
      const Pits& pos = layer.boards[i];
      const int want = layer.value[i];
      SCOPED_TRACE(std::string(variant) + " layer " + std::to_string(n) + " position " +
                   std::to_string(i));
      std::vector<int> marks;
      if (busy) {
        MoveList moves;
        engine.legal_moves(pos, moves);
        for (const Move& m : moves)
          marks.push_back(busy->mark(keys.key(m.child, n - m.gain())));
      }
      for (const bool low : {false, true}) {
        searcher.set_expect_low(low);
        for (const int beta : {want, want + 1}) {
          const int r = searcher.test(pos, n, beta);
          EXPECT_EQ(r >= beta, want >= beta) << "beta " << beta;
        }
      }
      const auto got =
          searcher.value(pos, n, (i % 2 == 0) ? n : -n, [](int, int) { return false; });
      EXPECT_EQ(got.first, want);
      EXPECT_EQ(got.second, want);
      for (const int slot : marks)
        busy->unmark(slot);
      ++checked;
    }
  }
}

// A searcher that defers every move marked busy (from any node, share_from 0) finds the values
// of the brute force.
TEST(SharedSearch, DeferredMovesKeepTheValues) {
  for (const char* variant : {"kalah/3x2", "kalah-irving/3x2", "wari-us/3x2"}) {
    const Rules engine(parse_variant(variant)->rules.normalised());
    gen::TranspositionTable table(8, 24);
    gen::BusyTable busy;
    gen::Searcher searcher(engine, nullptr, table);
    searcher.share(&busy, 0);
    int checked = 0;
    expect_values(variant, 9, searcher, &busy, checked);
    EXPECT_GT(checked, 50);
    // Every mark undone.
    EXPECT_FALSE(busy.busy(0));
  }
}

// Two searchers on two threads, one transposition table and one busy table, each solving every
// position: both find the brute force's values.
TEST(SharedSearch, TwoThreadsFindTheValues) {
  const char* variant = "kalah-irving/3x2";
  const Rules engine(parse_variant(variant)->rules.normalised());
  gen::TranspositionTable table(10, 24);
  gen::BusyTable busy;
  std::vector<int> checked(2, 0);
  auto run = [&](int t) {
    gen::Searcher searcher(engine, nullptr, table);
    searcher.share(&busy, 0);
    expect_values(variant, 9, searcher, nullptr, checked[static_cast<std::size_t>(t)]);
  };
  std::thread a(run, 0);
  std::thread b(run, 1);
  a.join();
  b.join();
  EXPECT_GT(checked[0], 50);
  EXPECT_EQ(checked[0], checked[1]);
}

}  // namespace
}  // namespace sowdb::test
