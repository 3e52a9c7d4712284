// The block caches of a table set opened from Python without cache_bytes: one budget for the
// whole set, shared out over its layers.
//
// WHY: the library sizes its caches per layer, and bulk labelling draws positions at random
// from every layer, mostly the largest. A per-layer size that keeps the small layers whole but
// only part of the large ones makes most lookups in the large layers decode a block (the
// least recently used one is evicted, and random lookups never come back to it in time):
// 64 MiB a layer labelled Oware 0..20 at 0.16 M positions/s, while every layer's values kept
// whole (215 MiB decoded, found without a lock) serve it at the full rate. So values come
// first: every layer's value frames are kept whole when they fit in the budget together, else
// every layer gets the same cap (the small ones whole, the large ones capped: a water level).
// Depth frames, which only depths() and best_moves() read, get what is left.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <vector>

#include "bindings.h"

namespace sowdb::python {
namespace {

// Decoded bytes are counted in whole blocks of this many entries (the generator's default);
// the budget keeps a block per layer of slack for other block sizes.
constexpr std::uint64_t kPlanBlockEntries = 4096;

// The largest cap c with sum(min(need, c)) <= budget; nullopt when every need fits.
std::optional<std::uint64_t> water_level(std::vector<std::uint64_t> needs, std::uint64_t budget) {
  std::sort(needs.begin(), needs.end());
  std::uint64_t left = budget;
  for (std::size_t i = 0; i < needs.size(); ++i) {
    const std::uint64_t share = left / (needs.size() - i);
    if (needs[i] > share)
      return share;
    left -= needs[i];
  }
  return std::nullopt;
}

}  // namespace

CachePlan plan_caches(std::span<const std::uint64_t> layer_entries, std::uint64_t budget) {
  std::vector<std::uint64_t> values;  // bytes of a layer's decoded value frames
  for (const std::uint64_t n : layer_entries)
    values.push_back((n + kPlanBlockEntries - 1) / kPlanBlockEntries * kPlanBlockEntries +
                     kPlanBlockEntries);
  CachePlan plan;
  const std::uint64_t all_values = std::accumulate(values.begin(), values.end(), std::uint64_t{0});
  if (const auto level = water_level(values, budget)) {
    plan.value_bytes = *level;
    return plan;  // no budget left for depths
  }
  // Every layer's values fit: a cap of the whole budget keeps each layer whole whatever its
  // block size, and the layers together stay within all_values.
  plan.value_bytes = budget;
  plan.values_whole = true;
  // A depth frame costs 2 bytes an entry in the depth cache, and it holds its block's value
  // frame (1 byte an entry) while cached: 3 bytes of memory for the 2 the library counts.
  const std::uint64_t depth_budget = (budget - all_values) / 3 * 2;
  std::vector<std::uint64_t> depths;
  depths.reserve(values.size());
  for (const std::uint64_t v : values)
    depths.push_back(2 * v);
  plan.depth_bytes = water_level(depths, depth_budget).value_or(depth_budget);
  return plan;
}

}  // namespace sowdb::python
