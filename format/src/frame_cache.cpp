// A reader's cache of decoded frames.
#include "frame_cache.h"

#include <algorithm>
#include <atomic>
#include <iterator>

namespace sowdb::table_internal {

void FrameCache::make(std::size_t capacity, std::uint64_t frames, std::uint64_t keys) {
  if (capacity >= frames) {
    pinned_ = std::make_unique<std::atomic<const Decoded*>[]>(keys);  // all null (C++20)
    pinned_values_ = std::make_unique<std::atomic<const std::int8_t*>[]>(keys);
    stripes_ = std::make_unique<Stripe[]>(kStripes);
  }
  std::size_t count = 1;
  while (count < kMaxShards && capacity / (2 * count) >= kBlocksPerShard)
    count *= 2;
  shards_ = std::make_unique<Shard[]>(count);
  shard_mask_ = count - 1;
  for (std::size_t i = 0; i < count; ++i) {
    shards_[i].capacity = capacity / count + (i < capacity % count ? 1 : 0);
    shards_[i].index.reserve(std::min<std::size_t>(shards_[i].capacity, 1024));
  }
}

std::unique_ptr<Decoded> SparePool::take() {
  std::lock_guard lock(mutex_);
  if (spares_.empty())
    return nullptr;
  std::unique_ptr<Decoded> d = std::move(spares_.back());
  spares_.pop_back();
  return d;
}

void SparePool::give(Decoded* d) noexcept {
  std::unique_ptr<Decoded> frame(d);
  // Dropped before the lock: it may be the last holder of a value frame, whose deleter takes a
  // pool's lock in turn.
  frame->block_values.reset();
  try {
    std::lock_guard lock(mutex_);
    if (spares_.size() < kMaxSpares)
      spares_.push_back(std::move(frame));  // within the reserved capacity: no allocation
  } catch (...) {
    // A lock that fails to lock: the frame is deleted instead.
  }
}

std::shared_ptr<Decoded> FrameCache::take_spare(std::uint64_t key) {
  if (pinned_)
    return std::make_shared<Decoded>();  // published frames live as long as the cache
  std::shared_ptr<SparePool> pool = shard_of(key).pool;
  std::unique_ptr<Decoded> d = pool->take();
  if (!d)
    d = std::make_unique<Decoded>();
  // The last holder's release of the reference count orders its reads of the frame before the
  // deleter, so the next decode may write into it.
  return std::shared_ptr<Decoded>(d.release(),
                                  [pool = std::move(pool)](Decoded* p) { pool->give(p); });
}

std::shared_ptr<const Decoded> FrameCache::insert(std::uint64_t key,
                                                  std::shared_ptr<const Decoded> decoded) {
  std::shared_ptr<const Decoded> evicted;  // let go after the lock is released
  Shard& shard = shard_of(key);
  std::lock_guard lock(shard.mutex);
  ++shard.stats.misses;
  if (pinned_) {
    // Another thread may have published the frame meanwhile: keep the first. A published frame
    // lives as long as the cache: a pointer that owns nothing will do.
    if (const Decoded* there = pinned_[key].load(std::memory_order_acquire))
      return std::shared_ptr<const Decoded>(std::shared_ptr<const Decoded>(), there);
    shard.owned.push_back(decoded);
    if (key % 2 == 0)
      pinned_values_[key].store(decoded->values.data(), std::memory_order_release);
    pinned_[key].store(decoded.get(), std::memory_order_release);
    shard.stats.cached = shard.owned.size();
    return decoded;
  }
  if (shard.capacity == 0)
    return decoded;
  LruList& lru = shard.lru;
  if (const auto it = shard.index.find(key); it != shard.index.end()) {
    lru.splice(lru.begin(), lru, it->second);
    return it->second->data;  // another thread decoded it meanwhile
  }
  if (lru.size() >= shard.capacity) {
    // Evict the least recently used frame, reusing its node.
    shard.index.erase(lru.back().key);
    lru.splice(lru.begin(), lru, std::prev(lru.end()));
    evicted = std::move(lru.front().data);
    lru.front() = CacheEntry{key, decoded};
  } else {
    lru.push_front(CacheEntry{key, decoded});
  }
  shard.index.emplace(key, lru.begin());
  shard.stats.cached = lru.size();
  return decoded;
}

void FrameCache::add_stats(CacheStats& total) {
  for (std::size_t i = 0; i <= shard_mask_; ++i) {
    Shard& shard = shards_[i];
    std::lock_guard lock(shard.mutex);
    total.hits += shard.stats.hits + shard.kept_hits.load(std::memory_order_relaxed);
    total.misses += shard.stats.misses;
    total.cached += shard.stats.cached;
  }
  if (stripes_) {
    for (std::size_t i = 0; i < kStripes; ++i)
      total.hits += stripes_[i].hits.load(std::memory_order_relaxed);
  }
}

}  // namespace sowdb::table_internal
