// A LayerReader's state and its decoding of frames through the frame caches (FORMAT.md,
// "Reader checks"): the header, the seek table or the version 6 layer, the caches, and the
// lookups of one entry that LayerReader's calls build on (table_reader.cpp). Not installed.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "block_codec.h"
#include "byte_source.h"
#include "frame_cache.h"
#include "header.h"
#include "seek_table.h"
#include "sowdb/format/table_file.h"
#include "table_common.h"
#include "v6_reader.h"

namespace sowdb::table_internal {

// LayerReader::Impl is this. Thread safe once opened: the caches lock (or publish) themselves,
// and decoding uses buffers of the calling thread.
struct ReaderCore {
  std::unique_ptr<Source> src;
  ParsedHeader header;
  std::vector<SeekEntry> seek;
  OpenOptions options;
  // caches[0] holds both streams' frames, unless OpenOptions::depth_cache_blocks gave the depth
  // frames a cache of their own, caches[1].
  mutable FrameCache caches[2];
  bool split_cache = false;
  // A version 6 file ("Version 6"): its blocks decoded whole into the frame caches, or, for a
  // stream whose cache holds no frame, each lookup decoded on its own (single-entry walks,
  // cheaper than a whole block when nothing is kept).
  std::unique_ptr<V6Layer> v6;
  bool v6_cached[2] = {false, false};  // per stream: whether its cache holds any frame

  const LayerInfo& info() const { return header.info; }

  // After `options` is set.
  void make_caches() {
    const std::uint64_t blocks = info().block_count;
    split_cache = options.depth_cache_blocks.has_value() || options.depth_cache_bytes.has_value();
    // Bytes become frames at the size of a full block: the last, shorter block is counted as
    // full, so the memory stays within the budget.
    const std::size_t entries = std::max<std::size_t>(1, info().block_entries);
    const auto frames = [&](std::optional<std::size_t> bytes,
                            std::size_t bytes_per_entry,
                            std::size_t blocks_if_unset) {
      return bytes ? *bytes / (entries * bytes_per_entry) : blocks_if_unset;
    };
    if (split_cache) {
      const std::size_t value_frames = frames(options.cache_bytes, 1, options.cache_blocks);
      const std::size_t depth_frames =
          frames(options.depth_cache_bytes, 2, options.depth_cache_blocks.value_or(0));
      caches[0].make(value_frames, blocks, 2 * blocks);
      caches[1].make(depth_frames, blocks, 2 * blocks);
      v6_cached[0] = value_frames > 0;
      v6_cached[1] = depth_frames > 0;
    } else {
      const std::size_t shared = frames(options.cache_bytes, 2, options.cache_blocks);
      caches[0].make(shared, 2 * blocks, 2 * blocks);
      v6_cached[0] = v6_cached[1] = shared > 0;
    }
  }
  FrameCache& cache_of(std::uint64_t key) const { return caches[split_cache ? key & 1 : 0]; }

  // "Recompute entries": decoded blocks hold value-table bytes, in which the "recompute, stored
  // depth" byte 127 is kept apart from kRecomputeValue until the depths are decoded. This maps
  // a table byte to what value() returns.
  std::int8_t public_value(std::int8_t byte) const {
    return byte == kStoredRecomputeByte && info().recompute &&
                   info().stones <= kMaxStonesWithStoredRecompute
               ? kRecomputeValue
               : byte;
  }

  std::string frame_name(std::uint32_t b, int stream) const {
    return src->name() + ": block " + std::to_string(b) + (stream == 0 ? " values" : " depths");
  }

  // Checks 16 and 17: reads block `b`'s frame of `stream` and checks its hash. The bytes live
  // in a buffer of the calling thread, valid until its next read_frame: a vector per frame cost
  // a large malloc per decoded block, which random lookups (the server, the start search) pay
  // on nearly every miss.
  std::span<const std::byte> read_frame(std::uint32_t b, int stream) const {
    const SeekEntry& e = seek[b];
    const std::uint64_t offset = stream == 0 ? e.offset : e.offset + e.value_size;
    const std::uint32_t size = stream == 0 ? e.value_size : e.depth_size;
    thread_local std::vector<std::byte> buffer;
    if (buffer.size() < size)
      buffer.resize(size);
    const std::span<std::byte> frame(buffer.data(), size);
    src->read(offset, frame);  // check 16
    if (options.verify_checksums && hash32(frame) != (stream == 0 ? e.value_hash : e.depth_hash))
      fail_check(Code::kChecksum, frame_name(b, stream), 17, "frame checksum mismatch");
    return frame;
  }

