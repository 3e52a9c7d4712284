#include "sowdb/verify/verify.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <span>

#include "sowdb/format/index.h"
#include "sowdb/probe/internal/board_text.h"
#include "sowdb/probe/internal/layer_walk.h"

namespace sowdb {
namespace {

constexpr std::int8_t kUnreadable = kUnreadableValue;

struct Tally {
  std::atomic<std::uint64_t> bad_values{0};
  std::atomic<std::uint64_t> bad_depths{0};
  std::atomic<std::uint64_t> unreadable{0};
  std::mutex mutex;
  std::vector<std::string> examples;

  void note(std::string text) {
    std::lock_guard lock(mutex);
    if (examples.size() < 5)
      examples.push_back(std::move(text));
  }
};

}  // namespace

Verifier::Verifier(const TableSet& tables, std::optional<int> last, Executor run)
    : tables_(tables), last_(last), run_(std::move(run)) {}

void Verifier::report(int stones, const char* phase, std::uint64_t done, std::uint64_t total) {
  if (!progress_)
    return;
  const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  if (fraction >= 1.0) {
    const std::lock_guard lock(progress_mutex_);
    progress_(stones, phase, 1.0);
    return;
  }
  const std::unique_lock lock(progress_mutex_, std::try_to_lock);
  if (lock.owns_lock())
    progress_(stones, phase, fraction);
}

void Verifier::load(int n, LayerDepths* depths) {
  const int pits = tables_.rules().pits();
  std::vector<std::int8_t> values(layer_size(pits, n));
  std::vector<LayerValues> below(static_cast<std::size_t>(n));
  for (int m = 0; m < n && static_cast<std::size_t>(m) < values_.size(); ++m)
    below[static_cast<std::size_t>(m)] = {values_[static_cast<std::size_t>(m)],
                                          masks_[static_cast<std::size_t>(m)]};
  ReadLayerOptions read;
  read.executor = run_;
  read.progress = [&](std::uint64_t done, std::uint64_t total) {
    report(n, "read", done, total + 1);
  };
  std::mutex mutex;
  if (depths) {
    depths->depth.assign(values.size(), 0);
    depths->overflow.clear();
    // A depth in a byte, 255 sending the lookup to the sorted overflow list: 1 byte a position
    // instead of 2, which is what lets the largest layer be checked in the memory it was built in.
    read.depths = [&](std::uint64_t first, std::span<const std::uint16_t> block) {
      std::vector<std::pair<std::uint64_t, std::uint16_t>> big;
      for (std::size_t j = 0; j < block.size(); ++j) {
        const std::uint16_t d = block[j];
        depths->depth[first + j] = static_cast<std::uint8_t>(std::min<int>(d, kDepthInList));
        if (d >= kDepthInList)
          big.emplace_back(first + j, d);
      }
      if (!big.empty()) {
        std::lock_guard lock(mutex);
        depths->overflow.insert(depths->overflow.end(), big.begin(), big.end());
      }
    };
  }
  std::vector<std::uint64_t> mask;
  // Entries that do not read are counted by the check; the status adds nothing to that.
  (void)tables_.read_layer(n, below, values, &mask, read);
  report(n, "read", 1, 1);
  if (depths)
    std::sort(depths->overflow.begin(), depths->overflow.end());
  if (values_.size() <= static_cast<std::size_t>(n)) {
    values_.resize(static_cast<std::size_t>(n) + 1);
    masks_.resize(static_cast<std::size_t>(n) + 1);
  }
  values_[static_cast<std::size_t>(n)] = std::move(values);
  masks_[static_cast<std::size_t>(n)] = std::move(mask);
}

std::uint16_t Verifier::LayerDepths::at(std::uint64_t i) const {
  if (depth[i] < kDepthInList)
    return depth[i];
  const auto it = std::lower_bound(
      overflow.begin(), overflow.end(), std::pair<std::uint64_t, std::uint16_t>(i, 0));
  return it->second;
}

void Verifier::release(int stones) {
  if (static_cast<std::size_t>(stones) < values_.size()) {
    std::vector<std::int8_t>().swap(values_[static_cast<std::size_t>(stones)]);
    std::vector<std::uint64_t>().swap(masks_[static_cast<std::size_t>(stones)]);
  }
}

VerifyReport Verifier::verify(int stones) {
  const Rules& rules = tables_.engine();
  const int pits = rules.board_pits();
  // Layer `stones` moves into itself and into layers 0..stones - min_gain; when no later check
  // follows, the layers in between are let go before this one is read.
  const int reach = stones - rules.min_gain();
  if (last_ && stones >= *last_) {
    for (int m = std::max(0, reach + 1); m < stones; ++m)
      release(m);
  }
  for (int m = 0; m <= reach; ++m) {
    if (values_.size() <= static_cast<std::size_t>(m) ||
        values_[static_cast<std::size_t>(m)].empty())
      load(m, nullptr);
  }
  LayerDepths layer;
  load(stones, &layer);
  const std::vector<std::uint8_t>& depths = layer.depth;
  // An entry whose depth does not read, as TableSet::moves reads the depth of a move that
  // gains nothing.
  const auto depth_unreadable = [&layer](std::uint64_t i) {
    return layer.at(i) == kUnreadableDepth;
  };
  VerifyReport report;
  report.stones = stones;
  report.positions = layer_size(pits, stones);
  Tally tally;
  const std::int8_t* layer_values[kMaxIndexedStones + 1] = {};
  for (int m = 0; m <= stones; ++m)
    layer_values[m] = values_[static_cast<std::size_t>(m)].data();
  const std::span<const std::int8_t> own(layer_values[stones], report.positions);
  std::atomic<std::uint64_t> checked{0};
  internal::for_each_range(
      rules,
      stones,
      run_,
      [&](std::uint64_t first,
          std::uint64_t last,
          const Pits& board,
          std::span<std::uint8_t> span) {
        // Positions go in groups: first every move and where its child's entry is, prefetching
        // those entries, then the checks, so that the cache misses overlap.
        constexpr int kGroup = 16;
        struct Child {
          const std::int8_t* value;
          std::uint64_t index;  // in this layer, for the depth
        };
        std::array<Pits, kGroup> boards;
        std::array<MoveList, kGroup> moves;
        std::array<std::array<Child, kMaxPitsPerSide>, kGroup> children;
        for (std::uint64_t start = first; start < last; start += kGroup) {
          const int count = static_cast<int>(std::min<std::uint64_t>(kGroup, last - start));
          for (int g = 0; g < count; ++g) {
            boards[g] = board;
            rules.legal_moves(board, moves[g]);
            int j = 0;
            for (const Move& m : moves[g]) {
              const std::uint64_t child = rank(
                  std::span<const std::uint8_t>(m.child.data(), static_cast<std::size_t>(pits)));
              const std::int8_t* v = layer_values[stones - m.gain()] + child;
              __builtin_prefetch(v);
              if (m.gain() == 0)
                __builtin_prefetch(&depths[child]);
              children[g][j++] = {v, child};
            }
            next_position(span);
          }
          for (int g = 0; g < count; ++g) {
            const std::uint64_t i = start + static_cast<std::uint64_t>(g);
            const Pits& b = boards[g];
            bool readable = own[i] != kUnreadable && !depth_unreadable(i);
            for (int j = 0; j < moves[g].size && readable; ++j) {
              readable = *children[g][j].value != kUnreadable &&
                         (moves[g].moves[j].gain() != 0 || !depth_unreadable(children[g][j].index));
            }
            if (!readable) {
              tally.unreadable.fetch_add(1);
              tally.note("unreadable: " + internal::pits_text(rules, b));
              continue;
            }
            int want_value = 0;
            int want_depth = 0;
            if (moves[g].size == 0) {
              want_value = rules.final_value(b);
            } else {
              want_value = -1000;
              for (int j = 0; j < moves[g].size; ++j)
                want_value =
                    std::max(want_value, Rules::worth(moves[g].moves[j], *children[g][j].value));
              if (want_value != 0) {
                // A move that gains seeds realises its worth at once: depth 0.
                int pick = want_value > 0 ? 1 << 30 : -1;
                for (int j = 0; j < moves[g].size; ++j) {
                  const Move& m = moves[g].moves[j];
                  if (Rules::worth(m, *children[g][j].value) != want_value)
                    continue;
                  const int d = m.gain() == 0 ? layer.at(children[g][j].index) : 0;
                  pick = want_value > 0 ? std::min(pick, d) : std::max(pick, d);
                }
                want_depth = 1 + pick;
              }
            }
            if (own[i] != want_value) {
              tally.bad_values.fetch_add(1);
              tally.note("value: " + internal::pits_text(rules, b) + " stores " +
                         std::to_string(own[i]) + ", its moves give " + std::to_string(want_value));
            } else if (layer.at(i) != want_depth) {
              tally.bad_depths.fetch_add(1);
              tally.note("depth: " + internal::pits_text(rules, b) + " stores " +
                         std::to_string(layer.at(i)) + ", its moves give " +
                         std::to_string(want_depth));
            }
          }
        }
        this->report(stones, "check", checked += last - first, report.positions + 1);
      });
  this->report(stones, "check", 1, 1);
  report.bad_values = tally.bad_values;
  report.bad_depths = tally.bad_depths;
  report.unreadable = tally.unreadable;
  report.examples = std::move(tally.examples);
  return report;
}

VerifyReport verify_layer(const TableSet& tables, int stones, const Executor& run) {
  Verifier verifier(tables, std::nullopt, run);
  return verifier.verify(stones);
}

}  // namespace sowdb
