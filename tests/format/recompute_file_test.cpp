// Recompute entries in table files (FORMAT.md, "Recompute entries", versions 3 and 4): round trips
// with both symbols, when the writer falls back to version 2, the writer's refusals, and the reader
// checks that concern them (flags, codecs, value-table bytes, value count, check 21).
#include <zstd.h>

#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "table_test_util.h"

namespace sowdb {
namespace {

using Code = TableError::Code;
using test::error_of;
using test::expect_reads_back;
using test::Layer;
using test::make_layer;
using test::name_of;
using test::read_bytes;
using test::reseal;
using test::TempDir;
using test::with_depth_frame;
using test::write_bytes;

TEST(Recompute, RoundTripsWithBothSymbols) {
  TempDir dir;
  const RuleSet rules{Family::kKalah, 3, false, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  for (const std::uint32_t block : {1u, 5u, 64u, kDefaultBlockEntries}) {
    Layer l = make_layer(rules, 6, 77 + block);  // C(11, 5) = 462 entries
    test::mark_recompute(l, block);
    std::size_t negative = 0, derived = 0;
    for (std::uint64_t i = 0; i < l.values.size(); ++i) {
      negative += l.marked(i) && l.values[i] < 0;
      derived += l.marked(i) && l.values[i] >= 0;
    }
    ASSERT_GT(negative, 0u);
    ASSERT_GT(derived, 0u);
    write_layer(dir / "x.sdb", rules, 6, l.source(), test::write_options(block, 3));
    const auto r = LayerReader::open(dir / "x.sdb");
    EXPECT_EQ(r->info().format_version, 3);
    EXPECT_TRUE(r->info().recompute);
    const auto& table = r->info().value_table;
    EXPECT_NE(std::find(table.begin(), table.end(), kRecomputeValue), table.end());
    EXPECT_NE(std::find(table.begin(), table.end(), std::int8_t{127}), table.end());
    expect_reads_back(*r, l);
    // A cache of 0 and of 1 block: depth decodes fetch the values themselves.
    for (const std::size_t cache : {0u, 1u}) {
      const auto c = LayerReader::open(dir / "x.sdb", test::options(cache));
      for (std::uint64_t i = 0; i < l.values.size(); i += 3) {
        ASSERT_EQ(c->depth(i), l.read_depth(i)) << i;
        ASSERT_EQ(c->value(i), l.read_value(i)) << i;
      }
    }
  }
}

TEST(Recompute, NoMarkedEntryWritesVersion2) {
  TempDir dir;
  const RuleSet rules{};
  Layer l = make_layer(rules, 3, 5);
  l.recompute.assign((l.values.size() + 63) / 64, 0);
  write_layer(dir / "x.sdb", rules, 3, l.source());
  const auto r = LayerReader::open(dir / "x.sdb");
  EXPECT_EQ(r->info().format_version, 2);
  EXPECT_FALSE(r->info().recompute);
  Layer plain = l;
  plain.recompute.clear();
  expect_reads_back(*r, plain);
}

TEST(Recompute, ExecutorGivesTheSameBytes) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 3, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  Layer l = make_layer(rules, 9, 12);  // C(14, 5) = 2002 entries
  test::mark_recompute(l, 3);
  write_layer(dir / "a.sdb", rules, 9, l.source(), test::write_options(50, 3));
  WriteOptions o = test::write_options(50, 3);
  o.executor = test::thread_executor(4);
  write_layer(dir / "b.sdb", rules, 9, l.source(), o);
  EXPECT_EQ(read_bytes(dir / "a.sdb"), read_bytes(dir / "b.sdb"));
  expect_reads_back(*LayerReader::open(dir / "b.sdb"), l);
}

// 127 stones: 127 is a value, so there is no "recompute, stored depth" symbol; marked entries
// of value < 0 keep their value.
TEST(Recompute, Layer127HasOnlyTheDerivedDepthSymbol) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 1, false, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  Layer l = make_layer(rules, 127, 9);  // 128 entries
  l.values[3] = 127;
  l.depths[3] = 5;
  l.values[4] = -127;
  l.depths[4] = 6;
  test::mark_recompute(l, 4, 60);
  l.recompute[0] |= std::uint64_t{1} << 4;
  write_layer(dir / "x.sdb", rules, 127, l.source(), test::write_options(16, 3));
  const auto r = LayerReader::open(dir / "x.sdb");
  EXPECT_TRUE(r->info().recompute);
  EXPECT_EQ(r->value(4), -127);
  EXPECT_EQ(r->depth(4), 6);
  expect_reads_back(*r, l);
}

// A 127-stone layer holding all 255 values has no room for the recompute byte (value_count is
// a u8): it is written as version 2.
TEST(Recompute, FullAlphabetFallsBackToVersion2) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 2, false, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  Layer l = make_layer(rules, 127, 10);  // C(130, 3) = 357760 entries
  for (std::uint64_t i = 0; i < l.values.size(); ++i) {
    l.values[i] = static_cast<std::int8_t>(static_cast<int>(i % 255) - 127);
    l.depths[i] = l.values[i] == 0 ? 0 : 1;
  }
  test::mark_recompute(l, 11, 10);
  write_layer(dir / "x.sdb", rules, 127, l.source());
  const auto r = LayerReader::open(dir / "x.sdb");
  EXPECT_EQ(r->info().format_version, 2);
  EXPECT_EQ(r->info().value_table.size(), 255u);
  Layer plain = l;
  plain.recompute.clear();
  expect_reads_back(*r, plain, 997);
}

