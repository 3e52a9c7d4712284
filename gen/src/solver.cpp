#include "sowdb/gen/solver.h"

#include <sys/mman.h>
#include <tbb/blocked_range.h>
#include <tbb/concurrent_hash_map.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "sowdb/format/index.h"
#include "sowdb/probe/rules.h"

namespace sowdb::gen {
namespace {

// Working memory per position: value (1 byte) and a cell of state and depth (2 bytes), plus
// frontier flags (1 bit per 32 positions). The state and the depth share a cell because the
// predecessor updates, the random accesses that dominate the run time, touch both.
//
// Until a position is decided its value byte holds e(p), the best worth of its moves that leave
// the layer (or the final value of a finished game), kNoExit when it has none.
constexpr std::int8_t kNoExit = -128;

// State byte: the low four bits count the in-layer moves whose child is not yet known to be worth
// at least the current threshold to its mover (P <= 8 moves).
constexpr std::uint8_t kCounterMask = 0x0f;
constexpr std::uint8_t kDecided = 0x10;
constexpr std::uint8_t kWon = 0x20;  // decided with a positive value
// Until a position is decided its depth byte tells a finished game (no legal move) apart.
constexpr std::uint8_t kTerminalMark = 254;
constexpr std::uint8_t kFrontier[2] = {0x40, 0x80};

// Depths of 255 and more live in a side map; the byte holds kDepthOverflow.
constexpr std::uint8_t kDepthOverflow = DepthTable::kOverflow;

struct Cell {
  std::uint8_t state;
  std::uint8_t depth;
};
static_assert(sizeof(Cell) == 2);

// Frontier bits are found through two levels of flags: a line flag per 64 positions (one cache
// line of state bytes) and a block flag per 64 lines, so that sparse levels cost little to find.
constexpr int kLineShift = 6;
constexpr std::uint64_t kLine = std::uint64_t{1} << kLineShift;
constexpr int kBlockShift = 12;

// Asks the kernel to back the whole 2 MiB pages of [p, p + bytes) with huge pages (transparent
// huge pages, which Debian gives on request): the solvers' look-ups are random over arrays of
// gigabytes, and with 4 KiB pages most of them also miss the TLB. Oware layer 24 on 2 threads
// solved in 53.0 s against 60.7 s without (layers 21-23 alike). Call it before the memory is
// first touched. Best effort: without huge pages only the speed changes.
void advise_huge_pages(const void* p, std::size_t bytes) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = (at + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t end = (at + bytes) & ~(kHuge - 1);
  if (end > begin)
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// A vector of `size` copies of `fill`, in huge pages where the kernel gives them.
std::vector<std::int8_t> huge_vector(std::uint64_t size, std::int8_t fill) {
  std::vector<std::int8_t> v;
  v.reserve(size);
  advise_huge_pages(v.data(), size);
  v.assign(size, fill);
  return v;
}

template <typename T>
std::atomic_ref<T> aref(T& x) {
  return std::atomic_ref<T>(x);
}

// rank() for the inner loops: the prefix sums of all pits at once (a multiplication by 0x0101..01
// adds up each byte and the bytes below it; no sum exceeds 255, so none carries), then table
// reads that do not wait for one another.
class Ranker {
 public:
  // For positions of at most `stones` seeds on `pits` pits.
  Ranker(int pits, int stones)
      : width_(stones + 1), table_(static_cast<std::size_t>(kMaxPits) * width_) {
    // Rows of the pits that do not enter (the last pit and pits past the board) stay zero, so
    // that every board takes the same unrolled sum.
    for (int i = 0; i + 1 < pits; ++i) {
      const std::uint64_t* row = rank_table_row(i);
      std::copy(row, row + width_, table_.begin() + static_cast<std::ptrdiff_t>(i) * width_);
    }
  }

  std::uint64_t operator()(const Pits& board) const noexcept { return rank<kMaxPits>(board); }

  // operator() for boards of at most kPits pits: the terms of the pits past them are 0 and go
  // unread (a third of the reads on Oware's 12 pits).
  template <int kPits>
  std::uint64_t rank(const Pits& board) const noexcept {
    static_assert(kPits >= 1 && kPits <= kMaxPits);
    constexpr std::uint64_t kOnes = 0x0101010101010101;
    std::uint64_t half[2];
    std::memcpy(half, board.data(), sizeof half);
    const std::uint64_t low = half[0] * kOnes;
    const std::uint64_t high = half[1] * kOnes + (low >> 56) * kOnes;
    const std::uint64_t* t = table_.data();
    std::uint64_t r = 0;
#pragma GCC unroll 16
    for (int i = 0; i < kPits - 1; ++i) {
      const std::uint64_t sums = i < 8 ? low : high;
      r += t[static_cast<std::size_t>(i) * width_ + ((sums >> (8 * (i & 7))) & 0xff)];
    }
    return r;
  }

  // The part of operator() that pits first..first + P - 1 give when they hold `side[0..P)` and
  // the pits below them hold `before` seeds: a board's rank is the part of its first P pits
  // plus that of its last P (with `before` the seeds of the first P).
  std::uint64_t part(const Pits& side, int first, int p, int before) const noexcept {
    const std::uint64_t* t = table_.data() + static_cast<std::size_t>(first) * width_;
    std::uint64_t r = 0;
    int sum = before;
    for (int i = 0; i < p; ++i, t += width_) {
      sum += side[i];
      r += t[sum];
    }
    return r;
  }

 private:
  std::size_t width_;
  std::vector<std::uint64_t> table_;  // [pit * width_ + prefix sum] = C(s + i, i + 1)
};

// Depths of 255 and more: the depth byte holds kDepthOverflow and the depth lives here. Both
// solvers share it; it is rare enough for a hash map.
class DepthOverflow {
 public:
  // The byte to store for `depth` at entry i, keeping a large depth aside. Thread safe.
  std::uint8_t encode(std::uint64_t i, int depth) {
    if (depth < kDepthOverflow)
      return static_cast<std::uint8_t>(depth);
    return encode_large(i, depth);
  }
  // The depth of entry i whose depth byte is `byte`. Thread safe.
  int decode(std::uint64_t i, std::uint8_t byte) const {
    if (byte != kDepthOverflow)
      return byte;
    return decode_large(i);
  }
  // The (index, depth) pairs sorted by index, as DepthTable takes them.
  std::vector<std::pair<std::uint64_t, std::uint16_t>> sorted() const {
    std::vector<std::pair<std::uint64_t, std::uint16_t>> out(map_.begin(), map_.end());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  // Out of line, so that the common cases inline into the solvers' inner loops.
  [[gnu::noinline]] int decode_large(std::uint64_t i) const {
    decltype(map_)::const_accessor acc;
    map_.find(acc, i);
    return acc->second;
  }
  [[gnu::noinline]] std::uint8_t encode_large(std::uint64_t i, int depth) {
    if (depth > 65535)
      throw std::runtime_error("depth to conversion exceeds 65535");
    decltype(map_)::accessor acc;
    map_.insert(acc, i);
    acc->second = static_cast<std::uint16_t>(depth);
    return kDepthOverflow;
  }

  tbb::concurrent_hash_map<std::uint64_t, std::uint16_t> map_;
};

// The minority rule of SolveOptions::mark: which smaller layers' value bytes carry a mark in bit
// 7 (marked_byte), and whether the layer being solved gets marks.
class SmallerMarks {
 public:
  SmallerMarks(int stones, const SolveOptions& options)
      : on_(options.mark && stones <= kMaxMarkedStones), stones_(stones) {
    const bool coded = options.mark || options.marked_smaller;
    for (int m = 0; m < stones; ++m)
      shift_[m] = coded && m <= kMaxMarkedStones ? 1 : 0;
  }
  // The layer being solved gets marks.
  bool on() const { return on_; }
  // The value of byte `b` of smaller layer m.
  int value(int m, std::int8_t b) const {
    const int s = shift_[m];
    return static_cast<std::int8_t>(static_cast<std::uint8_t>(b) << s) >> s;
  }
  // Byte `b` of smaller layer m is a recompute entry.
  bool marked(int m, std::int8_t b) const { return shift_[m] != 0 && marked_mark(b); }
  // The mover holds fewer than half of the seeds: the part of the rule the board decides.
  bool minority(const Pits& board, int pits_per_side) const {
    int a = 0;
    for (int x = 0; x < pits_per_side; ++x)
      a += board[x];
    return 2 * a < stones_;
  }

 private:
  bool on_;
  int stones_;
  std::array<std::uint8_t, kMaxIndexedStones + 1> shift_{};
};

// Collects the marks of consecutive positions from `first` on into 64-bit words, each OR-ed into
// `words` once it is complete: a range's first and last word may be shared with another thread.
class MarkWriter {
 public:
  MarkWriter(std::vector<std::uint64_t>& words, std::uint64_t first)
      : words_(words.data()), at_(first) {}
  void push(bool mark) {
    bits_ |= std::uint64_t{mark} << (at_ & 63);
    if ((++at_ & 63) == 0)
      emit((at_ - 1) >> 6);
  }
  void flush() {
    if ((at_ & 63) != 0)
      emit(at_ >> 6);
  }

 private:
  void emit(std::uint64_t word) {
    if (bits_ != 0)
      aref(words_[word]).fetch_or(bits_, std::memory_order_relaxed);
    bits_ = 0;
  }
  std::uint64_t* words_;
  std::uint64_t at_;
  std::uint64_t bits_ = 0;
};

class LayerSolver {
 public:
  LayerSolver(const RuleSet& rules,
              int stones,
              const SmallerValues& smaller,
              const SolveOptions& options)
      : rules_(rules),
        stones_(stones),
        k_(rules_.pits()),
        p_(rules_.pits_per_side()),
        rank_(k_, stones),
        quiet_grand_slams_(rules.grand_slam == GrandSlam::kNoCapture),
        marks_(stones, options) {
    size_ = layer_size(k_, stones_);
    if (size_ > (std::uint64_t{1} << 40))
      throw std::runtime_error("layer too large");
    for (int m = 0; m < stones_; ++m)
      smaller_[m] = smaller(m);
    if (marks_.on())
      recompute_.assign((size_ + 63) / 64, 0);
    for (int pit = 0; pit < p_; ++pit)
      unit_[pit][pit] = 0xff;
    row_width_ = static_cast<std::size_t>(stones_) + 2 + kWindow;
    rows_.assign(static_cast<std::size_t>(k_ - 1) * row_width_, 0);
    for (int j = 0; j + 1 < k_; ++j) {
      for (int v = 0; v <= stones_ + 1; ++v)
        rows_[j * row_width_ + kWindow + v] = binomial(v + j, j + 1);
    }
    value_ = huge_vector(size_, 0);
    cells_ = static_cast<Cell*>(std::malloc(size_ * sizeof(Cell) + 1));
    if (!cells_)
      throw std::bad_alloc();
    advise_huge_pages(cells_, size_ * sizeof(Cell));
    lines_ = (size_ + kLine - 1) >> kLineShift;
    blocks_ = (size_ + (std::uint64_t{1} << kBlockShift) - 1) >> kBlockShift;
    settled_ = std::make_unique<std::uint8_t[]>(blocks_);
    seed_values_ = std::make_unique<std::uint64_t[]>(blocks_);
    bucket_shift_ = kMinBucketShift;
    while ((size_ >> bucket_shift_) >= (std::uint64_t{1} << kMaxBucketBits))
      ++bucket_shift_;
    buckets_ = ((size_ - 1) >> bucket_shift_) + 1;
    for (int parity = 0; parity < 2; ++parity) {
      line_flags_[parity] = std::make_unique<std::uint8_t[]>(lines_);
      block_flags_[parity] = std::make_unique<std::uint8_t[]>(blocks_);
    }
  }

  ~LayerSolver() { std::free(cells_); }
  LayerSolver(const LayerSolver&) = delete;
  LayerSolver& operator=(const LayerSolver&) = delete;

  Layer run(const std::function<void(double)>& progress) {
    const double steps = stones_ + 1;
    init();
    mark_seed_values();
    if (progress)
      progress(1 / steps);
    for (int t = stones_; t >= 1; --t) {
      solve_threshold(t);
      if (progress)
        progress((stones_ - t + 2) / steps);
    }
    // Undecided positions are worth 0: neither side can force a gain (endless play or a balanced
    // game); finished games worth 0 land here too.
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, size_, 1 << 16), [&](const auto& r) {
      for (std::uint64_t i = r.begin(); i != r.end(); ++i) {
        if (!(cells_[i].state & kDecided)) {
          value_[i] = 0;
          cells_[i].depth = 0;
        }
      }
    });
    // Compact the depth bytes in place to the front of the cell memory and give back the rest:
    // the layer never needs more than its 3 bytes per position.
    auto* bytes = reinterpret_cast<std::uint8_t*>(cells_);
    for (std::uint64_t i = 0; i < size_; ++i)
      bytes[i] = cells_[i].depth;
    auto* low = static_cast<std::uint8_t*>(std::realloc(cells_, size_ + 1));
    if (low)
      cells_ = reinterpret_cast<Cell*>(low);
    auto overflow = overflow_.sorted();
    Layer layer;
    layer.stones = stones_;
    layer.value = std::move(value_);
    layer.depth = DepthTable(
        DepthTable::Bytes(reinterpret_cast<std::uint8_t*>(cells_)), size_, std::move(overflow));
    layer.recompute = std::move(recompute_);
    cells_ = nullptr;
    return layer;
  }

 private:
  // Worth of the best move that leaves the layer; counts the in-layer moves.
  void init() {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, size_, 1 << 14), [&](const auto& r) {
      // Oware's board gets a ranker of fixed size.
      if (k_ == 12)
        init_range<12>(r.begin(), r.end());
      else
        init_range<kMaxPits>(r.begin(), r.end());
    });
  }

