// A request's thread count is its own: two requests running at once in one process, one on 1
// thread and one on 2, each see their own count (the arena gen::run_with_threads gives them),
// which a process-wide setting (tbb::global_control) could not give both.
#include <gtest/gtest.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <latch>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "analysis_tables.h"
#include "sowdb/analysis/directory_jobs.h"
#include "sowdb/analysis/layer_statistics.h"

namespace sowdb {
namespace {

// What one request saw from inside: the thread count at each layer, and the threads its
// progress reports came from.
struct Seen {
  std::vector<int> concurrency;
  std::set<std::thread::id> progress_threads;
  std::mutex mutex;
};

// Verifies layers 0..6 of `set` on `threads` threads; at layer 0 waits until the other request
// has reached its layer 0 too, so that both record their counts while both run.
VerifySummary verify_recording(const TableSet& set, int threads, std::latch& both, Seen& seen) {
  VerifyRequest request;
  request.tables_name = "kalah/4x3";
  request.last = 6;
  request.threads = threads;
  VerifyEvents events;
  events.on_progress = [&seen](int, const char*, double) {
    const std::lock_guard lock(seen.mutex);
    seen.progress_threads.insert(std::this_thread::get_id());
  };
  events.on_layer = [&](const VerifyReport& layer, double) {
    if (layer.stones == 0)
      both.arrive_and_wait();
    const std::lock_guard lock(seen.mutex);
    seen.concurrency.push_back(tbb::this_task_arena::max_concurrency());
  };
  return verify_tables(set, request, events);
}

// Counts of 1 and 2 differ only where the process may use 2 cores: a request's arena has at
// most tbb::info::default_concurrency() threads.
#define SKIP_ON_ONE_CORE()                  \
  if (tbb::info::default_concurrency() < 2) \
  GTEST_SKIP() << "one core: counts of 1 and 2 threads coincide"

TEST(RequestThreads, TwoVerifiesAtOnceKeepTheirOwnCounts) {
  SKIP_ON_ONE_CORE();
  const auto set = test::open_competitive("kalah/4x3", 6);
  std::latch both(2);
  Seen one;
  Seen two;
  VerifySummary summary_one;
  VerifySummary summary_two;
  std::thread::id one_caller;
  std::thread other([&] {
    one_caller = std::this_thread::get_id();
    summary_one = verify_recording(*set, 1, both, one);
  });
  summary_two = verify_recording(*set, 2, both, two);
  other.join();

  EXPECT_EQ(one.concurrency, std::vector<int>(7, 1));
  EXPECT_EQ(two.concurrency, std::vector<int>(7, 2));
  // On one thread, every report comes from the thread that made the request.
  EXPECT_EQ(one.progress_threads, std::set<std::thread::id>{one_caller});
  // The same answer either way.
  EXPECT_TRUE(summary_one.verified());
  EXPECT_TRUE(summary_two.verified());
  EXPECT_EQ(summary_one.positions, summary_two.positions);
  EXPECT_GT(summary_one.positions, 0u);
  EXPECT_EQ(summary_one.max_stones, 6);
}

// The statistics of a layer are the same on 1 and 2 threads asked at once, and a layer callback
// sees its request's count.
TEST(RequestThreads, TwoStatisticsAtOnceKeepTheirOwnCounts) {
  SKIP_ON_ONE_CORE();
  const auto set = test::open_competitive("oware/6x4", 6);
  std::latch both(2);
  const auto run = [&](int threads, std::vector<LayerStatistics>& rows, std::vector<int>& seen) {
    layer_statistics(
        *set,
        6,
        [&](const LayerStatistics& s) {
          if (s.n == 0)
            both.arrive_and_wait();
          seen.push_back(tbb::this_task_arena::max_concurrency());
          rows.push_back(s);
        },
        threads);
  };
  std::vector<LayerStatistics> rows_one;
  std::vector<LayerStatistics> rows_two;
  std::vector<int> seen_one;
  std::vector<int> seen_two;
  std::thread other([&] { run(1, rows_one, seen_one); });
  run(2, rows_two, seen_two);
  other.join();
  EXPECT_EQ(seen_one, std::vector<int>(7, 1));
  EXPECT_EQ(seen_two, std::vector<int>(7, 2));
  ASSERT_EQ(rows_one.size(), 7u);
  ASSERT_EQ(rows_two.size(), 7u);
  for (std::size_t n = 0; n < rows_one.size(); ++n) {
    EXPECT_EQ(rows_one[n].values, rows_two[n].values) << n;
    EXPECT_EQ(rows_one[n].depths, rows_two[n].depths) << n;
    EXPECT_EQ(rows_one[n].max_depth_position, rows_two[n].max_depth_position) << n;
  }
}

TEST(RequestThreads, NegativeCountIsRefused) {
  const auto set = test::open_competitive("kalah/4x3", 6);
  VerifyRequest request;
  request.threads = -1;
  try {
    (void)verify_tables(*set, request);
    FAIL() << "threads -1 was accepted";
  } catch (const Refused& e) {
    EXPECT_EQ(e.refusal().kind, RefusalKind::kBadRequest);
  }
}

}  // namespace
}  // namespace sowdb
