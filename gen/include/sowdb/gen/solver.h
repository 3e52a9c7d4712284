// Retrograde analysis of one layer (one stone count) of a rule set.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sowdb/format/rule_set.h"
#include "sowdb/probe/rules.h"

namespace sowdb::gen {

/// Depths of a layer in one byte per position; the rare depths of 255 or more are kept aside.
class DepthTable {
 public:
  /// The low byte of an entry whose depth is in the overflow list, unless the solver was asked
  /// for another (SolveOptions::depth_overflow).
  static constexpr std::uint8_t kDefaultOverflow = 255;

  /// Memory from std::malloc, released with std::free.
  struct Free {
    void operator()(std::uint8_t* p) const { std::free(p); }
  };
  /// The one-byte depths, owned.
  using Bytes = std::unique_ptr<std::uint8_t[], Free>;

  /// An empty table.
  DepthTable() = default;
  /// Takes `size` low bytes (`overflow_byte` marks an entry of `overflow`) and the (index,
  /// depth) pairs of `overflow` sorted by index.
  DepthTable(Bytes low,
             std::uint64_t size,
             std::vector<std::pair<std::uint64_t, std::uint16_t>> overflow,
             std::uint8_t overflow_byte = kDefaultOverflow)
      : low_(std::move(low)),
        size_(size),
        overflow_(std::move(overflow)),
        overflow_byte_(overflow_byte) {}

  /// Number of entries.
  std::uint64_t size() const { return size_; }
  /// Depth of entry i (i < size()).
  std::uint16_t operator[](std::uint64_t i) const {
    if (low_[i] != overflow_byte_)
      return low_[i];
    auto it = std::lower_bound(overflow_.begin(), overflow_.end(), std::pair{i, std::uint16_t{0}});
    return it->second;
  }
  /// Depth of entry i; throws std::out_of_range when i >= size().
  std::uint16_t at(std::uint64_t i) const {
    if (i >= size())
      throw std::out_of_range("depth index");
    return (*this)[i];
  }
  /// Writes entries first .. first + out.size() - 1 into `out`.
  void fill(std::uint64_t first, std::span<std::uint16_t> out) const {
    // The low bytes in one pass the compiler widens in vector registers, then the few
    // overflow entries of the range over them.
    const std::uint8_t* low = low_.get() + first;
    for (std::size_t j = 0; j < out.size(); ++j)
      out[j] = low[j];
    auto it =
        std::lower_bound(overflow_.begin(), overflow_.end(), std::pair{first, std::uint16_t{0}});
    for (; it != overflow_.end() && it->first < first + out.size(); ++it)
      out[it->first - first] = it->second;
  }
  /// Same entries (compares the bytes and the overflow list).
  bool operator==(const DepthTable& o) const {
    return size_ == o.size_ && overflow_ == o.overflow_ && overflow_byte_ == o.overflow_byte_ &&
           (size_ == 0 || std::memcmp(low_.get(), o.low_.get(), size_) == 0);
  }