  // init() for positions begin..end; kPits: the board's pits, or kMaxPits for any board.
  template <int kPits>
  void init_range(std::uint64_t begin, std::uint64_t end) {
    Pits board{};
    unrank(begin, stones_, std::span(board.data(), k_));
    MoveList moves;
    // Positions go in groups: first their moves, prefetching the smaller-layer values the
    // exits need, then the worths, so that those cache misses overlap.
    constexpr int kGroup = 16;
    struct Exit {
      const std::int8_t* value;
      int gain;
      bool extra_turn;
    };
    std::array<std::array<Exit, kMaxPitsPerSide>, kGroup> exits;
    std::array<int, kGroup> exit_count;
    std::array<bool, kGroup> minority{};
    MarkWriter marks(recompute_, begin);
    for (std::uint64_t first = begin; first < end; first += kGroup) {
      const int group = static_cast<int>(std::min<std::uint64_t>(kGroup, end - first));
      for (int g = 0; g < group; ++g) {
        const std::uint64_t i = first + g;
        int in_layer = 0;
        const int count = rules_.oware_exits(board, moves, in_layer);
        exit_count[g] = 0;
        for (const Move& m : moves) {
          const std::int8_t* v = smaller_[stones_ - m.gain()] + rank_.rank<kPits>(m.child);
          __builtin_prefetch(v);
          exits[g][exit_count[g]++] = {v, m.gain(), m.extra_turn};
        }
        if (marks_.on())
          minority[g] = marks_.minority(board, p_);
        if (count == 0) {
          value_[i] = static_cast<std::int8_t>(rules_.final_value(board));
          exit_count[g] = -1;
        }
        cells_[i].state = static_cast<std::uint8_t>(in_layer);
        cells_[i].depth = count == 0 ? kTerminalMark : 0;
        next_position(std::span(board.data(), k_));
      }
      for (int g = 0; g < group; ++g) {
        bool mark = minority[g];
        if (exit_count[g] >= 0) {  // a finished game keeps its final value
          int best = kNoExit;
          for (int e = 0; e < exit_count[g]; ++e) {
            const Exit& x = exits[g][e];
            const int m = stones_ - x.gain;
            const int v = marks_.value(m, *x.value);
            mark = mark && !marks_.marked(m, *x.value);
            best = std::max(best, x.gain + (x.extra_turn ? v : -v));
          }
          value_[first + g] = static_cast<std::int8_t>(best);
        }
        if (marks_.on())
          marks.push(mark);
      }
    }
    marks.flush();
  }

