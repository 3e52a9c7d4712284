#include "dist_solver.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <limits>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>

#include "free_memory.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/solver.h"
#include "sowdb/probe/internal/solver_hooks.h"
#include "sowdb/probe/rules.h"

namespace sowdb::mpi {

std::vector<std::vector<std::int8_t>> request_bytes(
    const Comm& comm,
    const Slices& slices,
    const std::vector<std::vector<std::uint64_t>>& out,
    Traffic& traffic) {
  const auto in = exchange(comm, out, traffic);
  std::vector<std::vector<std::int8_t>> answers(static_cast<std::size_t>(comm.size));
  constexpr std::uint64_t kIndex = (std::uint64_t{1} << 48) - 1;
  for (int s = 0; s < comm.size; ++s) {
    answers[s].resize(in[s].size());
    for (std::size_t j = 0; j < in[s].size(); ++j) {
      const auto m = static_cast<std::size_t>(in[s][j] >> 48);
      const std::uint64_t index = in[s][j] & kIndex;
      answers[s][j] = slices.bytes[m][index - slices.partition[m].begin(comm.rank)];
    }
  }
  return exchange(comm, answers, traffic);
}

namespace {

// State byte of a position, as in the single-process cyclic solver: the low four bits count the
// in-layer moves whose child is not yet known to be worth at least the threshold to its mover.
constexpr std::uint8_t kCounter = 0x0f;
constexpr std::uint8_t kDecided = 0x10;
constexpr std::uint8_t kTerminal = 0x20;  // a finished game (no legal move)
// Until a position is decided its value byte holds the best worth of its moves that leave the
// layer (a finished game: its final value), kNoExit when it has none.
constexpr std::int8_t kNoExit = -128;
// Positions per round of the first pass (each round exchanges the children's values), frontier
// positions per round of a level, positions per task of the rank's threads: rounds bound the
// buffers (a few MiB per round), tasks amortise the scheduling. A round of the first pass holds
// some 40 bytes per move that gains seeds (the request and its bookkeeping, as built, gathered,
// staged, received and answered), and the exchange's staging buffers keep the largest round's
// size: rounds of 2^18 positions cost a rank about 26 MB more at its peak on kalah layer 18 at
// K = 4 (docs/BENCHMARKS.md, 2026-11-26 "frontiers as bitmaps").
constexpr std::uint64_t kInitRound = std::uint64_t{1} << 16;
constexpr std::uint64_t kFrontierRound = std::uint64_t{1} << 16;
constexpr std::uint64_t kTask = std::uint64_t{1} << 11;

// The value and mark of a smaller layer's byte (the generator keeps layers up to
// kMaxMarkedStones as marked bytes).
int byte_value(int m, std::int8_t b) {
  return m <= gen::kMaxMarkedStones ? gen::marked_value(b) : b;
}
bool byte_marked(int m, std::int8_t b) {
  return m <= gen::kMaxMarkedStones && gen::marked_mark(b);
}

// Concatenates the per-destination buffers of the tasks, in task order.
template <typename T>
std::vector<std::vector<T>> gather_tasks(std::vector<std::vector<std::vector<T>>>& tasks, int k) {
  std::vector<std::vector<T>> out(static_cast<std::size_t>(k));
  for (int d = 0; d < k; ++d) {
    std::size_t total = 0;
    for (const auto& t : tasks)
      total += t[d].size();
    out[d].reserve(total);
    for (auto& t : tasks) {
      out[d].insert(out[d].end(), t[d].begin(), t[d].end());
      free_memory(t[d]);
    }
  }
  return out;
}

// A position's offset in this rank's part: 4 bytes in the first pass's bookkeeping and a round's
// frontier (a part holds fewer than 2^32 positions; more ranks split a larger layer).
using Offset = std::uint32_t;

// The positions of this rank's part decided at one level: a bit per position of the part, and a
// bit per group of 64 words that says the group may hold some, so that a sparse level is found
// without reading every word. A level can hold a large share of the part (the level-1 seeds of
// a threshold t: every position whose best exit is worth t); lists of 4-byte offsets cost 32
// bits a position listed, and were most of what a rank held beyond gen's bytes a position
// (decision record 0010).
class FrontierSet {
 public:
  explicit FrontierSet(std::uint64_t positions)
      : words_((positions + 63) / 64, 0), groups_((words_.size() + 63) / 64, 0) {}

