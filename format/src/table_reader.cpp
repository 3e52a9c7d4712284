// The table file reader: LayerReader (FORMAT.md, "Reader checks"; the header's checks are in
// header.cpp, the seek table's in seek_table.cpp, the frames' in block_codec.cpp).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
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

namespace sowdb {

using namespace table_internal;

struct LayerReader::Impl {
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

LayerReader::LayerReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LayerReader::~LayerReader() = default;

namespace {

std::unique_ptr<LayerReader::Impl> open_source(std::unique_ptr<Source> src,
                                               const OpenOptions& options) {
  auto impl = std::make_unique<LayerReader::Impl>();
  impl->header = parse_header(*src, options.verify_checksums);
  const LayerInfo& info = impl->header.info;
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
    check_file_checksum(*src);
  if (info.format_version >= 6)
    impl->v6 = std::make_unique<V6Layer>(*src, info, impl->header.data_start, options.memory_map);
  else
    impl->seek =
        parse_seek_table(*src, info.block_count, impl->header.data_start, impl->header.seek_offset);
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
    -> std::optional<decltype(get(std::declval<const Decoded&>(), 0))> {
  const LayerInfo& info = impl.info();
  if (index >= info.entries)
    return std::nullopt;
  try {
    const auto b = static_cast<std::uint32_t>(index / info.block_entries);
    const auto i = static_cast<std::size_t>(index % info.block_entries);
    return impl.entry(b, stream, [&](const Decoded& d) { return get(d, i); });
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<std::int8_t> LayerReader::value(std::uint64_t index) const noexcept {
  if (impl_->cooperative())
    return std::nullopt;
  if (impl_->v6 && !impl_->v6_cached[0]) {
    if (index >= impl_->info().entries)
      return std::nullopt;
    try {
      return impl_->public_value(
          impl_->v6->value_byte(*impl_->src, index, impl_->options.verify_checksums));
    } catch (...) {
      return std::nullopt;
    }
  }
  if (const std::int8_t* v = impl_->published_value(index, true))
    return impl_->public_value(*v);
  const auto v =
      entry_at(*impl_, index, 0, [](const Decoded& d, std::size_t i) { return d.values[i]; });
  if (!v)
    return std::nullopt;
  return impl_->public_value(*v);
}

void LayerReader::prefetch(std::uint64_t index) const noexcept {
  if (impl_->v6) {
    // A decoded block that the cache keeps for good, else the bytes a decode would read.
    if (const std::int8_t* v = impl_->published_value(index, false))
      __builtin_prefetch(v);
    else if (index < impl_->info().entries)
      impl_->v6->prefetch(0, index);
    return;
  }
  impl_->prefetch(index);
}

std::optional<std::uint16_t> LayerReader::depth(std::uint64_t index) const noexcept {
  if (impl_->cooperative())
    return std::nullopt;
  if (impl_->v6 && !impl_->v6_cached[1]) {
    if (index >= impl_->info().entries)
      return std::nullopt;
    try {
      return impl_->v6->depth(*impl_->src, index, impl_->options.verify_checksums);
    } catch (...) {
      return std::nullopt;
    }
  }
  return entry_at(*impl_, index, 1, [](const Decoded& d, std::size_t i) { return d.depth(i); });
}

std::optional<LayerReader::ValueDepth> LayerReader::value_and_depth(
    std::uint64_t index) const noexcept {
  if (impl_->cooperative())
    return std::nullopt;
  // Unless both streams are cached, one walk of the value block gives both (a cached value alone
  // would save little: the depth walk goes through the value block again).
  if (impl_->v6 && !(impl_->v6_cached[0] && impl_->v6_cached[1])) {
    if (index >= impl_->info().entries)
      return std::nullopt;
    try {
      std::int8_t byte = 0;
      const std::uint16_t d =
          impl_->v6->value_and_depth(*impl_->src, index, impl_->options.verify_checksums, byte);
      return ValueDepth{impl_->public_value(byte), d};
    } catch (...) {
      return std::nullopt;
    }
  }
  if (impl_->v6) {
    const LayerInfo& info = impl_->info();
    if (index >= info.entries)
      return std::nullopt;
    try {
      const auto [byte, d] =
          impl_->v6_value_and_depth(static_cast<std::uint32_t>(index / info.block_entries),
                                    static_cast<std::size_t>(index % info.block_entries));
      return ValueDepth{impl_->public_value(byte), d};
    } catch (...) {
      return std::nullopt;
    }
  }
  const auto v = value(index);
  const auto d = v ? depth(index) : std::nullopt;
  if (!d)
    return std::nullopt;
  return ValueDepth{*v, *d};
}

std::optional<std::uint32_t> LayerReader::set_symbol(std::uint64_t index) const noexcept {
  if (!impl_->cooperative())
    return std::nullopt;
  const int width = impl_->symbol_width();
  return entry_at(*impl_, index, 0, [width](const Decoded& d, std::size_t i) {
    return plane_symbol(
        d.values.data(), d.values.size() / static_cast<std::size_t>(width), width, i);
  });
}

std::span<const std::uint64_t> LayerReader::set(std::uint32_t symbol) const noexcept {
  const LayerInfo& info = impl_->info();
  if (symbol >= info.set_count)
    return {};
  const auto words = static_cast<std::size_t>(reach_set_words(info.stones));
  return std::span(info.set_table).subspan(symbol * words, words);
}

void LayerReader::read_all_symbols(std::span<std::uint32_t> out) const {
  const LayerInfo& info = impl_->info();
  const std::string& name = impl_->src->name();
  if (!impl_->cooperative())
    fail(Code::kInvalidArgument, name, "read_all_symbols: not a co-operative table");
  if (out.size() != info.entries) {
    fail(Code::kInvalidArgument,
         name,
         "read_all_symbols: out has " + count_text(out.size(), "entry", "entries") +
             ", the layer " + std::to_string(info.entries));
  }
  const int width = impl_->symbol_width();
  std::vector<std::int8_t> planes;
  for (std::uint32_t b = 0; b < info.block_count; ++b) {
    const std::size_t first = std::size_t{b} * info.block_entries;
    const std::size_t n = entries_in_block(info, b);
    planes.resize(n * static_cast<std::size_t>(width));
    impl_->decode_sets(b, planes, true);
    for (std::size_t i = 0; i < n; ++i)
      out[first + i] = plane_symbol(planes.data(), n, width, i);
  }
}

void LayerReader::read_all_sets(std::span<std::uint64_t> out) const {
  const LayerInfo& info = impl_->info();
  const auto words = static_cast<std::size_t>(reach_set_words(info.stones));
  if (out.size() != info.entries * words) {
    fail(Code::kInvalidArgument,
         impl_->src->name(),
         "read_all_sets: out has " + count_text(out.size(), "word", "words") +
             ", the layer's sets " + std::to_string(info.entries * words));
  }
  std::vector<std::uint32_t> symbols(info.entries);
  read_all_symbols(symbols);
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    const auto s = set(symbols[i]);
    std::copy(s.begin(), s.end(), out.begin() + static_cast<std::ptrdiff_t>(i * words));
  }
}

CacheStats LayerReader::cache_stats() const noexcept {
  CacheStats total;
  for (int c = 0; c < (impl_->split_cache ? 2 : 1); ++c)
    impl_->caches[c].add_stats(total);
  return total;
}

void LayerReader::read_all(std::span<std::int8_t> values, std::span<std::uint16_t> depths) const {
  const LayerInfo& info = impl_->info();
  const std::string& name = impl_->src->name();
  if (impl_->cooperative()) {
    fail(Code::kInvalidArgument,
         name,
         "read_all: a co-operative table holds reachable sets, not values (read_all_symbols)");
  }
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
  if (impl_->v6) {
    for (std::uint32_t b = 0; b < info.block_count; ++b) {
      const std::size_t first = std::size_t{b} * info.block_entries;
      const std::size_t n = entries_in_block(info, b);
      impl_->v6->decode_block(*impl_->src,
                              b,
                              values.empty() ? values : values.subspan(first, n),
                              depths.empty() ? depths : depths.subspan(first, n),
                              impl_->options.verify_checksums);
      if (!values.empty() && info.recompute) {
        for (std::int8_t& v : values.subspan(first, n))
          v = impl_->public_value(v);
      }
    }
    return;
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
  if (impl_->cooperative()) {
    failed(impl_->src->name() + ": read_block: a co-operative table holds reachable sets");
    return out;
  }
  if (n == 0 || (!values.empty() && values.size() != n) ||
      (!depths.empty() && depths.size() != n)) {
    failed(impl_->src->name() + ": read_block: block " + std::to_string(block) +
           " does not exist or a span does not match its " + count_text(n, "entry", "entries"));
    return out;
  }
  if (impl_->v6) {
    // One decode gives both streams; a failure fails the streams asked for.
    try {
      impl_->v6->decode_block(*impl_->src, block, values, depths, impl_->options.verify_checksums);
      for (std::int8_t& v : values)
        v = impl_->public_value(v);
      out.values = out.depths = true;
    } catch (const std::exception& e) {
      failed(e.what());
      out.values = values.empty();
      out.depths = depths.empty();
    } catch (...) {
      failed(impl_->src->name() + ": block " + std::to_string(block) + ": out of memory");
    }
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
