#include "search_jobs.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <utility>
#include <vector>

#include "sowdb/server/api.h"

namespace sowdb::server {
namespace {

using Clock = std::chrono::steady_clock;

// Jobs kept at most, running and ended: ended ones beyond it are forgotten first, oldest first.
constexpr std::size_t kMaxJobs = 256;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// An id nobody can guess from another: 64 random bits, mixed with a counter so that two jobs
// never share one.
std::string new_id(std::uint64_t counter) {
  static std::mutex mutex;
  static std::mt19937_64 rng{std::random_device{}()};
  std::uint64_t bits;
  {
    const std::lock_guard lock(mutex);
    bits = rng() ^ (counter * 0x9e3779b97f4a7c15ULL);
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(bits));
  return text;
}

}  // namespace

const char* to_string(JobState s) noexcept {
  switch (s) {
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      break;
  }
  return "cancelled";
}

SearchJobs::SearchJobs(std::atomic<int>& searching,
                       int slots,
                       double max_seconds,
                       double idle_seconds,
                       double keep_seconds)
    : searching_(searching),
      slots_(std::max(1, slots)),
      max_seconds_(max_seconds),
      idle_seconds_(idle_seconds),
      keep_seconds_(keep_seconds) {}

SearchJobs::~SearchJobs() {
  std::map<std::string, std::thread> threads;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& [id, job] : jobs_)
      job->cancel = true;
    threads.swap(threads_);
  }
  for (auto& [id, t] : threads)
    t.join();
}

Answer<std::shared_ptr<Job>> SearchJobs::start(const std::string& key,
                                               int stones,
                                               Work work,
                                               std::string moves) {
  const std::lock_guard lock(mutex_);
  forget_ended();
  for (auto& [id, job] : jobs_) {
    if (job->key != key)
      continue;
    const std::lock_guard job_lock(job->mutex);
    if (job->state == JobState::kRunning && !job->cancel) {
      job->seen = now_ns();
      return job;
    }
  }
  if (stopping_)
    return Refusal{RefusalKind::kBusy, "the server is stopping"};
  if (searching_.fetch_add(1) >= slots_) {
    --searching_;
    return Refusal{RefusalKind::kBusy,
                   "every search slot is busy (" + std::to_string(slots_) +
                       " at once); ask again, or without search_ms"};
  }
  auto job = std::make_shared<Job>();
  job->id = new_id(++counter_);
  job->key = key;
  job->moves = std::move(moves);
  job->started = Clock::now();
  job->lower = -stones;
  job->upper = stones;
  job->seen = now_ns();
  SearchBudget budget;
  budget.seconds = max_seconds_;
  const auto idle_ns = static_cast<std::int64_t>(idle_seconds_ * 1e9);
  Job* raw = job.get();
  budget.stop = [raw, idle_ns] { return raw->cancel.load() || now_ns() - raw->seen > idle_ns; };
  budget.progress = [raw](const SearchProgress& p) {
    // Bounds only narrow and positions only grow, whatever order the reports come in.
    raw->lower = std::max(raw->lower.load(), p.lower);
    raw->upper = std::min(raw->upper.load(), p.upper);
    raw->positions = std::max(raw->positions.load(), p.positions);
  };
  jobs_[job->id] = job;
  threads_[job->id] = std::thread([this, job, budget, work = std::move(work)] {
    JobResult result;
    try {
      result = work(budget);
    } catch (...) {
      const Refusal why = refusal_of(std::current_exception());
      result.status = http_status(why.kind);
      result.error = why.message_without_paths();
    }
    // The slot is free before anyone learns that the job ended: whoever stopped it may start
    // another at once.
    --searching_;
    {
      const std::lock_guard job_lock(job->mutex);
      const bool stopped =
          job->cancel || now_ns() - job->seen > static_cast<std::int64_t>(idle_seconds_ * 1e9);
      job->state = result.body && !(stopped && result.bounds) ? JobState::kDone
                   : result.body                              ? JobState::kCancelled
                                                              : JobState::kFailed;
      job->result = std::move(result);
      job->ended = Clock::now();
    }
    job->changed.notify_all();
  });
  return job;
}

std::shared_ptr<Job> SearchJobs::find(const std::string& id) {
  const std::lock_guard lock(mutex_);
  forget_ended();
  const auto it = jobs_.find(id);
  if (it == jobs_.end())
    return nullptr;
  it->second->seen = now_ns();
  return it->second;
}

bool SearchJobs::cancel(const std::string& id) {
  const std::lock_guard lock(mutex_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end())
    return false;
  it->second->cancel = true;
  return true;
}

bool SearchJobs::wait(Job& job, int ms) {
  std::unique_lock lock(job.mutex);
  return job.changed.wait_for(
      lock, std::chrono::milliseconds(ms), [&] { return job.state != JobState::kRunning; });
}

std::string SearchJobs::progress_json(const Job& job) {
  JobState state;
  {
    const std::lock_guard lock(job.mutex);
    state = job.state;
  }
  return progress_json(job, state);
}

std::string SearchJobs::progress_json(const Job& job, JobState state) {
  return nlohmann::json{
      {"api", kApiVersion},
      {"job", job.id},
      {"state", to_string(state)},
      {"lower", job.lower.load()},
      {"upper", job.upper.load()},
      {"positions", job.positions.load()},
      {"seconds", std::chrono::duration<double>(Clock::now() - job.started).count()},
      {"moves", nlohmann::json::parse(job.moves)},
      {"poll", "/api/v1/job?id=" + job.id}}
      .dump();
}

void SearchJobs::forget_ended() {
  const auto now = Clock::now();
  std::vector<std::pair<Clock::time_point, std::string>> ended;
  for (const auto& [id, job] : jobs_) {
    const std::lock_guard job_lock(job->mutex);
    if (job->state != JobState::kRunning)
      ended.emplace_back(job->ended, id);
  }
  std::sort(ended.begin(), ended.end());
  std::size_t extra = jobs_.size() > kMaxJobs ? jobs_.size() - kMaxJobs : 0;
  for (const auto& [when, id] : ended) {
    if (extra == 0 && std::chrono::duration<double>(now - when).count() < keep_seconds_)
      continue;
    if (extra > 0)
      --extra;
    jobs_.erase(id);
    // Its thread has ended, or is about to return: the join is at once.
    threads_[id].join();
    threads_.erase(id);
  }
}

}  // namespace sowdb::server
