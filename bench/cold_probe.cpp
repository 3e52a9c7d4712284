// Cold probes through the public C API (issue #43): a fresh sowdb_open with cache_bytes = 0, N
// distinct random positions of one layer, each probed once, one steady_clock interval per probe
// (the clock's 20-40 ns included). Prints p50, p99 and the mean of sowdb_probe_value_only, then,
// after a second fresh open, of sowdb_probe_value (value and depth), and the resident memory
// each pass added. The files should be in the page cache (run it twice): it measures decoding,
// not the disk. Version 6 files are read with pread (the default) or, with --mmap 1, mapped
// (sowdb_open_options.memory_map).
//   sowdb_cold_probe TABLE_DIR LAYER [--positions N] [--seed S] [--mmap 0|1]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/probe/sowdb.h"
#include "splitmix.h"

namespace {

// Resident bytes of this process (/proc/self/statm).
double resident_mib() {
  std::ifstream in("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  in >> size >> resident;
  return static_cast<double>(resident) * 4096.0 / (1024.0 * 1024.0);
}

using sowdb::bench::SplitMix;

void report(const char* what, std::vector<double>& ns, double rss_before, double rss_after) {
  std::sort(ns.begin(), ns.end());
  double sum = 0;
  for (double x : ns)
    sum += x;
  std::printf("%-28s %9zu probes  p50 %7.2f us  p99 %7.2f us  mean %7.2f us  RSS +%.1f MiB\n",
              what,
              ns.size(),
              ns[ns.size() / 2] / 1000.0,
              ns[ns.size() * 99 / 100] / 1000.0,
              sum / static_cast<double>(ns.size()) / 1000.0,
              rss_after - rss_before);
}

// One pass over `boards` on a fresh handle: `depth` adds the depth.
bool pass(
    const char* dir, const std::vector<std::uint8_t>& boards, int pits, bool depth, bool map) {
  sowdb_open_options options;
  sowdb_open_options_init(&options);
  options.cache_bytes = 0;
  options.memory_map = map ? 1 : 0;
  sowdb_tables* tables = nullptr;
  if (sowdb_open(dir, &options, &tables) != SOWDB_OK) {
    std::fprintf(stderr, "cannot open %s\n", dir);
    return false;
  }
  const double rss = resident_mib();
  const std::size_t n = boards.size() / static_cast<std::size_t>(pits);
  std::vector<double> ns(n);
  std::int64_t check = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t* p = boards.data() + i * static_cast<std::size_t>(pits);
    std::int32_t v = 0, d = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const sowdb_status s = depth ? sowdb_probe_value(tables, p, pits, &v, &d)
                                 : sowdb_probe_value_only(tables, p, pits, &v);
    const auto t1 = std::chrono::steady_clock::now();
    if (s != SOWDB_OK) {
      std::fprintf(stderr, "probe %zu failed: status %d\n", i, static_cast<int>(s));
      sowdb_close(tables);
      return false;
    }
    check += v + d;
    ns[i] =
        static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  }
  report(depth ? "sowdb_probe_value (v+d)" : "sowdb_probe_value_only", ns, rss, resident_mib());
  std::printf("  (checksum of the answers %lld)\n", static_cast<long long>(check));
  sowdb_close(tables);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: sowdb_cold_probe TABLE_DIR LAYER [--positions N] [--seed S] [--mmap "
                 "0|1]\n");
    return 2;
  }
  const char* dir = argv[1];
  const int layer = std::atoi(argv[2]);
  std::uint64_t count = 1000000, seed = 1;
  bool map = false;
  for (int a = 3; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--positions")
      count = std::strtoull(argv[a + 1], nullptr, 10);
    else if (k == "--seed")
      seed = std::strtoull(argv[a + 1], nullptr, 10);
    else if (k == "--mmap")
      map = std::strtoull(argv[a + 1], nullptr, 10) != 0;
  }
  sowdb_open_options options;
  sowdb_open_options_init(&options);
  sowdb_tables* tables = nullptr;
  if (sowdb_open(dir, &options, &tables) != SOWDB_OK) {
    std::fprintf(stderr, "cannot open %s\n", dir);
    return 1;
  }
  const int pits = sowdb_board_pits(tables);
  sowdb_close(tables);
  const std::uint64_t entries = sowdb::layer_size(pits, layer);
  count = std::min(count, entries);
  // Distinct random indices, probed in random order.
  SplitMix rng{seed};
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::uint8_t> boards;
  boards.reserve(count * static_cast<std::size_t>(pits));
  std::vector<std::uint8_t> p(static_cast<std::size_t>(pits));
  while (seen.size() < count) {
    const std::uint64_t i = rng.next() % entries;
    if (!seen.insert(i).second)
      continue;
    sowdb::unrank(i, layer, p);
    boards.insert(boards.end(), p.begin(), p.end());
  }
  std::printf("%s layer %d: %llu of %llu positions, cache_bytes 0, seed %llu, %s\n",
              dir,
              layer,
              static_cast<unsigned long long>(count),
              static_cast<unsigned long long>(entries),
              static_cast<unsigned long long>(seed),
              map ? "mmap" : "pread");
  return pass(dir, boards, pits, false, map) && pass(dir, boards, pits, true, map) ? 0 : 1;
}
