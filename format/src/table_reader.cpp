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
#include "reader_core.h"
#include "seek_table.h"
#include "sowdb/format/table_file.h"
#include "table_common.h"
#include "v6_reader.h"

namespace sowdb {

using namespace table_internal;

struct LayerReader::Impl : ReaderCore {};

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
