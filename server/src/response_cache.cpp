#include "sowdb/server/response_cache.h"

#include <utility>

namespace sowdb::server {

std::shared_ptr<const std::string> ResponseCache::get(const std::string& key, bool count_miss) {
  const std::lock_guard lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end()) {
    if (count_miss)
      ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->body;
}

void ResponseCache::put(const std::string& key, std::shared_ptr<const std::string> body) {
  Entry e{key, std::move(body)};
  const std::size_t c = cost(e);
  if (c > capacity_)
    return;
  const std::lock_guard lock(mutex_);
  if (index_.count(key) != 0)
    return;  // another thread answered the same request first
  while (stats_.bytes + c > capacity_ && !lru_.empty()) {
    stats_.bytes -= cost(lru_.back());
    index_.erase(lru_.back().key);
    lru_.pop_back();
    ++stats_.evictions;
  }
  lru_.push_front(std::move(e));
  index_.emplace(key, lru_.begin());
  stats_.bytes += c;
}

ResponseCache::Stats ResponseCache::stats() const {
  const std::lock_guard lock(mutex_);
  Stats s = stats_;
  s.entries = index_.size();
  s.capacity = capacity_;
  return s;
}

}  // namespace sowdb::server
