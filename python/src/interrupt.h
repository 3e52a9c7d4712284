// Ctrl-C in long calls. Python runs signal handlers (Ctrl-C's KeyboardInterrupt) only on its
// main thread, and only when that thread checks for them: a call that runs without the GIL for
// seconds must come back now and then, take the GIL and call PyErr_CheckSignals, or the
// interrupt waits until the call returns. Two ways here: a job with a stop hook runs on a
// thread of its own while the caller checks (run_interruptible: generate, solve, a probe's
// search), and work over rows runs in slices of about kSliceSeconds with a check between them
// (for_slices: the bulk calls).
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "sowdb/analysis/bulk_probe.h"
#include "sowdb/gen/parallel.h"

namespace sowdb::python {

namespace py = pybind11;

/// How often a long call checks for signals, at most (a slice of rows lasts about this long).
inline constexpr double kSliceSeconds = 0.1;

/// The Python side of a job running on another thread: the stop flag the job polls, and the
/// first Python exception (a KeyboardInterrupt, or one a callback raised). `error` is touched
/// with the GIL held only.
struct JobStop {
  std::atomic<bool> stop{false};
  std::optional<py::error_already_set> error;

  /// With the GIL held and a Python error set: keeps the first, asks the job to stop.
  void fail() {
    if (!error)
      error.emplace();
    else
      PyErr_Clear();
    stop = true;
  }
};

/// Runs `job` on a thread of its own while the calling thread (holding the GIL on entry) checks
/// for signals every kSliceSeconds / 2; on a signal, sets irq.stop (which the job must poll)
/// and waits for the job to end. Then re-raises the Python exception first, else the job's.
/// THREAD SAFETY call with the GIL held; `job` runs without it.
template <typename Job>
void run_interruptible(JobStop& irq, const Job& job) {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr failure;
  std::thread worker([&] {
    try {
      job();
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard lock(mutex);
    done = true;
    cv.notify_all();
  });
  const auto poll = std::chrono::duration<double>(kSliceSeconds / 2);
  for (;;) {
    bool finished = false;
    {
      py::gil_scoped_release release;
      std::unique_lock lock(mutex);
      finished = cv.wait_for(lock, poll, [&] { return done; });
    }
    if (finished)
      break;
    if (PyErr_CheckSignals() != 0)
      irq.fail();
  }
  worker.join();
  if (irq.error) {
    irq.error->restore();
    irq.error.reset();
    throw py::error_already_set();
  }
  if (failure)
    std::rethrow_exception(failure);
}

/// Calls work(begin, end) over [0, rows) in consecutive slices, without the GIL, and checks
/// for signals between slices; a KeyboardInterrupt (or any exception a signal handler raises)
/// is raised at once, the rows after the slice left undone. Slices start at `first` rows and
/// are sized from the rate seen so far to last about kSliceSeconds (at least `first`), so the
/// checks cost nothing measurable and come well within a second. An exception of `work`
/// propagates.
/// THREAD SAFETY call with the GIL held; `work` runs without it.
template <typename Work>
void for_slices(std::size_t rows, std::size_t first, const Work& work) {
  using Clock = std::chrono::steady_clock;
  first = std::max<std::size_t>(first, 1);
  std::size_t slice = first;
  for (std::size_t begin = 0; begin < rows;) {
    const std::size_t end = begin + std::min(slice, rows - begin);
    const auto start = Clock::now();
    {
      py::gil_scoped_release release;
      work(begin, end);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    // The next slice from this one's rate, growing at most 4-fold (a first slice that ran
    // from cold caches says little about the rest).
    const double rate = static_cast<double>(end - begin) / std::max(seconds, 1e-6);
    const auto wanted = static_cast<std::size_t>(std::min(rate * kSliceSeconds, 1e12));
    slice = std::clamp(wanted, first, std::max(first, 4 * (end - begin)));
    begin = end;
    if (begin < rows && PyErr_CheckSignals() != 0)
      throw py::error_already_set();
  }
}

/// The first slice of a bulk call over `threads` threads (0: all cores) for for_slices: enough
/// rows for every thread. ERRORS std::invalid_argument for a negative count.
inline std::size_t first_slice_rows(int threads) {
  return kBulkMinRowsPerThread * static_cast<std::size_t>(gen::thread_count(threads));
}

}  // namespace sowdb::python
