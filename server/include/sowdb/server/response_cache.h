// A cache of response bodies bounded in bytes, least recently used out first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace sowdb::server {

/// Bodies by key, at most `capacity` bytes (keys, bodies and a fixed overhead per entry counted).
/// THREAD SAFETY every member may be called from any number of threads at once.
class ResponseCache {
 public:
  /// A cache of at most `capacity_bytes` bytes; 0 keeps nothing.
  explicit ResponseCache(std::size_t capacity_bytes) : capacity_(capacity_bytes) {}

  /// The body stored under `key` (now the most recently used), or nullptr; counts a hit, and
  /// a miss when `count_miss` (false for a first look that is asked again on a miss).
  std::shared_ptr<const std::string> get(const std::string& key, bool count_miss = true);

  /// Stores `body` under `key`, dropping the least recently used entries to stay within the
  /// capacity. A body larger than the capacity is not stored.
  void put(const std::string& key, std::shared_ptr<const std::string> body);

  /// Counters for the metrics.
  struct Stats {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t evictions = 0;
    std::size_t bytes = 0;
    std::size_t entries = 0;
    std::size_t capacity = 0;
  };
  Stats stats() const;

  /// What one entry costs besides its key and body (list and map nodes, the shared body).
  static constexpr std::size_t kEntryOverhead = 160;

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const std::string> body;
  };
  static std::size_t cost(const Entry& e) { return e.key.size() + e.body->size() + kEntryOverhead; }

  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  Stats stats_;
};

}  // namespace sowdb::server
