// Cached probes through the public C API (issue #43): one sowdb_open with the default options
// (or --cache-bytes B), N distinct random positions of one layer drawn from a window of W
// consecutive indices (0: the whole layer), probed once to fill the caches, then R rounds over
// the same positions timed as a whole. Prints ns per probe of sowdb_probe_value_only and of
// sowdb_probe_value (value and depth). Recompute entries are resolved as every caller's are
// (through their children in the smaller layers, with those layers' caches). The files should
// be in the page cache.
//   sowdb_cached_probe TABLE_DIR LAYER [--positions N] [--window W] [--rounds R]
//                      [--cache-bytes B] [--seed S]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_set>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/probe/sowdb.h"
#include "splitmix.h"

namespace {

using sowdb::bench::SplitMix;

struct Args {
  const char* dir = nullptr;
  int layer = 0;
  std::uint64_t positions = 1000;
  std::uint64_t window = 8192;
  std::uint64_t rounds = 2000;
  std::uint64_t seed = 1;
  long long cache_bytes = -1;  // -1: the default
};

// R rounds over `boards` (value and depth when `depth`), after one round that fills the caches.
// Returns ns per probe, or a negative number when a probe fails.
double rounds(sowdb_tables* tables,
              const std::vector<std::uint8_t>& boards,
              int pits,
              std::uint64_t count,
              bool depth,
              std::int64_t& check) {
  const std::size_t n = boards.size() / static_cast<std::size_t>(pits);
  const auto one_round = [&] {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint8_t* p = boards.data() + i * static_cast<std::size_t>(pits);
      std::int32_t v = 0, d = 0;
      const sowdb_status s = depth ? sowdb_probe_value(tables, p, pits, &v, &d)
                                   : sowdb_probe_value_only(tables, p, pits, &v);
      if (s != SOWDB_OK)
        return false;
      check += v + d;
    }
    return true;
  };
  if (!one_round())
    return -1;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint64_t r = 0; r < count; ++r) {
    if (!one_round())
      return -1;
  }
  const auto t1 = std::chrono::steady_clock::now();
  return static_cast<double>(
             std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) /
         static_cast<double>(count * n);
}

bool parse(int argc, char** argv, Args& a) {
  if (argc < 3)
    return false;
  a.dir = argv[1];
  a.layer = std::atoi(argv[2]);
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--positions")
      a.positions = std::strtoull(v, nullptr, 10);
    else if (k == "--window")
      a.window = std::strtoull(v, nullptr, 10);
    else if (k == "--rounds")
      a.rounds = std::strtoull(v, nullptr, 10);
    else if (k == "--seed")
      a.seed = std::strtoull(v, nullptr, 10);
    else if (k == "--cache-bytes")
      a.cache_bytes = std::atoll(v);
    else
      return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, a)) {
    std::fprintf(stderr,
                 "usage: sowdb_cached_probe TABLE_DIR LAYER [--positions N] [--window W] "
                 "[--rounds R] [--cache-bytes B] [--seed S]\n");
    return 2;
  }
  sowdb_open_options options;
  sowdb_open_options_init(&options);
  if (a.cache_bytes >= 0)
    options.cache_bytes = static_cast<std::uint64_t>(a.cache_bytes);
  sowdb_tables* tables = nullptr;
  if (sowdb_open(a.dir, &options, &tables) != SOWDB_OK) {
    std::fprintf(stderr, "cannot open %s\n", a.dir);
    return 1;
  }
  const int pits = sowdb_board_pits(tables);
  const std::uint64_t entries = sowdb::layer_size(pits, a.layer);
  const std::uint64_t window = a.window == 0 ? entries : std::min(a.window, entries);
  const std::uint64_t count = std::min(a.positions, window);
  SplitMix rng{a.seed};
  const std::uint64_t first = window == entries ? 0 : rng.next() % (entries - window + 1);
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::uint8_t> boards;
  std::vector<std::uint8_t> p(static_cast<std::size_t>(pits));
  while (seen.size() < count) {
    const std::uint64_t i = first + rng.next() % window;
    if (!seen.insert(i).second)
      continue;
    sowdb::unrank(i, a.layer, p);
    boards.insert(boards.end(), p.begin(), p.end());
  }
  std::printf(
      "%s layer %d: %llu positions in indices [%llu, %llu), cache_bytes %llu, %llu rounds\n",
      a.dir,
      a.layer,
      static_cast<unsigned long long>(count),
      static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(first + window),
      static_cast<unsigned long long>(options.cache_bytes),
      static_cast<unsigned long long>(a.rounds));
  std::int64_t check = 0;
  const double value_ns = rounds(tables, boards, pits, a.rounds, false, check);
  const double both_ns = rounds(tables, boards, pits, a.rounds, true, check);
  sowdb_close(tables);
  if (value_ns < 0 || both_ns < 0) {
    std::fprintf(stderr, "a probe failed\n");
    return 1;
  }
  std::printf("sowdb_probe_value_only  %8.1f ns/probe\nsowdb_probe_value (v+d) %8.1f ns/probe\n",
              value_ns,
              both_ns);
  std::printf("  (checksum of the answers %lld)\n", static_cast<long long>(check));
  return 0;
}
