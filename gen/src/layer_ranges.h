// Parallel walks over the positions of a layer, and the executor of bulk reads and writes, shared
// by the generator, the verifier and the commands.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/rules.h"

namespace sowdb::gen {

// Runs the tasks of the format and probe libraries' bulk calls (sowdb::Executor) on the calling
// thread's oneTBB arena.
inline Executor tbb_executor() {
  return [](std::size_t tasks, const std::function<void(std::size_t)>& task) {
    tbb::parallel_for(std::size_t{0}, tasks, [&](std::size_t t) { task(t); });
  };
}

// Calls visit(first, last, board, pits) in parallel over the ranges [first, last) of layer n
// that hold whole 64-entry words (so a visitor may update the bit words of its range without
// sharing them); `board` holds the position of index `first`, `pits` is its span over the
// board's pits, and the visitor steps it on.
template <typename Visit>
void for_each_range(const Rules& rules, int n, Visit&& visit) {
  const std::uint64_t size = layer_size(rules.pits(), n);
  const std::uint64_t words = (size + 63) / 64;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, words, 256),
                    [&](const tbb::blocked_range<std::uint64_t>& r) {
                      const std::uint64_t first = r.begin() * 64;
                      Pits board{};
                      const std::span<std::uint8_t> pits(board.data(),
                                                         static_cast<std::size_t>(rules.pits()));
                      unrank(first, n, pits);
                      visit(first, std::min(size, r.end() * 64), board, pits);
                    });
}

}  // namespace sowdb::gen
