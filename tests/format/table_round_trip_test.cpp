// Table files, writer -> reader: every rule set the header can express, larger layers and boards,
// the value table's order, depth codec 1's edge cases, normalised rules, one reader shared by
// threads, read_all's spans.
#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "table_test_util.h"

namespace sowdb {
namespace {

using Code = TableError::Code;
using test::all_rule_sets;
using test::error_of;
using test::expect_reads_back;
using test::Layer;
using test::make_layer;
using test::name_of;
using test::read_bytes;
using test::reseal;
using test::TempDir;
using test::write_bytes;

TEST(TableFile, RoundTripEveryRuleSet) {
  TempDir dir;
  int files = 0;
  for (const std::uint8_t p : {std::uint8_t{1}, std::uint8_t{2}, std::uint8_t{3}}) {
    for (const RuleSet& rules : all_rule_sets(p)) {
      for (const int n : {0, 1, 4}) {
        for (const std::uint32_t block : {1u, 7u, kDefaultBlockEntries}) {
          // Cycle through version 1 (depth codec 0), version 2 (depth codec 1) and version 3
          // (recompute entries) files.
          const int version = 1 + files % 3;
          const auto codec = version == 1 ? DepthCodec::kAll : DepthCodec::kNonZeroValues;
          Layer l = make_layer(rules, n, 1000u * p + 10u * n + block);
          if (version == 3)
            test::mark_recompute(l, files);
          const auto path = dir / ("t" + std::to_string(files++) + ".sdb");
          WriteOptions o = test::write_options(block, 3);
          o.depth_codec = codec;
          write_layer(path, rules, n, l.source(), o);
          const auto r = LayerReader::open(path);
          ASSERT_EQ(r->info().block_entries, block);
          ASSERT_EQ(r->info().block_count, (l.values.size() + block - 1) / block);
          ASSERT_EQ(r->info().format_version, version);
          ASSERT_EQ(r->info().depth_codec, codec);
          ASSERT_EQ(r->info().file_size, std::filesystem::file_size(path));
          expect_reads_back(*r, l);
          const LayerInfo info = read_info(path);
          EXPECT_EQ(info.rules, rules);
          EXPECT_EQ(info.entries, l.values.size());
          EXPECT_EQ(info.value_table, r->info().value_table);
        }
      }
    }
  }
  EXPECT_EQ(files, 3 * 16 * 3 * 3);
}

TEST(TableFile, LargerLayersAndBoards) {
  TempDir dir;
  const struct {
    RuleSet rules;
    int n;
    std::uint32_t block;
  } cases[] = {
      {{Family::kOware, 6, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove}, 5, 1000},
      {{Family::kKalah, 4, false, GrandSlam::kCapture, true, KalahEnd::kEmptySide}, 12, 4096},
      {{Family::kWariUs, 8, true, GrandSlam::kCapture, false, KalahEnd::kNoMove}, 3, 333},
      {{Family::kOware, 2, true, GrandSlam::kCapture, false, KalahEnd::kNoMove}, 127, 50000},
  };
  for (const auto& c : cases) {
    const Layer l = make_layer(c.rules, c.n, 77);
    const auto path = dir / "big.sdb";
    write_layer(path, c.rules, c.n, l.values, l.depths, test::write_options(c.block, 1));
    expect_reads_back(*LayerReader::open(path, test::options(2)), l);
    // Without a cache every probe decodes a block: probe a sample.
    expect_reads_back(*LayerReader::open(path, test::options(0)), l, l.values.size() / 500 + 1);
    expect_reads_back(*LayerReader::open_memory(read_bytes(path)), l);
  }
}

TEST(TableFile, ValueTableIsByFallingFrequency) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 1, true, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  // P = 1, n = 9: 10 entries.
  const std::vector<std::int8_t> v = {3, -2, 3, 0, 3, -2, 9, 0, 0, 3};
  std::vector<std::uint16_t> d(10, 65535);
  // Depth codec 1 stores no depth for value 0, so it refuses a non-zero one there.
  EXPECT_TABLE_ERROR(write_layer(dir / "f.sdb", rules, 9, v, d), Code::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir / "f.sdb"));
  WriteOptions all;
  all.depth_codec = DepthCodec::kAll;
  write_layer(dir / "f.sdb", rules, 9, v, d, all);
  auto r = LayerReader::open(dir / "f.sdb");
  EXPECT_EQ(r->info().value_table, (std::vector<std::int8_t>{3, 0, -2, 9}));
  for (std::uint64_t i = 0; i < 10; ++i)
    EXPECT_EQ(r->depth(i), 65535);
  for (std::uint64_t i = 0; i < 10; ++i)
    d[i] = v[i] == 0 ? 0 : 65535;
  write_layer(dir / "f.sdb", rules, 9, v, d);
  r = LayerReader::open(dir / "f.sdb");
  EXPECT_EQ(r->info().depth_codec, DepthCodec::kNonZeroValues);
  for (std::uint64_t i = 0; i < 10; ++i)
    EXPECT_EQ(r->depth(i), d[i]);
}

