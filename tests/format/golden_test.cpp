// Golden tiny tables (tests/data/golden_*.sdb): the bytes of the format are stable, and the
// committed files read back right. Regenerate (after a deliberate format change, with a FORMAT.md
// change log entry) by running this test with SOWDB_REGENERATE_GOLDEN=1.
#include <zstd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "table_test_util.h"

namespace sowdb {
namespace {

const std::filesystem::path kDataDir = SOWDB_TEST_DATA_DIR;

struct Golden {
  const char* file;
  RuleSet rules;
  int stones;
  std::uint64_t seed;
  WriteOptions options;
  bool recompute = false;  ///< Version 3: test::mark_recompute(seed) marks recompute entries.
  bool all_moves = false;  ///< Version 4: the same marks under the all-moves rule.
};

// Version 1 (depth codec 0, depths of value-0 entries arbitrary): three boards, one per family,
// each with a partial last block. Kept unchanged since format version 1: a reader must still
// read them.
WriteOptions v1_options(std::uint32_t block_entries) {
  WriteOptions o = test::write_options(block_entries, 19);
  o.depth_codec = DepthCodec::kAll;
  return o;
}

// Version 2 (depth codec 1): the same boards, with depth 0 at value 0.
WriteOptions v2_options(std::uint32_t block_entries) {
  WriteOptions o = test::write_options(block_entries, 19);
  o.depth_codec = DepthCodec::kNonZeroValues;
  return o;
}

const Golden kGoldens[] = {
    {"golden_oware_p2_n3.sdb",
     {Family::kOware, 2, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove},
     3,
     0x5EED0001,
     v1_options(8)},
    {"golden_kalah_p3_n4.sdb",
     {Family::kKalah, 3, true, GrandSlam::kCapture, true, KalahEnd::kEmptySide},
     4,
     0x5EED0002,
     v1_options(32)},
    {"golden_warius_p4_n5.sdb",
     {Family::kWariUs, 4, false, GrandSlam::kCapture, false, KalahEnd::kNoMove},
     5,
     0x5EED0003,
     v1_options(256)},
    {"golden_v2_oware_p2_n3.sdb",
     {Family::kOware, 2, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove},
     3,
     0x5EED0001,
     v2_options(8)},
    {"golden_v2_kalah_p3_n4.sdb",
     {Family::kKalah, 3, true, GrandSlam::kCapture, true, KalahEnd::kEmptySide},
     4,
     0x5EED0002,
     v2_options(32)},
    {"golden_v2_warius_p4_n5.sdb",
     {Family::kWariUs, 4, false, GrandSlam::kCapture, false, KalahEnd::kNoMove},
     5,
     0x5EED0003,
     v2_options(256)},
    // Version 3 (recompute entries): the same boards, about 40% of the entries marked.
    {"golden_v3_oware_p2_n3.sdb",
     {Family::kOware, 2, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove},
     3,
     0x5EED0001,
     v2_options(8),
     true},
    {"golden_v3_kalah_p3_n4.sdb",
     {Family::kKalah, 3, true, GrandSlam::kCapture, true, KalahEnd::kEmptySide},
     4,
     0x5EED0002,
     v2_options(32),
     true},
    {"golden_v3_warius_p4_n5.sdb",
     {Family::kWariUs, 4, false, GrandSlam::kCapture, false, KalahEnd::kNoMove},
     5,
     0x5EED0003,
     v2_options(256),
     true},
    // Version 4 (all-moves rule): the same boards and marks, every marked entry keeping its
    // depth (byte 127).
    {"golden_v4_oware_p2_n3.sdb",
     {Family::kOware, 2, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove},
     3,
     0x5EED0001,
     v2_options(8),
     true,
     true},
    {"golden_v4_kalah_p3_n4.sdb",
     {Family::kKalah, 3, true, GrandSlam::kCapture, true, KalahEnd::kEmptySide},
     4,
     0x5EED0002,
     v2_options(32),
     true,
     true},
    {"golden_v4_warius_p4_n5.sdb",
     {Family::kWariUs, 4, false, GrandSlam::kCapture, false, KalahEnd::kNoMove},
     5,
     0x5EED0003,
     v2_options(256),
     true,
     true},
};

// The golden layer: version 1 files keep arbitrary depths at value 0.
test::Layer golden_layer(const Golden& g) {
  test::Layer l = test::make_layer(
      g.rules, g.stones, g.seed, g.options.depth_codec == DepthCodec::kNonZeroValues);
  if (g.recompute)
    test::mark_recompute(l, g.seed);
  l.all_moves = g.all_moves;
  return l;
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

// CHECKSUMS: "# zstd-version N" and "<xxh64 hex>  <file>" lines (xxhsum -H64 format).
struct Checksums {
  unsigned zstd_version = 0;
  std::map<std::string, std::string> xxh64;
};

Checksums read_checksums() {
  Checksums c;
  std::ifstream in(kDataDir / "CHECKSUMS");
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

bool regenerating() {
  const char* e = std::getenv("SOWDB_REGENERATE_GOLDEN");
  return e != nullptr && std::string(e) == "1";
}

TEST(Golden, Regenerate) {
  if (!regenerating())
    GTEST_SKIP() << "set SOWDB_REGENERATE_GOLDEN=1 to rewrite tests/data";
  std::ofstream sums(kDataDir / "CHECKSUMS", std::ios::trunc);
  sums << "# XXH64 (seed 0) of each golden table file, xxhsum -H64 format.\n"
       << "# Written by tests/format/golden_test.cpp (SOWDB_REGENERATE_GOLDEN=1) with:\n"
       << "# zstd-version " << ZSTD_versionNumber() << "\n";
  for (const Golden& g : kGoldens) {
    const auto l = golden_layer(g);
    write_layer(kDataDir / g.file, g.rules, g.stones, l.source(), g.options);
    sums << hex64(xxh64(test::read_bytes(kDataDir / g.file))) << "  " << g.file << "\n";
  }
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
              g.all_moves                                 ? 4
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

TEST(Golden, WriterIsByteStable) {
  const Checksums sums = read_checksums();
  if (sums.zstd_version != ZSTD_versionNumber()) {
    GTEST_SKIP() << "the golden files were compressed by zstd " << sums.zstd_version
                 << ", this is zstd " << ZSTD_versionNumber()
                 << "; zstd output may differ across versions";
  }
  test::TempDir dir;
  for (const Golden& g : kGoldens) {
    const auto l = golden_layer(g);
    write_layer(dir / g.file, g.rules, g.stones, l.source(), g.options);
    EXPECT_EQ(test::read_bytes(dir / g.file), test::read_bytes(kDataDir / g.file))
        << g.file << " changed: a format change needs a version bump and new golden files";
  }
}

}  // namespace
}  // namespace sowdb
