// The generator's parallel loops and per-thread state, on oneTBB or (SOWDB_STD_THREADS, the
// ThreadSanitizer build) on plain std::thread. Not installed.
//
// Why two backends: ThreadSanitizer cannot see the synchronisation inside the prebuilt oneTBB
// library (its task queues hand work between threads with atomics TSan never instrumented), so a
// TSan run over tbb::parallel_for reports races that are not there and would hide the real ones.
// With SOWDB_STD_THREADS the same loop bodies run on std::threads that are started and joined
// per loop, which TSan understands; the thread count is still oneTBB's (max_concurrency(): the
// calling thread's task arena, as a request's arena sets it, capped by tbb::global_control).
// Release builds keep oneTBB: its work stealing is what the benchmarks measure.
#pragma once

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstddef>

#if SOWDB_STD_THREADS
#include <array>
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>
#else
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#endif

namespace sowdb::gen::parallel {

/// Threads a parallel loop may use: the calling thread's arena's limit, capped by
/// tbb::global_control's max_allowed_parallelism (which the arena's figure does not reflect:
/// without the cap the std::thread backend ran 2 threads under a limit of 1).
inline int max_concurrency() {
  const auto allowed =
      tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
  return static_cast<int>(std::min<std::size_t>(
      static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency())), allowed));
}

#if SOWDB_STD_THREADS

/// The most threads one loop starts in this backend.
inline constexpr int kMaxThreads = 256;

namespace detail {
// The calling thread's slot in the running loop (0 outside any loop and for the caller), and
// whether it runs inside one (a nested loop then runs on this thread alone).
inline thread_local int t_slot = 0;
inline thread_local bool t_in_loop = false;
}  // namespace detail

/// A half-open range of indices, as tbb::blocked_range gives a loop body.
template <typename Index>
struct Range {
  Index first;
  Index last;
  Index begin() const { return first; }
  Index end() const { return last; }
};

/// Calls body(Range{lo, hi}) for consecutive chunks of [begin, end) of `grain` indices, from
/// up to max_concurrency() threads. Rethrows the first exception a body threw.
template <typename Index, typename Body>
void for_ranges(Index begin, Index end, Index grain, Body&& body) {
  if (end <= begin)
    return;
  grain = std::max<Index>(grain, 1);
  const Index chunks = (end - begin + grain - 1) / grain;
  const auto chunk = [&](Index c) {
    const Index lo = begin + c * grain;
    body(Range<Index>{lo, static_cast<Index>(std::min<Index>(end, lo + grain))});
  };
  const int threads = static_cast<int>(
      std::min<Index>(chunks, static_cast<Index>(std::clamp(max_concurrency(), 1, kMaxThreads))));
  if (detail::t_in_loop || threads <= 1) {
    for (Index c = 0; c < chunks; ++c)
      chunk(c);
    return;
  }
  std::atomic<Index> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  const auto work = [&](int slot) {
    detail::t_slot = slot;
    detail::t_in_loop = true;
    try {
      for (Index c = next.fetch_add(1); c < chunks; c = next.fetch_add(1))
        chunk(c);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error)
        error = std::current_exception();
      next.store(chunks);
    }
    detail::t_in_loop = false;
    detail::t_slot = 0;
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads - 1));
  for (int slot = 1; slot < threads; ++slot)
    pool.emplace_back(work, slot);
  work(0);
  for (std::thread& t : pool)
    t.join();
  if (error)
    std::rethrow_exception(error);
}

/// One T per thread slot of the loops (as tbb::enumerable_thread_specific): local() gives the
/// calling thread's, made on first use; iteration visits those made. A slot belongs to one
/// thread while a loop runs; iterate only between loops.
template <typename T>
class PerThread {
 public:
  PerThread() : make_([] { return T(); }) {}
  explicit PerThread(std::function<T()> make) : make_(std::move(make)) {}

  T& local() {
    std::unique_ptr<T>& slot = slots_[static_cast<std::size_t>(detail::t_slot)];
    // Built in place from make_()'s prvalue, never moved (as enumerable_thread_specific does):
    // a T may point into itself (the acyclic solver's scratch does).
    if (!slot)
      slot.reset(new T(make_()));
    return *slot;
  }

  template <typename F>
  void for_each(F&& f) {
    for (std::unique_ptr<T>& slot : slots_) {
      if (slot)
        f(*slot);
    }
  }

 private:
  std::function<T()> make_;
  std::array<std::unique_ptr<T>, kMaxThreads> slots_;
};

#else  // oneTBB

template <typename Index>
using Range = tbb::blocked_range<Index>;

/// Calls body(range) for chunks of [begin, end) of about `grain` indices with
/// tbb::parallel_for on the calling thread's arena.
template <typename Index, typename Body>
void for_ranges(Index begin, Index end, Index grain, Body&& body) {
  tbb::parallel_for(tbb::blocked_range<Index>(begin, end, grain), body);
}

/// One T per thread: tbb::enumerable_thread_specific with for_each over the instances made.
template <typename T>
class PerThread : public tbb::enumerable_thread_specific<T> {
 public:
  using tbb::enumerable_thread_specific<T>::enumerable_thread_specific;

  template <typename F>
  void for_each(F&& f) {
    for (T& t : *this)
      f(t);
  }
};

#endif

/// Calls body(slot) once for each of `slots` slots, concurrently where threads allow.
template <typename Body>
void for_slots(int slots, Body&& body) {
  for_ranges(0, slots, 1, [&](const auto& r) {
    for (int s = r.begin(); s != r.end(); ++s)
      body(s);
  });
}

}  // namespace sowdb::gen::parallel