  /// Adds offset i. Safe from concurrent tasks (an atomic or on the two words it touches).
  void insert(std::uint64_t i) {
    std::atomic_ref<std::uint64_t>(words_[i / 64])
        .fetch_or(std::uint64_t{1} << (i % 64), std::memory_order_relaxed);
    const std::uint64_t g = std::uint64_t{1} << (i / 64 % 64);
    std::atomic_ref<std::uint64_t> group(groups_[i / 4096]);
    // Most inserts find the group's bit set: a load spares the cache line a write.
    if (!(group.load(std::memory_order_relaxed) & g))
      group.fetch_or(g, std::memory_order_relaxed);
  }

  /// The number of offsets in the set (not concurrently with insert).
  std::uint64_t count() const {
    std::uint64_t n = 0;
    for_each_word([&](std::size_t, std::uint64_t w) { n += std::popcount(w); });
    return n;
  }

  /// Moves up to `limit` offsets, the smallest first, from the set into `out` (cleared first).
  /// Repeated takes empty the set (not concurrently with insert).
  void take(std::size_t limit, std::vector<Offset>& out) {
    out.clear();
    for (; group_ < groups_.size(); ++group_) {
      std::uint64_t& g = groups_[group_];
      while (g != 0) {
        const std::size_t w = group_ * 64 + static_cast<std::size_t>(std::countr_zero(g));
        std::uint64_t& word = words_[w];
        while (word != 0) {
          if (out.size() == limit)
            return;
          out.push_back(
              static_cast<Offset>(w * 64 + static_cast<std::size_t>(std::countr_zero(word))));
          word &= word - 1;
        }
        g &= g - 1;
      }
    }
    group_ = 0;  // empty: the next level's takes start from the beginning
  }

 private:
  template <typename F>
  void for_each_word(F&& f) const {
    for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
      for (std::uint64_t g = groups_[gi]; g != 0; g &= g - 1) {
        const std::size_t w = gi * 64 + static_cast<std::size_t>(std::countr_zero(g));
        f(w, words_[w]);
      }
    }
  }

  std::vector<std::uint64_t> words_;
  std::vector<std::uint64_t> groups_;  // bit j of group g: words 64 g + j may hold offsets
  std::size_t group_ = 0;              // take(): the first group not yet emptied
};

class PartSolver {
 public:
  PartSolver(const Comm& comm,
             const RuleSet& rules,
             int stones,
             const Slices& smaller,
             const PartOptions& options,
             Traffic& traffic)
      : comm_(comm),
        rules_(rules),
        oware_(rules.family == Family::kOware),
        n_(stones),
        k_(rules_.board_pits()),
        p_(rules_.pits_per_side()),
        part_(smaller.partition.at(static_cast<std::size_t>(stones))),
        first_(part_.begin(comm.rank)),
        owned_(part_.end(comm.rank) - first_),
        smaller_(smaller),
        options_(options),
        mark_on_(options.mark && stones <= gen::kMaxMarkedStones),
        traffic_(traffic) {
    if (owned_ > std::numeric_limits<Offset>::max()) {
      throw std::runtime_error("layer " + std::to_string(stones) + ": a rank's part of " +
                               std::to_string(owned_) +
                               " positions is more than 2^32 - 1: run on more ranks");
    }
    value_.assign(owned_, 0);
    state_.assign(owned_, 0);
    depth_.assign(owned_, 0);
    if (mark_on_)
      mark_.assign((owned_ + 63) / 64, 0);
  }

  LayerPart run() {
    const double steps = n_ + 1;
    init();
    progress(1 / steps);
    for (int t = n_; t >= 1; --t) {
      solve_threshold(t);
      progress((n_ - t + 2) / steps);
    }
    // Undecided positions are worth 0 (endless play or equal gains), with depth 0.
    for (std::uint64_t i = 0; i < owned_; ++i) {
      if (!(state_[i] & kDecided)) {
        value_[i] = 0;
        depth_[i] = 0;
      }
    }
    LayerPart out;
    out.first = first_;
    out.value = std::move(value_);
    out.depth = std::move(depth_);
    std::sort(deep_.begin(), deep_.end());
    out.deep = std::move(deep_);
    out.deep_byte = options_.deep_byte;
    out.mark = std::move(mark_);
    return out;
  }

 private:
  struct Pending {
    Offset at;  // of the position
    std::uint8_t gain;
    bool extra_turn;
  };

  void progress(double f) const {
    if (comm_.rank == 0 && options_.progress)
      options_.progress(f);
  }

