// The generator's threads: the thread count of a request, applied to that request only, and an
// Executor for the libraries that take one.
#pragma once

#include <tbb/task_arena.h>

#include <utility>

#include "sowdb/format/table_file.h"

namespace sowdb::gen {

/// The threads a request's thread count stands for: `threads` when above 0; 0 means every core
/// the process may use (tbb::info::default_concurrency(), which honours the CPU affinity mask),
/// the one meaning of 0 in every request that takes a thread count.
/// ERRORS throws std::invalid_argument when `threads` is negative. Thread safe.
int thread_count(int threads);

namespace detail {
/// The calling thread's arena of thread_count(threads) threads, at most
/// tbb::info::default_concurrency(); made on first use and kept for the thread's later calls.
tbb::task_arena& calling_thread_arena(int threads);
}  // namespace detail

/// Runs `job()` in a oneTBB task arena of thread_count(threads) threads and returns what it
/// returns. The generator's parallel loops (both backends), tbb_executor() and any
/// tbb::parallel_for called inside then use at most that many threads, the calling thread
/// included, whatever other calls in the process ask at the same time: the count belongs to
/// this call, never to the process (no tbb::global_control). A count above the cores the process
/// may use (tbb::info::default_concurrency()) runs on that many: oneTBB starts no more workers
/// without a process-wide setting. An exception from `job` is rethrown. ERRORS as
/// thread_count. Thread safe: calls with different counts may run at once.
/// WHY an arena per calling thread and count, kept: oneTBB 2021.8 does not give back the memory
/// of a task_arena made and destroyed (about 7 KB each), which a call per batch of positions
/// (probe_bulk) turned into a steady leak; one thread runs one request at a time, so its arena
/// is the request's own.
template <typename Job>
decltype(auto) run_with_threads(int threads, Job&& job) {
  return detail::calling_thread_arena(threads).execute(std::forward<Job>(job));
}

/// An Executor (sowdb/format/table_file.h) that runs its tasks with the generator's parallel
/// loops on the calling thread's oneTBB arena, so the thread count of run_with_threads (or
/// tbb::global_control) applies. Thread safe.
Executor tbb_executor();

}  // namespace sowdb::gen
