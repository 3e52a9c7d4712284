#include "sowdb/gen/verify.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <span>

#include "layer_ranges.h"
#include "sowdb/format/index.h"

namespace sowdb::gen {
namespace {

// No value is -128 (|value| <= n <= 127): it marks an entry the table set could not answer.
constexpr std::int8_t kUnreadable = -128;

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

std::string board_text(const Rules& rules, const Pits& board) {
  std::string s;
  for (int i = 0; i < rules.pits(); ++i) {
    if (i)
      s.push_back(' ');
    s.append(std::to_string(board[i]));
  }
  return s;
}

}  // namespace

Verifier::Verifier(const TableSet& tables) : tables_(tables) {}

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
  std::mutex mutex;
  std::atomic<std::uint64_t> read{0};
  if (depths) {
    depths->depth.assign(values.size(), 0);
    depths->unreadable.clear();
  }
  // In index order, so that each block of the layer is decoded once.
  for_each_range(tables_.engine(),
                 n,
                 [&](std::uint64_t first,
                     std::uint64_t last,
                     const Pits& board,
                     std::span<std::uint8_t> span) {
                   for (std::uint64_t i = first; i != last; ++i, next_position(span)) {
                     int v = 0;
                     int d = 0;
                     if (depths) {
                       if (tables_.value(board, v, d) == ProbeStatus::kOk) {
                         values[i] = static_cast<std::int8_t>(v);
                         depths->depth[i] = static_cast<std::uint16_t>(d);
                         continue;
                       }
                       // The value may still read: the layers above need only that of a move that
                       // gains seeds.
                       std::lock_guard lock(mutex);
                       depths->unreadable.push_back(i);
                     }
                     values[i] = tables_.value(board, v) == ProbeStatus::kOk
                                     ? static_cast<std::int8_t>(v)
                                     : kUnreadable;
                   }
                   report(n, "read", read += last - first, values.size() + 1);
                 });
  report(n, "read", 1, 1);
  if (depths)
    std::sort(depths->unreadable.begin(), depths->unreadable.end());
  if (values_.size() <= static_cast<std::size_t>(n))
    values_.resize(static_cast<std::size_t>(n) + 1);
  values_[static_cast<std::size_t>(n)] = std::move(values);
}

VerifyReport Verifier::verify(int stones) {
  const Rules& rules = tables_.engine();
  const int pits = rules.pits();
  for (int m = 0; m < stones; ++m) {
    if (values_.size() <= static_cast<std::size_t>(m) ||
        values_[static_cast<std::size_t>(m)].empty())
      load(m, nullptr);
  }
  LayerDepths layer;
  load(stones, &layer);
  const std::vector<std::uint16_t>& depths = layer.depth;
  // An entry whose depth does not read, as TableSet::moves reads the depth of a move that
  // gains nothing.
  const auto depth_unreadable = [&layer](std::uint64_t i) {
    return !layer.unreadable.empty() &&
           std::binary_search(layer.unreadable.begin(), layer.unreadable.end(), i);
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
  for_each_range(
      rules,
      stones,
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
              tally.note("unreadable: " + board_text(rules, b));
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
                  const int d = m.gain() == 0 ? depths[children[g][j].index] : 0;
                  pick = want_value > 0 ? std::min(pick, d) : std::max(pick, d);
                }
                want_depth = 1 + pick;
              }
            }
            if (own[i] != want_value) {
              tally.bad_values.fetch_add(1);
              tally.note("value: " + board_text(rules, b) + " stores " + std::to_string(own[i]) +
                         ", its moves give " + std::to_string(want_value));
            } else if (depths[i] != want_depth) {
              tally.bad_depths.fetch_add(1);
              tally.note("depth: " + board_text(rules, b) + " stores " + std::to_string(depths[i]) +
                         ", its moves give " + std::to_string(want_depth));
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

VerifyReport verify_layer(const TableSet& tables, int stones) {
  Verifier verifier(tables);
  return verifier.verify(stones);
}

}  // namespace sowdb::gen