  // The first pass: every owned position's best move out of the layer (its child's value asked
  // of the child's owner), its count of in-layer moves, and its recompute mark.
  void init() {
    const std::uint64_t rounds = max_all((owned_ + kInitRound - 1) / kInitRound);
    for (std::uint64_t r = 0; r < rounds; ++r) {
      const std::uint64_t a = std::min(owned_, r * kInitRound);
      const std::uint64_t b = std::min(owned_, a + kInitRound);
      const std::uint64_t tasks = (b - a + kTask - 1) / kTask;
      std::vector<std::vector<std::vector<std::uint64_t>>> req(tasks);
      std::vector<std::vector<std::vector<Pending>>> pend(tasks);
      tbb::parallel_for(std::uint64_t{0}, tasks, [&](std::uint64_t task) {
        req[task].resize(static_cast<std::size_t>(comm_.size));
        pend[task].resize(static_cast<std::size_t>(comm_.size));
        const std::uint64_t lo = a + task * kTask;
        const std::uint64_t hi = std::min(b, lo + kTask);
        init_range(lo, hi, req[task], pend[task]);
      });
      auto requests = gather_tasks(req, comm_.size);
      const auto pending = gather_tasks(pend, comm_.size);
      const auto answers = request_bytes(comm_, smaller_, requests, traffic_);
      for (int d = 0; d < comm_.size; ++d) {
        for (std::size_t j = 0; j < pending[d].size(); ++j) {
          const Pending& e = pending[d][j];
          const int m = n_ - e.gain;
          const std::int8_t byte = answers[d][j];
          const int worth = Rules::worth(e.gain, e.extra_turn, byte_value(m, byte));
          value_[e.at] = static_cast<std::int8_t>(std::max<int>(value_[e.at], worth));
          if (mark_on_ && byte_marked(m, byte))
            mark_[e.at / 64] &= ~(std::uint64_t{1} << (e.at % 64));
        }
      }
    }
  }

  void init_range(std::uint64_t lo,
                  std::uint64_t hi,
                  std::vector<std::vector<std::uint64_t>>& req,
                  std::vector<std::vector<Pending>>& pend) {
    if (lo >= hi)
      return;
    Pits board{};
    unrank(first_ + lo, n_, std::span(board.data(), static_cast<std::size_t>(k_)));
    MoveList moves;
    for (std::uint64_t i = lo; i < hi; ++i) {
      const int count = rules_.legal_moves(board, moves);
      // A task's positions fill whole words of marks (tasks start at multiples of 64).
      if (mark_on_ && gen::mover_in_minority(board, p_, n_))
        mark_[i / 64] |= std::uint64_t{1} << (i % 64);
      if (count == 0) {
        value_[i] = static_cast<std::int8_t>(rules_.final_value(board));
        state_[i] = kTerminal;
      } else {
        int in_layer = 0;
        value_[i] = kNoExit;
        for (const Move& m : moves) {
          if (m.gain() == 0) {
            // The predecessor search assumes that a move within the layer passes the turn.
            if (m.extra_turn)
              throw std::logic_error("an extra turn without a gain");
            ++in_layer;
            continue;
          }
          const int layer = n_ - m.gain();
          const std::uint64_t index =
              rank(std::span<const std::uint8_t>(m.child.data(), static_cast<std::size_t>(k_)));
          const int d = smaller_.partition[static_cast<std::size_t>(layer)].owner(index);
          req[d].push_back(byte_request(layer, index));
          pend[d].push_back(
              {static_cast<Offset>(i), static_cast<std::uint8_t>(m.gain()), m.extra_turn});
        }
        state_[i] = static_cast<std::uint8_t>(in_layer);
      }
      next_position(std::span(board.data(), static_cast<std::size_t>(k_)));
    }
  }

  void decide(std::uint64_t i, int value, int level, FrontierSet& next) {
    if (level > 65535)
      throw std::runtime_error("depth exceeds 65535");
    value_[i] = static_cast<std::int8_t>(value);
    if (level >= options_.deep_byte) {
      // Rare (Oware reaches it only far beyond the layers a test solves): a list under a lock.
      const std::lock_guard<std::mutex> lock(deep_mutex_);
      deep_.emplace_back(i, static_cast<std::uint16_t>(level));
      depth_[i] = options_.deep_byte;
    } else {
      depth_[i] = static_cast<std::uint8_t>(level);
    }
    state_[i] |= kDecided;
    next.insert(i);
  }

