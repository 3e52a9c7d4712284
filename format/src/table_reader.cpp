// The table file reader: LayerReader, its block cache and its block decoding (FORMAT.md,
// "Reader checks" 16..21).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdio>
#include <functional>
#include <iterator>
#include <limits>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "sowdb/format/table_file.h"
#include "table_internal.h"

namespace sowdb {

using namespace table_internal;

// --- Reader. ---------------------------------------------------------------------------------

struct LayerReader::Impl {
  std::unique_ptr<Source> src;
  Parsed parsed;
  OpenOptions options;

  // A block's depth frame as decoded for probes: the byte planes as stored, and (depth codec 1)
  // how many depths the block stores before each run of 64 entries, so that one depth is found
  // in O(1) without spreading all of them out (which cost more than decoding the frame).
  struct DepthFrame {
    std::vector<std::uint8_t> planes;  // the m low bytes, the m high bytes, one spare zero byte
    std::size_t stored = 0;            // m
    std::vector<std::uint32_t> before;
  };

  // One decoded frame: `values` for stream 0; for stream 1 `depths`, and (depth codec 1) the
  // block's values, which say where each depth is.
  struct Decoded {
    std::vector<std::int8_t> values;
    DepthFrame depths;
    std::shared_ptr<const Decoded> block_values;

    // The depth of the block's entry i (stream 1).
    std::uint16_t depth(std::size_t i) const {
      std::size_t j = i;
      if (block_values) {
        const std::int8_t v = block_values->values[i];
        if (!stores_depth(v))
          return v == 0 ? std::uint16_t{0} : kRecomputeDepth;
        const std::size_t run = i >> kRunShift;
        j = depths.before[run] +
            count_stored(block_values->values.data() + (run << kRunShift), i & (kRun - 1));
      }
      const std::uint8_t* planes = depths.planes.data();
      return static_cast<std::uint16_t>(planes[j] | (planes[depths.stored + j] << 8));
    }
  };
  static constexpr int kRunShift = 6;
  static constexpr std::size_t kRun = std::size_t{1} << kRunShift;

  // Depth codec 1 stores a depth where the value-table byte is neither 0 nor kRecomputeValue.
  static bool stores_depth(std::int8_t v) { return v != 0 && v != kRecomputeValue; }

