// sowdb_regenerate_golden: writes the golden tiny tables (golden_tables.h) and their CHECKSUMS
// into a directory, by default the source tree's tests/data. A tool, not a test: run it through
// scripts/regenerate_golden.sh after a deliberate format change (with a FORMAT.md change log
// entry), then commit the files with that change; golden_test.cpp checks them.
//
// Usage: sowdb_regenerate_golden [DIR]
// Prints each file with its XXH64; exits 1 on an error (the message on stderr), 2 on bad usage.
#include <zstd.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "golden_tables.h"
#include "sowdb/format/table_file.h"
#include "sowdb/format/xxhash64.h"
#include "test_layer.h"

int main(int argc, char** argv) {
  using namespace sowdb;
  if (argc > 2) {
    std::fprintf(stderr, "usage: %s [DIR]  (default: %s)\n", argv[0], SOWDB_TEST_DATA_DIR);
    return 2;
  }
  const std::filesystem::path dir = argc == 2 ? argv[1] : SOWDB_TEST_DATA_DIR;
  try {
    std::filesystem::create_directories(dir);
    std::ofstream sums(dir / test::kChecksumsName, std::ios::trunc);
    sums << "# XXH64 (seed 0) of each golden table file, xxhsum -H64 format.\n"
         << "# Written by sowdb_regenerate_golden (scripts/regenerate_golden.sh) with:\n"
         << "# zstd-version " << ZSTD_versionNumber() << "\n";
    for (const test::Golden& g : test::kGoldens) {
      test::write_golden(g, dir / g.file);
      const std::string hash = test::hex64(xxh64(test::read_bytes(dir / g.file)));
      sums << hash << "  " << g.file << "\n";
      std::printf("%s  %s\n", hash.c_str(), (dir / g.file).c_str());
    }
    sums.close();
    if (!sums)
      throw std::runtime_error("cannot write " + (dir / test::kChecksumsName).string());
    std::printf("wrote %s (zstd %u)\n", (dir / test::kChecksumsName).c_str(), ZSTD_versionNumber());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sowdb_regenerate_golden: %s\n", e.what());
    return 1;
  }
  return 0;
}
