// Frees a container's memory. Not installed.
#pragma once

namespace sowdb::mpi {

// Empties `c` and gives its memory back: `c = {}` or `c.clear()` keep a vector's capacity, which
// once kept a whole layer of every rank alive through the next (docs/BENCHMARKS.md, 2026-11-26
// "frontiers as bitmaps, layers really freed").
template <typename Container>
void free_memory(Container& c) noexcept {
  Container().swap(c);
}

}  // namespace sowdb::mpi
