// splitmix64: the benchmarks' reproducible stream of random 64-bit numbers from a seed (the
// tests' own is tests/format/test_layer.h's SplitMix, which the benchmarks do not include).
#pragma once

#include <cstdint>

namespace sowdb::bench {

/// The next number of the stream seeded with `s` at each call. Not thread safe.
struct SplitMix {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
};

}  // namespace sowdb::bench