  bool cooperative() const { return info().objective == Objective::kCooperative; }
  int symbol_width() const { return set_symbol_width(info().set_count); }

  // (Co-operative) checks 16..20 on block `b`'s value frame, and 16..19 on its (empty) depth
  // frame when `depths`: its symbols' byte planes into `out`, entries * symbol_width() bytes.
  void decode_sets(std::uint32_t b, std::span<std::int8_t> out, bool depths) const {
    decode_set_frame(
        read_frame(b, 0), info().set_count, entries_in_block(info(), b), out, frame_name(b, 0));
    if (depths)
      check_empty_depth_frame(read_frame(b, 1), frame_name(b, 1));
  }

  // Checks 16..20 on block `b`'s value frame: its value-table bytes into `out`.
  void decode_values(std::uint32_t b, std::span<std::int8_t> out) const {
    decode_value_frame(read_frame(b, 0), info().value_table, out, frame_name(b, 0));
  }

  // Checks 16..19 and 21 on block `b`'s depth frame of `entries` entries. `values` are the
  // block's value-table bytes (depth codec 1: they say how many depths the frame holds).
  DepthFrame depth_frame(std::uint32_t b,
                         std::span<const std::int8_t> values,
                         std::size_t entries) const {
    DepthFrame f;
    depth_frame(b, values, entries, f);
    return f;
  }

  // The same into `f`, whose buffers are reused.
  void depth_frame(std::uint32_t b,
                   std::span<const std::int8_t> values,
                   std::size_t entries,
                   DepthFrame& f) const {
    decode_depth_frame(read_frame(b, 1),
                       values,
                       entries,
                       info().depth_codec,
                       info().recompute,
                       frame_name(b, 1),
                       f);
  }

  // Block `b`'s depths into `out` (read_all). `values` as for depth_frame.
  void decode_depths(std::uint32_t b,
                     std::span<const std::int8_t> values,
                     std::span<std::uint16_t> out) const {
    expand_depths(depth_frame(b, values, out.size()), values, info().depth_codec, out);
  }

  // The values of block `b` a depth decode needs: none for depth codec 0.
  std::shared_ptr<const Decoded> values_for_depths(std::uint32_t b) const {
    if (info().depth_codec == DepthCodec::kAll)
      return std::make_shared<Decoded>();
    return block(b, 0);
  }

  // (Version 6) Decodes block `b`'s stream whole into `d` (checks 16, 25 and 26, the group
  // hash checked once here: a cached frame is not checked again). The depths are held as a
  // depth codec 0 frame (every entry's depth, low bytes then high bytes), so that a hit reads
  // them as it reads an older file's. The depth stream's walk needs the value block's symbols:
  // a depth frame decodes both streams and keeps the depths.
  void decode_v6(std::uint32_t b, int stream, std::uint32_t n, Decoded& d) const {
    if (stream == 0) {
      d.values.resize(n);
      v6->decode_block(*src, b, d.values, {}, options.verify_checksums);
      return;
    }
    decode_v6_block(b, n, {}, d);
  }

  // (Version 6) Block `b` (`n` entries) whole: its value-table bytes into `values` (empty: not
  // kept) and its depths into the depth frame `d`.
  void decode_v6_block(std::uint32_t b,
                       std::uint32_t n,
                       std::span<std::int8_t> values,
                       Decoded& d) const {
    thread_local std::vector<std::uint16_t> depths;
    depths.resize(n);
    v6->decode_block(*src, b, values, depths, options.verify_checksums);
    DepthFrame& f = d.depths;
    f.stored = n;
    f.planes.resize(2 * std::size_t{n} + 1);
    for (std::size_t i = 0; i < n; ++i) {
      f.planes[i] = static_cast<std::uint8_t>(depths[i]);
      f.planes[n + i] = static_cast<std::uint8_t>(depths[i] >> 8);
    }
    f.planes[2 * std::size_t{n}] = 0;
    f.before.clear();
    d.block_values.reset();
  }

  // Decodes block `b`'s stream (0 values, 1 depths), outside the cache's lock, and caches it.
  std::shared_ptr<const Decoded> decode_and_cache(std::uint32_t b, int stream) const {
    const std::uint64_t key = FrameCache::key(b, stream);
    std::shared_ptr<Decoded> decoded = cache_of(key).take_spare(key);
    const std::uint32_t n = entries_in_block(info(), b);
    if (v6) {
      decode_v6(b, stream, n, *decoded);
    } else if (stream == 0 && cooperative()) {
      decoded->values.resize(std::size_t{n} * static_cast<std::size_t>(symbol_width()));
      decode_sets(b, decoded->values, false);
    } else if (stream == 0) {
      decoded->values.resize(n);
      decode_values(b, decoded->values);
    } else {
      decoded->block_values = values_for_depths(b);
      depth_frame(b, decoded->block_values->values, n, decoded->depths);
      if (info().depth_codec == DepthCodec::kAll)
        decoded->block_values.reset();
    }
    return cache_of(key).insert(key, std::move(decoded));
  }