// Depth codec 1 with blocks that store no depth at all (every value 0: empty depth frames),
// blocks without a value 0, and depth probes before and after value probes.
TEST(TableFile, NonZeroValueDepthsEdgeCases) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 2, true, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  Layer l = make_layer(rules, 8, 5);  // C(11, 3) = 165 entries
  for (std::size_t i = 0; i < l.values.size(); ++i) {
    if (i < 40) {
      l.values[i] = 0;  // blocks 0..3 of 10: all value 0
      l.depths[i] = 0;
    } else if (i < 80 && l.values[i] == 0) {
      l.values[i] = 1;  // blocks 4..7: no value 0
    }
  }
  write_layer(dir / "e.sdb", rules, 8, l.values, l.depths, test::write_options(10, 3));
  expect_reads_back(*LayerReader::open(dir / "e.sdb", test::options(0)), l);
  expect_reads_back(*LayerReader::open(dir / "e.sdb", test::options(1)), l);
  const auto r = LayerReader::open(dir / "e.sdb", test::options(3));
  for (std::uint64_t i = l.values.size(); i-- > 0;)
    ASSERT_EQ(r->depth(i), l.depths[i]) << i;
  std::vector<std::uint16_t> d(l.values.size());
  r->read_all({}, d);  // depths alone still decode the values they need
  EXPECT_EQ(d, l.depths);
}

TEST(TableFile, NonNormalisedRulesAreWrittenNormalised) {
  TempDir dir;
  const RuleSet loose{Family::kKalah, 2, true, GrandSlam::kForbidden, true, KalahEnd::kNoMove};
  const Layer l = make_layer(loose, 3, 5);
  write_layer(dir / "k.sdb", loose, 3, l.values, l.depths);
  EXPECT_EQ(read_info(dir / "k.sdb").rules, loose.normalised());
  EXPECT_EQ(read_info(dir / "k.sdb").rules.grand_slam, GrandSlam::kCapture);
  // expected_rules compares normalised forms.
  EXPECT_NO_THROW(LayerReader::open(dir / "k.sdb", test::expecting(loose, std::nullopt)));
}

TEST(TableFile, ThreadsShareOneReader) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 4, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 9, 3);  // C(16, 7) = 11440 entries
  write_layer(dir / "t.sdb", rules, 9, l.values, l.depths, test::write_options(256, 3));
  const auto r = LayerReader::open(dir / "t.sdb", test::options(3));
  std::vector<std::thread> threads;
  threads.reserve(8);
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(static_cast<std::uint64_t>(t));
      for (int k = 0; k < 20000; ++k) {
        const std::uint64_t i = rng() % l.values.size();
        if (r->value(i) != l.values[i] || r->depth(i) != l.depths[i])
          ++wrong;
      }
    });
  }
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(wrong.load(), 0);
}
TEST(TableFile, ReadAllSpans) {
  TempDir dir;
  const RuleSet rules{Family::kKalah, 2, true, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 6, 9);
  write_layer(dir / "a.sdb", rules, 6, l.values, l.depths, test::write_options(10, 3));
  const auto r = LayerReader::open(dir / "a.sdb");
  std::vector<std::int8_t> v(l.values.size());
  std::vector<std::uint16_t> d(l.values.size());
  r->read_all(v, {});
  EXPECT_EQ(v, l.values);
  r->read_all({}, d);
  EXPECT_EQ(d, l.depths);
  std::vector<std::int8_t> short_v(v.size() - 1);
  EXPECT_TABLE_ERROR(r->read_all(short_v, d), Code::kInvalidArgument);
  std::vector<std::uint16_t> long_d(d.size() + 1);
  EXPECT_TABLE_ERROR(r->read_all(v, long_d), Code::kInvalidArgument);
}

}  // namespace
}  // namespace sowdb
