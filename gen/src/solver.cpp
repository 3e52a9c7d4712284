#include "sowdb/gen/solver.h"

#include <tbb/blocked_range.h>
#include <tbb/concurrent_hash_map.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
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

constexpr std::uint64_t kBlockShift = 12;
constexpr std::uint64_t kBlock = std::uint64_t{1} << kBlockShift;

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
    blocks_ = (size_ + kBlock - 1) >> kBlockShift;
    block_flags_[0] = std::make_unique<std::uint8_t[]>(blocks_);
    block_flags_[1] = std::make_unique<std::uint8_t[]>(blocks_);
    list_cap_ = std::max<std::uint64_t>(size_ / 32, 4096);
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
    aref(block_flags_[parity][i >> kBlockShift]).store(1, std::memory_order_relaxed);
    // Sparse levels also keep a list, so that expanding them does not scan whole blocks; a level
    // too large for the list budget is expanded by scanning the frontier bits instead.
    if (!next_dense_.load(std::memory_order_relaxed)) {
      if (next_count_.fetch_add(1, std::memory_order_relaxed) < list_cap_) {
        next_list_.local().push_back(i);
      } else {
        next_dense_.store(true, std::memory_order_relaxed);
      }
    }
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

  // Moves the positions marked since the last call into `list`; false when the level was too
  // large for lists (then only the frontier bits hold it).
  bool take_next_level(std::vector<std::uint64_t>& list) {
    list.clear();
    const bool dense = next_dense_.load();
    for (auto& part : next_list_) {
      if (!dense) list.insert(list.end(), part.begin(), part.end());
      part.clear();
    }
    next_dense_.store(false);
    next_count_.store(0);
    return !dense;
  }

  void solve_threshold(int t) {
    // Seeds: finished games worth +-t (level 0); positions whose best exit is worth t; positions
    // all of whose in-layer moves lead to a child worth >= t to its mover and whose best exit is
    // worth exactly -t (level 1). Level-1 seeds wait in seeds1 until level 0 is expanded.
    tbb::enumerable_thread_specific<std::vector<std::uint64_t>> seeds1;
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, size_, 1 << 16), [&](const auto& r) {
      auto& mine = seeds1.local();
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
          aref(value_[i]).store(static_cast<std::int8_t>(v), std::memory_order_relaxed);
          set_depth(i, 1);
          mine.push_back(i);
        }
      }
    });
    std::vector<std::uint64_t> list;
    for (int level = 0;; ++level) {
      const int parity = level & 1;
      bool sparse = take_next_level(list);
      if (level == 1) {
        // The level-1 seeds join the positions found from level 0.
        for (auto& part : seeds1) {
          for (std::uint64_t i : part) {
            aref(state_[i]).fetch_or(kFrontier[1], std::memory_order_relaxed);
            block_flags_[1][i >> kBlockShift] = 1;
            if (sparse) list.insert(list.end(), i);
          }
          part.clear();
        }
        if (sparse && list.size() > list_cap_) {
          sparse = false;
          list.clear();
        }
      }
      if (sparse) {
        std::fill_n(block_flags_[parity].get(), blocks_, std::uint8_t{0});
        if (list.empty()) {
          if (level == 0) continue;
          break;
        }
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, list.size(), 256),
                          [&](const auto& r) {
                            Pits board{};
                            for (std::size_t j = r.begin(); j != r.end(); ++j) {
                              const std::uint64_t i = list[j];
                              aref(state_[i]).fetch_and(static_cast<std::uint8_t>(~kFrontier[parity]),
                                                        std::memory_order_relaxed);
                              unrank(i, stones_, std::span(board.data(), k_));
                              expand(i, board, t, level);
                            }
                          });
        continue;
      }
      std::vector<std::uint32_t> blocks;
      for (std::uint64_t b = 0; b < blocks_; ++b) {
        if (block_flags_[parity][b]) {
          blocks.push_back(static_cast<std::uint32_t>(b));
          block_flags_[parity][b] = 0;
        }
      }
      if (blocks.empty()) {
        if (level == 0) continue;
        break;
      }
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks.size(), 1), [&](const auto& r) {
        for (std::size_t bi = r.begin(); bi != r.end(); ++bi) expand_block(blocks[bi], t, level);
      });
    }
  }

  void expand_block(std::uint64_t block, int t, int level) {
    const std::uint8_t bit = kFrontier[level & 1];
    const std::uint64_t begin = block << kBlockShift;
    const std::uint64_t end = std::min(size_, begin + kBlock);
    Pits board{};
    std::uint64_t at = begin;
    bool have_board = false;
    for (std::uint64_t i = begin; i < end; ++i) {
      if (!(aref(state_[i]).load(std::memory_order_relaxed) & bit)) continue;
      aref(state_[i]).fetch_and(static_cast<std::uint8_t>(~bit), std::memory_order_relaxed);
      if (!have_board) {
        unrank(i, stones_, std::span(board.data(), k_));
        have_board = true;
      } else {
        while (at < i) {
          next_position(std::span(board.data(), k_));
          ++at;
        }
      }
      at = i;
      expand(i, board, t, level);
    }
  }

  // A position decided at `level` of threshold t tells its in-layer predecessors.
  void expand(std::uint64_t i, const Pits& board, int t, int level) {
    const bool won = value_[i] > 0;
    for_each_predecessor(board, [&](std::uint64_t p) {
      if (won) {
        const std::uint8_t before = aref(state_[p]).fetch_sub(1, std::memory_order_relaxed);
        if ((before & kCounterMask) == 1 && !(before & kDecided)) {
          const int e = value_[p];
          if (e <= -t && claim(p)) decide(p, -t, level + 1);
        }
      } else if (claim(p)) {
        decide(p, t, level + 1);
      }
    });
  }

  // Calls f(index) once for each (position, move) pair whose in-layer move leads to `child`.
  template <typename F>
  void for_each_predecessor(const Pits& child, F&& f) {
    // The previous mover sat on the other side; an in-layer move passed the turn.
    const Pits b = rules_.rotate(child);
    for (int origin = 0; origin < p_; ++origin) {
      // A sowing that skips its origin leaves it empty.
      if (b[origin] != 0 && rules_.rule_set().skip_origin) continue;
      const auto path = rules_.sowing_path(origin);
      const int cycle = static_cast<int>(path.size());
      Pits pre = b;
      // Un-sow one seed at a time: the sowing of s seeds put one seed in each of the first s
      // places of the path (lapping as needed).
      int origin_refill = 0;
      for (int s = 1; s <= stones_; ++s) {
        const std::uint8_t place = path[(s - 1) % cycle];
        if (place == Rules::kStore) break;  // would gain a seed: not an in-layer move
        if (place == origin) {
          ++origin_refill;
        } else {
          if (pre[place] == 0) break;
          --pre[place];
        }
        if (b[origin] != origin_refill) continue;
        Pits cand = pre;
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
  std::unique_ptr<std::uint8_t[]> block_flags_[2];
  tbb::concurrent_hash_map<std::uint64_t, std::uint16_t> overflow_;
  tbb::enumerable_thread_specific<std::vector<std::uint64_t>> next_list_;
  std::atomic<std::uint64_t> next_count_{0};
  std::atomic<bool> next_dense_{false};
  std::uint64_t list_cap_ = 0;
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