TEST(Recompute, WriterRejectsBadMasksAndDepths) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 2, true, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  const auto path = dir / "x.sdb";
  Layer l = make_layer(rules, 8, 1);  // C(11, 3) = 165 entries: 3 words
  test::mark_recompute(l, 2);
  write_layer(path, rules, 8, l.source());
  const auto before = read_bytes(path);
  const auto rejected = [&](const Layer& bad, const WriteOptions& o = {}) {
    EXPECT_TABLE_ERROR(write_layer(path, rules, 8, bad.source(), o), Code::kInvalidArgument);
    EXPECT_EQ(read_bytes(path), before);
  };
  Layer bad = l;
  bad.recompute.pop_back();  // too short
  rejected(bad);
  bad = l;
  bad.recompute.push_back(0);  // too long
  rejected(bad);
  bad = l;
  bad.recompute.back() |= std::uint64_t{1} << 40;  // entry 168 of 165
  rejected(bad);
  WriteOptions all;
  all.depth_codec = DepthCodec::kAll;
  rejected(l, all);  // recompute entries need depth codec 1
  // A marked entry of value > 0 with depth 2, of value 0 with depth 1: not the derived depths.
  for (const auto& [value, depth] : {std::pair{3, 2}, std::pair{0, 1}}) {
    bad = l;
    bad.values[0] = static_cast<std::int8_t>(value);
    bad.depths[0] = static_cast<std::uint16_t>(depth);
    ASSERT_TRUE(bad.marked(0));
    rejected(bad);
  }
  // The depth kRecomputeDepth, on a marked entry of value < 0 or on any unmarked entry.
  bad = l;
  bad.values[0] = -2;
  bad.depths[0] = kRecomputeDepth;
  rejected(bad);
  for (std::uint64_t i = 1; i < l.values.size(); ++i) {
    if (!l.marked(i) && l.values[i] != 0) {
      bad = l;
      bad.depths[i] = kRecomputeDepth;
      rejected(bad);
      break;
    }
  }
  // Without recompute entries the depth 65535 is an ordinary depth.
  Layer plain = make_layer(rules, 8, 1);
  for (std::uint64_t i = 0; i < plain.values.size(); ++i)
    if (plain.values[i] != 0)
      plain.depths[i] = 0xFFFF;
  write_layer(path, rules, 8, plain.source());
  expect_reads_back(*LayerReader::open(path), plain);
}
class TamperV3 : public ::testing::Test {
 protected:
  void SetUp() override {
    layer_ = make_layer(rules_, 5, 4);  // C(10, 5) = 252 entries
    test::mark_recompute(layer_, 8);
    write_layer(dir_ / "good.sdb", rules_, 5, layer_.source(), test::write_options(40, 3));
    good_ = read_bytes(dir_ / "good.sdb");
    Layer plain = make_layer(rules_, 5, 4);
    write_layer(dir_ / "v2.sdb", rules_, 5, plain.source(), test::write_options(40, 3));
    v2_ = read_bytes(dir_ / "v2.sdb");
  }

