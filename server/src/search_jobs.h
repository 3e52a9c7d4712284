// Searches that outlive their request (GET /api/v1/position?...&follow=1, GET and DELETE
// /api/v1/job): each runs on a thread of its own while it holds one of the server's search
// slots, reports its bounds and positions as they grow, stops when nobody has asked about it for
// a while or when asked to, and keeps its answer for a little while after it ends.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "sowdb/analysis/position_search.h"
#include "sowdb/analysis/refusal.h"

namespace sowdb::server {

/// How a job stands.
enum class JobState : std::uint8_t {
  kRunning,    ///< Searching.
  kDone,       ///< Ended: `body` holds its answer (exact, or the bounds of its longest search).
  kFailed,     ///< Ended with a refusal (`status`, `error`).
  kCancelled,  ///< Stopped: asked to, or nobody followed it.
};

/// "running", "done", "failed", "cancelled". Never null.
const char* to_string(JobState s) noexcept;

/// What a job's search ends with: the answer's JSON (`body`, with `bounds` when it is not exact)
/// or a refusal.
struct JobResult {
  std::shared_ptr<const std::string> body;
  bool bounds = false;
  int status = 0;     ///< With no body: the refusal's HTTP status...
  std::string error;  ///< ...and its message.
};

/// One job: its identity, and what its search has proved so far.
struct Job {
  std::string id;   ///< 16 hex digits, unguessable.
  std::string key;  ///< The position's response-cache key: one job per position.
  /// The position's legal moves as a JSON array (see SearchJobs::start), fixed before the job is
  /// shared: a client lists them from the first answer, before anything is proved.
  std::string moves = "[]";
  std::chrono::steady_clock::time_point started;
  /// Written by the search's progress and read by polls.
  std::atomic<int> lower{0};
  std::atomic<int> upper{0};
  std::atomic<std::uint64_t> positions{0};
  std::atomic<bool> cancel{false};
  /// Nanoseconds (steady clock) of the last request that asked about the job.
  std::atomic<std::int64_t> seen{0};

  mutable std::mutex mutex;  ///< Guards state, result and ended.
  std::condition_variable changed;
  JobState state = JobState::kRunning;
  JobResult result;
  std::chrono::steady_clock::time_point ended;
};

/// The jobs of one server.
/// THREAD SAFETY every member may be called from any thread at once.
class SearchJobs {
 public:
  /// The search a job runs: `budget` (its stop, progress, seconds set by the jobs) to the result.
  using Work = std::function<JobResult(const SearchBudget& budget)>;

  /// `slots`: searches running at once, shared with the searches of single requests; a job holds
  /// one while it runs. `max_seconds`: the longest a job searches. `idle_seconds`: a job nobody
  /// has asked about for this long stops (kCancelled). `keep_seconds`: how long an ended job
  /// stays to be asked about.
  SearchJobs(std::atomic<int>& searching,
             int slots,
             double max_seconds,
             double idle_seconds,
             double keep_seconds);
  /// Stops every job and waits for their threads.
  ~SearchJobs();
  SearchJobs(const SearchJobs&) = delete;
  SearchJobs& operator=(const SearchJobs&) = delete;

  /// The running job of `key`, or a new one running `work` on a slot. `moves`: the position's
  /// legal moves, a JSON array that progress_json passes on as it is (a new job only).
  /// RETURN the job; kBusy when a new job finds every slot taken.
  Answer<std::shared_ptr<Job>> start(const std::string& key,
                                     int stones,
                                     Work work,
                                     std::string moves = "[]");

  /// The job `id` (marked as asked about), or null when there is none (never was, or forgotten).
  std::shared_ptr<Job> find(const std::string& id);

  /// Asks job `id` to stop; false when there is none.
  bool cancel(const std::string& id);

  /// Waits up to `ms` milliseconds for `job` to end. Returns whether it has.
  static bool wait(Job& job, int ms);

  /// The JSON of a job that has not given an answer: {"api":1,"job":ID,"state":...,"lower",
  /// "upper","positions","seconds","moves":[...],"poll":"/api/v1/job?id=ID"}, with the job's
  /// state now.
  static std::string progress_json(const Job& job);
  /// The same with `state`, the state the caller saw and answers by (a job that ends in
  /// between is still said to be running in a 202).
  static std::string progress_json(const Job& job, JobState state);

 private:
  void forget_ended();

  std::atomic<int>& searching_;
  const int slots_;
  const double max_seconds_;
  const double idle_seconds_;
  const double keep_seconds_;
  std::mutex mutex_;                                  ///< Guards jobs_, threads_, stopping_.
  std::map<std::string, std::shared_ptr<Job>> jobs_;  ///< By id.
  std::map<std::string, std::thread> threads_;        ///< By id, joined when forgotten.
  bool stopping_ = false;
  std::uint64_t counter_ = 0;
};

}  // namespace sowdb::server