  // Notes, per block, which magnitudes its value bytes hold (bit min(|v|, 63); kNoExit sets bit
  // 63). Until a position is decided its byte keeps what init() wrote, and a seed of threshold t
  // holds +-t there, so a block without bit min(t, 63) has no seed of t.
  void mark_seed_values() {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, blocks_, 16), [&](const auto& r) {
      for (std::uint64_t b = r.begin(); b != r.end(); ++b) {
        const std::uint64_t begin = b << kBlockShift;
        const std::uint64_t end = std::min(size_, begin + (std::uint64_t{1} << kBlockShift));
        std::uint64_t mask = 0;
        for (std::uint64_t i = begin; i != end; ++i) {
          const int v = value_[i];
          mask |= std::uint64_t{1} << std::min(v < 0 ? -v : v, 63);
        }
        seed_values_[b] = mask;
      }
    });
  }

  // Decides position i, already marked kDecided, and puts it on the frontier of `level`. Only
  // the calling thread writes i's cell and line meanwhile: the seed scan owns whole blocks, the
  // updates whole buckets.
  void decide(std::uint64_t i, int value, int level) {
    value_[i] = static_cast<std::int8_t>(value);
    cells_[i].depth = overflow_.encode(i, level);
    const int parity = level & 1;
    cells_[i].state |= (value > 0 ? kWon : 0) | kFrontier[parity];
    line_flags_[parity][i >> kLineShift] = 1;
    aref(block_flags_[parity][i >> kBlockShift]).store(1, std::memory_order_relaxed);
  }

  void solve_threshold(int t) {
    // Seeds: finished games worth +-t (level 0); positions whose best exit is worth t, and
    // positions all of whose in-layer moves lead to a child worth >= t to its mover and whose
    // best exit is worth exactly -t (level 1).
    // A block found fully decided is skipped by the scans of the lower thresholds.
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, blocks_, 16), [&](const auto& r) {
      for (std::uint64_t b = r.begin(); b != r.end(); ++b) {
        if (settled_[b] || !(seed_values_[b] >> std::min(t, 63) & 1))
          continue;
        const std::uint64_t begin = b << kBlockShift;
        const std::uint64_t end = std::min(size_, begin + (std::uint64_t{1} << kBlockShift));
        bool open = false;
        for (std::uint64_t i = begin; i != end; ++i) {
          if ((i & 7) == 0 && end - i >= 8) {
            // Most positions need nothing: rule out 8 at a time.
            const SeedScan scan = scan8(i, t);
            open |= scan.open;
            if (!scan.seeds) {
              i += 7;
              continue;
            }
          }
          const std::uint8_t s = cells_[i].state;
          if (s & kDecided)
            continue;
          const int v = value_[i];
          if (cells_[i].depth == kTerminalMark) {
            if (v == t || v == -t) {
              cells_[i].state = static_cast<std::uint8_t>(s | kDecided);
              decide(i, v, 0);
              continue;
            }
          } else if (v == t || (v == -t && (s & kCounterMask) == 0)) {
            cells_[i].state = static_cast<std::uint8_t>(s | kDecided);
            decide(i, v, 1);
            continue;
          }
          open = true;
        }
        if (!open)
          settled_[b] = 1;
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
        if (level == 0)
          continue;  // level-1 seeds need no level 0
        break;
      }
      // Rounds of two phases: the threads expand blocks until their update buffers fill, then
      // apply the updates, each region of the layer by one thread. Neither phase writes a cell
      // that another thread touches, so both use plain read-modify-writes: locked ones stalled
      // on every cache miss.
      std::atomic<std::size_t> next{0};
      const int slots = tbb::this_task_arena::max_concurrency();
      while (next.load(std::memory_order_relaxed) < blocks.size()) {
        tbb::parallel_for(0, slots, [&](int) {
          Scratch& scratch = scratch_.local();
          while (scratch.preds.size() < kUpdateBuffer) {
            const std::size_t bi = next.fetch_add(1, std::memory_order_relaxed);
            if (bi >= blocks.size())
              break;
            // Oware's board gets a ranker of fixed size.
            if (k_ == 12)
              expand_block<12>(blocks[bi], level, scratch);
            else
              expand_block<kMaxPits>(blocks[bi], level, scratch);
          }
        });
        apply(t, level);
      }
    }
  }

  struct SeedScan {
    bool seeds;  // some of the positions is a seed
    bool open;   // some stays undecided
  };

  // The seed conditions of solve_threshold() for positions i..i+7 in 16-byte lanes (SSE2).
  SeedScan scan8(std::uint64_t i, int t) const {
    typedef std::int16_t I16 __attribute__((vector_size(16)));
    typedef std::int8_t I8 __attribute__((vector_size(8)));
    I16 cell;
    I8 value8;
    std::memcpy(&cell, &cells_[i], sizeof cell);
    std::memcpy(&value8, &value_[i], sizeof value8);
    const I16 value = __builtin_convertvector(value8, I16);
    const I16 state = cell & 0xff;
    const I16 undecided = (state & kDecided) == 0;
    const I16 terminal = ((cell >> 8) & 0xff) == kTerminalMark;
    const I16 plus = value == static_cast<std::int16_t>(t);
    const I16 minus = value == static_cast<std::int16_t>(-t);
    const I16 blocked = (state & kCounterMask) == 0;
    const I16 seed = undecided & (plus | (minus & (terminal | blocked)));
    const I16 open = undecided & ~seed;
    std::uint64_t lanes[2];
    std::uint64_t open_lanes[2];
    std::memcpy(lanes, &seed, sizeof lanes);
    std::memcpy(open_lanes, &open, sizeof open_lanes);
    return {(lanes[0] | lanes[1]) != 0, (open_lanes[0] | open_lanes[1]) != 0};
  }

  struct Scratch {
    std::vector<std::uint32_t> lines;
    std::vector<std::uint64_t> preds;   // p << 1 | won, in the order found
    std::vector<std::uint64_t> sorted;  // the same, by bucket of p
    std::vector<std::uint32_t> counts;  // per bucket
  };

  // kPits: the board's pits, or kMaxPits for any board.
  template <int kPits>
  void expand_block(std::uint64_t block, int level, Scratch& scratch) {
    const int parity = level & 1;
    const std::uint8_t bit = kFrontier[parity];
    const std::uint64_t first_line = block << (kBlockShift - kLineShift);
    const std::uint64_t last_line =
        std::min(lines_, first_line + (std::uint64_t{1} << (kBlockShift - kLineShift)));
    // Find the block's frontier lines first and prefetch their cells.
    scratch.lines.clear();
    for (std::uint64_t line = first_line; line < last_line; ++line) {
      if (!line_flags_[parity][line])
        continue;
      line_flags_[parity][line] = 0;
      scratch.lines.push_back(static_cast<std::uint32_t>(line - first_line));
      const char* cells = reinterpret_cast<const char*>(&cells_[line << kLineShift]);
      __builtin_prefetch(cells);
      __builtin_prefetch(cells + 64);
    }
    // Then gather predecessors; their updates wait in a buffer and go in index order.
    Pits board{};
    std::uint64_t at = 0;
    bool have_board = false;
    for (std::uint32_t rel : scratch.lines) {
      const std::uint64_t begin = (first_line + rel) << kLineShift;
      // Testing the positions one by one mispredicted a branch per frontier position.
      for (std::uint64_t mask = take_frontier(begin, bit); mask != 0; mask &= mask - 1) {
        const std::uint64_t i = begin + static_cast<std::uint64_t>(__builtin_ctzll(mask));
        const std::uint8_t state = cells_[i].state;
        if (have_board)
          advance(board, i - at);
        else
          unrank(i, stones_, std::span(board.data(), k_));
        have_board = true;
        at = i;
        const std::uint64_t won = (state & kWon) ? 1 : 0;
        for_each_predecessor<kPits>(
            board, [&](std::uint64_t p) { scratch.preds.push_back(p << 1 | won); });
      }
    }
  }

  // Moves `board` `gap` positions on in index order. The index is sum_j C(S_j + j, j + 1) over
  // the prefix sums S_j of pits 0..j (a combinatorial number system), so pits 0..m+1 alone
  // reach the gap when the part of pits 0..m stays below its capacity C(S_{m+1} + m + 1, m + 1);
  // only they are unranked again. Nearby frontier positions differ in a few low pits: a full
  // unrank mispredicted the end of its search at every pit.
  static constexpr int kWindow = 4;

  void advance(Pits& board, std::uint64_t gap) const {
    const std::uint64_t* row = rows_.data() + kWindow;
    const std::size_t width = row_width_;
    std::uint64_t low = 0;
    int sum = 0;
    int m = 0;
    for (;; ++m, row += width) {
      sum += board[m];
      low += row[sum];
      if (low + gap < row[sum + board[m + 1] + 1])
        break;
    }
    std::uint64_t index = low + gap;
    int upper = sum + board[m + 1];
    // The new pits 0..m+1 go into the board as one store: byte stores followed by the wide
    // loads of the predecessor search stalled store forwarding. They gather in two 64-bit
    // halves: a 128-bit shift by a variable count took a dozen instructions.
    std::uint64_t pits[2] = {0, 0};
    const int top = m + 1;
    for (;; row -= width) {
      // The pit above holds upper - s seeds, mostly few: counting the terms above `index` in a
      // window of kWindow (the padding makes those below 0 count as none) mispredicts only for
      // a fuller pit, where the search steps on.
      int s = upper;
      int above = 0;
      for (int w = 0; w < kWindow; ++w)
        above += row[upper - w] > index;
      s -= above;
      if (above == kWindow) {
        while (row[s] > index)
          --s;
      }
      index -= row[s];
      const int pit = m + 1;
      pits[pit >> 3] |= static_cast<std::uint64_t>(upper - s) << (8 * (pit & 7));
      upper = s;
      if (m-- == 0)
        break;
    }
    pits[0] |= static_cast<std::uint64_t>(upper);
    std::uint64_t x[2];
    std::memcpy(x, board.data(), sizeof x);
    // Pits 0..top are new: the low `bytes` bytes of a half are replaced (a shift by 64 would be
    // undefined).
    const auto kept = [](int bytes) { return bytes >= 8 ? 0 : ~std::uint64_t{0} << (8 * bytes); };
    x[0] = (x[0] & kept(top + 1)) | pits[0];
    x[1] = (x[1] & kept(std::max(top + 1 - 8, 0))) | pits[1];
    std::memcpy(board.data(), x, sizeof x);
  }

  // The frontier positions of the line at `begin` as a bit mask; clears their frontier bits.
  // Only the expanding thread writes the line's cells meanwhile.
  std::uint64_t take_frontier(std::uint64_t begin, std::uint8_t bit) {
    if (begin + kLine > size_) {
      std::uint64_t mask = 0;
      for (std::uint64_t i = begin; i < size_; ++i) {
        if (cells_[i].state & bit) {
          mask |= std::uint64_t{1} << (i - begin);
          cells_[i].state = static_cast<std::uint8_t>(cells_[i].state & ~bit);
        }
      }
      return mask;
    }
    typedef std::int16_t I16 __attribute__((vector_size(16)));
    typedef std::int8_t I8 __attribute__((vector_size(8)));
    auto* bytes = reinterpret_cast<char*>(&cells_[begin]);
    const I16 flag = I16{} + bit;  // the state byte is the low byte of each lane
    std::uint64_t mask = 0;
    for (int q = 0; q < 8; ++q) {
      I16 cells;
      std::memcpy(&cells, bytes + 16 * q, sizeof cells);
      const I8 hit = __builtin_convertvector((cells & flag) != 0, I8);
      std::uint64_t x;
      std::memcpy(&x, &hit, sizeof x);
      if (x) {
        // Byte j keeps bit j; the multiplication gathers them in the top byte.
        mask |= ((x & 0x8040201008040201) * 0x0101010101010101) >> 56 << (8 * q);
        cells &= ~flag;
        std::memcpy(bytes + 16 * q, &cells, sizeof cells);
      }
    }
    return mask;
  }

  // Updates held back per thread: enough that applying them in index order reuses cache lines
  // and streams, few enough that the buffers stay a small part of the working memory.
  static constexpr std::size_t kUpdateBuffer = std::size_t{1} << 16;
  // At most this many buckets: their counters stay in the L1 cache.
  static constexpr int kMaxBucketBits = 12;
  static constexpr int kMinBucketShift = kLineShift;

  // Sorts a thread's buffered updates by bucket of the position they update.
  void sort_updates(Scratch& scratch) const {
    const int shift = bucket_shift_ + 1;  // entries carry the won flag in bit 0
    scratch.counts.assign(buckets_ + 1, 0);
    for (std::uint64_t entry : scratch.preds)
      ++scratch.counts[(entry >> shift) + 1];
    for (std::size_t b = 1; b <= buckets_; ++b)
      scratch.counts[b] += scratch.counts[b - 1];
    scratch.sorted.resize(scratch.preds.size());
    std::uint32_t* at = scratch.counts.data();
    for (std::uint64_t entry : scratch.preds)
      scratch.sorted[at[entry >> shift]++] = entry;
    // The scatter moved each start to its bucket's end: counts[b] now ends bucket b.
    scratch.preds.clear();
  }

  // Applies every buffered update, bucket by bucket. The order within a level does not matter:
  // a position with a lost child never has all its moves' children won, so at most one of its
  // updates decides it. In bucket order the accesses climb through the layer and share lines.
  void apply(int t, int level) {
    tbb::parallel_for(scratch_.range(1), [&](const auto& r) {
      for (Scratch& scratch : r)
        sort_updates(scratch);
    });
    std::vector<Scratch*> all;
    for (Scratch& scratch : scratch_) {
      if (!scratch.sorted.empty())
        all.push_back(&scratch);
    }
    if (all.empty())
      return;
    // A bucket spans whole lines, so that no two tasks write one line flag.
    static_assert(kLine <= (std::uint64_t{1} << kMinBucketShift));
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, buckets_, 16), [&](const auto& r) {
      for (const Scratch* scratch : all) {
        const std::uint64_t* e = scratch->sorted.data();
        const std::size_t begin = r.begin() == 0 ? 0 : scratch->counts[r.begin() - 1];
        const std::size_t end = scratch->counts[r.end() - 1];
        constexpr std::size_t kAhead = 16;
        for (std::size_t j = begin; j < end; ++j) {
          if (j + kAhead < end) {
            const std::uint64_t q = e[j + kAhead] >> 1;
            __builtin_prefetch(&cells_[q], 1);
            __builtin_prefetch(&value_[q], 1);
          }
          const std::uint64_t p = e[j] >> 1;
          Cell& c = cells_[p];
          if (e[j] & 1) {
            // A child worth >= t to its mover: one fewer move of p can avoid it. When none is
            // left, p is lost by t if no exit does better (its value byte still holds the best
            // exit).
            const std::uint8_t before = c.state;
            c.state = static_cast<std::uint8_t>(before - 1);
            if ((before & (kCounterMask | kDecided)) == 1 && value_[p] <= -t) {
              c.state |= kDecided;
              decide(p, -t, level + 1);
            }
          } else if (!(c.state & kDecided)) {
            c.state |= kDecided;
            decide(p, t, level + 1);
          }
        }
      }
    });
    for (Scratch* scratch : all)
      scratch->sorted.clear();
  }

  typedef std::uint8_t V16 __attribute__((vector_size(16)));

  // Calls f(index) once for each (position, move) pair whose in-layer move leads to `child`.
  //
  // A sowing of s < 2P seeds from `origin` leaves the origin empty and puts one seed into each
  // of the s pits after it, the last of them pit origin + s (mod 2P). So the candidates of that
  // kind are read off bit masks of the turned child: the origin is empty, the s pits after it
  // are not (s = 1 .. the run of nonempty pits after the origin), and the last seed does not
  // make 2 or 3 in an opposing pit (a capture). Every candidate is then replayed, so the masks
  // only spare the search and the replays that would fail. Only sowings that lap the board
  // take the pit-by-pit search. Testing each s in turn (does the sowing fit?) mispredicted a
  // branch at the end of each origin's search.
  template <int kPits, typename F>
  void for_each_predecessor(const Pits& child, F&& f) {
    // Constants for a board of known size, which frees registers in the loops.
    const int k = kPits == kMaxPits ? k_ : kPits;
    const int p = k / 2;
    // The previous mover sat on the other side; an in-layer move passed the turn.
    const Pits b = turn<kPits>(child);
    V16 bv;
    std::memcpy(&bv, b.data(), sizeof bv);
    const std::uint32_t nonempty = lane_mask(bv != 0);
    if ((nonempty >> p) == 0)
      return;  // a legal move never leaves the opponent without seeds
    const std::uint32_t board = (std::uint32_t{1} << k) - 1;
    const std::uint32_t capture_at =
        lane_mask((bv | 1) == 3) & board & ~((std::uint32_t{1} << p) - 1);
    // Twice around the board, so that runs past the last pit need no wrap.
    const std::uint32_t nonempty2 = nonempty | nonempty << k;
    const std::uint32_t capture_at2 = capture_at | capture_at << k;
    // The origins: the mover's empty pits.
    for (std::uint32_t origins = ~nonempty & ((std::uint32_t{1} << p) - 1); origins != 0;
         origins &= origins - 1) {
      const int origin = __builtin_ctz(origins);
      // Bit s - 1 stands for a sowing of s seeds. The origin's own bit ends the run, so no
      // sowing here reaches 2P seeds.
      const int run = __builtin_ctz(~(nonempty2 >> (origin + 1)));
      std::uint32_t sowings = (std::uint32_t{1} << run) - 1;
      const std::uint32_t captures = (capture_at2 >> (origin + 1)) & sowings;
      // A grand slam under kNoCapture captures nothing: such a sowing stays a candidate.
      if (!quiet_grand_slams_)
        sowings &= ~captures;
      for (; sowings != 0; sowings &= sowings - 1) {
        const int s = __builtin_ctz(sowings) + 1;
        const Pits cand = unsow(bv, origin, s);
        // Replaying the forward move makes the predecessor exact by construction; the masks
        // only spare the replays that would fail.
        if (!rules_.oware_quiet_move_to_turned(cand, origin, b))
          continue;
        f(rank_.rank<kPits>(cand));
      }
    }
    // A sowing that laps the board leaves every pit but perhaps its origin nonempty, so at most
    // one pit is empty (tested without __builtin_popcount, a library call without -mpopcnt).
    // These updates come after the others; the order of a level's updates does not matter (see
    // apply()).
    const std::uint32_t empty = ~nonempty & board;
    if ((empty & (empty - 1)) == 0) {
      for (int origin = 0; origin < p; ++origin) {
        if ((nonempty | std::uint32_t{1} << origin) == board)
          for_each_lap_predecessor<kPits>(b, bv, origin, f);
      }
    }
  }

  // rules_.rotate(), with the shift known when the board size is: a shift by a variable count
  // of a 128-bit number took some 50 instructions.
  template <int kPits>
  Pits turn(const Pits& board) const {
    if constexpr (kPits == kMaxPits) {
      return rules_.rotate(board);
    } else {
      static_assert(kPits % 2 == 0 && kPits < kMaxPits);
      __extension__ typedef unsigned __int128 U128;
      constexpr int kShift = 4 * kPits;  // the bits of one side's pits
      constexpr U128 kLow = (static_cast<U128>(1) << kShift) - 1;
      U128 x;
      std::memcpy(&x, board.data(), sizeof x);
      const U128 r = (x >> kShift) | ((x & kLow) << kShift);
      Pits out;
      std::memcpy(out.data(), &r, sizeof r);
      return out;
    }
  }

  // The predecessors of for_each_predecessor() whose sowing from `origin` laps the board
  // (2P seeds or more; every pit but perhaps the origin is then nonempty).
  template <int kPits, typename F>
  void for_each_lap_predecessor(const Pits& b, const V16& bv, int origin, F&& f) {
    // The rows grow with s, so the first s that does not fit ends the search.
    for (int s = k_; s <= stones_; ++s) {
      if (rules_.sowing_stored(origin, s) != 0)
        break;  // would gain: not an in-layer move
      const Pits& add = rules_.sowing_add(origin, s);
      if (add[origin] > b[origin])
        break;
      V16 av;
      std::memcpy(&av, add.data(), sizeof av);
      const V16 fits = bv >= av;
      std::uint64_t lanes[2];
      std::memcpy(lanes, &fits, sizeof lanes);
      if ((lanes[0] & lanes[1]) != ~std::uint64_t{0})
        break;
      if (add[origin] != b[origin])
        continue;
      // Replaying the forward move makes the predecessor exact by construction.
      const Pits cand = unsow(bv, origin, s);
      if (rules_.oware_quiet_move_to_turned(cand, origin, b))
        f(rank_.rank<kPits>(cand));
    }
  }

  // The board that sowing s seeds from `origin` turned into `bv`, where the origin holds 0. Built
  // in a register: a byte store into the board followed by its 8-byte loads stalled store
  // forwarding.
  Pits unsow(const V16& bv, int origin, int s) const {
    V16 av;
    std::memcpy(&av, rules_.sowing_add(origin, s).data(), sizeof av);
    const V16 pre = (bv - av) | (unit_[origin] & static_cast<std::uint8_t>(s));
    Pits cand;
    std::memcpy(cand.data(), &pre, sizeof pre);
    return cand;
  }

  // Bit j set when lane j of `lanes` (0 or 0xff each) is set.
  static std::uint32_t lane_mask(const V16& lanes) {
    std::uint64_t half[2];
    std::memcpy(half, &lanes, sizeof half);
    // Byte j keeps bit j; the multiplication gathers them in the top byte.
    constexpr std::uint64_t kBit = 0x8040201008040201;
    constexpr std::uint64_t kOnes = 0x0101010101010101;
    return static_cast<std::uint32_t>(((half[0] & kBit) * kOnes) >> 56 |
                                      ((half[1] & kBit) * kOnes) >> 56 << 8);
  }

  Rules rules_;
  int stones_;
  int k_;
  int p_;
  Ranker rank_;
  V16 unit_[kMaxPitsPerSide] = {};  // 0xff at the pit, 0 elsewhere
  bool quiet_grand_slams_ = false;  // a grand slam captures nothing (kNoCapture)
  // rows_[j * row_width_ + kWindow + v] = C(v + j, j + 1) for 0 <= v <= stones_ + 1, after
  // kWindow zeros: unranking terms.
  std::vector<std::uint64_t> rows_;
  std::size_t row_width_ = 0;
  std::uint64_t size_ = 0;
  std::uint64_t blocks_ = 0;
  const std::int8_t* smaller_[kMaxIndexedStones + 1] = {};
  std::vector<std::int8_t> value_;
  Cell* cells_ = nullptr;
  std::uint64_t lines_ = 0;
  std::unique_ptr<std::uint8_t[]> line_flags_[2];
  std::unique_ptr<std::uint8_t[]> block_flags_[2];
  std::unique_ptr<std::uint8_t[]> settled_;       // 1: every position of the block is decided
  std::unique_ptr<std::uint64_t[]> seed_values_;  // per block: see mark_seed_values()
  int bucket_shift_ = 0;                          // positions per update bucket, as a power of 2
  std::uint64_t buckets_ = 0;
  tbb::enumerable_thread_specific<Scratch> scratch_;
  DepthOverflow overflow_;
  SmallerMarks marks_;
  std::vector<std::uint64_t> recompute_;
};