  std::optional<Code> open_error(std::vector<std::byte> bytes, std::string* msg = nullptr) {
    reseal(bytes);
    write_bytes(dir_ / "bad.sdb", bytes);
    const auto from_file = error_of([&] { LayerReader::open(dir_ / "bad.sdb"); }, msg);
    EXPECT_EQ(from_file, error_of([&] { LayerReader::open_memory(bytes); }));
    return from_file;
  }

  const RuleSet rules_{Family::kKalah, 3, true, GrandSlam::kCapture, true, KalahEnd::kEmptySide};
  TempDir dir_;
  Layer layer_;
  std::vector<std::byte> good_;
  std::vector<std::byte> v2_;
};

TEST_F(TamperV3, GoodFileOpens) {
  EXPECT_EQ(test::get_le(good_, 8, 2), 3u);
  EXPECT_EQ(test::get_le(good_, 12, 4), kFlagRecompute);
  EXPECT_EQ(open_error(good_), std::nullopt);
  expect_reads_back(*LayerReader::open_memory(good_), layer_);
}

TEST_F(TamperV3, Check7RequiredFlags) {
  // Bit 0 is known from version 3 on; bits 1..15 are unknown in every version.
  auto b = v2_;
  test::put_le(b, 12, kFlagRecompute, 4);
  EXPECT_EQ(open_error(b), Code::kUnsupported);
  for (int bit = 1; bit < 16; ++bit) {
    b = good_;
    test::put_le(b, 12, kFlagRecompute | (1u << bit), 4);
    EXPECT_EQ(open_error(b), Code::kUnsupported) << bit;
  }
  for (int bit = 16; bit < 32; ++bit) {
    b = good_;
    test::put_le(b, 12, kFlagRecompute | (std::uint64_t{1} << bit), 4);
    EXPECT_EQ(open_error(b), std::nullopt) << bit;
  }
}

