// The workers of the transport: one queue per class of work, served in order of class (single
// lookups before batches before searches), with a cap on the workers batches may hold so that a
// lookup always finds one free.
#pragma once

#include <array>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sowdb::server {

/// The classes of work, first served first.
enum class WorkClass : int { kLookup = 0, kBatch = 1, kSearch = 2 };
inline constexpr int kWorkClasses = 3;

/// A pool of worker threads taking tasks by class. THREAD SAFETY post() and depth() from any
/// thread; stop() from one.
class WorkScheduler {
 public:
  /// Starts `threads` workers (at least 1); batches run on at most `batch_threads` of them at
  /// once (clamped to 1..threads). ERRORS std::system_error when a thread cannot start.
  WorkScheduler(int threads, int batch_threads);
  /// Stops (as stop()).
  ~WorkScheduler();
  WorkScheduler(const WorkScheduler&) = delete;
  WorkScheduler& operator=(const WorkScheduler&) = delete;

  /// Queues `task` under `c`. After stop(), the task is dropped unrun.
  void post(WorkClass c, std::function<void()> task);

  /// Tasks of class `c` waiting now (not running).
  std::size_t depth(WorkClass c) const;

  /// Lets running tasks end, drops the queued ones and joins the threads; idempotent.
  void stop();

 private:
  void run();
  // The next task to run, or false when stopping. Called with the lock held.
  bool next(std::unique_lock<std::mutex>& lock, std::function<void()>& task, WorkClass& c);

  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::array<std::deque<std::function<void()>>, kWorkClasses> queues_;
  int batch_threads_;
  int batches_running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace sowdb::server
