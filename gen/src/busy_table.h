// The positions that the threads of a search are searching right now (simplified ABDADA), so
// that a thread defers a move another thread is already searching. Internal to sowdb_gen.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace sowdb::gen {

/// A small table of the positions being searched at this moment, shared by the threads of one
/// search without locks: a thread marks a position before it searches it and unmarks it after;
/// another thread, about to search the same position, sees it busy and searches its other moves
/// first (young brothers wait, Kerrigan's simplified ABDADA).
///
/// Only a hint: a position may fail to be marked (its set is full) or, rarely, be seen busy when
/// another one with the same 56-bit tag is; either costs work, never a wrong value, since the
/// search only reorders its moves by it. Each slot is one word (a tag and a count of the threads
/// in it), so a reader never sees half of a write. At most threads times the depth of a search
/// are marked at once: a few thousand slots keep the sets far from full.
///
/// THREAD SAFETY every call from any number of threads at once.
class BusyTable {
 public:
  /// A table of 2^bits slots (at least kWays).
  explicit BusyTable(int bits = 12)
      : sets_(std::size_t{1} << (bits > kWayBits ? bits - kWayBits : 0)),
        set_mask_(sets_.size() - 1) {}

  /// Marks `key` as searched by one more thread. Returns the slot to give to unmark, or -1 when
  /// its set is full (nothing is marked).
  int mark(std::uint64_t key) {
    const std::uint64_t h = mix(key);
    const std::uint64_t tag = tag_of(h);
    Set& set = sets_[h & set_mask_];
    // A slot that holds the tag already: one more thread in it.
    for (int i = 0; i < kWays; ++i) {
      std::uint64_t w = set.way[i].load(std::memory_order_relaxed);
      while ((w & ~kCountMask) == tag && (w & kCountMask) != 0 && (w & kCountMask) != kCountMask) {
        if (set.way[i].compare_exchange_weak(w, w + 1, std::memory_order_relaxed))
          return slot(h, i);
      }
    }
    // Else a free one. (Two threads marking the same new key at once may take two slots; busy
    // finds either.)
    for (int i = 0; i < kWays; ++i) {
      std::uint64_t w = 0;
      if (set.way[i].compare_exchange_strong(w, tag | 1, std::memory_order_relaxed))
        return slot(h, i);
    }
    return -1;
  }

  /// Ends one thread's mark made by mark (`slot` its result; -1 does nothing).
  void unmark(int slot) {
    if (slot < 0)
      return;
    std::atomic<std::uint64_t>& word =
        sets_[static_cast<std::size_t>(slot) >> kWayBits].way[slot & (kWays - 1)];
    std::uint64_t w = word.load(std::memory_order_relaxed);
    while (!word.compare_exchange_weak(
        w, (w & kCountMask) == 1 ? 0 : w - 1, std::memory_order_relaxed)) {
    }
  }

  /// Whether some thread has `key` marked.
  bool busy(std::uint64_t key) const {
    const std::uint64_t h = mix(key);
    const std::uint64_t tag = tag_of(h);
    const Set& set = sets_[h & set_mask_];
    for (int i = 0; i < kWays; ++i) {
      const std::uint64_t w = set.way[i].load(std::memory_order_relaxed);
      if ((w & ~kCountMask) == tag && (w & kCountMask) != 0)
        return true;
    }
    return false;
  }

  /// Slots in the table.
  std::size_t slots() const { return sets_.size() * kWays; }

  static constexpr int kWayBits = 3;
  static constexpr int kWays = 1 << kWayBits;

 private:
  // One cache line.
  struct alignas(64) Set {
    std::atomic<std::uint64_t> way[kWays]{};
  };
  static constexpr std::uint64_t kCountMask = 0xFF;

  static std::uint64_t mix(std::uint64_t key) {
    std::uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
  }
  // The high 56 bits of the hash, never 0 (an empty slot is 0).
  static std::uint64_t tag_of(std::uint64_t h) {
    return (h | (std::uint64_t{1} << 63)) & ~kCountMask;
  }
  int slot(std::uint64_t h, int way) const {
    return static_cast<int>(((h & set_mask_) << kWayBits) | static_cast<std::uint64_t>(way));
  }

  std::vector<Set> sets_;
  std::uint64_t set_mask_;
};

}  // namespace sowdb::gen
