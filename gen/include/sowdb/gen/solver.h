// Retrograde analysis of one layer (one stone count) of a rule set.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sowdb/format/rule_set.h"

namespace sowdb::gen {

/// Values of a layer, indexed by position index (sowdb/format/index.h).
///
/// value[i]: what the mover takes from here on minus what the opponent takes, perfect play,
/// endless play worth 0 (VARIANTS.md). depth[i]: plies the side that gains needs to force the
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
  int stones = 0;
  std::vector<std::int8_t> value;
  std::vector<std::uint16_t> depth;
};

/// Read access to the values of already solved smaller layers: value(stones, index).
using SmallerValues = std::function<const std::int8_t*(int stones)>;

/// Solves layer `stones` of `rules`. `smaller(m)` must return the value array of layer m for
/// every m < stones (it is called once per m before the work starts). Uses the calling thread's
/// oneTBB arena (the thread count is set by the caller with tbb::global_control). The result is
/// the same for every thread count. `progress`, if set, is called from the calling thread with
/// the fraction of the work done. Throws std::runtime_error when a depth exceeds 65535.
Layer solve_layer(const RuleSet& rules,
                  int stones,
                  const SmallerValues& smaller,
                  const std::function<void(double)>& progress = {});

}  // namespace sowdb::gen
