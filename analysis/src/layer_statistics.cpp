#include "sowdb/analysis/layer_statistics.h"

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sowdb/analysis/refusal.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/gen/endless.h"
#include "sowdb/gen/parallel.h"

namespace sowdb {
namespace {

// Counts over one layer or part of one, merged from the read's concurrent blocks; values are
// offset by 128 in the histogram.
struct Counts {
  std::array<std::uint64_t, 256> histogram{};
  std::uint64_t depth_sum = 0;        // over positions with a non-zero value
  std::vector<std::uint64_t> depths;  // positions with a non-zero value, by depth
  int max_depth = 0;
  std::uint64_t max_depth_index = 0;
  std::uint64_t unreadable = 0;

  void add(const std::int8_t* values, std::uint64_t first, std::span<const std::uint16_t> ds) {
    for (std::size_t j = 0; j < ds.size(); ++j) {
      const std::uint64_t i = first + j;
      const int value = values[i];
      const int depth = ds[j];
      if (value == kUnreadableValue || depth == kUnreadableDepth) {
        ++unreadable;
        continue;
      }
      const int bin = value + 128;  // values -128..127 to bins 0..255
      ++histogram[static_cast<std::size_t>(bin)];
      if (value != 0) {
        depth_sum += static_cast<std::uint64_t>(depth);
        if (depths.size() <= static_cast<std::size_t>(depth))
          depths.resize(static_cast<std::size_t>(depth) + 1);
        ++depths[static_cast<std::size_t>(depth)];
      }
      if (depth > max_depth) {
        max_depth = depth;
        max_depth_index = i;
      }
    }
  }

