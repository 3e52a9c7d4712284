// What the two layer solvers share: the working cell, huge pages, the ranker, the depth overflow
// map and the recompute marks. Not installed.
#pragma once

#include <sys/mman.h>
#include <tbb/concurrent_hash_map.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/gen/solver.h"
#include "sowdb/probe/rules.h"

namespace sowdb::gen::solver_internal {

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
inline void advise_huge_pages(const void* p, std::size_t bytes) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = (at + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t end = (at + bytes) & ~(kHuge - 1);
  if (end > begin)
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// A vector of `size` copies of `fill`, in huge pages where the kernel gives them.
inline std::vector<std::int8_t> huge_vector(std::uint64_t size, std::int8_t fill) {
  std::vector<std::int8_t> v;
  v.reserve(size);
  advise_huge_pages(v.data(), size);
  v.assign(size, fill);
  return v;
}

template <typename T>
inline std::atomic_ref<T> aref(T& x) {
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

// Depths of SolveOptions::depth_overflow (255) and more: the depth byte holds that byte and the
// depth lives here. Both solvers share it; it is rare enough for a hash map.
class DepthOverflow {
 public:
  // Keeps depths from `threshold` (1..255) up aside. Throws std::invalid_argument otherwise.
  explicit DepthOverflow(int threshold) : threshold_(static_cast<std::uint8_t>(threshold)) {
    if (threshold < 1 || threshold > 255)
      throw std::invalid_argument("depth overflow threshold out of 1..255");
  }
  // The byte that sends a depth to the map.
  std::uint8_t byte() const { return threshold_; }
  // The byte to store for `depth` at entry i, keeping a large depth aside. Thread safe.
  std::uint8_t encode(std::uint64_t i, int depth) {
    if (depth < threshold_)
      return static_cast<std::uint8_t>(depth);
    return encode_large(i, depth);
  }
  // The depth of entry i whose depth byte is `byte`. Thread safe.
  int decode(std::uint64_t i, std::uint8_t byte) const {
    if (byte != threshold_)
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
    return threshold_;
  }

  std::uint8_t threshold_;
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
    return mover_in_minority(board, pits_per_side, stones_);
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

// The layer solvers, one per kind of layer (solve_layer picks).
Layer solve_cyclic(const RuleSet& rules,
                   int stones,
                   const SmallerValues& smaller,
                   const SolveOptions& options);
Layer solve_acyclic(const RuleSet& rules,
                    int stones,
                    const SmallerValues& smaller,
                    const SolveOptions& options);

}  // namespace sowdb::gen::solver_internal
