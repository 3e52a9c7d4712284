// TableSet::read_layer: a whole layer in three passes over its blocks and positions, with the
// answers of TableSet::value for every entry.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "count_text.h"
#include "sowdb/probe/internal/layer_walk.h"
#include "table_set_impl.h"

namespace sowdb {
namespace {

// Entries per task of the pass over positions: whole 64-entry words, so that a task owns the
// recompute bits of its range.
constexpr std::uint64_t kRangeEntries = std::uint64_t{1} << 16;

using internal::run_tasks;

using internal::marked;

// The first failure reported by any task of a read.
class FirstFailure {
 public:
  void note(ProbeStatus s) {
    int expected = 0;
    status_.compare_exchange_strong(expected, static_cast<int>(s), std::memory_order_relaxed);
  }
  ProbeStatus get() const { return static_cast<ProbeStatus>(status_.load()); }

 private:
  std::atomic<int> status_{0};  // ProbeStatus::kOk
};

}  // namespace

ProbeStatus TableSet::Impl::read_layer(int n,
                                       std::span<const LayerValues> below,
                                       std::span<std::int8_t> values,
                                       std::vector<std::uint64_t>* recompute_out,
                                       const ReadLayerOptions& how) const {
  if (objective != Objective::kCompetitive)
    return ProbeStatus::kWrongObjective;
  if (n < 0 || n > max_stones)
    return ProbeStatus::kTooManyStones;
  const int pits = rules.pits();
  const std::uint64_t size = layer_size(pits, n);
  if (values.size() != size) {
    throw std::invalid_argument("read_layer: values has " +
                                probe_detail::count_text(values.size(), "entry", "entries") +
                                ", layer " + std::to_string(n) + " has " +
                                probe_detail::count_text(size, "entry", "entries"));
  }
  for (std::size_t m = 0; m < below.size() && m < static_cast<std::size_t>(n); ++m) {
    const std::uint64_t want = layer_size(pits, static_cast<int>(m));
    if ((!below[m].values.empty() && below[m].values.size() != want) ||
        (!below[m].recompute.empty() && below[m].recompute.size() != (want + 63) / 64)) {
      throw std::invalid_argument("read_layer: below[" + std::to_string(m) +
                                  "] does not match layer " + std::to_string(m) + "'s " +
                                  probe_detail::count_text(want, "entry", "entries"));
    }
  }
  if (!how.resolve && how.depths)
    throw std::invalid_argument("read_layer: depths need the recompute entries resolved");
  if (recompute_out)
    recompute_out->clear();
  const bool want_depths = static_cast<bool>(how.depths);
  const std::uint64_t total = size * (want_depths ? 3 : 2);
  std::atomic<std::uint64_t> done{0};
  const auto advance = [&](std::uint64_t entries) {
    const std::uint64_t now = done.fetch_add(entries, std::memory_order_relaxed) + entries;
    if (how.progress)
      how.progress(now, total);
  };

  const LayerReader* r = nullptr;
  const ProbeStatus opened = reader(n, r);
  if (opened != ProbeStatus::kOk) {
    std::fill(values.begin(), values.end(), kUnreadableValue);
    if (want_depths) {
      const std::vector<std::uint16_t> none(std::min(size, kRangeEntries), kUnreadableDepth);
      for (std::uint64_t first = 0; first < size; first += none.size()) {
        how.depths(first,
                   std::span(none).first(static_cast<std::size_t>(
                       std::min<std::uint64_t>(none.size(), size - first))));
      }
    }
    advance(total);
    return opened;
  }
  const LayerInfo& info = r->info();
  FirstFailure failure;
  const auto block_failed = [&](std::uint64_t first, const std::string& why) {
    if (why.empty())
      note_read_error(n, first, "the value");
    else
      note_error(n, why);
    failure.note(ProbeStatus::kCorruptTable);
  };

  // Pass 1, by block: the stored values, kRecomputeValue for a recompute entry (its bit set),
  // kUnreadableValue (no bit) for the entries of a block that does not read.
  std::vector<std::uint64_t> mask;
  if (info.recompute)
    mask.assign((size + 63) / 64, 0);
  run_tasks(how.executor, info.block_count, [&](std::size_t task) {
    const auto b = static_cast<std::uint32_t>(task);
    const std::uint64_t first = std::uint64_t{b} * info.block_entries;
    const std::uint32_t count = r->block_size(b);
    const std::span<std::int8_t> block = values.subspan(first, count);
    const LayerReader::BlockRead got = r->read_block(b, block, {});
    if (!got.values) {
      std::fill(block.begin(), block.end(), kUnreadableValue);
      block_failed(first, got.error);
    } else if (!mask.empty()) {
      // Blocks need not start on a word: bits are or-ed in, a word at a time.
      std::uint64_t i = first;
      const std::uint64_t last = first + count;
      while (i < last) {
        const std::uint64_t word_end = std::min(last, (i / 64 + 1) * 64);
        std::uint64_t bits = 0;
        for (; i < word_end; ++i)
          bits |= std::uint64_t{values[i] == kRecomputeValue} << (i % 64);
        if (bits)
          std::atomic_ref<std::uint64_t>(mask[(i - 1) / 64])
              .fetch_or(bits, std::memory_order_relaxed);
      }
    }
    advance(count);
  });

  // Pass 2, by range of positions: each recompute entry resolved as `value` resolves it. It
  // writes only recompute entries and reads only stored ones (a recompute child fails), so the
  // tasks never touch an entry another one writes.
  std::vector<std::uint64_t> no_moves;  // recompute entries without a legal move: depth 0
  std::mutex no_moves_mutex;
  const auto child = [&](int layer, std::uint64_t index, std::int8_t& byte) -> ProbeStatus {
    std::span<const std::int8_t> held;
    std::span<const std::uint64_t> bits;
    if (layer == n) {
      held = values;
      bits = mask;
    } else if (static_cast<std::size_t>(layer) < below.size()) {
      held = below[static_cast<std::size_t>(layer)].values;
      bits = below[static_cast<std::size_t>(layer)].recompute;
    }
    if (held.empty()) {
      const LayerReader* child_reader = nullptr;
      return stored_value(layer, index, child_reader, byte);
    }
    if (!bits.empty() && marked(bits, index)) {
      byte = kRecomputeValue;
      return ProbeStatus::kOk;
    }
    byte = held[index];
    if (byte != kUnreadableValue)
      return ProbeStatus::kOk;
    const LayerReader* child_reader = nullptr;
    const ProbeStatus s = reader(layer, child_reader);
    return s != ProbeStatus::kOk ? s : ProbeStatus::kCorruptTable;
  };
  const std::size_t ranges =
      mask.empty() || !how.resolve ? 0 : (size + kRangeEntries - 1) / kRangeEntries;
  run_tasks(how.executor, ranges, [&](std::size_t task) {
    const std::uint64_t first = task * kRangeEntries;
    const std::uint64_t last = std::min(size, first + kRangeEntries);
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
    unrank(first, n, span);
    std::vector<std::uint64_t> ends;
    for (std::uint64_t i = first; i < last; ++i, next_position(span)) {
      if (!marked(mask, i))
        continue;
      MoveList moves;
      if (engine->legal_moves(board, moves) == 0) {
        values[i] = static_cast<std::int8_t>(engine->final_value(board));
        if (want_depths)
          ends.push_back(i);
        continue;
      }
      int v = 0;
      const ProbeStatus s = resolve(moves, n, i, info.all_moves, child, v);
      if (s != ProbeStatus::kOk) {
        values[i] = kUnreadableValue;
        failure.note(s);
      } else {
        values[i] = static_cast<std::int8_t>(v);
      }
    }
    if (!ends.empty()) {
      std::lock_guard lock(no_moves_mutex);
      no_moves.insert(no_moves.end(), ends.begin(), ends.end());
    }
    advance(last - first);
  });
  if (ranges == 0)
    advance(size);
  std::sort(no_moves.begin(), no_moves.end());

  // Pass 3, by block: the depths, as `value(position, v, d)` reads or derives them.
  if (want_depths) {
    run_tasks(how.executor, info.block_count, [&](std::size_t task) {
      const auto b = static_cast<std::uint32_t>(task);
      const std::uint64_t first = std::uint64_t{b} * info.block_entries;
      const std::uint32_t count = r->block_size(b);
      std::vector<std::int8_t> raw(count);
      std::vector<std::uint16_t> stored(count);
      std::vector<std::uint16_t> out(count);
      const LayerReader::BlockRead got = r->read_block(b, raw, stored);
      const bool readable = got.values && got.depths;
      std::optional<std::uint64_t> first_unreadable;
      auto end = std::lower_bound(no_moves.begin(), no_moves.end(), first);
      for (std::uint32_t j = 0; j < count; ++j) {
        const std::uint64_t i = first + j;
        const std::int8_t byte = values[i];  // a value, not a character
        const int v = byte;
        std::uint16_t d = kUnreadableDepth;
        if (v == kUnreadableValue) {
          out[j] = kUnreadableDepth;
          continue;  // its failure is noted already
        }
        if (!mask.empty() && marked(mask, i)) {
          while (end != no_moves.end() && *end < i)
            ++end;
          if (end != no_moves.end() && *end == i) {
            d = 0;
          } else if (!info.all_moves && v >= 0) {
            d = *recompute_depth(kRecomputeDepth, v);  // version 3 reads no depth for it
          } else if (readable) {
            d = recompute_depth(stored[j], v).value_or(kUnreadableDepth);
          }
        } else if (readable) {
          d = stored[j];
        }
        out[j] = d;
        if (d == kUnreadableDepth && !first_unreadable)
          first_unreadable = i;
      }
      if (first_unreadable) {
        if (got.error.empty())
          note_read_error(n, *first_unreadable, "the depth");
        else
          note_error(n, got.error);
        failure.note(ProbeStatus::kCorruptTable);
      }
      how.depths(first, out);
      advance(count);
    });
  }
  if (recompute_out)
    *recompute_out = std::move(mask);
  return failure.get();
}

ProbeStatus TableSet::read_layer(int stones,
                                 std::span<const LayerValues> below,
                                 std::span<std::int8_t> values,
                                 std::vector<std::uint64_t>* recompute,
                                 const ReadLayerOptions& options) const {
  return impl_->read_layer(stones, below, values, recompute, options);
}

}  // namespace sowdb
