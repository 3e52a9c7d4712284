// A reader's cache of decoded frames (OpenOptions::cache_blocks and depth_cache_blocks). Not
// installed.
//
// Shards of an LRU list of decoded frames, most recently used first, and a hash map from a
// frame's key (block * 2 + stream, stream 0 values, 1 depths) to its list node, so a hit, an
// insertion and an eviction each cost O(1) whatever the cache size. Each shard is guarded by its
// own mutex; decoding happens outside it. A large cache is cut into shards by block, so that
// threads probing at once rarely wait for one another (one mutex for a whole layer made two
// verify threads spend most of their time in the kernel); a small one stays one exact LRU.
//
// When the cache can hold every frame it may be given, nothing is ever evicted: a decoded frame
// is published (indexed by key, owned by its shard) and found without a lock, so that threads
// reading the same hot blocks (small layers, during verify) do not queue on a mutex.
//
// Otherwise a frame goes back to its shard's SparePool when its last holder lets it go (its
// shared_ptr's deleter), so that the next decode reuses its buffers instead of allocating them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "block_codec.h"
#include "sowdb/format/table_file.h"

namespace sowdb::table_internal {

// One decoded frame: `values` for stream 0; for stream 1 `depths`, and (depth codec 1) the
// block's values, which say where each depth is.
struct Decoded {
  std::vector<std::int8_t> values;
  DepthFrame depths;
  std::shared_ptr<const Decoded> block_values;

  // The depth of the block's entry i (stream 1).
  std::uint16_t depth(std::size_t i) const {
    return depths.at(i, block_values ? block_values->values.data() : nullptr);
  }
};

// Frames whose last holder let them go, kept for their buffers. A frame's deleter gives it back;
// it holds the pool by shared_ptr, since a frame may outlive its reader (a thread's last depth
// frame). Thread safe.
class SparePool {
 public:
  SparePool() { spares_.reserve(kMaxSpares); }

  // A kept frame, or null.
  std::unique_ptr<Decoded> take();

  // Keeps `d` (its block values dropped) if there is room, else deletes it. Never throws.
  void give(Decoded* d) noexcept;

 private:
  static constexpr std::size_t kMaxSpares = 4;  // about one per decoding thread

  std::mutex mutex_;
  std::vector<std::unique_ptr<Decoded>> spares_;
};

class FrameCache {
 public:
  static std::uint64_t key(std::uint32_t block, int stream) {
    return std::uint64_t{block} * 2 + static_cast<std::uint64_t>(stream);
  }

  // Sets up room for `capacity` of the `frames` frames it may be given: a power of two of
  // shards, at most kMaxShards, each holding at least kBlocksPerShard frames (or all of them,
  // with one shard). `keys` bounds the frame keys.
  void make(std::size_t capacity, std::uint64_t frames, std::uint64_t keys);

  // Whether every frame it may be given is kept once decoded, and found without a lock.
  bool keeps_all() const { return pinned_ != nullptr; }

  // (keeps_all) The published frame `key`, counted as a hit, or null.
  const Decoded* find_published(std::uint64_t key) const {
    const Decoded* d = pinned_[key].load(std::memory_order_acquire);
    if (d)
      count_hit();
    return d;
  }

  // (keeps_all) The values of the published value frame `key` (a hit if `count`), or null.
  const std::int8_t* published_values(std::uint64_t key, bool count) const {
    const std::int8_t* v = pinned_values_[key].load(std::memory_order_acquire);
    if (v && count)
      count_hit();
    return v;
  }

  // (not keeps_all) The cached frame `key`, moved to the front of its LRU list (a hit), or
  // null when it is not cached.
  std::shared_ptr<const Decoded> find(std::uint64_t key) {
    Shard& shard = shard_of(key);
    std::lock_guard lock(shard.mutex);
    const auto* d = find_locked(shard, key);
    return d ? *d : nullptr;
  }

