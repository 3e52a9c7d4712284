// TableSet::read_layer: a whole layer in three passes over its blocks and positions, with the
// answers of TableSet::value for every entry.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "sowdb/probe/internal/count_text.h"
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

// Throws std::invalid_argument unless `values` holds layer n of a board of `pits` pits (2P)
// and every non-empty span of `below` holds its layer.
void check_read_arguments(int pits,
                          int n,
                          std::span<const LayerValues> below,
                          std::span<std::int8_t> values) {
  const std::uint64_t size = layer_size(pits, n);
  if (values.size() != size) {
    throw std::invalid_argument(
        "read_layer: values has " + internal::count_text(values.size(), "entry", "entries") +
        ", layer " + std::to_string(n) + " has " + internal::count_text(size, "entry", "entries"));
  }
  for (std::size_t m = 0; m < below.size() && m < static_cast<std::size_t>(n); ++m) {
    const std::uint64_t want = layer_size(pits, static_cast<int>(m));
    if ((!below[m].values.empty() && below[m].values.size() != want) ||
        (!below[m].recompute.empty() && below[m].recompute.size() != (want + 63) / 64)) {
      throw std::invalid_argument("read_layer: below[" + std::to_string(m) +
                                  "] does not match layer " + std::to_string(m) + "'s " +
                                  internal::count_text(want, "entry", "entries"));
    }
  }
}

// One read_layer call, pass by pass: its arguments, the layer's reader and what the passes
// share.
class LayerRead {
 public:
  LayerRead(const TableSet::Impl& set,
            int n,
            std::span<const LayerValues> below,
            std::span<std::int8_t> values,
            const ReadLayerOptions& how)
      : set_(set),
        n_(n),
        below_(below),
        values_(values),
        how_(how),
        size_(values.size()),
        want_depths_(static_cast<bool>(how.depths)),
        total_(size_ * (want_depths_ ? 3 : 2)) {}

  // The whole read: the layer's status (its first failure), the recompute bits into `mask`.
  ProbeStatus run(std::vector<std::uint64_t>& mask) {
    const ProbeStatus opened = set_.reader(n_, r_);
    if (opened != ProbeStatus::kOk) {
      fill_unreadable();
      return opened;
    }
    if (r_->info().recompute)
      mask_.assign((size_ + 63) / 64, 0);
    read_values();
    resolve_recompute();
    if (mask_.empty() || !how_.resolve)
      advance(size_);
    std::sort(no_moves_.begin(), no_moves_.end());
    if (want_depths_)
      read_depths();
    mask = std::move(mask_);
    return failure_.get();
  }

 private:
  void advance(std::uint64_t entries) {
    const std::uint64_t now = done_.fetch_add(entries, std::memory_order_relaxed) + entries;
    if (how_.progress)
      how_.progress(now, total_);
  }

  // A layer that does not open: every value and depth unreadable.
  void fill_unreadable() {
    std::fill(values_.begin(), values_.end(), kUnreadableValue);
    if (want_depths_) {
      const std::vector<std::uint16_t> none(std::min(size_, kRangeEntries), kUnreadableDepth);
      for (std::uint64_t first = 0; first < size_; first += none.size()) {
        how_.depths(first,
                    std::span(none).first(static_cast<std::size_t>(
                        std::min<std::uint64_t>(none.size(), size_ - first))));
      }
    }
    advance(total_);
  }

  void block_failed(std::uint64_t first, const std::string& why) {
    if (why.empty())
      set_.note_read_error(n_, first, "the value");
    else
      set_.note_error(n_, why);
    failure_.note(ProbeStatus::kCorruptTable);
  }

  // Runs `f(b, first, count)` for every block b of the layer in parallel tasks: its first entry
  // and its number of entries.
  template <typename F>
  void for_each_block(F&& f) {
    const LayerInfo& info = r_->info();
    run_tasks(how_.executor, info.block_count, [&](std::size_t task) {
      const auto b = static_cast<std::uint32_t>(task);
      f(b, std::uint64_t{b} * info.block_entries, r_->block_size(b));
    });
  }

  // Pass 1, by block: the stored values, kRecomputeValue for a recompute entry (its bit set),
  // kUnreadableValue (no bit) for the entries of a block that does not read.
  void read_values() {
    for_each_block([&](std::uint32_t b, std::uint64_t first, std::uint32_t count) {
      const std::span<std::int8_t> block = values_.subspan(first, count);
      const LayerReader::BlockRead got = r_->read_block(b, block, {});
      if (!got.values) {
        std::fill(block.begin(), block.end(), kUnreadableValue);
        block_failed(first, got.error);
      } else if (!mask_.empty()) {
        // Blocks need not start on a word: bits are or-ed in, a word at a time.
        std::uint64_t i = first;
        const std::uint64_t last = first + count;
        while (i < last) {
          const std::uint64_t word_end = std::min(last, (i / 64 + 1) * 64);
          std::uint64_t bits = 0;
          for (; i < word_end; ++i)
            bits |= std::uint64_t{values_[i] == kRecomputeValue} << (i % 64);
          if (bits)
            std::atomic_ref<std::uint64_t>(mask_[(i - 1) / 64])
                .fetch_or(bits, std::memory_order_relaxed);
        }
      }
      advance(count);
    });
  }

