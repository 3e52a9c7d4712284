// The cyclic layer solver (Oware family): retrograde analysis with thresholds.
//
// Longer than the project's ~600 lines on purpose: it is one class, CyclicSolver, whose passes
// (exits, thresholds, predecessor search, depths) share the layer's arrays and the threads'
// scratch, and whose inner loops the compiler inlines into each other only within one
// translation unit (the build has no link-time optimisation). Splitting it would make that state
// public to several files and cost speed, for no reader's gain; decision record 0007 describes
// how it solves a layer.
#include <sys/mman.h>
#include <tbb/concurrent_hash_map.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "parallel_loops.h"
#include "solver_internal.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/internal/solver_hooks.h"
#include "sowdb/probe/rules.h"

namespace sowdb::gen::solver_internal {
namespace {

class CyclicSolver {
 public:
  CyclicSolver(const RuleSet& rules,
               int stones,
               const SmallerValues& smaller,
               const SolveOptions& options)
      : rules_(rules),
        stones_(stones),
        k_(rules_.board_pits()),
        p_(rules_.pits_per_side()),
        rank_(k_, stones),
        quiet_grand_slams_(rules.grand_slam == GrandSlam::kNoCapture),
        overflow_(options.depth_overflow),
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

  ~CyclicSolver() { std::free(cells_); }
  CyclicSolver(const CyclicSolver&) = delete;
  CyclicSolver& operator=(const CyclicSolver&) = delete;

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
    parallel::for_ranges(std::uint64_t{0}, size_, std::uint64_t{1} << 16, [&](const auto& r) {
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
    layer.depth = DepthTable(DepthTable::Bytes(reinterpret_cast<std::uint8_t*>(cells_)),
                             size_,
                             std::move(overflow),
                             overflow_.byte());
    layer.recompute = std::move(recompute_);
    cells_ = nullptr;
    return layer;
  }

 private:
  // Worth of the best move that leaves the layer; counts the in-layer moves.
  void init() {
    parallel::for_ranges(std::uint64_t{0}, size_, std::uint64_t{1} << 14, [&](const auto& r) {
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
        const int count = internal::SolverHooks::oware_exits(rules_, board, moves, in_layer);
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
            best = std::max(best, Rules::worth(x.gain, x.extra_turn, v));
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
    parallel::for_ranges(std::uint64_t{0}, blocks_, std::uint64_t{16}, [&](const auto& r) {
      for (std::uint64_t b = r.begin(); b != r.end(); ++b) {
        const std::uint64_t begin = b << kBlockShift;
        const std::uint64_t end = std::min(size_, begin + (std::uint64_t{1} << kBlockShift));
        std::uint64_t mask = 0;
        for (std::uint64_t i = begin; i != end; ++i) {
          const std::int8_t byte = value_[i];  // a value, not a character
          const int v = byte;
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
    parallel::for_ranges(std::uint64_t{0}, blocks_, std::uint64_t{16}, [&](const auto& r) {
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
          const std::int8_t byte = value_[i];  // a value, not a character
          const int v = byte;
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
      const int slots = parallel::max_concurrency();
      while (next.load(std::memory_order_relaxed) < blocks.size()) {
        parallel::for_slots(slots, [&](int) {
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
    for (std::ptrdiff_t q = 0; q < 8; ++q) {
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
    std::vector<Scratch*> each;
    scratch_.for_each([&](Scratch& scratch) { each.push_back(&scratch); });
    parallel::for_ranges(std::size_t{0}, each.size(), std::size_t{1}, [&](const auto& r) {
      for (std::size_t s = r.begin(); s != r.end(); ++s)
        sort_updates(*each[s]);
    });
    std::vector<Scratch*> all;
    for (Scratch* scratch : each) {
      if (!scratch->sorted.empty())
        all.push_back(scratch);
    }
    if (all.empty())
      return;
    // A bucket spans whole lines, so that no two tasks write one line flag.
    static_assert(kLine <= (std::uint64_t{1} << kMinBucketShift));
    parallel::for_ranges(std::size_t{0}, buckets_, std::size_t{16}, [&](const auto& r) {
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
        if (!internal::SolverHooks::oware_quiet_move_to_turned(rules_, cand, origin, b))
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
      if (internal::SolverHooks::sowing_stored(rules_, origin, s) != 0)
        break;  // would gain: not an in-layer move
      const Pits& add = internal::SolverHooks::sowing_add(rules_, origin, s);
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
      if (internal::SolverHooks::oware_quiet_move_to_turned(rules_, cand, origin, b))
        f(rank_.rank<kPits>(cand));
    }
  }

  // The board that sowing s seeds from `origin` turned into `bv`, where the origin holds 0. Built
  // in a register: a byte store into the board followed by its 8-byte loads stalled store
  // forwarding.
  Pits unsow(const V16& bv, int origin, int s) const {
    V16 av;
    std::memcpy(&av, internal::SolverHooks::sowing_add(rules_, origin, s).data(), sizeof av);
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
  parallel::PerThread<Scratch> scratch_;
  DepthOverflow overflow_;
  SmallerMarks marks_;
  std::vector<std::uint64_t> recompute_;
};
}  // namespace

Layer solve_cyclic(const RuleSet& rules,
                   int stones,
                   const SmallerValues& smaller,
                   const SolveOptions& options) {
  CyclicSolver solver(rules, stones, smaller, options);
  return solver.run(options.progress);
}

}  // namespace sowdb::gen::solver_internal