  void solve_threshold(int t) {
    // Seeds: finished games worth +-t (level 0); positions whose best exit is worth t, and those
    // all of whose in-layer moves lead to a child worth more than t to its mover and whose best
    // exit is worth -t (level 1). Each task decides its own positions.
    const std::uint64_t tasks = (owned_ + (kTask << 4) - 1) / (kTask << 4);
    FrontierSet& seeds0 = frontier_;
    FrontierSet& seeds1 = next_;
    tbb::parallel_for(std::uint64_t{0}, tasks, [&](std::uint64_t task) {
      const std::uint64_t lo = task * (kTask << 4);
      const std::uint64_t hi = std::min(owned_, lo + (kTask << 4));
      for (std::uint64_t i = lo; i < hi; ++i) {
        const std::uint8_t s = state_[i];
        if (s & kDecided)
          continue;
        const std::int8_t v = value_[i];  // a value, not a character
        if (s & kTerminal) {
          if (v == t || v == -t)
            decide(i, v, 0, seeds0);
        } else if (v == t || (v == -t && (s & kCounter) == 0)) {
          decide(i, v, 1, seeds1);
        }
      }
    });
    // The level being expanded is taken out of frontier_ (which ends empty); the positions it
    // decides go to next_, the following level's frontier.
    for (int level = 0;; ++level) {
      // One collective tells every rank how many rounds the level takes, and none when every
      // rank's frontier is empty.
      const std::uint64_t rounds =
          max_all((frontier_.count() + kFrontierRound - 1) / kFrontierRound);
      if (rounds == 0) {
        if (level > 0)
          break;
        std::swap(frontier_, next_);  // level-1 seeds need no level 0
        continue;
      }
      expand(t, level, rounds);
      std::swap(frontier_, next_);
    }
  }

  // Sends an update to the owner of every predecessor of the frontier of `level` (frontier_,
  // emptied), in `rounds` rounds (the most any rank needs), and applies the updates this rank
  // receives: positions decided at level + 1 go to next_.
  void expand(int t, int level, std::uint64_t rounds) {
    constexpr std::uint64_t kFrontierTask = 256;
    for (std::uint64_t r = 0; r < rounds; ++r) {
      frontier_.take(kFrontierRound, round_);
      const std::uint64_t size = round_.size();
      const std::uint64_t tasks = (size + kFrontierTask - 1) / kFrontierTask;
      std::vector<std::vector<std::vector<std::uint64_t>>> out(tasks);
      tbb::parallel_for(std::uint64_t{0}, tasks, [&](std::uint64_t task) {
        auto& buffers = out[task];
        buffers.resize(static_cast<std::size_t>(comm_.size));
        const std::uint64_t lo = task * kFrontierTask;
        const std::uint64_t hi = std::min(size, lo + kFrontierTask);
        Pits board{};
        for (std::uint64_t j = lo; j < hi; ++j) {
          const std::uint64_t i = round_[j];
          unrank(first_ + i, n_, std::span(board.data(), static_cast<std::size_t>(k_)));
          const std::uint64_t won = value_[i] > 0 ? 1 : 0;
          for_each_predecessor(board, [&](std::uint64_t q) {
            buffers[static_cast<std::size_t>(part_.owner(q))].push_back(q << 1 | won);
          });
        }
      });
      const auto in = exchange(comm_, gather_tasks(out, comm_.size), traffic_);
      apply(t, level, in, next_);
    }
  }

  // Applies the updates `in` (from every rank) of threshold t's `level`: positions decided at
  // level + 1 go to `next`. The order of a level's updates does not matter: a position with a
  // lost child never has all its moves' children won, so at most one of its updates decides it.
  // So the updates are sorted by region of this rank's part and each region is updated by one
  // task, as in gen's cyclic solver: no two tasks touch one position.
  void apply(int t,
             int level,
             const std::vector<std::vector<std::uint64_t>>& in,
             FrontierSet& next) {
    const auto update = [&](std::uint64_t e) {
      const std::uint64_t i = (e >> 1) - first_;
      const std::uint8_t before = state_[i];
      if (e & 1) {
        if ((before & kCounter) == 0)
          throw std::logic_error("more won children than in-layer moves");
        state_[i] = static_cast<std::uint8_t>(before - 1);
        if ((before & (kCounter | kDecided)) == 1 && value_[i] <= -t)
          decide(i, -t, level + 1, next);
      } else if (!(before & kDecided)) {
        decide(i, t, level + 1, next);
      }
    };
    std::uint64_t total = 0;
    for (const auto& updates : in)
      total += updates.size();
    if (total < (std::uint64_t{1} << 14)) {
      for (const auto& updates : in) {
        for (const std::uint64_t e : updates)
          update(e);
      }
      return;
    }
    constexpr int kRegionBits = 8;
    int shift = 0;
    while ((owned_ >> shift) >= (std::uint64_t{1} << kRegionBits))
      ++shift;
    const std::size_t regions = static_cast<std::size_t>((owned_ - 1) >> shift) + 1;
    std::vector<std::uint64_t> start(regions + 1, 0);
    for (const auto& updates : in) {
      for (const std::uint64_t e : updates)
        ++start[(((e >> 1) - first_) >> shift) + 1];
    }
    for (std::size_t r = 1; r <= regions; ++r)
      start[r] += start[r - 1];
    sorted_.resize(total);
    std::vector<std::uint64_t> at(start.begin(), start.end() - 1);
    for (const auto& updates : in) {
      for (const std::uint64_t e : updates)
        sorted_[at[((e >> 1) - first_) >> shift]++] = e;
    }
    tbb::parallel_for(std::size_t{0}, regions, [&](std::size_t r) {
      for (std::uint64_t j = start[r]; j < start[r + 1]; ++j)
        update(sorted_[j]);
    });
  }

