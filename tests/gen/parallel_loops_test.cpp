// The generator's parallel loops (gen/src/parallel_loops.h) under either backend: the thread
// count follows a request's arena (run_with_threads) and tbb::global_control, every index is
// visited once, and per-thread state belongs to one thread at a time.
#include "parallel_loops.h"

#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/info.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sowdb/gen/parallel.h"

namespace sowdb::gen {
namespace {

// The threads a parallel loop of 64 chunks ran its chunks on.
std::set<std::thread::id> threads_of_a_loop() {
  std::mutex mutex;
  std::set<std::thread::id> threads;
  parallel::for_ranges(0, 64, 1, [&](const auto&) {
    const std::lock_guard lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  return threads;
}

// The std::thread backend once took the arena's figure, which global_control does not lower:
// "--threads 1" ran two threads, and the solvers' one-thread runs compared two with two.
TEST(ParallelLoops, ThreadCountFollowsGlobalControl) {
  for (const int limit : {1, 2}) {
    SCOPED_TRACE(limit);
    const tbb::global_control control(tbb::global_control::max_allowed_parallelism,
                                      static_cast<std::size_t>(limit));
    EXPECT_LE(parallel::max_concurrency(), limit);
    EXPECT_GE(parallel::max_concurrency(), 1);
  }
  const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  EXPECT_EQ(threads_of_a_loop().size(), 1u);
}

// A request's thread count is its arena's, under either backend: a loop inside
// run_with_threads(1, ...) runs on the calling thread alone while the process allows 2.
TEST(ParallelLoops, ThreadCountFollowsTheRequestsArena) {
  const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
  run_with_threads(1, [] {
    EXPECT_EQ(parallel::max_concurrency(), 1);
    const std::set<std::thread::id> threads = threads_of_a_loop();
    EXPECT_EQ(threads.size(), 1u);
    EXPECT_EQ(*threads.begin(), std::this_thread::get_id());
  });
  // Two where the process may use two cores (oneTBB gives no more than that without a
  // process-wide setting).
  EXPECT_EQ(run_with_threads(2, [] { return tbb::this_task_arena::max_concurrency(); }),
            std::min(2, tbb::info::default_concurrency()));
  EXPECT_EQ(thread_count(3), 3);
  EXPECT_GE(thread_count(0), 1);
  EXPECT_THROW(thread_count(-1), std::invalid_argument);
}

TEST(ParallelLoops, EveryIndexOnce) {
  const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
  constexpr std::uint64_t kSize = 100'003;
  std::vector<std::atomic<int>> seen(kSize);
  parallel::for_ranges(std::uint64_t{0}, kSize, std::uint64_t{1000}, [&](const auto& r) {
    for (std::uint64_t i = r.begin(); i != r.end(); ++i)
      seen[i].fetch_add(1, std::memory_order_relaxed);
  });
  for (std::uint64_t i = 0; i < kSize; ++i)
    ASSERT_EQ(seen[i].load(), 1) << i;
  std::vector<std::atomic<int>> slots(7);
  parallel::for_slots(7, [&](int s) { slots[static_cast<std::size_t>(s)].fetch_add(1); });
  for (const auto& s : slots)
    EXPECT_EQ(s.load(), 1);
}

// Each thread's local() is its own: plain (non-atomic) counts per thread add up to the total,
// which ThreadSanitizer checks for races as well.
TEST(ParallelLoops, PerThreadStateIsPrivate) {
  const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
  parallel::PerThread<std::uint64_t> counts;
  constexpr std::uint64_t kSize = 50'000;
  parallel::for_ranges(std::uint64_t{0}, kSize, std::uint64_t{64}, [&](const auto& r) {
    std::uint64_t& mine = counts.local();
    for (std::uint64_t i = r.begin(); i != r.end(); ++i)
      ++mine;
  });
  std::uint64_t total = 0;
  counts.for_each([&](std::uint64_t c) { total += c; });
  EXPECT_EQ(total, kSize);
}

}  // namespace
}  // namespace sowdb::gen
