// Golden tiny tables (tests/data/golden_*.sdb, listed in golden_tables.h): the bytes of the
// format are stable, and the committed files read back right. After a deliberate format change
// (with a FORMAT.md change log entry), scripts/regenerate_golden.sh rewrites them and CHECKSUMS.
#include <gtest/gtest.h>
#include <zstd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "golden_tables.h"
#include "table_test_util.h"

namespace sowdb {
namespace {

const std::filesystem::path kDataDir = SOWDB_TEST_DATA_DIR;

using test::Golden;
using test::golden_layer;
using test::hex64;
using test::kGoldens;

// CHECKSUMS: "# zstd-version N" and "<xxh64 hex>  <file>" lines (xxhsum -H64 format).
struct Checksums {
  unsigned zstd_version = 0;
  std::map<std::string, std::string> xxh64;
};

Checksums read_checksums() {
  Checksums c;
  std::ifstream in(kDataDir / test::kChecksumsName);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# zstd-version ", 0) == 0) {
      c.zstd_version = static_cast<unsigned>(std::stoul(line.substr(15)));
    } else if (!line.empty() && line[0] != '#') {
      std::istringstream s(line);
      std::string hash, file;
      s >> hash >> file;
      c.xxh64[file] = hash;
    }
  }
  return c;
}

TEST(Golden, FilesMatchChecksums) {
  const Checksums sums = read_checksums();
  ASSERT_EQ(sums.xxh64.size(), std::size(kGoldens));
  for (const Golden& g : kGoldens) {
    const auto bytes = test::read_bytes(kDataDir / g.file);
    ASSERT_FALSE(bytes.empty()) << g.file;
    EXPECT_EQ(hex64(xxh64(bytes)), sums.xxh64.at(g.file)) << g.file;
  }
}

TEST(Golden, ReadBackRight) {
  for (const Golden& g : kGoldens) {
    if (g.reach_patterns != 0)
      continue;  // ReachReadBackRight
    const auto l = golden_layer(g);
    const auto r = LayerReader::open(kDataDir / g.file, test::expecting(g.rules, g.stones));
    const LayerInfo& info = r->info();
    EXPECT_EQ(info.rules, g.rules);
    EXPECT_EQ(info.stones, g.stones);
    EXPECT_EQ(info.entries, l.values.size());
    EXPECT_EQ(info.block_entries, g.options.block_entries);
    EXPECT_GT(info.block_count, 1u);
    EXPECT_NE(info.entries % info.block_entries, 0u) << "the last block should be partial";
    EXPECT_EQ(info.recompute, g.recompute);
    EXPECT_EQ(info.all_moves, g.all_moves);
    EXPECT_EQ(info.format_version,
              g.options.format_version == 6               ? 6
              : g.all_moves                               ? 4
              : g.recompute                               ? 3
              : g.options.depth_codec == DepthCodec::kAll ? 1
                                                          : 2);
    for (std::uint64_t i = 0; i < info.entries; ++i) {
      ASSERT_EQ(r->value(i), l.read_value(i)) << g.file << " " << i;
      ASSERT_EQ(r->depth(i), l.read_depth(i)) << g.file << " " << i;
    }
    std::vector<std::int8_t> v(info.entries);
    std::vector<std::uint16_t> d(info.entries);
    r->read_all(v, d);
    EXPECT_EQ(v, l.read_values());
    EXPECT_EQ(d, l.read_depths());
  }
}

// The co-operative golden files: every entry's set, by symbol and whole, and the widths of
// symbol each one was chosen for.
TEST(Golden, ReachReadBackRight) {
  int files = 0;
  for (const Golden& g : kGoldens) {
    if (g.reach_patterns == 0)
      continue;
    ++files;
    const auto sets = test::make_reach_sets(g.rules, g.stones, g.seed, g.reach_patterns);
    const auto r = LayerReader::open(kDataDir / g.file, test::expecting(g.rules, g.stones));
    const LayerInfo& info = r->info();
    const auto words = static_cast<std::size_t>(reach_set_words(g.stones));
    EXPECT_EQ(info.format_version, 5);
    EXPECT_EQ(info.objective, Objective::kCooperative);
    EXPECT_EQ(info.entries * words, sets.size());
    EXPECT_GT(info.block_count, 1u);
    EXPECT_EQ(info.set_table.size(), info.set_count * words);
    if (g.reach_patterns > 256) {
      EXPECT_GT(info.set_count, 256u) << g.file << " should need two-byte symbols";
    }
    std::vector<std::uint32_t> symbols(info.entries);
    r->read_all_symbols(symbols);
    for (std::uint64_t i = 0; i < info.entries; ++i) {
      ASSERT_EQ(r->set_symbol(i), symbols[i]) << g.file << " " << i;
      const auto set = r->set(symbols[i]);
      ASSERT_EQ(set.size(), words);
      for (std::size_t w = 0; w < words; ++w)
        ASSERT_EQ(set[w], sets[i * words + w]) << g.file << " " << i;
      EXPECT_EQ(r->value(i), std::nullopt);
      EXPECT_EQ(r->depth(i), std::nullopt);
    }
  }
  EXPECT_EQ(files, 3);
}

TEST(Golden, WriterIsByteStable) {
  const Checksums sums = read_checksums();
  if (sums.zstd_version != ZSTD_versionNumber()) {
    GTEST_SKIP() << "the golden files were compressed by zstd " << sums.zstd_version
                 << ", this is zstd " << ZSTD_versionNumber()
                 << "; zstd output may differ across versions";
  }
  test::TempDir dir;
  for (const Golden& g : kGoldens) {
    test::write_golden(g, dir / g.file);
    EXPECT_EQ(test::read_bytes(dir / g.file), test::read_bytes(kDataDir / g.file))
        << g.file << " changed: a format change needs a version bump and new golden files";
  }
}

}  // namespace
}  // namespace sowdb
