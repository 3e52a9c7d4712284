// A transposition table of value bounds shared by the threads of a search (gen::solve_start).
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "page_mapping.h"

namespace sowdb::gen {

/// Bounds on a position's value that a search proved, with the move that gave them.
struct TableEntry {
  bool found = false;
  int lower = 0;
  int upper = 0;
  int best = -1;  ///< The pit of the best move found; -1: none.
  /// The plies the search that proved the bounds looked ahead; kExact: to the end of the game
  /// (the bounds are true). Shallower bounds are estimates, good for move ordering only.
  int depth = 0;
};

/// TableEntry::depth of bounds that hold (searched to the end of the game).
inline constexpr int kExact = 63;

/// A table of 2^bits 64-bit entries in buckets of four, read and written from any number of
/// threads without locks.
///
/// Each entry is one word, so no reader ever sees half of one writer's entry and half of
/// another's. The word holds the bounds, the move, the depth and a measure of the work that
/// proved them, and the low bits of the key's hash; the hash (key times an odd constant, modulo
/// 2^key_bits) is a bijection, and its high bits name the bucket, so bucket and stored bits give
/// back the key exactly: a hit is never another position's entry. Within a bucket the entry that
/// cost the least work gives way to a new one.
class TranspositionTable {
 public:
  /// `bits`: log2 of the entries (at least 2); `key_bits`: the keys are below 2^key_bits.
  /// ERRORS throws std::invalid_argument when the keys are too wide for the table (more than
  /// kCheckBits bits beyond the bucket's).
  TranspositionTable(int bits, int key_bits) {
    key_bits_ = key_bits < 1 ? 1 : key_bits;
    const int bucket_bits = std::min(bits - 2, key_bits_);
    if (key_bits_ - bucket_bits > kCheckBits) {
      throw std::invalid_argument("a transposition table of 2^" + std::to_string(bits) +
                                  " entries cannot hold keys of " + std::to_string(key_bits) +
                                  " bits");
    }
    shift_ = key_bits_ - bucket_bits;
    entries_ = std::size_t{4} << bucket_bits;
    // The kernel's fresh pages read as zero, an empty entry: nothing is written here, so a large
    // table costs only the pages the search touches (a table initialised word by word cost 7 s at 4
    // GiB, issue 34). Huge pages up to kHugePageLimit: at 128 MiB they cut Kalah(6,4)'s search from
    // 15.4 to 13.1 s of CPU; at 4 GiB every touched huge page is zeroed (and, under the kernel's
    // defrag=madvise, compacted) on its first write, and a 22 K-position search spent 13 s in the
    // kernel against 4 s on small pages (decision 0009).
    const std::size_t mapped =
        (bytes() + PageMapping::kHugePage - 1) / PageMapping::kHugePage * PageMapping::kHugePage;
    pages_ = std::make_unique<PageMapping>(bytes(), mapped <= kHugePageLimit, false);
    slots_ = static_cast<std::uint64_t*>(pages_->data());
  }
  TranspositionTable(const TranspositionTable&) = delete;
  TranspositionTable& operator=(const TranspositionTable&) = delete;

  /// Asks the processor to bring `key`'s bucket into its cache, ahead of a find or store.
  void prefetch(std::uint64_t key) const { __builtin_prefetch(&slots_[(hash(key) >> shift_) * 4]); }

  /// Bytes the table takes.
  std::size_t bytes() const { return entries_ * sizeof(std::uint64_t); }

  /// The bounds stored for `key`, if any. Thread safe.
  TableEntry find(std::uint64_t key) const {
    const std::uint64_t h = hash(key);
    std::uint64_t* bucket = &slots_[(h >> shift_) * 4];
    const std::uint64_t check = h & check_mask();
    for (int i = 0; i < 4; ++i) {
      const std::uint64_t w = load(bucket[i]);
      if ((w & kValid) && (w >> kCheckShift) == check)
        return decode(w);
    }
    return {};
  }

