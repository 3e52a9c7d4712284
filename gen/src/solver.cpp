#include "sowdb/gen/solver.h"

#include <tbb/blocked_range.h>
#include <tbb/concurrent_hash_map.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include "sowdb/format/index.h"
#include "sowdb/probe/rules.h"

namespace sowdb::gen {
namespace {

// Working memory per position: value (1 byte), state (1 byte), depth (1 byte).
//
// Until a position is decided its value byte holds e(p), the best worth of its moves that leave
// the layer (or the final value of a finished game), kNoExit when it has none.
constexpr std::int8_t kNoExit = -128;

// State byte: the low four bits count the in-layer moves whose child is not yet known to be worth
// at least the current threshold to its mover (P <= 8 moves).
constexpr std::uint8_t kCounterMask = 0x0f;
constexpr std::uint8_t kDecided = 0x10;
constexpr std::uint8_t kTerminal = 0x20;
constexpr std::uint8_t kFrontier[2] = {0x40, 0x80};

// Depths of 255 and more live in a side map; the byte holds kDepthOverflow.
constexpr std::uint8_t kDepthOverflow = 255;

// Frontier bits are found through two levels of flags: a line flag per 64 positions (one cache
// line of state bytes) and a block flag per 64 lines, so that sparse levels cost little to find.
constexpr int kLineShift = 6;
constexpr std::uint64_t kLine = std::uint64_t{1} << kLineShift;
constexpr int kBlockShift = 12;

template <typename T>
std::atomic_ref<T> aref(T& x) {
  return std::atomic_ref<T>(x);
}

class LayerSolver {
 public:
  LayerSolver(const RuleSet& rules, int stones, const SmallerValues& smaller)
      : rules_(rules), stones_(stones), k_(rules_.pits()), p_(rules_.pits_per_side()) {
    size_ = layer_size(k_, stones_);
    if (size_ > (std::uint64_t{1} << 40)) throw std::runtime_error("layer too large");
    for (int m = 0; m < stones_; ++m) smaller_[m] = smaller(m);
    value_ = std::make_unique<std::int8_t[]>(size_);
    state_ = std::make_unique<std::uint8_t[]>(size_);
    depth_ = std::make_unique<std::uint8_t[]>(size_);
    lines_ = (size_ + kLine - 1) >> kLineShift;
    blocks_ = (size_ + (std::uint64_t{1} << kBlockShift) - 1) >> kBlockShift;
    for (int parity = 0; parity < 2; ++parity) {
      line_flags_[parity] = std::make_unique<std::uint8_t[]>(lines_);
      block_flags_[parity] = std::make_unique<std::uint8_t[]>(blocks_);
    }
  }

  Layer run(const std::function<void(double)>& progress) {
    const double steps = stones_ + 1;
    init();
    if (progress) progress(1 / steps);
    for (int t = stones_; t >= 1; --t) {
      solve_threshold(t);
      if (progress) progress((stones_ - t + 2) / steps);
    }
    Layer layer;
    layer.stones = stones_;
    layer.value.resize(size_);
    layer.depth.resize(size_);
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, size_, 1 << 16), [&](const auto& r) {
      for (std::uint64_t i = r.begin(); i != r.end(); ++i) {
        if (state_[i] & kDecided) {
          layer.value[i] = value_[i];
          layer.depth[i] = depth_of(i);
        } else {
          // Neither side can force a gain: endless play or a balanced game, worth 0. A finished
          // game worth 0 lands here too.
          layer.value[i] = 0;
          layer.depth[i] = 0;
        }
      }
    });
    return layer;
  }

 private:
  std::uint16_t depth_of(std::uint64_t i) const {
    if (depth_[i] != kDepthOverflow) return depth_[i];
    decltype(overflow_)::const_accessor acc;
    overflow_.find(acc, i);
    return acc->second;
  }

  void set_depth(std::uint64_t i, int depth) {
    if (depth < kDepthOverflow) {
      aref(depth_[i]).store(static_cast<std::uint8_t>(depth), std::memory_order_relaxed);
      return;
    }
    if (depth > 65535) throw std::runtime_error("depth to conversion exceeds 65535");
    decltype(overflow_)::accessor acc;
    overflow_.insert(acc, i);
    acc->second = static_cast<std::uint16_t>(depth);
    aref(depth_[i]).store(kDepthOverflow, std::memory_order_relaxed);
  }

