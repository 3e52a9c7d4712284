// Which draws of a layer are decided by endless play.
#pragma once

#include <cstdint>
#include <span>

#include "sowdb/format/table_file.h"
#include "sowdb/probe/rules.h"

namespace sowdb::gen {

/// Counts the positions of layer `stones` whose value 0 comes from endless play: from the
/// position there is a line of moves that never ends and on which every move keeps the value
/// (a move that gains nothing to a position of value 0, each player's worth 0). The other draws
/// are realised by a finished game or by equal gains. Always 0 outside the Oware family, whose
/// positions never repeat.
/// PARAMETERS rules: the rule set. stones: n. values: the layer's values in index order, every
///   entry readable (recompute entries resolved). run: runs the two passes over the moves in
///   parallel tasks; empty: on the calling thread.
/// RETURN the count. ERRORS throws std::invalid_argument when `values` does not have the layer's
///   size or the layer has 2^32 positions or more; std::bad_alloc when the graph of the layer's
///   draws does not fit (about 5 bytes per draw and 4 per move between draws).
/// THREAD SAFETY calls on different data may run in parallel.
std::uint64_t count_endless_draws(const Rules& rules,
                                  int stones,
                                  std::span<const std::int8_t> values,
                                  const Executor& run = {});

}  // namespace sowdb::gen
