// Position <-> index mapping. The order is part of the on-disk contract (FORMAT.md, "Index").
#pragma once

#include <cstdint>
#include <span>

#include "sowdb/format/rule_set.h"

namespace sowdb {

/// Largest stone count the index tables cover (a table layer may hold up to this many seeds).
inline constexpr int kMaxIndexedStones = 127;

/// Binomial coefficient C(n, k) for 0 <= k <= kMaxPits, 0 <= n <= kMaxIndexedStones + kMaxPits;
/// 0 when k > n. Values past 2^64 wrap. Layer sizes and ranks meet such values only on 16-pit
/// boards with 116 seeds or more, whose layers no table can hold (FORMAT.md, "Limits"; the
/// reader rejects such headers). Thread safe (constant table).
std::uint64_t binomial(int n, int k) noexcept;

/// Number of positions with `stones` seeds on `pits` pits: C(stones + pits - 1, pits - 1).
/// Requires 1 <= pits <= kMaxPits and 0 <= stones <= kMaxIndexedStones.
std::uint64_t layer_size(int pits, int stones) noexcept;

/// The index of a position within its layer (colex rank of its stars-and-bars form):
///   index = sum_{i=0}^{K-2} C(s_i + i, i + 1),  s_i = pits[0] + ... + pits[i],  K = pits.size().
/// The last pit does not enter: it is implied by the layer's stone count. Requires
/// pits.size() in [1, kMaxPits] and a total of at most kMaxIndexedStones. Thread safe.
std::uint64_t rank(std::span<const std::uint8_t> pits) noexcept;

/// Inverse of `rank`: writes the position with `stones` seeds and index `index` into `pits`.
/// Returns false (and leaves `pits` unspecified) when index >= layer_size(pits.size(), stones).
bool unrank(std::uint64_t index, int stones, std::span<std::uint8_t> pits) noexcept;

/// Steps `pits` to the position with the next index in the same layer. Returns false when
/// `pits` was the last position of its layer (then `pits` is unchanged). Thread safe.
bool next_position(std::span<std::uint8_t> pits) noexcept;

/// Table of C(s + i, i + 1) by pit i and prefix sum s, the summands of `rank`, for callers that
/// rank in their inner loop. Row i has kMaxIndexedStones + 1 entries.
const std::uint64_t* rank_table_row(int pit) noexcept;

}  // namespace sowdb
