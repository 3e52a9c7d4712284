// The layer walk (sowdb/probe/internal/layer_walk.h) on the generator's threads.
#pragma once

#include <utility>

#include "sowdb/gen/parallel.h"
#include "sowdb/probe/internal/layer_walk.h"

namespace sowdb::gen {

// internal::for_each_range on the calling thread's oneTBB arena.
template <typename Visit>
void for_each_range(const Rules& rules, int n, Visit&& visit) {
  internal::for_each_range(rules, n, tbb_executor(), std::forward<Visit>(visit));
}

}  // namespace sowdb::gen