// Kalah-family and wari-us layers are acyclic: an in-layer move sows only the mover's own pits
// towards the store (reaching the store would gain a seed), so the seeds of each side only move
// on towards their store. There a depth-first pass computes each position once from its
// children, with no predecessor search and no thresholds; the result is the same as the
// retrograde analysis would give (solver.h defines both from the same recursion).
class AcyclicSolver {
 public:
  AcyclicSolver(const RuleSet& rules,
                int stones,
                const SmallerValues& smaller,
                const SolveOptions& options)
      : rules_(rules),
        stones_(stones),
        k_(rules_.pits()),
        kalah_(rules.family == Family::kKalah),
        capture_empty_opposite_(rules.capture_empty_opposite),
        marks_(stones, options),
        rank_(k_, stones) {
    size_ = layer_size(k_, stones_);
    for (int m = 0; m < stones_; ++m)
      smaller_[m] = smaller(m);
    value_ = huge_vector(size_, kUnknown);
    if (marks_.on()) {
      mark_.reset(new std::uint8_t[size_]);
      advise_huge_pages(mark_.get(), size_);
    }
    depth_ = DepthTable::Bytes(static_cast<std::uint8_t*>(std::malloc(size_ + 1)));
    if (!depth_)
      throw std::bad_alloc();
    advise_huge_pages(depth_.get(), size_);
  }