  // How many of the `len` bytes at p store a depth: eight at a time, a byte counting when its
  // low seven bits are not all zero (0 and -128 are the two bytes whose are).
  static std::size_t count_stored(const std::int8_t* p, std::size_t len) {
    constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
    constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
    const auto count8 = [](std::uint64_t w) {
      const std::uint64_t x = w & kLow7;
      return static_cast<std::size_t>(__builtin_popcountll((x + kLow7) & kHigh));
    };
    std::size_t count = 0;
    std::size_t k = 0;
    for (; k + 8 <= len; k += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + k, 8);
      count += count8(w);
    }
    if (k < len) {
      std::uint64_t w = 0;  // the bytes past `len` count as 0: no depth
      std::memcpy(&w, p + k, len - k);
      count += count8(w);
    }
    return count;
  }
  // The block cache: shards of an LRU list of decoded frames, most recently used first, and a
  // hash map from a frame's key (block * 2 + stream, stream 0 values, 1 depths) to its list
  // node, so a hit, an insertion and an eviction each cost O(1) whatever the cache size. Each
  // shard is guarded by its own mutex; decoding happens outside it. A large cache is cut into
  // shards by block, so that threads probing at once rarely wait for one another (one mutex
  // for a whole layer made two verify threads spend most of their time in the kernel); a small
  // one stays one exact LRU.
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
    std::vector<std::shared_ptr<const Decoded>> owned;  // the frames published in `pinned`
    std::atomic<std::uint64_t> pinned_hits{0};          // depth frames' last-frame hits (entry())
  };
  // One cache of frames. When it can hold every frame it may be given, nothing is ever evicted:
  // a decoded frame is published in `pinned` (indexed by key, owned by its shard's `owned`) and
  // found without a lock, so that threads reading the same hot blocks (small layers, during
  // verify) do not queue on a mutex.
  struct FrameCache {
    std::unique_ptr<std::atomic<const Decoded*>[]> pinned;
    // For value frames, the published frame's values themselves: a lookup then waits on one
    // memory load fewer (searches probe at random, and each load is a cache miss).
    std::unique_ptr<std::atomic<const std::int8_t*>[]> pinned_values;
    // Hits on published frames, counted per thread stripe: one shared counter, or the shard's,
    // is a cache miss of its own on every lookup.
    struct alignas(64) Stripe {
      std::atomic<std::uint64_t> hits{0};
    };
    std::unique_ptr<Stripe[]> stripes;
    void count_hit() const {
      stripes[stripe_of_this_thread()].hits.fetch_add(1, std::memory_order_relaxed);
    }
    mutable std::unique_ptr<Shard[]> shards;
    std::size_t shard_mask = 0;

    // Sets up room for `capacity` of the `frames` frames it may be given: a power of two of
    // shards, at most kMaxShards, each holding at least kBlocksPerShard frames (or all of them,
    // with one shard). `keys` bounds the frame keys.
    void make(std::size_t capacity, std::uint64_t frames, std::uint64_t keys) {
      if (capacity >= frames) {
        pinned = std::make_unique<std::atomic<const Decoded*>[]>(keys);  // all null (C++20)
        pinned_values = std::make_unique<std::atomic<const std::int8_t*>[]>(keys);
        stripes = std::make_unique<Stripe[]>(kStripes);
      }
      std::size_t count = 1;
      while (count < kMaxShards && capacity / (2 * count) >= kBlocksPerShard)
        count *= 2;
      shards = std::make_unique<Shard[]>(count);
      shard_mask = count - 1;
      for (std::size_t i = 0; i < count; ++i) {
        shards[i].capacity = capacity / count + (i < capacity % count ? 1 : 0);
        shards[i].index.reserve(std::min<std::size_t>(shards[i].capacity, 1024));
      }
    }
    // A block's value frame and depth frame share a shard.
    Shard& shard_of(std::uint64_t key) const { return shards[(key >> 1) & shard_mask]; }
  };
  static constexpr std::size_t kMaxShards = 16;
  static constexpr std::size_t kStripes = 16;
  static std::size_t stripe_of_this_thread() {
    static std::atomic<std::size_t> next{0};
    thread_local const std::size_t stripe = next.fetch_add(1) % kStripes;
    return stripe;
  }
  static constexpr std::size_t kBlocksPerShard = 16;  // fewer: one exact LRU
  // caches[0] holds both streams' frames, unless OpenOptions::depth_cache_blocks gave the depth
  // frames a cache of their own, caches[1].
  FrameCache caches[2];
  bool split_cache = false;

  // After `options` is set.
  void make_caches() {
    const std::uint64_t blocks = info().block_count;
    split_cache = options.depth_cache_blocks.has_value();
    if (split_cache) {
      caches[0].make(options.cache_blocks, blocks, 2 * blocks);
      caches[1].make(*options.depth_cache_blocks, blocks, 2 * blocks);
    } else {
      caches[0].make(options.cache_blocks, 2 * blocks, 2 * blocks);
    }
  }
  const FrameCache& cache_of(std::uint64_t key) const { return caches[split_cache ? key & 1 : 0]; }

  const LayerInfo& info() const { return parsed.info; }

  static std::uint64_t frame_key(std::uint32_t b, int stream) {
    return std::uint64_t{b} * 2 + static_cast<std::uint64_t>(stream);
  }

  // "Recompute entries": decoded blocks hold value-table bytes, in which the "recompute, stored
  // depth" byte 127 is kept apart from kRecomputeValue until the depths are decoded. This maps
  // a table byte to what value() returns.
  std::int8_t public_value(std::int8_t byte) const {
    return byte == kStoredRecomputeByte && info().recompute &&
                   info().stones <= kMaxStonesWithStoredRecompute
               ? kRecomputeValue
               : byte;
  }

  // Checks 16..18: reads the frame and checks its checksum and frame header.
  std::vector<std::byte> read_frame(std::uint32_t b, int stream, std::size_t content) const {
    const SeekEntry& e = parsed.seek[b];
    const std::uint64_t offset = stream == 0 ? e.offset : e.offset + e.value_size;
    const std::uint32_t size = stream == 0 ? e.value_size : e.depth_size;
    const std::string where =
        src->name() + ": block " + std::to_string(b) + (stream == 0 ? " values" : " depths");
    std::vector<std::byte> frame(size);
    src->read(offset, frame);  // check 16
    if (options.verify_checksums && hash32(frame) != (stream == 0 ? e.value_hash : e.depth_hash)) {
      fail_check(Code::kChecksum, where, 17, "frame checksum mismatch");
    }
    // Check 18: exactly one zstd frame that declares the expected content size.
    // A skippable frame (or a legacy one) is no Zstandard frame and declares no content size,
    // though ZSTD_getFrameContentSize reports 0 for a skippable one.
    if (frame.size() < 4 || get_le(frame.data(), 4) != ZSTD_MAGICNUMBER ||
        ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size()) {
      fail_check(Code::kCorrupt, where, 18, "not exactly one zstd frame");
    }
    if (ZSTD_getFrameContentSize(frame.data(), frame.size()) != content) {
      fail_check(Code::kCorrupt,
                 where,
                 18,
                 "frame does not declare " + count_text(content, "content byte", "content bytes"));
    }
    return frame;
  }

  // Check 19: decompresses into exactly out.size() bytes.
  void decompress(std::span<const std::byte> frame,
                  std::span<std::byte> out,
                  const std::string& where) const {
    ZSTD_DCtx* dctx = thread_dctx();
    if (dctx == nullptr)
      fail(Code::kIo, where, "cannot allocate a zstd context");
    const std::size_t got =
        ZSTD_decompressDCtx(dctx, out.data(), out.size(), frame.data(), frame.size());
    if (ZSTD_isError(got) || got != out.size()) {
      fail_check(Code::kCorrupt,
                 where,
                 19,
                 ZSTD_isError(got) ? std::string("zstd: ") + ZSTD_getErrorName(got)
                                   : "decompressed to " + count_text(got, "byte", "bytes"));
    }
  }

  void decode_values(std::uint32_t b, std::span<std::int8_t> out) const {
    const std::string where = src->name() + ": block " + std::to_string(b) + " values";
    const auto frame = read_frame(b, 0, out.size());
    auto* bytes = reinterpret_cast<std::byte*>(out.data());
    decompress(frame, std::span(bytes, out.size()), where);
    // Check 20: every symbol names an entry of the value table.
    const auto& table = info().value_table;
    std::array<std::int8_t, 256> map{};
    for (std::size_t i = 0; i < table.size(); ++i)
      map[i] = table[i];
    const auto limit = static_cast<std::uint8_t>(table.size() - 1);
    std::uint8_t worst = 0;
    for (std::int8_t& v : out)
      worst = std::max(worst, static_cast<std::uint8_t>(v));
    if (worst > limit) {
      fail_check(Code::kCorrupt,
                 where,
                 20,
                 "symbol " + std::to_string(worst) + " outside the value table");
    }
    for (std::int8_t& v : out)
      v = map[static_cast<std::uint8_t>(v)];
  }

  // Decodes block `b`'s depth frame, checks 18, 19 and 21. `values` are the block's decoded
  // value-table bytes (depth codec 1: they say how many depths the frame holds).
  DepthFrame decode_depth_frame(std::uint32_t b,
                                std::span<const std::int8_t> values,
                                std::size_t entries) const {
    const std::string where = src->name() + ": block " + std::to_string(b) + " depths";
    const bool all = info().depth_codec == DepthCodec::kAll;
    DepthFrame f;
    f.stored = all ? entries : count_stored(values.data(), values.size());
    const std::size_t m = f.stored;
    const auto frame = read_frame(b, 1, 2 * m);
    f.planes.assign(2 * m + 1, 0);
    decompress(frame, std::as_writable_bytes(std::span(f.planes.data(), 2 * m)), where);
    // Check 21: a file with recompute entries never stores the depth kRecomputeDepth.
    if (info().recompute) {
      bool reserved = false;
      for (std::size_t j = 0; j < m; ++j)
        reserved |= (f.planes[j] & f.planes[m + j]) == 0xff;
      if (reserved) {
        fail_check(Code::kCorrupt,
                   where,
                   21,
                   "stored depth " + std::to_string(kRecomputeDepth) +
                       " in a file with recompute entries");
      }
    }
    if (!all) {
      f.before.resize((values.size() + kRun - 1) / kRun);
      std::size_t count = 0;
      for (std::size_t run = 0; run < f.before.size(); ++run) {
        f.before[run] = static_cast<std::uint32_t>(count);
        const std::size_t first = run << kRunShift;
        count += count_stored(values.data() + first, std::min(kRun, values.size() - first));
      }
    }
    return f;
  }

  // Decodes block `b`'s depths into `out` (read_all). `values` as for decode_depth_frame.
  void decode_depths(std::uint32_t b,
                     std::span<const std::int8_t> values,
                     std::span<std::uint16_t> out) const {
    const DepthFrame f = decode_depth_frame(b, values, out.size());
    const std::uint8_t* low = f.planes.data();
    const std::uint8_t* high = f.planes.data() + f.stored;
    if (info().depth_codec == DepthCodec::kAll) {
      for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<std::uint16_t>(low[i] | (high[i] << 8));
      return;
    }
    // Which entries store a depth follows the values, which look random to a branch predictor,
    // so this selects with masks (the compiler turns `?:` here back into a branch); the spare
    // byte of the planes makes reading one entry past the last stored depth safe.
    static_assert(kRecomputeDepth == 0xFFFF);
    std::size_t j = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const unsigned has = stores_depth(values[i]) ? 1u : 0u;
      const unsigned keep = 0u - has;
      const unsigned derived = 0u - static_cast<unsigned>(values[i] != 0);  // 0 or 0xFFFF
      const unsigned d = low[j] | (high[j] << 8);
      out[i] = static_cast<std::uint16_t>((d & keep) | (derived & ~keep));
      j += has;
    }
  }

  // The values of block `b` a depth decode needs: none for depth codec 0.
  std::shared_ptr<const Decoded> values_for_depths(std::uint32_t b) const {
    if (info().depth_codec == DepthCodec::kAll)
      return std::make_shared<Decoded>();
    return block(b, 0);
  }

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

  // Decodes block `b`'s stream (0 values, 1 depths), outside the lock, and caches it.
  std::shared_ptr<const Decoded> decode_and_cache(std::uint32_t b, int stream) const {
    const std::uint64_t key = frame_key(b, stream);
    auto decoded = std::make_shared<Decoded>();
    const std::uint32_t n = entries_in_block(info(), b);
    if (stream == 0) {
      decoded->values.resize(n);
      decode_values(b, decoded->values);
    } else {
      decoded->block_values = values_for_depths(b);
      decoded->depths = decode_depth_frame(b, decoded->block_values->values, n);
      if (info().depth_codec == DepthCodec::kAll)
        decoded->block_values.reset();
    }
    std::shared_ptr<const Decoded> evicted;  // freed after the lock is released
    const FrameCache& cache = cache_of(key);
    Shard& shard = cache.shard_of(key);
    std::lock_guard lock(shard.mutex);
    ++shard.stats.misses;
    if (cache.pinned) {
      // Another thread may have published the frame meanwhile: keep the first.
      if (const Decoded* there = cache.pinned[key].load(std::memory_order_acquire))
        return std::shared_ptr<const Decoded>(std::shared_ptr<const Decoded>(), there);
      shard.owned.push_back(decoded);
      if (key % 2 == 0)
        cache.pinned_values[key].store(decoded->values.data(), std::memory_order_release);
      cache.pinned[key].store(decoded.get(), std::memory_order_release);
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

  // The published frame `key` of `cache` (a hit, counted), or null.
  static const Decoded* find_pinned(const FrameCache& cache, std::uint64_t key) {
    const Decoded* d = cache.pinned[key].load(std::memory_order_acquire);
    if (d)
      cache.count_hit();
    return d;
  }

  std::shared_ptr<const Decoded> block(std::uint32_t b, int stream) const {
    const std::uint64_t key = frame_key(b, stream);
    const FrameCache& cache = cache_of(key);
    if (cache.pinned) {
      // A published frame lives as long as the reader: a pointer that owns nothing will do.
      if (const Decoded* d = find_pinned(cache, key))
        return std::shared_ptr<const Decoded>(std::shared_ptr<const Decoded>(), d);
      return decode_and_cache(b, stream);
    }
    {
      Shard& shard = cache.shard_of(key);
      std::lock_guard lock(shard.mutex);
      if (const auto* d = find_locked(shard, key))
        return *d;
    }
    return decode_and_cache(b, stream);
  }

  // The entry `index` in the published value frame that holds it, or null (no such index, a
  // cache that does not keep every frame, or a frame not decoded yet). Counts a hit if `count`.
  const std::int8_t* published_value(std::uint64_t index, bool count) const noexcept {
    const LayerInfo& i = info();
    if (index >= i.entries)
      return nullptr;
    const std::uint64_t key = frame_key(static_cast<std::uint32_t>(index / i.block_entries), 0);
    const FrameCache& cache = cache_of(key);
    if (!cache.pinned)
      return nullptr;
    const std::int8_t* v = cache.pinned_values[key].load(std::memory_order_acquire);
    if (!v)
      return nullptr;
    if (count)
      cache.count_hit();
    return v + index % i.block_entries;
  }

  // See LayerReader::prefetch: no decoding, no count.
  void prefetch(std::uint64_t index) const noexcept {
    if (const std::int8_t* v = published_value(index, false))
      __builtin_prefetch(v);
  }

  // Entry `i` of block `b`'s stream, read from the cached frame under the shard's lock (no
  // reference count traffic on a hit), else decoded and cached.
  template <typename Read>
  auto entry(std::uint32_t b, int stream, Read&& read) const {
    const std::uint64_t key = frame_key(b, stream);
    const FrameCache& cache = cache_of(key);
    if (cache.pinned) {
      if (const Decoded* d = find_pinned(cache, key))
        return read(*d);
      return read(*decode_and_cache(b, stream));
    }
    if (split_cache && stream == 1) {
      // The thread's last depth frame answers the next lookup in its block without the shard's
      // lock, which two threads reading the depths side by side in index order (verify) took
      // for every entry: 15% of the run. Random lookups miss it and go on to the cache.
      LastDepthFrame& last = last_depth_frame();
      if (last.reader != id || last.key != key) {
        last.frame = block(b, stream);
        last.reader = id;
        last.key = key;
      } else {
        cache.shard_of(key).pinned_hits.fetch_add(1, std::memory_order_relaxed);
      }
      return read(*last.frame);
    }
    {
      Shard& shard = cache.shard_of(key);
      std::lock_guard lock(shard.mutex);
      if (const auto* d = find_locked(shard, key))
        return read(**d);
    }
    return read(*decode_and_cache(b, stream));
  }

  // Tells readers apart for last_depth_frame(); never reused, unlike an address.
  const std::uint64_t id = next_id.fetch_add(1, std::memory_order_relaxed);
  static inline std::atomic<std::uint64_t> next_id{1};
  struct LastDepthFrame {
    std::uint64_t reader = 0;  // 0: none
    std::uint64_t key = 0;
    std::shared_ptr<const Decoded> frame;  // keeps the frame alive past an eviction
  };
  static LastDepthFrame& last_depth_frame() {
    static thread_local LastDepthFrame last;
    return last;
  }
};

LayerReader::LayerReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LayerReader::~LayerReader() = default;

namespace {

std::unique_ptr<LayerReader::Impl> open_source(std::unique_ptr<Source> src,
                                               const OpenOptions& options) {
  auto impl = std::make_unique<LayerReader::Impl>();
  impl->parsed = parse_header(*src, options.verify_checksums);
  const LayerInfo& info = impl->parsed.info;
  // Check 13: the table the caller asked for.
  if (options.expected_rules && !(info.rules == options.expected_rules->normalised())) {
    fail_check(
        Code::kRuleMismatch, src->name(), 13, "the file's rule set differs from the one expected");
  }
  if (options.expected_stones && info.stones != *options.expected_stones) {
    fail_check(Code::kRuleMismatch,
               src->name(),
               13,
               "the file holds " + count_text(info.stones, "stone", "stones") + ", expected " +
                   std::to_string(*options.expected_stones));
  }
  if (options.verify_checksums)
    check_whole_file(*src);
  parse_seek_table(*src, impl->parsed);
  impl->options = options;
  impl->make_caches();
  impl->src = std::move(src);
  return impl;
}

}  // namespace

std::unique_ptr<LayerReader> LayerReader::open(const std::filesystem::path& path,
                                               const OpenOptions& options) {
  return std::unique_ptr<LayerReader>(
      new LayerReader(open_source(std::make_unique<FileSource>(path), options)));
}

std::unique_ptr<LayerReader> LayerReader::open_memory(std::vector<std::byte> bytes,
                                                      const OpenOptions& options) {
  return std::unique_ptr<LayerReader>(
      new LayerReader(open_source(std::make_unique<MemorySource>(std::move(bytes)), options)));
}

const LayerInfo& LayerReader::info() const noexcept {
  return impl_->info();
}

namespace {

// Entry `index` of one stream (0 values, 1 depths) through the block cache; nullopt for an index
// out of range or a block that fails to read or decode.
template <typename Get>
auto entry_at(const LayerReader::Impl& impl, std::uint64_t index, int stream, Get get) noexcept
    -> std::optional<decltype(get(std::declval<const LayerReader::Impl::Decoded&>(), 0))> {
  const LayerInfo& info = impl.info();
  if (index >= info.entries)
    return std::nullopt;
  try {
    const auto b = static_cast<std::uint32_t>(index / info.block_entries);
    const auto i = static_cast<std::size_t>(index % info.block_entries);
    return impl.entry(b, stream, [&](const LayerReader::Impl::Decoded& d) { return get(d, i); });
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<std::int8_t> LayerReader::value(std::uint64_t index) const noexcept {
  if (const std::int8_t* v = impl_->published_value(index, true))
    return impl_->public_value(*v);
  const auto v =
      entry_at(*impl_, index, 0, [](const Impl::Decoded& d, std::size_t i) { return d.values[i]; });
  if (!v)
    return std::nullopt;
  return impl_->public_value(*v);
}

void LayerReader::prefetch(std::uint64_t index) const noexcept {
  impl_->prefetch(index);
}

std::optional<std::uint16_t> LayerReader::depth(std::uint64_t index) const noexcept {
  return entry_at(
      *impl_, index, 1, [](const Impl::Decoded& d, std::size_t i) { return d.depth(i); });
}

CacheStats LayerReader::cache_stats() const noexcept {
  CacheStats total;
  for (int c = 0; c < (impl_->split_cache ? 2 : 1); ++c) {
    const Impl::FrameCache& cache = impl_->caches[c];
    for (std::size_t i = 0; i <= cache.shard_mask; ++i) {
      Impl::Shard& shard = cache.shards[i];
      std::lock_guard lock(shard.mutex);
      total.hits += shard.stats.hits + shard.pinned_hits.load(std::memory_order_relaxed);
      total.misses += shard.stats.misses;
      total.cached += shard.stats.cached;
    }
    if (cache.stripes) {
      for (std::size_t i = 0; i < Impl::kStripes; ++i)
        total.hits += cache.stripes[i].hits.load(std::memory_order_relaxed);
    }
  }
  return total;
}

void LayerReader::read_all(std::span<std::int8_t> values, std::span<std::uint16_t> depths) const {
  const LayerInfo& info = impl_->info();
  const std::string& name = impl_->src->name();
  if (!values.empty() && values.size() != info.entries) {
    fail(Code::kInvalidArgument,
         name,
         "read_all: values has " + count_text(values.size(), "entry", "entries") + ", the layer " +
             std::to_string(info.entries));
  }
  if (!depths.empty() && depths.size() != info.entries) {
    fail(Code::kInvalidArgument,
         name,
         "read_all: depths has " + count_text(depths.size(), "entry", "entries") + ", the layer " +
             std::to_string(info.entries));
  }
  // Depth codec 1 needs each block's values: decode them into `values`, or a scratch block.
  const bool depths_need_values = info.depth_codec != DepthCodec::kAll && !depths.empty();
  std::vector<std::int8_t> scratch;
  for (std::uint32_t b = 0; b < info.block_count; ++b) {
    const std::size_t first = std::size_t{b} * info.block_entries;
    const std::size_t n = entries_in_block(info, b);
    std::span<std::int8_t> block_values;
    if (!values.empty()) {
      block_values = values.subspan(first, n);
      impl_->decode_values(b, block_values);
    } else if (depths_need_values) {
      scratch.resize(n);
      block_values = scratch;
      impl_->decode_values(b, block_values);
    }
    if (!depths.empty())
      impl_->decode_depths(b, block_values, depths.subspan(first, n));
    if (!values.empty() && info.recompute) {
      for (std::int8_t& v : block_values)
        v = impl_->public_value(v);
    }
  }
}

std::uint32_t LayerReader::block_size(std::uint32_t block) const noexcept {
  return block < impl_->info().block_count ? entries_in_block(impl_->info(), block) : 0;
}

LayerReader::BlockRead LayerReader::read_block(std::uint32_t block,
                                               std::span<std::int8_t> values,
                                               std::span<std::uint16_t> depths) const noexcept {
  BlockRead out;
  const LayerInfo& info = impl_->info();
  const std::size_t n = block_size(block);
  const auto failed = [&](const std::string& why) {
    if (out.error.empty())
      out.error = why;
  };
  if (n == 0 || (!values.empty() && values.size() != n) ||
      (!depths.empty() && depths.size() != n)) {
    failed(impl_->src->name() + ": read_block: block " + std::to_string(block) +
           " does not exist or a span does not match its " + count_text(n, "entry", "entries"));
    return out;
  }
  // Depth codec 1 needs the block's value-table bytes (with the "stored depth" recompute byte
  // still apart from kRecomputeValue): decode them into `values`, or a scratch block.
  const bool need_values =
      !values.empty() || (!depths.empty() && info.depth_codec != DepthCodec::kAll);
  try {
    thread_local std::vector<std::int8_t> scratch;
    std::span<std::int8_t> raw = values;
    if (need_values && raw.empty()) {
      scratch.resize(n);
      raw = scratch;
    }
    if (need_values) {
      try {
        impl_->decode_values(block, raw);
        out.values = true;
      } catch (const std::exception& e) {
        failed(e.what());
      }
    } else {
      out.values = true;
    }
    if (depths.empty()) {
      out.depths = true;
    } else if (out.values) {
      try {
        impl_->decode_depths(block, raw, depths);
        out.depths = true;
      } catch (const std::exception& e) {
        failed(e.what());
      }
    }
    if (out.values && !values.empty() && info.recompute) {
      for (std::int8_t& v : values)
        v = impl_->public_value(v);
    }
    if (values.empty())
      out.values = true;
  } catch (...) {
    failed(impl_->src->name() + ": block " + std::to_string(block) + ": out of memory");
  }
  return out;
}

}  // namespace sowdb