  // Worth of the best move that leaves the layer; counts the in-layer moves.
  void init() {
    tbb::parallel_for(
        tbb::blocked_range<std::uint64_t>(0, size_, 1 << 14), [&](const auto& r) {
          Pits board{};
          unrank(r.begin(), stones_, std::span(board.data(), k_));
          MoveList moves;
          for (std::uint64_t i = r.begin(); i != r.end(); ++i) {
            const int count = rules_.legal_moves(board, moves);
            if (count == 0) {
              value_[i] = static_cast<std::int8_t>(rules_.final_value(board));
              state_[i] = kTerminal;
            } else {
              int best = kNoExit;
              int in_layer = 0;
              for (const Move& m : moves) {
                if (m.gain() == 0) {
                  ++in_layer;
                  continue;
                }
                const int child_stones = stones_ - m.gain();
                const std::int8_t child_value =
                    smaller_[child_stones][rank(std::span<const std::uint8_t>(m.child.data(), k_))];
                best = std::max(best, Rules::worth(m, child_value));
              }
              value_[i] = static_cast<std::int8_t>(best);
              state_[i] = static_cast<std::uint8_t>(in_layer);
            }
            depth_[i] = 0;
            next_position(std::span(board.data(), k_));
          }
        });
  }

  void mark_frontier(std::uint64_t i, int level) {
    const int parity = level & 1;
    aref(state_[i]).fetch_or(kFrontier[parity], std::memory_order_relaxed);
    aref(line_flags_[parity][i >> kLineShift]).store(1, std::memory_order_relaxed);
    aref(block_flags_[parity][i >> kBlockShift]).store(1, std::memory_order_relaxed);
  }

