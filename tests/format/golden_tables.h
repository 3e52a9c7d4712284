// The golden tiny tables (tests/data/golden_*.sdb): which files, written how. Shared by the test
// that checks them (golden_test.cpp) and the tool that writes them (regenerate_golden.cpp,
// scripts/regenerate_golden.sh). Needs only sowdb::format.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "sowdb/format/rule_set.h"
#include "sowdb/format/table_file.h"
#include "test_layer.h"

namespace sowdb::test {

/// One golden file: its name, its layer (rule set, stones, seed of make_layer) and how it is
/// written.
struct Golden {
  const char* file;
  RuleSet rules;
  int stones;
  std::uint64_t seed;
  WriteOptions options;
  bool recompute = false;  ///< Version 3: mark_recompute(seed) marks recompute entries.
  bool all_moves = false;  ///< Version 4: the same marks under the all-moves rule.
  /// Version 5: a co-operative file of make_reach_sets(seed, reach_patterns) instead.
  std::uint64_t reach_patterns = 0;
};

// Version 1 (depth codec 0, depths of value-0 entries arbitrary): three boards, one per family,
// each with a partial last block. Kept unchanged since format version 1: a reader must still
// read them.
inline WriteOptions v1_options(std::uint32_t block_entries) {
  WriteOptions o = write_options(block_entries, 19);
  o.depth_codec = DepthCodec::kAll;
  return o;
}

// Version 2 (depth codec 1): the same boards, with depth 0 at value 0.
inline WriteOptions v2_options(std::uint32_t block_entries) {
  WriteOptions o = write_options(block_entries, 19);
  o.depth_codec = DepthCodec::kNonZeroValues;
  return o;
}

// Version 6 (Huffman-coded blocks): the same boards written by the version 6 writer.
inline WriteOptions v6_options(std::uint32_t block_entries) {
  WriteOptions o = write_options(block_entries, 19);
  o.format_version = 6;
  return o;
}

inline const Golden kGoldens[] = {
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
    // Version 6: the version 4 marks (oware), the version 3 marks (kalah), none (wari-us).
    {"golden_v6_oware_p2_n3.sdb",
     {Family::kOware, 2, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove},
     3,
     0x5EED0001,
     v6_options(8),
     true,
     true},
    {"golden_v6_kalah_p3_n4.sdb",
     {Family::kKalah, 3, true, GrandSlam::kCapture, true, KalahEnd::kEmptySide},
     4,
     0x5EED0002,
     v6_options(32),
     true},
    {"golden_v6_warius_p4_n5.sdb",
     {Family::kWariUs, 4, false, GrandSlam::kCapture, false, KalahEnd::kNoMove},
     5,
     0x5EED0003,
     v6_options(256)},
    // Version 5 (co-operative sets): one-byte symbols; two-byte symbols (over 256 sets); sets
    // of two words (n = 40).
    {"golden_v5_oware_p2_n3.sdb",
     {Family::kOware, 2, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove},
     3,
     0x5EED0001,
     write_options(8, 19),
     false,
     false,
     5},
    {"golden_v5_kalah_p3_n8.sdb",
     {Family::kKalah, 3, true, GrandSlam::kCapture, true, KalahEnd::kEmptySide},
     8,
     0x5EED0002,
     write_options(256, 19),
     false,
     false,
     2000},
    {"golden_v5_warius_p1_n40.sdb",
     {Family::kWariUs, 1, false, GrandSlam::kCapture, false, KalahEnd::kNoMove},
     40,
     0x5EED0003,
     write_options(16, 19),
     false,
     false,
     30},
};

// The golden layer: version 1 files keep arbitrary depths at value 0.
inline Layer golden_layer(const Golden& g) {
  Layer l =
      make_layer(g.rules, g.stones, g.seed, g.options.depth_codec == DepthCodec::kNonZeroValues);
  if (g.recompute)
    mark_recompute(l, g.seed);
  l.all_moves = g.all_moves;
  return l;
}

/// Writes golden file `g` at `path`.
inline void write_golden(const Golden& g, const std::filesystem::path& path) {
  if (g.reach_patterns != 0) {
    write_reach_layer(path,
                      g.rules,
                      g.stones,
                      make_reach_sets(g.rules, g.stones, g.seed, g.reach_patterns),
                      g.options);
  } else {
    const Layer l = golden_layer(g);
    write_layer(path, g.rules, g.stones, l.source(), g.options);
  }
}

/// The name of the checksum file beside the golden files: "# zstd-version N" and
/// "<xxh64 hex>  <file>" lines (xxhsum -H64 format).
inline constexpr const char* kChecksumsName = "CHECKSUMS";

/// `v` as 16 lower-case hex digits, as in CHECKSUMS.
inline std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

}  // namespace sowdb::test