  std::shared_ptr<const Decoded> block(std::uint32_t b, int stream) const {
    const std::uint64_t key = FrameCache::key(b, stream);
    FrameCache& cache = cache_of(key);
    if (cache.keeps_all()) {
      // A published frame lives as long as the reader: a pointer that owns nothing will do.
      if (const Decoded* d = cache.find_published(key))
        return std::shared_ptr<const Decoded>(std::shared_ptr<const Decoded>(), d);
    } else if (auto d = cache.find(key)) {
      return d;
    }
    return decode_and_cache(b, stream);
  }

  // The entry `index` in the published value frame that holds it, or null (no such index, a
  // cache that does not keep every frame, or a frame not decoded yet). Counts a hit if `count`.
  const std::int8_t* published_value(std::uint64_t index, bool count) const noexcept {
    const LayerInfo& i = info();
    if (index >= i.entries)
      return nullptr;
    const std::uint64_t key =
        FrameCache::key(static_cast<std::uint32_t>(index / i.block_entries), 0);
    const FrameCache& cache = cache_of(key);
    if (!cache.keeps_all())
      return nullptr;
    const std::int8_t* v = cache.published_values(key, count);
    return v ? v + index % i.block_entries : nullptr;
  }

  // See LayerReader::prefetch: no decoding, no count.
  void prefetch(std::uint64_t index) const noexcept {
    if (const std::int8_t* v = published_value(index, false))
      __builtin_prefetch(v);
  }

  // `read` of block `b`'s cached frame of `stream` (a hit), or nullopt (not counted) when the
  // cache does not hold it: nothing is decoded.
  template <typename Read>
  auto kept_entry(std::uint32_t b, int stream, Read&& read) const
      -> std::optional<decltype(read(std::declval<const Decoded&>()))> {
    const std::uint64_t key = FrameCache::key(b, stream);
    FrameCache& cache = cache_of(key);
    if (cache.keeps_all()) {
      if (const Decoded* d = cache.find_published(key))
        return read(*d);
      return std::nullopt;
    }
    return cache.read_cached(key, read);
  }

  // (Version 6, both streams cached) the value-table byte and the depth of entry `i` of block
  // `b`, from the kept frames; when the depth frame is missing, one decode of the block's two
  // streams gives both frames (decoding the value frame, then the depth frame, would walk the
  // value block and hash its group twice), and the cache keeps both. Throws TableError.
  std::pair<std::int8_t, std::uint16_t> v6_value_and_depth(std::uint32_t b, std::size_t i) const {
    const auto value = kept_entry(b, 0, [i](const Decoded& d) { return d.values[i]; });
    const auto depth = kept_entry(b, 1, [i](const Decoded& d) { return d.depth(i); });
    if (value && depth)
      return {*value, *depth};
    if (depth)
      return {decode_and_cache(b, 0)->values[i], *depth};
    const std::uint64_t vk = FrameCache::key(b, 0);
    const std::uint64_t dk = FrameCache::key(b, 1);
    const std::uint32_t n = entries_in_block(info(), b);
    // The value frame is kept too unless the cache holds it already.
    std::shared_ptr<Decoded> values = value ? nullptr : cache_of(vk).take_spare(vk);
    std::shared_ptr<Decoded> depths = cache_of(dk).take_spare(dk);
    if (values)
      values->values.resize(n);
    decode_v6_block(
        b, n, values ? std::span<std::int8_t>(values->values) : std::span<std::int8_t>(), *depths);
    const std::uint16_t d = cache_of(dk).insert(dk, std::move(depths))->depth(i);
    if (value)
      return {*value, d};
    return {cache_of(vk).insert(vk, std::move(values))->values[i], d};
  }

  // Entry `i` of block `b`'s stream, read from the cached frame under the shard's lock (no
  // reference count traffic on a hit), else decoded and cached.
  template <typename Read>
  auto entry(std::uint32_t b, int stream, Read&& read) const {
    const std::uint64_t key = FrameCache::key(b, stream);
    FrameCache& cache = cache_of(key);
    if (cache.keeps_all()) {
      if (const Decoded* d = cache.find_published(key))
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
        cache.count_kept_hit(key);
      }
      return read(*last.frame);
    }
    if (auto hit = cache.read_cached(key, read))
      return *hit;
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

}  // namespace sowdb::table_internal