// Version 4: the same marks under the all-moves rule (flag bit 1 with bit 0).
TEST_F(TamperV3, Check7AllMovesFlag) {
  Layer v4 = layer_;
  v4.all_moves = true;
  write_layer(dir_ / "v4.sdb", rules_, 5, v4.source(), test::write_options(40, 3));
  const auto good = read_bytes(dir_ / "v4.sdb");
  EXPECT_EQ(test::get_le(good, 8, 2), 4u);
  EXPECT_EQ(test::get_le(good, 12, 4), kFlagRecompute | kFlagAllMoves);
  EXPECT_EQ(open_error(good), std::nullopt);
  const auto reader = LayerReader::open_memory(good);
  EXPECT_TRUE(reader->info().all_moves);
  expect_reads_back(*reader, v4);
  // Every marked entry keeps its depth, also where version 3 derives it.
  std::uint64_t kept = 0;
  for (std::uint64_t i = 0; i < v4.values.size(); ++i)
    kept += v4.marked(i) && v4.values[i] >= 0 && reader->depth(i) == v4.depths[i];
  EXPECT_GT(kept, 0u);
  auto b = good;
  test::put_le(b, 12, kFlagAllMoves, 4);  // without RECOMPUTE
  std::string msg;
  EXPECT_EQ(open_error(b, &msg), Code::kBadHeader);
  EXPECT_NE(msg.find("ALL_MOVES without flag RECOMPUTE"), std::string::npos) << msg;
  // Nor RECOMPUTE alone, nor no flag: a version 4 file always follows the all-moves rule.
  for (std::uint32_t flags : {kFlagRecompute, 0u}) {
    b = good;
    test::put_le(b, 12, flags, 4);
    EXPECT_EQ(open_error(b, &msg), Code::kBadHeader) << flags;
    EXPECT_NE(msg.find("version 4 file without flag ALL_MOVES"), std::string::npos) << msg;
  }
  for (int bit = 2; bit < 16; ++bit) {
    b = good;
    test::put_le(b, 12, kFlagRecompute | kFlagAllMoves | (1u << bit), 4);
    EXPECT_EQ(open_error(b), Code::kUnsupported) << bit;
  }
  // Bit 1 in a version 3 file is unknown (the loop of Check7RequiredFlags). Version 5 is for
  // co-operative files only; version 6 codes its blocks with value codec 2, not zstd frames
  // (check 8), and version 7 is unknown.
  b = good;
  test::put_le(b, 8, 5, 2);
  EXPECT_EQ(open_error(b, &msg), Code::kBadHeader);
  EXPECT_NE(msg.find("version 5 file without flag COOPERATIVE"), std::string::npos) << msg;
  b = good;
  test::put_le(b, 8, 6, 2);
  EXPECT_EQ(open_error(b), Code::kUnsupported);
  b = good;
  test::put_le(b, 8, 7, 2);
  EXPECT_EQ(open_error(b), Code::kVersion);
}

TEST_F(TamperV3, Check8RecomputeNeedsDepthCodec1) {
  auto b = good_;
  test::put_le(b, 41, 0, 1);
  EXPECT_EQ(open_error(b), Code::kUnsupported);
}

TEST_F(TamperV3, Check12RecomputeBytes) {
  // A recompute byte in the value table of a file without the flag (version 3 or 2): check 10
  // when the table is then too long for 2n+1 values, else check 12.
  const bool too_long = std::to_integer<int>(good_[23]) > 2 * 5 + 1;
  for (const std::uint64_t version : {3u, 2u}) {
    auto b = good_;
    test::put_le(b, 12, 0, 4);
    test::put_le(b, 8, version, 2);
    EXPECT_EQ(open_error(b), too_long ? Code::kBadHeader : Code::kCorrupt) << version;
  }
  // With a short alphabet ({-1, 0, 1} and the two recompute bytes) check 12 sees it.
  Layer small = make_layer(rules_, 5, 4);
  for (std::int8_t& v : small.values)
    v = static_cast<std::int8_t>(std::clamp<int>(v, -1, 1));
  for (std::uint64_t i = 0; i < small.values.size(); ++i)
    small.depths[i] = small.values[i] == 0 ? 0 : 1;
  test::mark_recompute(small, 8);
  write_layer(dir_ / "small.sdb", rules_, 5, small.source(), test::write_options(40, 3));
  const auto small_bytes = read_bytes(dir_ / "small.sdb");
  ASSERT_EQ(std::to_integer<int>(small_bytes[23]), 5);
  for (const std::uint64_t version : {3u, 2u}) {
    auto b = small_bytes;
    test::put_le(b, 12, 0, 4);
    test::put_le(b, 8, version, 2);
    EXPECT_EQ(open_error(b), Code::kCorrupt) << version;
  }
  // The flag without a recompute byte in the value table.
  auto b = v2_;
  test::put_le(b, 8, 3, 2);
  test::put_le(b, 12, kFlagRecompute, 4);
  EXPECT_EQ(open_error(b), Code::kCorrupt);
  // A version 2 file relabelled version 3 without the flag is an ordinary file.
  b = v2_;
  test::put_le(b, 8, 3, 2);
  EXPECT_EQ(open_error(b), std::nullopt);
}