  Layer run(const std::function<void(double)>& progress) {
    // Positions go in tiles: a run of kTile mover's sides (the low digits of the index) by a run
    // of kTile opponent's sides (the high digits), so that the tile's own entries and its
    // children's entries each fill a few hundred cache lines instead of one line per look-up. A
    // child's mover is the parent's opponent: the children of one move from the tile's positions
    // form a similar tile of the child's layer, with the two runs swapped. In index order (one
    // mover's run per opponent's side) every child look-up missed the cache: about 1.35 times
    // slower on Kalah 6x4 layers 0..17.
    //
    // Tiles go by increasing diagonal A + B (A, B: the tile's run numbers, side rank / kTile). A
    // move that stays in the layer sows the mover's seeds towards higher pits, which lowers the
    // prefix sums of the side and so its rank, and leaves the opponent's side alone: from (a, b)
    // it leads to (b, a') with rank(a') < rank(a), in a tile of diagonal <= the parent's. On the
    // same diagonal the child lies in the mirror tile (the two runs swapped, the other seed
    // count), so a tile and its mirror go together, walked by increasing rank(a) + rank(b)
    // within the pair: then every in-layer child is solved before its parent. (Walking the seed
    // counts in order left 40% of the positions to the depth-first recursion of finish(), whose
    // look-ups are random; it stays as a fallback, so correctness never rests on this order.)
    const int p = rules_.pits_per_side();
    std::vector<std::vector<Tile>> diagonals;
    for (int k = 0; 2 * k <= stones_; ++k) {
      const std::uint64_t runs_a = (layer_size(p, k) + kTile - 1) / kTile;
      const std::uint64_t runs_b = (layer_size(p, stones_ - k) + kTile - 1) / kTile;
      if (diagonals.size() < runs_a + runs_b - 1)
        diagonals.resize(runs_a + runs_b - 1);
      for (std::uint64_t a = 0; a < runs_a; ++a) {
        // With as many seeds on each side, the tile (a, b) is the mirror of (b, a).
        for (std::uint64_t b = 2 * k == stones_ ? a : 0; b < runs_b; ++b) {
          diagonals[a + b].push_back(
              {k, static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)});
        }
      }
    }
    std::uint64_t pairs = 0;
    for (const auto& d : diagonals)
      pairs += d.size();
    std::atomic<std::uint64_t> done{0};
    const auto main_thread = std::this_thread::get_id();
    for (const std::vector<Tile>& pass : diagonals) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pass.size(), 1), [&](const auto& r) {
        // One frame per level of the fallback recursion; a deque keeps references valid as it
        // grows.
        std::deque<Frame>& stack = stacks_.local();
        PairScratch& scratch = scratch_.local();
        for (std::size_t c = r.begin(); c != r.end(); ++c) {
          solve_pair(pass[c], scratch, stack);
          const std::uint64_t now = done.fetch_add(1) + 1;
          if (progress && std::this_thread::get_id() == main_thread)
            progress(static_cast<double>(now) / static_cast<double>(pairs));
        }
      });
    }
    auto overflow = overflow_.sorted();
    Layer layer;
    layer.stones = stones_;
    layer.value = std::move(value_);
    layer.depth = DepthTable(std::move(depth_), size_, std::move(overflow));
    if (mark_) {
      // One byte per position while solving (a thread that solves a position again writes the
      // same byte), one bit in the result.
      layer.recompute.assign((size_ + 63) / 64, 0);
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, layer.recompute.size(), 1 << 10),
                        [&](const auto& r) {
                          for (std::uint64_t w = r.begin(); w != r.end(); ++w) {
                            std::uint64_t bits = 0;
                            const std::uint64_t first = w * 64;
                            const std::uint64_t n = std::min<std::uint64_t>(64, size_ - first);
                            for (std::uint64_t b = 0; b < n; ++b)
                              bits |= std::uint64_t{mark_[first + b]} << b;
                            layer.recompute[w] = bits;
                          }
                        });
      mark_.reset();
    }
    return layer;
  }

 private:
  static constexpr std::int8_t kUnknown = -128;  // no value is -128: |value| <= 127
  static constexpr int kMaxChain = 4096;
  static constexpr int kGroup = 16;
  // A tile: up to kTile mover's sides by up to kTile opponent's sides.
  static constexpr std::uint64_t kTile = 128;

  struct Tile {
    int k;               // seeds on the mover's side
    std::uint32_t a, b;  // run numbers of the mover's and the opponent's sides
  };

  // One position being solved: its moves and where their children's values are.
  struct Frame {
    Pits board;
    int moves;      // legal moves; 0 for a finished game
    bool minority;  // the mover holds fewer than half of the seeds (SmallerMarks::minority)
    std::uint8_t pit[kMaxPitsPerSide];
    std::uint8_t gain[kMaxPitsPerSide];
    bool extra_turn[kMaxPitsPerSide];
    std::uint64_t child_index[kMaxPitsPerSide];
    const std::int8_t* child_layer[kMaxPitsPerSide];
  };

  void add_move(Frame& f, const Move& m) const {
    add_move(f, m.pit, m.gain(), m.extra_turn, rank_(m.child));
  }

  void add_move(Frame& f, int pit, int gain, bool extra_turn, std::uint64_t child_index) const {
    const int j = f.moves++;
    f.pit[j] = static_cast<std::uint8_t>(pit);
    f.gain[j] = static_cast<std::uint8_t>(gain);
    f.extra_turn[j] = extra_turn;
    f.child_index[j] = child_index;
    f.child_layer[j] = gain == 0 ? value_.data() : smaller_[stones_ - gain];
    __builtin_prefetch(f.child_layer[j] + child_index);
    // finish() reads the depth of an in-layer child that keeps the value.
    if (gain == 0)
      __builtin_prefetch(depth_.get() + child_index);
  }

  // The moves of a Kalah tile whose child index splits into a part from the mover's side and a
  // part from the opponent's side, each computed once per side instead of once per position.
  // The index sums over the child's pits a table entry picked by the prefix sum up to the pit;
  // the first P pits form one part and the last P - 1 the other, whose prefix sums start at the
  // seed count of the first P. Three kinds of move split so:
  //  - quiet (no seed reaches the store, no capture): the child is the opponent's side as it
  //    is, then the mover's side after sowing; whether the last seed captures is the one test
  //    that needs both sides, made per position;
  //  - ending in the store (an extra turn, one seed gained): the mover's side after sowing, then
  //    the opponent's side, in the layer one seed down;
  //  - passing the store and ending on the opponent's side after r <= P seeds there: the
  //    opponent's side with one more seed in its first r pits, then the mover's side after
  //    sowing, one seed down.
  // Everything else (captures, sowings that come round to the mover's side) goes through the
  // general move generator. All three kinds are read off the rules' own sowing tables.
  class TileMoves {
   public:
    static constexpr std::uint8_t kNoCapture = 255;
    // The opponent's side's parts, by slot: 0 for a quiet move (the side as the child's first P
    // pits), 1 for a move ending in the store (the side as the last P pits, one seed down), 1 + r
    // for a move passing the store with r seeds on the opponent's side.
    static constexpr std::size_t kSlots = kMaxPitsPerSide + 2;

    // One move of one of the tile's mover's sides.
    struct TileMove {
      std::uint64_t part;  // the mover's side's part of the child index
      std::uint8_t pit;
      std::uint8_t slot;  // of the opponent's side's part
      std::uint8_t gain;
      bool extra_turn;
      bool general;       // made by the general move generator instead
      std::uint8_t land;  // quiet: the pit of a possible capture, or kNoCapture
      Pits captured;      // quiet: the mover's side after a capture at `land`
    };

    explicit TileMoves(const AcyclicSolver& solver)
        : s_(solver),
          moves_(kTile * kMaxPitsPerSide),
          count_(kTile),
          opponent_(kTile * kSlots),
          captured_(kTile * kMaxPitsPerSide) {}

    // The moves of the mover's sides `a[0..count)` (`seeds` seeds each), opposite sides of
    // `opponent_seeds` seeds.
    void set_mover_sides(const Pits* a, std::uint64_t count, int seeds, int opponent_seeds) {
      const Rules& rules = s_.rules_;
      const int p = rules.pits_per_side();
      mover_seeds_ = seeds;
      opponent_seeds_ = opponent_seeds;
      for (std::uint64_t ja = 0; ja < count; ++ja) {
        int n = 0;
        for (int x = 0; x < p; ++x) {
          const int sown = a[ja][x];
          if (sown == 0)
            continue;
          TileMove& mv = moves_[ja * kMaxPitsPerSide + static_cast<std::size_t>(n++)];
          mv.pit = static_cast<std::uint8_t>(x);
          mv.general = true;
          mv.land = kNoCapture;
          const Pits& add = rules.sowing_add(x, sown);
          const int stored = rules.sowing_stored(x, sown);
          // The path is one lap: a sowing of more seeds than a lap holds ends where its last
          // lap does (only the three kinds below read `last`, and none of them laps).
          const std::span<const std::uint8_t> path = rules.sowing_path(x);
          const std::uint8_t last = path[static_cast<std::size_t>(sown - 1) % path.size()];
          // Seeds reaching the opponent's side: one in each of its first r pits, or none.
          int r = 0;
          while (r < p && add[p + r] == 1)
            ++r;
          for (int i = r; i < p; ++i) {
            if (add[p + i] != 0)
              r = -1;
          }
          if (r < 0)
            continue;
          Pits after = a[ja];
          after[x] = 0;
          for (int i = 0; i < p; ++i)
            after[i] = static_cast<std::uint8_t>(after[i] + add[i]);
          if (stored == 0 && r == 0 && last < p) {
            set(mv, high_part(after, opponent_seeds), 0, 0, false);
            // kalah_move's capture: the last seed alone in an own pit.
            if (after[last] == 1) {
              mv.land = last;
              mv.captured = after;
              mv.captured[last] = 0;
            }
          } else if (stored == 1 && r == 0 && last == Rules::kStore) {
            set(mv, low_part(after), 1, 1, true);
          } else if (stored == 1 && r > 0 && last != Rules::kStore && last >= p) {
            set(mv, high_part(after, opponent_seeds + r), 1 + r, 1, false);
          }
        }
        count_[ja] = static_cast<std::uint8_t>(n);
      }
    }

    // The opponent's sides `b[0..count)`.
    void set_opponent_sides(const Pits* b, std::uint64_t count) {
      const int p = s_.rules_.pits_per_side();
      for (std::uint64_t jb = 0; jb < count; ++jb) {
        std::uint64_t* part = &opponent_[jb * kSlots];
        part[0] = low_part(b[jb]);
        part[1] = high_part(b[jb], mover_seeds_ - 1);
        Pits spilled = b[jb];
        for (int r = 1; r <= p; ++r) {
          ++spilled[r - 1];
          part[1 + r] = low_part(spilled);
        }
        for (int i = 0; i < p; ++i) {
          Pits taken = b[jb];
          taken[i] = 0;
          captured_[jb * kMaxPitsPerSide + static_cast<std::size_t>(i)] = low_part(taken);
        }
      }
    }

    const TileMove* moves(std::uint64_t ja) const { return &moves_[ja * kMaxPitsPerSide]; }
    int count(std::uint64_t ja) const { return count_[ja]; }
    const std::uint64_t* opponent_parts(std::uint64_t jb) const { return &opponent_[jb * kSlots]; }

    // The child index of quiet move `mv` at opponent's side jb when it captures `taken` seeds
    // from the opponent's pit `pit`: the capture empties the landing pit and that pit, and the
    // mover's side's part depends on the seeds taken, so it is summed here.
    std::uint64_t capture_index(const TileMove& mv, std::uint64_t jb, int pit, int taken) const {
      return captured_[jb * kMaxPitsPerSide + static_cast<std::size_t>(pit)] +
             high_part(mv.captured, opponent_seeds_ - taken);
    }

   private:
    static void set(TileMove& mv, std::uint64_t part, int slot, int gain, bool extra_turn) {
      mv.general = false;
      mv.part = part;
      mv.slot = static_cast<std::uint8_t>(slot);
      mv.gain = static_cast<std::uint8_t>(gain);
      mv.extra_turn = extra_turn;
    }

    // The part of the first P pits of a child whose first P pits are `side`.
    std::uint64_t low_part(const Pits& side) const {
      const int p = s_.rules_.pits_per_side();
      return s_.rank_.part(side, 0, p, 0);
    }

    // The part of the last P pits of a child whose last P pits are `side`, after `before`
    // seeds in the first P.
    std::uint64_t high_part(const Pits& side, int before) const {
      const int p = s_.rules_.pits_per_side();
      return s_.rank_.part(side, p, p, before);
    }

    const AcyclicSolver& s_;
    int mover_seeds_ = 0;
    int opponent_seeds_ = 0;
    std::vector<TileMove> moves_;          // [ja * kMaxPitsPerSide + move]
    std::vector<std::uint8_t> count_;      // [ja]: moves
    std::vector<std::uint64_t> opponent_;  // [jb * kSlots + slot]
    std::vector<std::uint64_t> captured_;  // [jb * kMaxPitsPerSide + opponent's pit emptied]
  };

  // One tile of a pair: mover's sides by opponent's sides.
  struct TileWalk {
    const Pits* mover;
    std::uint64_t movers;
    const Pits* opponent;
    std::uint64_t opponents;
    bool fast;                             // moves from the tile's parts (TileMoves)
    std::array<std::uint64_t, kTile> row;  // index of (mover[0], opponent[j])
  };

  struct PairScratch {
    explicit PairScratch(const AcyclicSolver& solver)
        : moves{TileMoves(solver), TileMoves(solver)} {}
    std::array<Pits, kTile> sides[2];
    std::array<TileMoves, 2> moves;
    // The group's frames: a deque's operator[] cost 8% of the run time here.
    std::array<Frame, kGroup> group;
    TileWalk walk[2];
  };

  void start_walk(TileWalk& w, TileMoves& moves, int mover_seeds) {
    const int p = rules_.pits_per_side();
    const int opponent_seeds = stones_ - mover_seeds;
    // A side without seeds, on either side, can end the game: the general move generator
    // handles those tiles.
    w.fast = kalah_ && mover_seeds > 0 && opponent_seeds > 0;
    if (w.fast)
      moves.set_mover_sides(w.mover, w.movers, mover_seeds, opponent_seeds);
    for (std::uint64_t j = 0; j < w.opponents; ++j) {
      // The tile's mover's sides have consecutive ranks, so each opponent's side has a row of
      // consecutive entries.
      Pits board = w.mover[0];
      std::copy_n(w.opponent[j].begin(), p, board.begin() + p);
      w.row[j] = rank_(board);
    }
    if (w.fast)
      moves.set_opponent_sides(w.opponent, w.opponents);
  }

  void solve_pair(const Tile& t, PairScratch& scratch, std::deque<Frame>& stack) {
    const int p = rules_.pits_per_side();
    const int seeds[2] = {t.k, stones_ - t.k};
    const std::uint32_t run[2] = {t.a, t.b};
    std::uint64_t count[2];
    for (int side = 0; side < 2; ++side) {
      const std::uint64_t first = std::uint64_t{run[side]} * kTile;
      count[side] = std::min(kTile, layer_size(p, seeds[side]) - first);
      Pits pits{};
      unrank(first, seeds[side], std::span(pits.data(), p));
      for (std::uint64_t j = 0; j < count[side]; ++j) {
        scratch.sides[side][j] = pits;
        next_position(std::span(pits.data(), p));
      }
    }
    const int walks = seeds[0] == seeds[1] && t.a == t.b ? 1 : 2;
    for (int w = 0; w < walks; ++w) {
      TileWalk& walk = scratch.walk[w];
      walk.mover = scratch.sides[w].data();
      walk.movers = count[w];
      walk.opponent = scratch.sides[1 - w].data();
      walk.opponents = count[1 - w];
      start_walk(walk, scratch.moves[w], seeds[w]);
    }
    // Positions go in groups: first every move and child index of the group, prefetching the
    // children's values, then the values, so that those cache misses overlap. A group may span
    // two sums of ranks: its positions are finished in walk order, a child before its parent.
    std::uint64_t index[kGroup];
    int group = 0;
    const auto flush = [&] {
      for (int g = 0; g < group; ++g) {
        finish(index[g], scratch.group[g], stack, 0);
      }
      group = 0;
    };
    for (std::uint64_t sum = 0; sum + 1 < count[0] + count[1]; ++sum) {
      for (int w = 0; w < walks; ++w) {
        const TileWalk& walk = scratch.walk[w];
        const std::uint64_t lo = sum >= walk.opponents ? sum - walk.opponents + 1 : 0;
        const std::uint64_t hi = std::min(sum + 1, walk.movers);
        for (std::uint64_t ja = lo; ja < hi; ++ja) {
          const std::uint64_t jb = sum - ja;
          Frame& f = scratch.group[group];
          index[group] = walk.row[jb] + ja;
          const Pits& sa = walk.mover[ja];
          const Pits& sb = walk.opponent[jb];
          for (int x = 0; x < p; ++x) {
            f.board[x] = sa[x];
            f.board[p + x] = sb[x];
          }
          // The walk reaches each position once; the fallback recursion may have solved it
          // already, and solving it again writes the same bytes: cheaper than a load of the
          // entry per position to check.
          f.minority = 2 * seeds[w] < stones_;
          if (walk.fast)
            prepare_in_tile(f, scratch.moves[w], ja, jb);
          else
            prepare(f);
          if (++group == kGroup)
            flush();
        }
      }
    }
    flush();
  }

  // prepare() for position (ja, jb) of a Kalah tile: the moves the tile's parts give, the
  // others from the general move generator.
  void prepare_in_tile(Frame& f, const TileMoves& tile, std::uint64_t ja, std::uint64_t jb) {
    const int p = rules_.pits_per_side();
    const TileMoves::TileMove* moves = tile.moves(ja);
    const std::uint64_t* opponent = tile.opponent_parts(jb);
    f.moves = 0;
    for (int j = 0; j < tile.count(ja); ++j) {
      const TileMoves::TileMove& mv = moves[j];
      if (mv.general) {
        Move m;
        rules_.play(f.board, mv.pit, m);
        add_move(f, m);
        continue;
      }
      std::uint64_t index = mv.part + opponent[mv.slot];
      int gain = mv.gain;
      if (mv.land != TileMoves::kNoCapture) {
        const int opposite = k_ - 1 - mv.land;
        const int taken = f.board[opposite];
        if (taken != 0 || capture_empty_opposite_) {
          index = tile.capture_index(mv, jb, opposite - p, taken);
          gain = 1 + taken;
        }
      }
      add_move(f, mv.pit, gain, mv.extra_turn, index);
    }
  }

  void prepare(Frame& f) {
    MoveList moves;
    rules_.legal_moves(f.board, moves);
    f.moves = 0;
    for (const Move& m : moves)
      add_move(f, m);
  }

  // Two threads may solve the same position at once; both write the same bytes. `stack[chain]`
  // and up are free for the children this position has to solve first.
  void finish(std::uint64_t i, Frame& f, std::deque<Frame>& stack, int chain) {
    bool mark = marks_.on() && f.minority;
    if (f.moves == 0) {
      store(i, rules_.final_value(f.board), 0, mark);
      return;
    }
    int worth[kMaxPitsPerSide];
    int best = -1000;
    for (int j = 0; j < f.moves; ++j) {
      int child_value = aref(f.child_layer[j][f.child_index[j]]).load(std::memory_order_acquire);
      if (f.gain[j] != 0) {
        // A smaller layer: complete, its bytes possibly marked.
        const int m = stones_ - f.gain[j];
        mark = mark && !marks_.marked(m, static_cast<std::int8_t>(child_value));
        child_value = marks_.value(m, static_cast<std::int8_t>(child_value));
      } else if (child_value == kUnknown) {
        if (chain >= kMaxChain) {
          throw std::runtime_error("in-layer moves cycle in an acyclic family");
        }
        if (static_cast<int>(stack.size()) <= chain)
          stack.emplace_back();
        Frame& c = stack[chain];
        Move m;
        rules_.play(f.board, f.pit[j], m);
        c.board = m.child;
        c.minority = marks_.minority(c.board, rules_.pits_per_side());
        prepare(c);
        finish(f.child_index[j], c, stack, chain + 1);
        child_value = aref(value_[f.child_index[j]]).load(std::memory_order_acquire);
      }
      worth[j] = f.gain[j] + (f.extra_turn[j] ? child_value : -child_value);
      best = std::max(best, worth[j]);
    }
    // Depths are read only for the moves that keep the value: a move that gains seeds has
    // depth 0, an in-layer move its child's.
    int depth = 0;
    if (best != 0) {
      int pick = best > 0 ? 1 << 30 : -1;
      for (int j = 0; j < f.moves; ++j) {
        if (worth[j] != best)
          continue;
        const int d = f.gain[j] == 0 ? depth_at(f.child_index[j]) : 0;
        pick = best > 0 ? std::min(pick, d) : std::max(pick, d);
      }
      depth = 1 + pick;
    }
    store(i, best, depth, mark);
  }

  int depth_at(std::uint64_t i) {
    return overflow_.decode(i, aref(depth_[i]).load(std::memory_order_relaxed));
  }

  void store(std::uint64_t i, int value, int depth, bool mark) {
    aref(depth_[i]).store(overflow_.encode(i, depth), std::memory_order_relaxed);
    if (mark_)
      aref(mark_[i]).store(mark ? 1 : 0, std::memory_order_relaxed);
    // The value goes last: a reader that sees it also sees the depth.
    aref(value_[i]).store(static_cast<std::int8_t>(value), std::memory_order_release);
  }

  Rules rules_;
  int stones_;
  int k_;
  bool kalah_;
  bool capture_empty_opposite_;
  std::uint64_t size_ = 0;
  const std::int8_t* smaller_[kMaxIndexedStones + 1] = {};
  std::vector<std::int8_t> value_;
  DepthTable::Bytes depth_;
  DepthOverflow overflow_;
  SmallerMarks marks_;
  std::unique_ptr<std::uint8_t[]> mark_;  // per position while solving, when marks_.on()
  tbb::enumerable_thread_specific<std::deque<Frame>> stacks_;
  tbb::enumerable_thread_specific<PairScratch> scratch_{[this] { return PairScratch(*this); }};
  Ranker rank_;
};

}  // namespace

Layer solve_layer(const RuleSet& rules,
                  int stones,
                  const SmallerValues& smaller,
                  const SolveOptions& options) {
  if (stones < 0 || stones > kMaxIndexedStones) {
    throw std::invalid_argument("stone count out of range: " + std::to_string(stones));
  }
  if (rules.family != Family::kOware) {
    AcyclicSolver solver(rules, stones, smaller, options);
    return solver.run(options.progress);
  }
  LayerSolver solver(rules, stones, smaller, options);
  return solver.run(options.progress);
}

Layer solve_layer(const RuleSet& rules,
                  int stones,
                  const SmallerValues& smaller,
                  const std::function<void(double)>& progress) {
  SolveOptions options;
  options.progress = progress;
  return solve_layer(rules, stones, smaller, options);
}

}  // namespace sowdb::gen