  // Claims an undecided position; true for the one caller that decides it.
  bool claim(std::uint64_t i) {
    std::uint8_t s = aref(state_[i]).load(std::memory_order_relaxed);
    while (!(s & kDecided)) {
      if (aref(state_[i]).compare_exchange_weak(s, static_cast<std::uint8_t>(s | kDecided),
                                                std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  }

  void decide(std::uint64_t i, int value, int level) {
    aref(value_[i]).store(static_cast<std::int8_t>(value), std::memory_order_relaxed);
    set_depth(i, level);
    mark_frontier(i, level);
  }

  void solve_threshold(int t) {
    // Seeds: finished games worth +-t (level 0); positions whose best exit is worth t, and
    // positions all of whose in-layer moves lead to a child worth >= t to its mover and whose
    // best exit is worth exactly -t (level 1).
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, size_, 1 << 16), [&](const auto& r) {
      for (std::uint64_t i = r.begin(); i != r.end(); ++i) {
        const std::uint8_t s = state_[i];
        if (s & kDecided) continue;
        const int v = value_[i];
        if (s & kTerminal) {
          if (v == t || v == -t) {
            state_[i] = static_cast<std::uint8_t>(s | kDecided);
            decide(i, v, 0);
          }
        } else if (v == t || (v == -t && (s & kCounterMask) == 0)) {
          state_[i] = static_cast<std::uint8_t>(s | kDecided);
          decide(i, v, 1);
        }
      }
    });
    std::vector<std::uint32_t> blocks;
    for (int level = 0;; ++level) {
      const int parity = level & 1;
      blocks.clear();
      for (std::uint64_t b = 0; b < blocks_; ++b) {
        if (block_flags_[parity][b]) {
          blocks.push_back(static_cast<std::uint32_t>(b));
          block_flags_[parity][b] = 0;
        }
      }
      if (blocks.empty()) {
        if (level == 0) continue;  // level-1 seeds need no level 0
        break;
      }
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks.size(), 1), [&](const auto& r) {
        std::vector<std::uint64_t> preds;
        for (std::size_t bi = r.begin(); bi != r.end(); ++bi) {
          expand_block(blocks[bi], t, level, preds);
        }
      });
    }
  }

  void expand_block(std::uint64_t block, int t, int level, std::vector<std::uint64_t>& preds) {
    const int parity = level & 1;
    const std::uint8_t bit = kFrontier[parity];
    const std::uint64_t first_line = block << (kBlockShift - kLineShift);
    const std::uint64_t last_line = std::min(lines_, first_line + (1u << (kBlockShift - kLineShift)));
    Pits board{};
    std::uint64_t at = 0;
    bool have_board = false;
    for (std::uint64_t line = first_line; line < last_line; ++line) {
      if (!line_flags_[parity][line]) continue;
      line_flags_[parity][line] = 0;
      const std::uint64_t begin = line << kLineShift;
      const std::uint64_t end = std::min(size_, begin + kLine);
      // Gather the predecessors of the whole line first, prefetching their state bytes, so
      // that the cache misses of the updates overlap instead of queueing one by one.
      preds.clear();
      for (std::uint64_t i = begin; i < end; ++i) {
        if (!(aref(state_[i]).load(std::memory_order_relaxed) & bit)) continue;
        aref(state_[i]).fetch_and(static_cast<std::uint8_t>(~bit), std::memory_order_relaxed);
        // Unranking costs about as much as a few steps of next_position.
        if (have_board && i - at <= 2) {
          for (; at < i; ++at) next_position(std::span(board.data(), k_));
        } else {
          unrank(i, stones_, std::span(board.data(), k_));
        }
        have_board = true;
        at = i;
        const std::uint64_t won = value_[i] > 0 ? 1 : 0;
        for_each_predecessor(board, [&](std::uint64_t p) {
          __builtin_prefetch(&state_[p], 1);
          preds.push_back(p << 1 | won);
        });
      }
      for (std::uint64_t entry : preds) {
        const std::uint64_t p = entry >> 1;
        if (entry & 1) {
          // A child worth >= t to its mover: one fewer move of p can avoid it.
          const std::uint8_t before = aref(state_[p]).fetch_sub(1, std::memory_order_relaxed);
          if ((before & kCounterMask) == 1 && !(before & kDecided)) {
            const int e = value_[p];
            if (e <= -t && claim(p)) decide(p, -t, level + 1);
          }
        } else if (claim(p)) {
          decide(p, t, level + 1);
        }
      }
    }
  }

  // Calls f(index) once for each (position, move) pair whose in-layer move leads to `child`.
  template <typename F>
  void for_each_predecessor(const Pits& child, F&& f) {
    // The previous mover sat on the other side; an in-layer move passed the turn.
    const Pits b = rules_.rotate(child);
    typedef std::uint8_t V16 __attribute__((vector_size(16)));
    V16 bv;
    std::memcpy(&bv, b.data(), sizeof bv);
    for (int origin = 0; origin < p_; ++origin) {
      // A sowing that skips its origin leaves it empty.
      if (b[origin] != 0 && rules_.rule_set().skip_origin) continue;
      // The sowing of s seeds added sowing_add(origin, s) to the emptied origin's board; the
      // rows grow with s, so the first s that does not fit ends the search.
      for (int s = 1; s <= stones_; ++s) {
        if (rules_.sowing_stored(origin, s) != 0) break;  // would gain: not an in-layer move
        const Pits& add = rules_.sowing_add(origin, s);
        if (add[origin] > b[origin]) break;
        V16 av;
        std::memcpy(&av, add.data(), sizeof av);
        const V16 fits = bv >= av;
        std::uint64_t lanes[2];
        std::memcpy(lanes, &fits, sizeof lanes);
        if ((lanes[0] & lanes[1]) != ~std::uint64_t{0}) break;
        if (add[origin] != b[origin]) continue;
        const V16 pre = bv - av;
        Pits cand;
        std::memcpy(cand.data(), &pre, sizeof pre);
        cand[origin] = static_cast<std::uint8_t>(s);
        // Replaying the forward move makes the predecessor exact by construction.
        Move m;
        if (rules_.play(cand, origin, m) && m.gain() == 0 && !m.extra_turn && m.child == child) {
          f(rank(std::span<const std::uint8_t>(cand.data(), k_)));
        }
      }
    }
  }

  Rules rules_;
  int stones_;
  int k_;
  int p_;
  std::uint64_t size_ = 0;
  std::uint64_t blocks_ = 0;
  const std::int8_t* smaller_[kMaxIndexedStones + 1] = {};
  std::unique_ptr<std::int8_t[]> value_;
  std::unique_ptr<std::uint8_t[]> state_;
  std::unique_ptr<std::uint8_t[]> depth_;
  std::uint64_t lines_ = 0;
  std::unique_ptr<std::uint8_t[]> line_flags_[2];
  std::unique_ptr<std::uint8_t[]> block_flags_[2];
  tbb::concurrent_hash_map<std::uint64_t, std::uint16_t> overflow_;
};

}  // namespace

Layer solve_layer(const RuleSet& rules,
                  int stones,
                  const SmallerValues& smaller,
                  const std::function<void(double)>& progress) {
  if (stones < 0 || stones > kMaxIndexedStones) {
    throw std::invalid_argument("stone count out of range: " + std::to_string(stones));
  }
  LayerSolver solver(rules, stones, smaller);
  return solver.run(progress);
}

}  // namespace sowdb::gen
