// The C++ side of the Python module's benchmark (scripts/bench_python.sh): probe_bulk's values
// of the boards in a file, as sowdb.TableSet.values() computes them, timed without Python.
//
//   sowdb_bulk_bench TABLES BOARDS_FILE CACHE_BYTES REPEAT THREADS...
//
// BOARDS_FILE holds rows of 2P bytes (numpy's tofile of an (N, 2P) uint8 array). One untimed
// pass over every board fills the caches; then REPEAT timed passes per thread count, the
// fastest printed as a JSON line with the positions per second (on a shared machine the
// fastest pass is the one least disturbed).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "sowdb/analysis/bulk_probe.h"
#include "sowdb/probe/tables.h"

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s TABLES BOARDS_FILE CACHE_BYTES REPEAT THREADS...\n", argv[0]);
    return 2;
  }
  try {
    sowdb::TableSetOptions options;
    options.cache_bytes = std::strtoull(argv[3], nullptr, 10);
    const auto set = sowdb::TableSet::open(argv[1], options);
    std::ifstream in(argv[2], std::ios::binary);
    const std::vector<std::uint8_t> boards((std::istreambuf_iterator<char>(in)), {});
    const std::size_t rows = boards.size() / static_cast<std::size_t>(set->engine().board_pits());
    std::vector<std::int8_t> values(rows);
    std::vector<std::uint8_t> status(rows);
    const sowdb::BulkOutput out{values, {}, {}, status};
    sowdb::probe_bulk(*set, boards, out, 0);  // warm: every block the boards need, decoded
    std::size_t unanswered = 0;
    for (const std::uint8_t s : status)
      unanswered += s != 0;
    const int repeat = std::max(1, std::atoi(argv[4]));
    for (int i = 5; i < argc; ++i) {
      const int threads = std::atoi(argv[i]);
      double best = 0;
      for (int r = 0; r < repeat; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        sowdb::probe_bulk(*set, boards, out, threads);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = r == 0 ? s : std::min(best, s);
      }
      std::printf(
          "{\"side\":\"c++\",\"threads\":%d,\"positions\":%zu,\"unanswered\":%zu,"
          "\"repeat\":%d,\"seconds\":%.3f,\"positions_per_s\":%.0f}\n",
          threads,
          rows,
          unanswered,
          repeat,
          best,
          static_cast<double>(rows) / best);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sowdb_bulk_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