  /// Records bounds for `key` (which must be in [-128, 127]) from a search of `depth` plies
  /// (0..kExact); `work`: the positions searched to prove them. Thread safe: of two threads
  /// storing at once, one entry may be lost, never mixed.
  void store(std::uint64_t key, int lower, int upper, int best, int depth, std::uint64_t work) {
    const std::uint64_t h = hash(key);
    std::uint64_t* bucket = &slots_[(h >> shift_) * 4];
    const std::uint64_t check = h & check_mask();
    const std::uint64_t effort = std::min<std::uint64_t>(31, std::bit_width(work));
    const std::uint64_t w = static_cast<std::uint64_t>(lower + 128) |
                            (static_cast<std::uint64_t>(upper + 128) << 8) |
                            (static_cast<std::uint64_t>(best + 1) << 16) | (effort << 20) | kValid |
                            (static_cast<std::uint64_t>(depth) << 26) | (check << kCheckShift);
    int victim = 0;
    std::uint64_t least = ~std::uint64_t{0};
    for (int i = 0; i < 4; ++i) {
      const std::uint64_t old = load(bucket[i]);
      if (!(old & kValid)) {
        victim = i;
        break;
      }
      if ((old >> kCheckShift) == check) {
        // The same position: bounds of a deeper search stay.
        if (static_cast<int>((old >> 26) & 63) > depth)
          return;
        victim = i;
        break;
      }
      // Bounds that hold outweigh estimates; then the work they cost.
      const std::uint64_t e = (((old >> 26) & 63) == kExact ? 32 : 0) + ((old >> 20) & 31);
      if (e < least) {
        least = e;
        victim = i;
      }
    }
    std::atomic_ref<std::uint64_t>(bucket[victim]).store(w, std::memory_order_relaxed);
  }

  /// Calls `f(key, entry, effort)` for every entry whose bounds hold (depth kExact) and whose
  /// work was at least 2^(min_effort - 1) positions; `effort` is the bit width of that work
  /// (at most 31). Thread safe: entries written meanwhile are seen or not, never half.
  template <class F>
  void for_each_exact(int min_effort, F&& f) const {
    for (std::size_t i = 0; i < entries_; ++i) {
      const std::uint64_t w = load(slots_[i]);
      if (!(w & kValid) || static_cast<int>((w >> 26) & 63) != kExact)
        continue;
      const int effort = static_cast<int>((w >> 20) & 31);
      if (effort < min_effort)
        continue;
      // The bucket gives the hash's high bits, the entry its low ones: the key, exactly.
      const std::uint64_t h = ((i / 4) << shift_) | (w >> kCheckShift);
      f(unhash(h), decode(w), effort);
    }
  }

  /// Bits of the key a bucket's entry keeps.
  static constexpr int kCheckBits = 32;

 private:
  static constexpr int kCheckShift = 64 - kCheckBits;
  static constexpr std::uint64_t kValid = std::uint64_t{1} << 25;
  static constexpr std::uint64_t kHashFactor = 0x9E3779B97F4A7C15ULL;
  // The inverse of kHashFactor modulo 2^64 (Newton's iteration: each step doubles the bits that
  // are right, and an odd factor is its own inverse modulo 8).
  static constexpr std::uint64_t kUnhashFactor = [] {
    std::uint64_t x = kHashFactor;
    for (int i = 0; i < 5; ++i)
      x *= 2 - kHashFactor * x;
    return x;
  }();
  static_assert(kHashFactor * kUnhashFactor == 1);

  static TableEntry decode(std::uint64_t w) {
    return {true,
            static_cast<int>(w & 0xFF) - 128,
            static_cast<int>((w >> 8) & 0xFF) - 128,
            static_cast<int>((w >> 16) & 0xF) - 1,
            static_cast<int>((w >> 26) & 63)};
  }

  // Threads share every word: each is read and written whole, without ordering (an entry is
  // checked against its own key bits, never against another word).
  static std::uint64_t load(std::uint64_t& word) {
    return std::atomic_ref<std::uint64_t>(word).load(std::memory_order_relaxed);
  }
  std::uint64_t hash(std::uint64_t key) const {
    const std::uint64_t h = key * kHashFactor;
    return key_bits_ >= 64 ? h : h & ((std::uint64_t{1} << key_bits_) - 1);
  }
  std::uint64_t unhash(std::uint64_t h) const {
    const std::uint64_t key = h * kUnhashFactor;
    return key_bits_ >= 64 ? key : key & ((std::uint64_t{1} << key_bits_) - 1);
  }
  std::uint64_t check_mask() const { return (std::uint64_t{1} << shift_) - 1; }

  int key_bits_ = 1;
  int shift_ = 0;
  std::size_t entries_ = 0;
  static constexpr std::size_t kHugePageLimit = std::size_t{512} << 20;
  std::unique_ptr<PageMapping> pages_;
  std::uint64_t* slots_ = nullptr;
};

}  // namespace sowdb::gen