 private:
  Bytes low_;
  std::uint64_t size_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint16_t>> overflow_;
  std::uint8_t overflow_byte_ = kDefaultOverflow;
};

/// Values of a layer, indexed by position index (sowdb/format/index.h).
///
/// value[i]: what the mover takes from here on minus what the opponent takes, perfect play,
/// endless play worth 0 (docs/RULES.md). depth[i]: plies the side that gains needs to force the
/// value to be realised (a capture, a store gain or the end of the game), with the other side
/// delaying as long as it can without giving up value:
///   - a finished game (no legal move): 0;
///   - value v > 0: 1 + min over value-keeping moves (worth == v) of the move's depth, where a move
///     that gains seeds (leaves the layer) or ends the game has depth 0 and an in-layer move has
///     the child's depth;
///   - value v < 0: 1 + max over value-keeping moves of the same;
///   - value 0: 0 (nothing to realise; a draw by endless play or by equal gains).
/// Hence along value-keeping play the depth falls by one each ply until seeds are gained.
struct Layer {
  int stones = 0;                  ///< n.
  std::vector<std::int8_t> value;  ///< value[index], see above.
  DepthTable depth;                ///< depth[index], see above.
  /// With SolveOptions::mark, the entries to store as recompute entries (the minority rule,
  /// below), one bit an entry: bit `i % 64` of word `i / 64` (LayerSource::recompute). Empty
  /// otherwise, and for layers of more than kMaxMarkedStones stones.
  std::vector<std::uint64_t> recompute;
};

/// Read access to the value bytes of already solved smaller layers: smaller(m)[index].
using SmallerValues = std::function<const std::int8_t*(int stones)>;

/// Largest layer whose entries the solver marks as recompute entries, and whose value bytes
/// carry a mark (below): its values fit in the low 7 bits of a byte.
inline constexpr int kMaxMarkedStones = 63;

/// A value byte of a marked layer (n <= kMaxMarkedStones): the value in the low 7 bits (two's
/// complement), the recompute mark in bit 7. The generator keeps its smaller layers so, which
/// spares it a mark array and puts the mark in the cache line the value comes from.
inline std::int8_t marked_byte(int value, bool mark) {
  return static_cast<std::int8_t>((static_cast<unsigned>(value) & 0x7Fu) | (mark ? 0x80u : 0u));
}
/// The value of a marked_byte.
inline int marked_value(std::int8_t byte) {
  return static_cast<std::int8_t>(static_cast<std::uint8_t>(byte) << 1) >> 1;
}
/// The mark of a marked_byte.
inline bool marked_mark(std::int8_t byte) {
  return (static_cast<std::uint8_t>(byte) & 0x80) != 0;
}

/// The part of the minority rule (SolveOptions::mark) that the board decides: the mover holds
/// fewer than half of the layer's `stones` seeds.
inline bool mover_in_minority(const Pits& board, int pits_per_side, int stones) {
  int own = 0;
  for (int x = 0; x < pits_per_side; ++x)
    own += board[x];
  return 2 * own < stones;
}

/// Options of solve_layer.
struct SolveOptions {
  /// Mark recompute entries (Layer::recompute) by the minority rule: a position is marked when
  /// the mover has fewer than half of the layer's seeds and every move of it that gains seeds
  /// leads to an entry not marked in its layer. Every move that keeps all seeds on the board
  /// only moves seeds away from the mover's side, so its child's mover (the opponent) then holds
  /// more than half: no two marked entries of a layer are joined by a move, and every child of a
  /// marked entry is stored, as the all-moves rule of FORMAT.md asks. It costs the solver one
  /// bit test per move that gains seeds, in the cache line of the value it reads anyway. Layers
  /// above kMaxMarkedStones get no marks.
  bool mark = false;
  /// smaller(m) gives marked_bytes for every m <= kMaxMarkedStones, plain values above (implied
  /// by `mark`). The generator keeps its layers so even when it marks nothing.
  bool marked_smaller = false;
  /// Depths from this one up (1..255) go to the overflow list of Layer::depth rather than in
  /// its bytes. Real boards reach 255 only far beyond what a test can check by brute force, so
  /// the tests ask for a small one to run that path; the layer's depths are the same.
  int depth_overflow = DepthTable::kDefaultOverflow;
  /// Called from the calling thread with the fraction of the work done, if set.
  std::function<void(double)> progress;
};

/// Solves layer `stones` of `rules`. `smaller(m)` must return the value bytes of layer m for
/// every m < stones (it is called once per m before the work starts): plain values, or
/// marked_bytes as SolveOptions::mark and marked_smaller say. Uses the calling thread's oneTBB
/// arena (the caller sets the thread count: a tbb::task_arena it runs in, or tbb::global_control).
/// The result is the same for every thread count. Throws std::runtime_error when a depth exceeds
/// 65535.
Layer solve_layer(const RuleSet& rules,
                  int stones,
                  const SmallerValues& smaller,
                  const SolveOptions& options);

/// As above, with plain values, no marks and an optional `progress`.
Layer solve_layer(const RuleSet& rules,
                  int stones,
                  const SmallerValues& smaller,
                  const std::function<void(double)>& progress = {});

}  // namespace sowdb::gen