  // Calls f(index) once for each (position, move) pair whose move stays in the layer and leads
  // to `child`: every sowing that can have left the board the child shows turned, unsown and
  // replayed forward (the replay makes it exact whatever the rule family).
  typedef std::uint8_t V16 __attribute__((vector_size(16)));

  // Whether every lane of `a` is at most the same lane of `b`.
  static bool fits(const V16& a, const V16& b) {
    const V16 le = a <= b;
    std::uint64_t lanes[2];
    std::memcpy(lanes, &le, sizeof lanes);
    return (lanes[0] & lanes[1]) == ~std::uint64_t{0};
  }

  template <typename F>
  void for_each_predecessor(const Pits& child, F&& f) const {
    static_assert(sizeof(Pits) == sizeof(V16));
    const Pits b = rules_.rotate(child);
    V16 bv;
    std::memcpy(&bv, b.data(), sizeof bv);
    for (int x = 0; x < p_; ++x) {
      for (int s = 1; s <= n_; ++s) {
        if (internal::SolverHooks::sowing_stored(rules_, x, s) != 0)
          break;  // this sowing and every longer one gains a seed
        const Pits& add = internal::SolverHooks::sowing_add(rules_, x, s);
        V16 av;
        std::memcpy(&av, add.data(), sizeof av);
        if (!fits(av, bv))
          break;  // a longer sowing adds at least as much to every pit
        if (add[x] != b[x])
          continue;  // the origin holds exactly what the laps put back
        const V16 cv = bv - av;
        Pits cand;
        std::memcpy(cand.data(), &cv, sizeof cand);
        cand[x] = static_cast<std::uint8_t>(s);
        bool ok = false;
        if (oware_) {
          ok = internal::SolverHooks::oware_quiet_move_to_turned(rules_, cand, x, b);
        } else {
          Move m;
          ok = rules_.play(cand, x, m) && m.gain() == 0 && !m.extra_turn && m.child == child;
        }
        if (ok)
          f(rank(std::span<const std::uint8_t>(cand.data(), static_cast<std::size_t>(k_))));
      }
    }
  }

  const Comm& comm_;
  Rules rules_;
  bool oware_;
  int n_;
  int k_;
  int p_;
  Partition part_;
  std::uint64_t first_;
  std::uint64_t owned_;
  const Slices& smaller_;
  const PartOptions& options_;
  bool mark_on_;
  Traffic& traffic_;
  std::vector<std::int8_t> value_;
  std::vector<std::uint8_t> state_;
  std::vector<std::uint8_t> depth_;
  std::vector<std::pair<std::uint64_t, std::uint16_t>> deep_;  // as LayerPart::deep
  std::mutex deep_mutex_;
  std::vector<std::uint64_t> mark_;
  std::vector<std::uint64_t> sorted_;  // apply(): a round's updates by region
  // The level being expanded and the next one, reused from level to level and threshold to
  // threshold; round_: the frontier positions of one round, taken from frontier_.
  FrontierSet frontier_{owned_};
  FrontierSet next_{owned_};
  std::vector<Offset> round_;
};

}  // namespace

LayerPart solve_part(const Comm& comm,
                     const RuleSet& rules,
                     int stones,
                     const Slices& smaller,
                     const PartOptions& options,
                     Traffic& traffic) {
  PartSolver solver(comm, rules, stones, smaller, options, traffic);
  return solver.run();
}

}  // namespace sowdb::mpi
