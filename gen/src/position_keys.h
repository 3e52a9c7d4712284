// The keys of positions in a search's transposition table: a position's index within its layer
// (format/index.h's rank, inlined for the searches' hot paths) after every position of fewer
// seeds. Internal to sowdb_gen; shared by the two searches (start_searcher.h, cyclic_searcher.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "sowdb/format/index.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"

namespace sowdb::gen {

/// Index and key of the positions of a board of `pits` pits. THREAD SAFETY immutable.
class PositionKeys {
 public:
  explicit PositionKeys(int pits) : pits_(pits) {
    for (int i = 0; i + 1 < pits_; ++i)
      rows_[static_cast<std::size_t>(i)] = rank_table_row(i);
    // Keys stay exact while they fit 64 bits, which each search checks for its seed count.
    for (int n = 0; n <= kMaxBoardStones; ++n)
      base_[static_cast<std::size_t>(n)] = binomial(n + pits_ - 1, pits_);
  }

  /// The index of `pos` within its layer (rank of format/index.h).
  std::uint64_t index(const Pits& pos) const {
    std::uint64_t r = 0;
    int s = 0;
    for (int i = 0; i + 1 < pits_; ++i) {
      s += pos[static_cast<std::size_t>(i)];
      r += rows_[static_cast<std::size_t>(i)][s];
    }
    return r;
  }
  /// Positions of fewer than `n` seeds: the first key of layer n.
  std::uint64_t base(int n) const { return base_[static_cast<std::size_t>(n)]; }
  /// The key of `pos`, a position of `n` seeds.
  std::uint64_t key(const Pits& pos, int n) const { return base(n) + index(pos); }

 private:
  int pits_;
  std::array<const std::uint64_t*, kMaxPits> rows_{};
  std::array<std::uint64_t, kMaxBoardStones + 1> base_{};
};

}  // namespace sowdb::gen