  // The stored value of entry `index` of `layer` for pass 2: from this layer's values, from
  // `below`, else from the set's files.
  ProbeStatus child(int layer, std::uint64_t index, std::int8_t& byte) const {
    std::span<const std::int8_t> held;
    std::span<const std::uint64_t> bits;
    if (layer == n_) {
      held = values_;
      bits = mask_;
    } else if (static_cast<std::size_t>(layer) < below_.size()) {
      held = below_[static_cast<std::size_t>(layer)].values;
      bits = below_[static_cast<std::size_t>(layer)].recompute;
    }
    if (held.empty()) {
      const LayerReader* child_reader = nullptr;
      return set_.stored_value(layer, index, child_reader, byte);
    }
    if (!bits.empty() && marked(bits, index)) {
      byte = kRecomputeValue;
      return ProbeStatus::kOk;
    }
    byte = held[index];
    if (byte != kUnreadableValue)
      return ProbeStatus::kOk;
    const LayerReader* child_reader = nullptr;
    const ProbeStatus s = set_.reader(layer, child_reader);
    return s != ProbeStatus::kOk ? s : ProbeStatus::kCorruptTable;
  }

  // Pass 2, by range of positions: each recompute entry resolved as `value` resolves it. It
  // writes only recompute entries and reads only stored ones (a recompute child fails), so the
  // tasks never touch an entry another one writes. Notes the recompute entries without a legal
  // move (depth 0) in no_moves_.
  void resolve_recompute() {
    const int pits = set_.rules.pits();
    const bool all_moves = r_->info().all_moves;
    const auto child_of = [this](int layer, std::uint64_t index, std::int8_t& byte) {
      return child(layer, index, byte);
    };
    const std::size_t ranges =
        mask_.empty() || !how_.resolve ? 0 : (size_ + kRangeEntries - 1) / kRangeEntries;
    run_tasks(how_.executor, ranges, [&](std::size_t task) {
      const std::uint64_t first = task * kRangeEntries;
      const std::uint64_t last = std::min(size_, first + kRangeEntries);
      Pits board{};
      const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
      unrank(first, n_, span);
      std::vector<std::uint64_t> ends;
      for (std::uint64_t i = first; i < last; ++i, next_position(span)) {
        if (!marked(mask_, i))
          continue;
        MoveList moves;
        if (set_.engine->legal_moves(board, moves) == 0) {
          values_[i] = static_cast<std::int8_t>(set_.engine->final_value(board));
          if (want_depths_)
            ends.push_back(i);
          continue;
        }
        int v = 0;
        const ProbeStatus s = set_.resolve(moves, n_, i, all_moves, child_of, v);
        if (s != ProbeStatus::kOk) {
          values_[i] = kUnreadableValue;
          failure_.note(s);
        } else {
          values_[i] = static_cast<std::int8_t>(v);
        }
      }
      if (!ends.empty()) {
        std::lock_guard lock(no_moves_mutex_);
        no_moves_.insert(no_moves_.end(), ends.begin(), ends.end());
      }
      advance(last - first);
    });
  }

  // Pass 3, by block: the depths, as `value(position, v, d)` reads or derives them.
  void read_depths() {
    const LayerInfo& info = r_->info();
    for_each_block([&](std::uint32_t b, std::uint64_t first, std::uint32_t count) {
      std::vector<std::int8_t> raw(count);
      std::vector<std::uint16_t> stored(count);
      std::vector<std::uint16_t> out(count);
      const LayerReader::BlockRead got = r_->read_block(b, raw, stored);
      const bool readable = got.values && got.depths;
      std::optional<std::uint64_t> first_unreadable;
      auto end = std::lower_bound(no_moves_.begin(), no_moves_.end(), first);
      for (std::uint32_t j = 0; j < count; ++j) {
        const std::uint64_t i = first + j;
        const std::int8_t byte = values_[i];  // a value, not a character
        const int v = byte;
        std::uint16_t d = kUnreadableDepth;
        if (v == kUnreadableValue) {
          out[j] = kUnreadableDepth;
          continue;  // its failure is noted already
        }
        if (!mask_.empty() && marked(mask_, i)) {
          while (end != no_moves_.end() && *end < i)
            ++end;
          if (end != no_moves_.end() && *end == i) {
            d = 0;
          } else if (!info.all_moves && v >= 0) {
            d = *TableSet::Impl::recompute_depth(kRecomputeDepth,
                                                 v);  // version 3 reads no depth for it
          } else if (readable) {
            d = TableSet::Impl::recompute_depth(stored[j], v).value_or(kUnreadableDepth);
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
          set_.note_read_error(n_, *first_unreadable, "the depth");
        else
          set_.note_error(n_, got.error);
        failure_.note(ProbeStatus::kCorruptTable);
      }
      how_.depths(first, out);
      advance(count);
    });
  }

  const TableSet::Impl& set_;
  const int n_;
  const std::span<const LayerValues> below_;
  const std::span<std::int8_t> values_;
  const ReadLayerOptions& how_;
  const std::uint64_t size_;
  const bool want_depths_;
  const std::uint64_t total_;
  std::atomic<std::uint64_t> done_{0};
  const LayerReader* r_ = nullptr;
  FirstFailure failure_;
  std::vector<std::uint64_t> mask_;      // the recompute bits, when the layer has any
  std::vector<std::uint64_t> no_moves_;  // recompute entries without a legal move: depth 0
  std::mutex no_moves_mutex_;
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
  check_read_arguments(rules.pits(), n, below, values);
  if (!how.resolve && how.depths)
    throw std::invalid_argument("read_layer: depths need the recompute entries resolved");
  if (recompute_out)
    recompute_out->clear();
  std::vector<std::uint64_t> mask;
  const ProbeStatus s = LayerRead(*this, n, below, values, how).run(mask);
  if (recompute_out)
    *recompute_out = std::move(mask);
  return s;
}

ProbeStatus TableSet::read_layer(int stones,
                                 std::span<const LayerValues> below,
                                 std::span<std::int8_t> values,
                                 std::vector<std::uint64_t>* recompute,
                                 const ReadLayerOptions& options) const {
  return impl_->read_layer(stones, below, values, recompute, options);
}

}  // namespace sowdb