TEST_F(TamperV3, Check10ValueCount) {
  // n = 5: at most 2n + 1 values and the two recompute bytes.
  auto b = good_;
  test::put_le(b, 23, 14, 1);
  EXPECT_EQ(open_error(b), Code::kBadHeader);
}

// Check 21: a stored depth of kRecomputeDepth in a file with recompute entries.
TEST_F(TamperV3, Check21StoredRecomputeDepth) {
  // Block 0's first stored depth becomes 0xFFFF.
  std::size_t m = 0;
  std::uint64_t first_stored = ~std::uint64_t{0};
  for (std::uint64_t i = 0; i < 40; ++i) {
    const std::int8_t byte = layer_.read_value(i);
    const bool stores = byte != 0 && !(byte == kRecomputeValue && layer_.values[i] >= 0);
    if (stores && first_stored == ~std::uint64_t{0})
      first_stored = i;
    m += stores;
  }
  ASSERT_GT(m, 0u);
  std::vector<std::uint8_t> planes(2 * m);
  for (std::uint64_t i = 0, j = 0; i < 40; ++i) {
    const std::int8_t byte = layer_.read_value(i);
    if (byte != 0 && !(byte == kRecomputeValue && layer_.values[i] >= 0)) {
      planes[j] = static_cast<std::uint8_t>(layer_.depths[i] & 0xFF);
      planes[m + j] = static_cast<std::uint8_t>(layer_.depths[i] >> 8);
      ++j;
    }
  }
  planes[0] = 0xFF;
  planes[m] = 0xFF;
  std::vector<std::byte> frame(ZSTD_compressBound(planes.size()));
  frame.resize(ZSTD_compress(frame.data(), frame.size(), planes.data(), planes.size(), 3));
  const auto b = with_depth_frame(good_, 7, 0, frame);
  const auto r = LayerReader::open_memory(b);
  EXPECT_EQ(r->value(first_stored), layer_.read_value(first_stored));
  EXPECT_EQ(r->depth(first_stored), std::nullopt);
  EXPECT_EQ(r->depth(45), layer_.read_depth(45));  // other blocks still read
  std::vector<std::uint16_t> d(layer_.values.size());
  EXPECT_TABLE_ERROR(r->read_all({}, d), Code::kCorrupt);
  // The same frame with the flag's stored depth 0xFFFE is fine.
  planes[m] = 0xFE;
  frame.assign(ZSTD_compressBound(planes.size()), std::byte{0});
  frame.resize(ZSTD_compress(frame.data(), frame.size(), planes.data(), planes.size(), 3));
  const auto ok = LayerReader::open_memory(with_depth_frame(good_, 7, 0, frame));
  EXPECT_EQ(ok->depth(first_stored), 0xFEFF);
}
// Without checksums the reader stays in bounds and gives values in [-n, n] or kRecomputeValue.
TEST_F(TamperV3, UncheckedFlipsNeverCrash) {
  const std::size_t data_start = 64 + (std::to_integer<std::size_t>(good_[23]) + 7) / 8 * 8;
  const std::size_t seek = good_.size() - std::size_t{16 + 24 * 7};
  std::mt19937_64 rng(16);
  for (int trial = 0; trial < 1000; ++trial) {
    auto b = good_;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k)
      b[data_start + rng() % (seek - data_start)] ^= static_cast<std::byte>(rng());
    const auto r = LayerReader::open_memory(b, test::options(8, false));
    for (std::uint64_t i = 0; i < layer_.values.size(); ++i) {
      const auto v = r->value(i);
      if (v && *v != kRecomputeValue) {
        ASSERT_LE(std::abs(*v), 5);
      }
      const auto d = r->depth(i);
      if (d && v && *v == 0) {
        ASSERT_EQ(*d, 0);
      }
    }
  }
}

}  // namespace
}  // namespace sowdb
