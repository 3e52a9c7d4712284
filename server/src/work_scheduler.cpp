#include "work_scheduler.h"

#include <algorithm>
#include <utility>

namespace sowdb::server {

WorkScheduler::WorkScheduler(int threads, int batch_threads)
    : batch_threads_(std::clamp(batch_threads, 1, std::max(threads, 1))) {
  for (int i = 0; i < std::max(threads, 1); ++i)
    threads_.emplace_back([this] { run(); });
}

WorkScheduler::~WorkScheduler() {
  stop();
}

void WorkScheduler::post(WorkClass c, std::function<void()> task) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_)
      return;
    queues_[static_cast<std::size_t>(c)].push_back(std::move(task));
  }
  // Every waiter: the one woken may be unable to take a batch while another could take it.
  ready_.notify_all();
}

std::size_t WorkScheduler::depth(WorkClass c) const {
  const std::lock_guard lock(mutex_);
  return queues_[static_cast<std::size_t>(c)].size();
}

bool WorkScheduler::next(std::unique_lock<std::mutex>& lock,
                         std::function<void()>& task,
                         WorkClass& c) {
  for (;;) {
    if (stopping_)
      return false;
    for (int k = 0; k < kWorkClasses; ++k) {
      auto& q = queues_[static_cast<std::size_t>(k)];
      if (q.empty())
        continue;
      if (k == static_cast<int>(WorkClass::kBatch) && batches_running_ >= batch_threads_)
        continue;  // the rest of the workers stay free for lookups
      task = std::move(q.front());
      q.pop_front();
      c = static_cast<WorkClass>(k);
      if (c == WorkClass::kBatch)
        ++batches_running_;
      return true;
    }
    ready_.wait(lock);
  }
}

void WorkScheduler::run() {
  std::unique_lock lock(mutex_);
  std::function<void()> task;
  WorkClass c = WorkClass::kLookup;
  while (next(lock, task, c)) {
    lock.unlock();
    task();
    task = nullptr;  // its captures (a session) released outside the lock
    lock.lock();
    if (c == WorkClass::kBatch) {
      --batches_running_;
      ready_.notify_all();  // a batch waiting for a batch worker may go
    }
  }
}

void WorkScheduler::stop() {
  std::deque<std::function<void()>> dropped[kWorkClasses];
  {
    const std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty())
      return;
    stopping_ = true;
    for (int k = 0; k < kWorkClasses; ++k)
      dropped[k].swap(queues_[static_cast<std::size_t>(k)]);
  }
  ready_.notify_all();
  for (std::thread& t : threads_)
    t.join();
  threads_.clear();
}

}  // namespace sowdb::server