  // Blocks arrive in any order: the deepest position of the lowest index wins, as in one pass.
  void merge(const Counts& o) {
    for (std::size_t i = 0; i < histogram.size(); ++i)
      histogram[i] += o.histogram[i];
    depth_sum += o.depth_sum;
    if (o.depths.size() > depths.size())
      depths.resize(o.depths.size());
    for (std::size_t d = 0; d < o.depths.size(); ++d)
      depths[d] += o.depths[d];
    if (o.max_depth > max_depth ||
        (o.max_depth == max_depth && o.max_depth_index < max_depth_index)) {
      max_depth = o.max_depth;
      max_depth_index = o.max_depth_index;
    }
    unreadable += o.unreadable;
  }
};

// The statistics of layer n from its counts.
LayerStatistics summarise(const Rules& rules, int n, std::uint64_t size, const Counts& c) {
  LayerStatistics s;
  s.n = n;
  s.positions = size;
  double value_sum = 0;
  for (int v = -n; v <= n; ++v) {
    const int bin = v + 128;
    const std::uint64_t count = c.histogram[static_cast<std::size_t>(bin)];
    (v > 0 ? s.wins : v < 0 ? s.losses : s.draws) += count;
    value_sum += static_cast<double>(v) * static_cast<double>(count);
    if (count)
      s.values[v] = count;
  }
  const std::uint64_t decided = s.wins + s.losses;
  s.mean_value = value_sum / static_cast<double>(size);
  s.mean_depth_decided =
      decided ? static_cast<double>(c.depth_sum) / static_cast<double>(decided) : 0.0;
  s.max_depth = c.max_depth;
  unrank(c.max_depth_index, n, std::span(s.max_depth_position.data(), rules.board_pits()));
  s.depths = c.depths;
  s.unreadable = c.unreadable;
  return s;
}

// layer_statistics on the calling thread's arena.
void competitive_statistics(const TableSet& tables,
                            int last,
                            const std::function<void(const LayerStatistics&)>& on_layer) {
  const Rules& rules = tables.engine();
  const int k = rules.board_pits();
  // Each layer is read whole (TableSet::read_layer) and kept for the recompute entries of the
  // layers above, up to the layers the last one's moves cannot reach.
  std::vector<std::vector<std::int8_t>> held(static_cast<std::size_t>(last) + 1);
  std::vector<std::vector<std::uint64_t>> masks(held.size());
  for (int n = 0; n <= last; ++n) {
    const std::uint64_t size = layer_size(k, n);
    if (n == last) {
      for (int m = std::max(0, n - rules.min_gain() + 1); m < n; ++m) {
        std::vector<std::int8_t>().swap(held[static_cast<std::size_t>(m)]);
        std::vector<std::uint64_t>().swap(masks[static_cast<std::size_t>(m)]);
      }
    }
    std::vector<LayerValues> below;
    below.reserve(static_cast<std::size_t>(n));
    for (int m = 0; m < n; ++m)
      below.push_back({held[static_cast<std::size_t>(m)], masks[static_cast<std::size_t>(m)]});
    std::vector<std::int8_t> values(size);
    Counts counts;
    std::mutex mutex;
    ReadLayerOptions read;
    read.executor = gen::tbb_executor();
    // Values and depths as the probe library answers them, recompute entries resolved as any
    // user would see them.
    read.depths = [&](std::uint64_t first, std::span<const std::uint16_t> depths) {
      Counts block;
      block.add(values.data(), first, depths);
      std::lock_guard lock(mutex);
      counts.merge(block);
    };
    (void)tables.read_layer(n, below, values, &masks[static_cast<std::size_t>(n)], read);
    // Draws decided by endless play, on layers whose graph of draws fits comfortably
    // (count_endless_draws needs about 5 bytes per draw and 4 per move between draws).
    std::optional<std::uint64_t> endless;
    if (!counts.unreadable && size <= kMaxEndlessLayer)
      endless = gen::count_endless_draws(rules, n, values, gen::tbb_executor());
    if (n < last)
      held[static_cast<std::size_t>(n)] = std::move(values);
    if (counts.unreadable) {
      const std::uint64_t u = counts.unreadable;
      Refusal r(RefusalKind::kCorruptTable,
                "layer " + std::to_string(n) + ": " + std::to_string(u) +
                    (u == 1 ? " position" : " positions") +
                    " could not be read: " + tables.layer_error(n));
      r.layer = n;
      throw Refused(std::move(r));
    }
    LayerStatistics s = summarise(rules, n, size, counts);
    s.endless_draws = endless;
    on_layer(s);
  }
}

}  // namespace

void layer_statistics(const TableSet& tables,
                      int last,
                      const std::function<void(const LayerStatistics&)>& on_layer,
                      int threads) {
  gen::run_with_threads(threads, [&] { competitive_statistics(tables, last, on_layer); });
}

void cooperative_layer_statistics(
    const TableSet& tables,
    int last,
    const std::function<void(const CooperativeLayerStatistics&)>& on_layer) {
  for (int n = 0; n <= last; ++n) {
    const auto path = tables.directory() / layer_file_name(n);
    std::unique_ptr<LayerReader> reader;
    std::vector<std::uint32_t> symbols;
    try {
      OpenOptions open;
      open.expected_rules = tables.rules();
      open.expected_stones = n;
      reader = LayerReader::open(path, open);
      symbols.resize(reader->info().entries);
      reader->read_all_symbols(symbols);
    } catch (const std::exception& e) {
      Refusal r(RefusalKind::kCorruptTable,
                "layer " + std::to_string(n) + " could not be read: " + e.what());
      r.layer = n;
      throw Refused(std::move(r));
    }
    const LayerInfo& info = reader->info();
    std::vector<std::uint64_t> per_symbol(info.set_count, 0);
    for (const std::uint32_t s : symbols)
      ++per_symbol[s];
    CooperativeLayerStatistics s;
    s.n = n;
    s.positions = info.entries;
    s.distinct_sets = info.set_count;
    s.bytes_on_disk = info.file_size;
    double differences = 0;
    for (std::uint32_t i = 0; i < info.set_count; ++i) {
      const auto set = reader->set(i);
      // Bit n + d holds difference d: bit n is a balanced end from empty stores.
      if ((set[static_cast<std::size_t>(n / 64)] >> (n % 64)) & 1)
        s.balanced += per_symbol[i];
      int size = 0;
      for (const std::uint64_t w : set)
        size += std::popcount(w);
      differences += static_cast<double>(size) * static_cast<double>(per_symbol[i]);
    }
    const double total = static_cast<double>(info.entries);
    s.balanced_share = static_cast<double>(s.balanced) / total;
    s.mean_reachable = differences / total;
    on_layer(s);
  }
}

}  // namespace sowdb
