// Resolving a recompute entry (FORMAT.md, "Recompute entries"): the one implementation that the
// probe library's lookups, its whole-layer reads and the generator's reuse of a layer share.
// Internal to the project (not installed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/tables.h"

namespace sowdb::internal {

/// Whether entry `i` is marked in `mask` (bit i % 64 of word i / 64), the form every recompute
/// mask of the project takes; an empty mask marks nothing.
inline bool marked(std::span<const std::uint64_t> mask, std::uint64_t i) noexcept {
  return !mask.empty() && ((mask[i / 64] >> (i % 64)) & 1) != 0;
}

/// What resolving one recompute entry gave.
struct Resolution {
  enum class Kind {
    kValue,        ///< `value` is the entry's value.
    kChildFailed,  ///< A child's byte did not read: `child_status` says why.
    kChained,      ///< A child is itself a recompute entry: the stored-children rule is broken.
    kNoMove,       ///< No move counts (version 3: the position has no move that gains seeds).
  };
  Kind kind = Kind::kValue;
  int value = 0;
  ProbeStatus child_status = ProbeStatus::kOk;  ///< kChildFailed: the child's failure.
  int child_layer = 0;                          ///< kChildFailed, kChained: the child's layer.
  std::uint64_t child_index = 0;                ///< kChildFailed, kChained: the child's index.
};

/// Resolves the recompute entry of layer `n` whose position has the legal `moves` (at least one;
/// a position without a legal move takes its final split instead): the best worth over every
/// legal move (`all_moves`, version 4) or over the moves that gain seeds (version 3).
/// `child(layer, index, byte)` writes the byte the child's layer stores (a value, or
/// kRecomputeValue for a recompute entry) and returns kOk, or returns the status of its failure.
/// `pits` is the board's pit count 2P. By the stored-children rule every child read is a stored
/// entry, so this never recurses. Thread safe if `child` is.
template <typename Child>
Resolution resolve_recompute(
    const MoveList& moves, int n, int pits, bool all_moves, Child&& child) {
  Resolution r;
  bool any = false;
  int best = 0;
  for (const Move& m : moves) {
    if (m.gain() == 0 && !all_moves)
      continue;
    r.child_layer = n - m.gain();
    r.child_index =
        rank(std::span<const std::uint8_t>(m.child.data(), static_cast<std::size_t>(pits)));
    std::int8_t byte = 0;
    r.child_status = child(r.child_layer, r.child_index, byte);
    if (r.child_status != ProbeStatus::kOk) {
      r.kind = Resolution::Kind::kChildFailed;
      return r;
    }
    if (byte == kRecomputeValue) {
      r.kind = Resolution::Kind::kChained;
      return r;
    }
    const int worth = Rules::worth(m, byte);
    best = any ? std::max(best, worth) : worth;
    any = true;
  }
  r.kind = any ? Resolution::Kind::kValue : Resolution::Kind::kNoMove;
  r.value = best;
  return r;
}

}  // namespace sowdb::internal