  // (not keeps_all) `read(frame)` of the cached frame `key` (a hit) under its shard's lock, so
  // a hit costs no reference count traffic; nullopt when it is not cached.
  template <typename Read>
  auto read_cached(std::uint64_t key, Read&& read)
      -> std::optional<decltype(read(std::declval<const Decoded&>()))> {
    Shard& shard = shard_of(key);
    std::lock_guard lock(shard.mutex);
    if (const auto* d = find_locked(shard, key))
      return read(**d);
    return std::nullopt;
  }

  // A frame to decode frame `key` into. Unless keeps_all, one its shard's pool kept, whose
  // buffers are reused (a decode then costs no large allocation), and which returns to the pool
  // when its last holder lets it go.
  std::shared_ptr<Decoded> take_spare(std::uint64_t key);

  // Caches the frame `key` that the caller decoded (a miss). Returns the frame to use: `decoded`,
  // or the one another thread cached meanwhile.
  std::shared_ptr<const Decoded> insert(std::uint64_t key, std::shared_ptr<const Decoded> decoded);

  // Counts a hit on frame `key` that the caller answered from a frame it kept itself.
  void count_kept_hit(std::uint64_t key) {
    shard_of(key).kept_hits.fetch_add(1, std::memory_order_relaxed);
  }

  // Adds the counters to `total`, each shard's under its lock.
  void add_stats(CacheStats& total);

 private:
  static constexpr std::size_t kMaxShards = 16;
  static constexpr std::size_t kBlocksPerShard = 16;  // fewer: one exact LRU
  static constexpr std::size_t kStripes = 16;

  struct CacheEntry {
    std::uint64_t key = 0;
    std::shared_ptr<const Decoded> data;
  };
  using LruList = std::list<CacheEntry>;
  struct alignas(64) Shard {
    std::mutex mutex;
    LruList lru;
    std::unordered_map<std::uint64_t, LruList::iterator> index;
    CacheStats stats;
    std::size_t capacity = 0;
    std::vector<std::shared_ptr<const Decoded>> owned;  // the frames published in `pinned_`
    std::shared_ptr<SparePool> pool = std::make_shared<SparePool>();
    std::atomic<std::uint64_t> kept_hits{0};  // see count_kept_hit
  };
  // Hits on published frames, counted per thread stripe: one shared counter, or the shard's,
  // is a cache miss of its own on every lookup.
  struct alignas(64) Stripe {
    std::atomic<std::uint64_t> hits{0};
  };

  static std::size_t stripe_of_this_thread() {
    static std::atomic<std::size_t> next{0};
    thread_local const std::size_t stripe = next.fetch_add(1) % kStripes;
    return stripe;
  }
  void count_hit() const {
    stripes_[stripe_of_this_thread()].hits.fetch_add(1, std::memory_order_relaxed);
  }

  // A block's value frame and depth frame share a shard.
  Shard& shard_of(std::uint64_t key) { return shards_[(key >> 1) & shard_mask_]; }

  // The cached frame `key`, moved to the front of its shard's LRU list (a hit); null when it is
  // not cached. Call with the shard's mutex held.
  static const std::shared_ptr<const Decoded>* find_locked(Shard& shard, std::uint64_t key) {
    const auto it = shard.index.find(key);
    if (it == shard.index.end())
      return nullptr;
    shard.lru.splice(shard.lru.begin(), shard.lru, it->second);
    ++shard.stats.hits;
    return &it->second->data;
  }

  std::unique_ptr<std::atomic<const Decoded*>[]> pinned_;
  // For value frames, the published frame's values themselves: a lookup then waits on one
  // memory load fewer (searches probe at random, and each load is a cache miss).
  std::unique_ptr<std::atomic<const std::int8_t*>[]> pinned_values_;
  std::unique_ptr<Stripe[]> stripes_;
  std::unique_ptr<Shard[]> shards_;
  std::size_t shard_mask_ = 0;
};

}  // namespace sowdb::table_internal
