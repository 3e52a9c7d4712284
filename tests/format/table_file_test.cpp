// Table files: writer -> reader round trips, every reader check of FORMAT.md, corruption,
// truncation and the temporary-then-rename write.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "table_test_util.h"

namespace sowdb {
namespace {

using Code = TableError::Code;
using test::error_of;
using test::Layer;
using test::make_layer;
using test::read_bytes;
using test::reseal;
using test::TempDir;
using test::write_bytes;

std::string name_of(Code c) {
  return to_string(c);
}

#define EXPECT_TABLE_ERROR(expr, code)                              \
  do {                                                              \
    std::string msg_;                                               \
    const auto got_ = error_of([&] { expr; }, &msg_);               \
    ASSERT_TRUE(got_.has_value()) << #expr " threw nothing";        \
    EXPECT_EQ(name_of(*got_), name_of(code)) << #expr ": " << msg_; \
  } while (0)

// Every rule set the header can express, each in its normalised form.
std::vector<RuleSet> all_rule_sets(std::uint8_t pits_per_side) {
  std::vector<RuleSet> out;
  for (const bool skip : {false, true}) {
    for (const auto slam : {GrandSlam::kCapture, GrandSlam::kNoCapture, GrandSlam::kForbidden}) {
      out.push_back({Family::kOware, pits_per_side, skip, slam, false, KalahEnd::kNoMove});
    }
    for (const bool capture : {false, true}) {
      for (const auto end : {KalahEnd::kNoMove, KalahEnd::kEmptySide}) {
        out.push_back({Family::kKalah, pits_per_side, skip, GrandSlam::kCapture, capture, end});
      }
    }
    out.push_back(
        {Family::kWariUs, pits_per_side, skip, GrandSlam::kCapture, false, KalahEnd::kNoMove});
  }
  return out;
}

// Checks info, every `stride`-th probe and read_all against `l`.
void expect_reads_back(const LayerReader& r, const Layer& l, std::uint64_t stride = 1) {
  const LayerInfo& info = r.info();
  ASSERT_EQ(info.rules, l.rules.normalised());
  ASSERT_EQ(info.stones, l.stones);
  ASSERT_EQ(info.entries, l.values.size());
  for (std::uint64_t i = 0; i < info.entries; i += stride) {
    ASSERT_EQ(r.value(i), l.read_value(i)) << i;
    ASSERT_EQ(r.depth(i), l.read_depth(i)) << i;
  }
  EXPECT_EQ(r.value(info.entries), std::nullopt);
  EXPECT_EQ(r.depth(info.entries), std::nullopt);
  EXPECT_EQ(r.value(~std::uint64_t{0}), std::nullopt);
  std::vector<std::int8_t> v(info.entries);
  std::vector<std::uint16_t> d(info.entries);
  r.read_all(v, d);
  EXPECT_EQ(v, l.read_values());
  EXPECT_EQ(d, l.read_depths());
  EXPECT_EQ(info.recompute, !l.recompute.empty());
}

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

// The block cache (OpenOptions::cache_blocks) is an O(1) LRU: with room for every block, a
// second pass over a layer of thousands of blocks is all hits; values stay right.
TEST(BlockCache, ThousandsOfBlocksAllStayCached) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 4, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 9, 5);  // 11440 entries
  write_layer(dir / "c.sdb", rules, 9, l.values, l.depths, test::write_options(4, 1));
  const auto r = LayerReader::open(dir / "c.sdb", test::options(std::size_t{1} << 20));
  const std::uint32_t blocks = r->info().block_count;
  ASSERT_EQ(blocks, 2860u);
  for (int pass = 0; pass < 2; ++pass) {
    for (std::uint64_t i = 0; i < l.values.size(); ++i) {
      ASSERT_EQ(r->value(i), l.values[i]) << i;
      ASSERT_EQ(r->depth(i), l.depths[i]) << i;
    }
    const CacheStats s = r->cache_stats();
    // Each block's value frame and depth frame are decoded once, in the first pass.
    EXPECT_EQ(s.misses, 2u * blocks) << pass;
    EXPECT_EQ(s.cached, 2u * blocks) << pass;
  }
  // Per entry a value lookup and a depth lookup (whose value frame is a hit too, except
  // the first time), minus the misses.
  const CacheStats s = r->cache_stats();
  EXPECT_EQ(s.hits + s.misses, 2 * 2 * l.values.size() + blocks);
  // Prefetching every entry, and past the end, is no lookup: nothing is counted or decoded.
  for (std::uint64_t i = 0; i <= l.values.size(); ++i)
    r->prefetch(i);
  const CacheStats after = r->cache_stats();
  EXPECT_EQ(after.hits, s.hits);
  EXPECT_EQ(after.misses, s.misses);
}

// OpenOptions::depth_cache_blocks: the depth frames get a small cache of their own, while every
// value frame stays; a pass in index order decodes each depth frame once, however small that
// cache (0 included), and the answers stay right.
TEST(BlockCache, DepthsInACacheOfTheirOwn) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 4, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 9, 5);  // 11440 entries
  write_layer(dir / "c.sdb", rules, 9, l.values, l.depths, test::write_options(4, 1));
  for (const std::size_t depth_cache : {std::size_t{0}, std::size_t{1}, std::size_t{40}}) {
    OpenOptions options = test::options(std::size_t{1} << 20);
    options.depth_cache_blocks = depth_cache;
    const auto r = LayerReader::open(dir / "c.sdb", options);
    const std::uint64_t blocks = r->info().block_count;
    for (std::uint64_t pass = 1; pass <= 2; ++pass) {
      for (std::uint64_t i = 0; i < l.values.size(); ++i) {
        ASSERT_EQ(r->value(i), l.values[i]) << i;
        ASSERT_EQ(r->depth(i), l.depths[i]) << i;
      }
      const CacheStats s = r->cache_stats();
      // The value frames are decoded in the first pass only, the depth frames in each.
      EXPECT_EQ(s.misses, (pass + 1) * blocks) << depth_cache;
      EXPECT_EQ(s.cached, blocks + depth_cache) << depth_cache;
    }
  }
  // Two readers of different files, read alternately by one thread: each depth comes from its
  // own file (a thread's last depth frame belongs to one reader).
  const Layer other = make_layer(rules, 9, 6);
  write_layer(dir / "d.sdb", rules, 9, other.values, other.depths, test::write_options(4, 1));
  OpenOptions options = test::options(0);
  options.depth_cache_blocks = 0;
  const auto a = LayerReader::open(dir / "c.sdb", options);
  const auto b = LayerReader::open(dir / "d.sdb", options);
  int differ = 0;
  for (std::uint64_t i = 0; i < l.values.size(); ++i) {
    ASSERT_EQ(a->depth(i), l.depths[i]) << i;
    ASSERT_EQ(b->depth(i), other.depths[i]) << i;
    differ += l.depths[i] != other.depths[i];
  }
  EXPECT_GT(differ, 0);
}

// A reader destroyed and another opened on another file, often at the same address: the
// thread's last depth frame of the first never answers for the second (frames are keyed by a
// reader id that is never reused, not by address).
TEST(BlockCache, LastDepthFrameOfADestroyedReader) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 4, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 9, 5);
  const Layer other = make_layer(rules, 9, 6);
  write_layer(dir / "c.sdb", rules, 9, l.values, l.depths, test::write_options(4, 1));
  write_layer(dir / "d.sdb", rules, 9, other.values, other.depths, test::write_options(4, 1));
  OpenOptions options = test::options(std::size_t{1} << 20);
  options.depth_cache_blocks = 0;
  for (int round = 0; round < 20; ++round) {
    const bool odd = round % 2 != 0;
    const Layer& want = odd ? other : l;
    const auto r = LayerReader::open(dir / (odd ? "d.sdb" : "c.sdb"), options);
    for (std::uint64_t i = 0; i < 4; ++i) {  // block 0, where the next reader starts too
      ASSERT_EQ(r->value(i), want.values[i]) << round << " " << i;
      ASSERT_EQ(r->depth(i), want.depths[i]) << round << " " << i;
    }
  }
}

// A depth frame that fails to decode leaves the thread's last frame as it was: the next read
// of that block fails again instead of answering from the previous block's frame.
TEST(BlockCache, FailedDepthDecodeLeavesNoStaleFrame) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 4, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 9, 5);
  const auto path = dir / "c.sdb";
  for (const std::size_t value_cache : {std::size_t{0}, std::size_t{1} << 20}) {
    write_layer(path, rules, 9, l.values, l.depths, test::write_options(64, 1));
    OpenOptions options = test::options(value_cache);
    options.depth_cache_blocks = 0;
    const auto r = LayerReader::open(path, options);
    // Flip a byte of block 1's depth frame, which follows its value frame.
    const auto bytes = read_bytes(path);
    const std::size_t entry = bytes.size() - 16 - 24 * r->info().block_count + 24;
    const auto at = static_cast<std::size_t>(test::get_le(bytes, entry, 8) +
                                             test::get_le(bytes, entry + 8, 4) + 5);
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(at));
      const char c = static_cast<char>(bytes[at] ^ std::byte{0x5a});
      f.write(&c, 1);
    }
    for (int k = 0; k < 3; ++k) {
      ASSERT_EQ(r->depth(3), l.depths[3]);
      ASSERT_EQ(r->depth(64 + 3), std::nullopt) << k;
      ASSERT_EQ(r->depth(64 + 3), std::nullopt) << k;
      ASSERT_EQ(r->value(64 + 3), l.values[64 + 3]);
    }
  }
}

// With a depth cache of its own, every lookup still counts once, as a hit or a miss.
TEST(BlockCache, SplitCacheCountsEveryLookup) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 4, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 9, 5);
  write_layer(dir / "c.sdb", rules, 9, l.values, l.depths, test::write_options(4, 1));
  for (const std::size_t depth_cache : {std::size_t{0}, std::size_t{1}, std::size_t{40}}) {
    OpenOptions options = test::options(std::size_t{1} << 20);
    options.depth_cache_blocks = depth_cache;
    const auto r = LayerReader::open(dir / "c.sdb", options);
    for (std::uint64_t i = 0; i < l.values.size(); ++i) {
      ASSERT_EQ(r->value(i), l.values[i]);
      ASSERT_EQ(r->depth(i), l.depths[i]);
    }
    const CacheStats s = r->cache_stats();
    // A value and a depth lookup per entry, and a value lookup per depth frame decoded.
    EXPECT_EQ(s.hits + s.misses, 2 * l.values.size() + r->info().block_count) << depth_cache;
  }
}

// Depth frames all kept, value frames few or none: threads reading anywhere get right answers.
TEST(BlockCache, PinnedDepthsFewValues) {
  TempDir dir;
  const RuleSet rules{Family::kKalah, 4, false, GrandSlam::kCapture, true, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 9, 11);
  write_layer(dir / "t.sdb", rules, 9, l.values, l.depths, test::write_options(16, 1));
  for (const std::size_t values : {std::size_t{0}, std::size_t{2}}) {
    OpenOptions options = test::options(values);
    options.depth_cache_blocks = std::size_t{1} << 20;
    const auto r = LayerReader::open(dir / "t.sdb", options);
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937_64 rng(static_cast<std::uint64_t>(t) + 7);
        for (int k = 0; k < 5000; ++k) {
          const std::uint64_t i = rng() % l.values.size();
          if (r->depth(i) != l.depths[i] || r->value(i) != l.values[i])
            ++wrong;
        }
      });
    }
    for (auto& th : threads)
      th.join();
    EXPECT_EQ(wrong.load(), 0) << values;
    EXPECT_LE(r->cache_stats().cached, values + r->info().block_count);
  }
}

// The least recently used frame goes first; a hit makes a frame the most recent.
TEST(BlockCache, EvictsTheLeastRecentlyUsed) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 2, false, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 6, 9);  // C(9, 3) = 84 entries
  write_layer(dir / "e.sdb", rules, 6, l.values, l.depths, test::write_options(10, 1));
  const auto r = LayerReader::open(dir / "e.sdb", test::options(2));
  std::uint64_t misses = 0;
  // Reads the value of block b's first entry; expects a hit or a miss.
  const auto touch = [&](std::uint64_t b, bool hit) {
    ASSERT_EQ(r->value(b * 10), l.values[b * 10]) << b;
    misses += hit ? 0 : 1;
    ASSERT_EQ(r->cache_stats().misses, misses) << "block " << b << (hit ? " hit" : " miss");
  };
  touch(0, false);
  touch(1, false);
  touch(0, true);   // 0 becomes the most recent: order 0, 1
  touch(2, false);  // evicts 1: order 2, 0
  touch(0, true);   // order 0, 2
  touch(1, false);  // evicts 2: order 1, 0
  touch(0, true);
  touch(2, false);  // evicts 1
  touch(1, false);  // evicts 0
  touch(2, true);
  EXPECT_EQ(r->cache_stats().cached, 2u);
  // A depth lookup caches the depth frame, and (codec 1) touches the value frame first.
  ASSERT_EQ(r->depth(10), l.depths[10]);  // block 1's values hit, its depths miss: evicts 2
  EXPECT_EQ(r->cache_stats().misses, ++misses);
  touch(1, true);
  touch(2, false);
  // No cache: every lookup decodes.
  const auto none = LayerReader::open(dir / "e.sdb", test::options(0));
  for (int k = 0; k < 3; ++k)
    ASSERT_EQ(none->value(5), l.values[5]);
  EXPECT_EQ(none->cache_stats().misses, 3u);
  EXPECT_EQ(none->cache_stats().hits, 0u);
  EXPECT_EQ(none->cache_stats().cached, 0u);
}

// Many threads on a cache smaller than their working set: evictions race with hits and with
// decodes of the same block, and every answer stays right; also with a depth cache of its own
// (OpenOptions::depth_cache_blocks), where each thread keeps its last depth frame.
TEST(BlockCache, ThreadsThrashASmallCache) {
  TempDir dir;
  const RuleSet rules{Family::kKalah, 4, false, GrandSlam::kCapture, true, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 9, 11);
  write_layer(dir / "t.sdb", rules, 9, l.values, l.depths, test::write_options(16, 1));
  const std::pair<std::size_t, std::optional<std::size_t>> caches[] = {
      {1, std::nullopt}, {7, std::nullopt}, {300, std::nullopt}, {5, 0}, {5, 3}};
  for (const auto& [cache, depth_cache] : caches) {
    OpenOptions options = test::options(cache);
    options.depth_cache_blocks = depth_cache;
    const auto r = LayerReader::open(dir / "t.sdb", options);
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 6; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937_64 rng(static_cast<std::uint64_t>(t) + 100);
        for (int k = 0; k < 20000; ++k) {
          // Mostly a few hot blocks, sometimes anywhere.
          const std::uint64_t i =
              k % 4 == 0 ? rng() % l.values.size() : (rng() % 8) * 16 + rng() % 16;
          if (r->value(i) != l.values[i] || r->depth(i) != l.depths[i])
            ++wrong;
        }
      });
    }
    for (auto& th : threads)
      th.join();
    EXPECT_EQ(wrong.load(), 0) << cache;
    EXPECT_LE(r->cache_stats().cached, cache + depth_cache.value_or(0));
  }
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

// --- Writer arguments and the temporary-then-rename write. ----------------------------------

bool dir_has_only(const std::filesystem::path& dir, const std::vector<std::string>& names) {
  std::vector<std::string> got;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    got.push_back(e.path().filename().string());
  }
  std::sort(got.begin(), got.end());
  auto want = names;
  std::sort(want.begin(), want.end());
  return got == want;
}

// The writer's block-by-block depth source and its parallel executor: the bytes are the same as
// from the span overload, whatever the executor and its thread count.
TEST(TableWriter, LayerSourceAndExecutorGiveTheSameBytes) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 6, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 7, 9);  // C(18, 11) = 31824 entries
  WriteOptions o;
  o.block_entries = 100;  // 319 blocks: more than one round of compression tasks
  write_layer(dir / "spans.sdb", rules, 7, l.values, l.depths, o);
  const auto want = read_bytes(dir / "spans.sdb");
  std::atomic<std::uint64_t> filled{0};
  LayerSource source;
  source.values = l.values;
  source.fill_depths = [&](std::uint64_t first, std::span<std::uint16_t> out) {
    ASSERT_LE(first + out.size(), l.depths.size());
    EXPECT_EQ(first % 100, 0u);
    std::copy_n(l.depths.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
    filled += out.size();
  };
  write_layer(dir / "source.sdb", rules, 7, source, o);
  EXPECT_EQ(filled.load(), l.depths.size()) << "each depth requested exactly once";
  EXPECT_EQ(read_bytes(dir / "source.sdb"), want);
  for (const unsigned threads : {1u, 2u, 4u, 7u}) {
    o.executor = test::thread_executor(threads);
    write_layer(dir / "threads.sdb", rules, 7, source, o);
    EXPECT_EQ(read_bytes(dir / "threads.sdb"), want) << threads << " threads";
    write_layer(dir / "threads.sdb", rules, 7, l.values, l.depths, o);
    EXPECT_EQ(read_bytes(dir / "threads.sdb"), want) << threads << " threads, spans";
  }
  expect_reads_back(*LayerReader::open(dir / "threads.sdb"), l, 7);
}

// A failing depth source or executor aborts the write, leaves the old file and no temporary.
TEST(TableWriter, FailingSourceKeepsTheOldFile) {
  TempDir dir;
  const RuleSet rules{Family::kKalah, 3, false, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 6, 3);
  const auto path = dir / "x.sdb";
  write_layer(path, rules, 6, l.values, l.depths, test::write_options(64, 3));
  const auto before = read_bytes(path);
  LayerSource source;
  source.values = l.values;
  EXPECT_TABLE_ERROR(write_layer(path, rules, 6, source), Code::kInvalidArgument);
  source.fill_depths = [&](std::uint64_t first, std::span<std::uint16_t> out) {
    if (first >= 128)
      throw std::runtime_error("depth source failed");
    std::fill(out.begin(), out.end(), std::uint16_t{0});
  };
  for (const unsigned threads : {0u, 3u}) {
    WriteOptions o = test::write_options(64, 3);
    if (threads > 0)
      o.executor = test::thread_executor(threads);
    try {
      write_layer(path, rules, 6, source, o);
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "depth source failed");
    }
    EXPECT_EQ(read_bytes(path), before);
    EXPECT_TRUE(dir_has_only(dir.path(), {"x.sdb"}));
  }
  WriteOptions o = test::write_options(64, 3);
  o.executor = [](std::size_t, const std::function<void(std::size_t)>&) {
    throw std::runtime_error("executor failed");
  };
  EXPECT_THROW(write_layer(path, rules, 6, l.values, l.depths, o), std::runtime_error);
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_TRUE(dir_has_only(dir.path(), {"x.sdb"}));
}

TEST(TableWriter, RejectsBadArguments) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 2, true, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 3, 1);  // 20 entries
  const auto path = dir / "x.sdb";
  auto v = l.values;
  auto d = l.depths;
  EXPECT_TABLE_ERROR(write_layer(path, rules, 3, std::span(v).first(19), d),
                     Code::kInvalidArgument);
  EXPECT_TABLE_ERROR(write_layer(path, rules, 3, v, std::span(d).first(19)),
                     Code::kInvalidArgument);
  EXPECT_TABLE_ERROR(write_layer(path, rules, 4, v, d), Code::kInvalidArgument);
  EXPECT_TABLE_ERROR(write_layer(path, rules, -1, v, d), Code::kInvalidArgument);
  EXPECT_TABLE_ERROR(write_layer(path, rules, 128, v, d), Code::kInvalidArgument);
  v[7] = 4;
  EXPECT_TABLE_ERROR(write_layer(path, rules, 3, v, d), Code::kInvalidArgument);
  v[7] = -4;
  EXPECT_TABLE_ERROR(write_layer(path, rules, 3, v, d), Code::kInvalidArgument);
  v[7] = 0;
  EXPECT_TABLE_ERROR(write_layer(path, rules, 3, v, d, test::write_options(0, 3)),
                     Code::kInvalidArgument);
  EXPECT_TABLE_ERROR(
      write_layer(path, rules, 3, v, d, test::write_options(kMaxBlockEntries + 1, 3)),
      Code::kInvalidArgument);
  EXPECT_TABLE_ERROR(write_layer(path, rules, 3, v, d, test::write_options(64, 1000)),
                     Code::kInvalidArgument);
  for (int min_match : {-2, 2, 8}) {
    WriteOptions o = test::write_options(64, 3);
    o.zstd_min_match = min_match;
    EXPECT_TABLE_ERROR(write_layer(path, rules, 3, v, d, o), Code::kInvalidArgument);
  }
  RuleSet bad = rules;
  bad.pits_per_side = 9;
  EXPECT_TABLE_ERROR(write_layer(path, bad, 3, v, d), Code::kInvalidArgument);
  bad = rules;
  bad.family = static_cast<Family>(3);
  EXPECT_TABLE_ERROR(write_layer(path, bad, 3, v, d), Code::kInvalidArgument);
  EXPECT_TRUE(dir_has_only(dir.path(), {}));
}

TEST(TableWriter, MissingDirectoryLeavesNothing) {
  TempDir dir;
  const RuleSet rules{};
  const Layer l = make_layer(rules, 1, 1);
  EXPECT_TABLE_ERROR(write_layer(dir / "no/such/dir/x.sdb", rules, 1, l.values, l.depths),
                     Code::kIo);
  EXPECT_TRUE(dir_has_only(dir.path(), {}));
}

TEST(TableWriter, ReadOnlyDirectoryLeavesNothing) {
  const RuleSet rules{};
  const Layer l = make_layer(rules, 1, 1);
  // /proc refuses new files even to root.
  EXPECT_TABLE_ERROR(write_layer("/proc/sowdb_test.sdb", rules, 1, l.values, l.depths), Code::kIo);
  EXPECT_FALSE(std::filesystem::exists("/proc/sowdb_test.sdb"));
  if (::geteuid() == 0)
    GTEST_SKIP() << "root ignores directory permissions";
  TempDir dir;
  std::filesystem::permissions(
      dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  EXPECT_TABLE_ERROR(write_layer(dir / "x.sdb", rules, 1, l.values, l.depths), Code::kIo);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all);
  EXPECT_TRUE(dir_has_only(dir.path(), {}));
}

// A full disk, simulated with RLIMIT_FSIZE: a write past the limit fails with EFBIG. The old file
// at the path survives intact and the temporary is removed.
TEST(TableWriter, FullDiskKeepsTheOldFile) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 6, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  const Layer small = make_layer(rules, 1, 1);
  const auto path = dir / "x.sdb";
  write_layer(path, rules, 1, small.values, small.depths);
  const auto before = read_bytes(path);
  const Layer big = make_layer(rules, 6, 2);  // C(17, 11) = 12376 entries, ~20 KB compressed
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit lim = old;
  lim.rlim_cur = 4096;
  auto* old_handler = ::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &lim), 0);
  std::string msg;
  const auto code = error_of(
      [&] { write_layer(path, rules, 6, big.values, big.depths, test::write_options(64, 1)); },
      &msg);
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, old_handler);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(name_of(*code), name_of(Code::kIo)) << msg;
  EXPECT_NE(msg.find(".tmp."), std::string::npos) << msg;
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_TRUE(dir_has_only(dir.path(), {"x.sdb"}));
}

TEST(TableWriter, ReplacesAnExistingFile) {
  TempDir dir;
  const RuleSet rules{};
  const auto path = dir / "x.sdb";
  write_bytes(path, std::vector<std::byte>(100, std::byte{1}));
  const Layer l = make_layer(rules, 2, 1);
  write_layer(path, rules, 2, l.values, l.depths);
  expect_reads_back(*LayerReader::open(path), l);
  EXPECT_TRUE(dir_has_only(dir.path(), {"x.sdb"}));
}

// --- Reader checks (FORMAT.md, "Reader checks"). -------------------------------------------

class Tamper : public ::testing::Test {
 protected:
  void SetUp() override {
    layer_ = make_layer(rules_, 5, 4);  // P = 3, n = 5: C(10, 5) = 252 entries
    write_layer(
        dir_ / "good.sdb", rules_, 5, layer_.values, layer_.depths, test::write_options(40, 3));
    good_ = read_bytes(dir_ / "good.sdb");
    data_start_ = 64 + (std::to_integer<std::size_t>(good_[23]) + 7) / 8 * 8;
  }

  // The error of opening `bytes` (from a file, so read_info is checked too when `info_too`).
  std::optional<Code> open_error(const std::vector<std::byte>& bytes,
                                 std::string* msg = nullptr,
                                 const OpenOptions& options = {}) {
    write_bytes(dir_ / "bad.sdb", bytes);
    const auto from_file = error_of([&] { LayerReader::open(dir_ / "bad.sdb", options); }, msg);
    const auto from_memory = error_of([&] { LayerReader::open_memory(bytes, options); });
    EXPECT_EQ(from_file, from_memory);
    return from_file;
  }

  // Sets header byte field at `at` (`n` bytes) to `v`, reseals, and expects `code`.
  void expect_field(std::size_t at, int n, std::uint64_t v, Code code) {
    auto b = good_;
    test::put_le(b, at, v, n);
    reseal(b);
    std::string msg;
    const auto got = open_error(b, &msg);
    ASSERT_TRUE(got.has_value()) << "offset " << at << " value " << v;
    EXPECT_EQ(name_of(*got), name_of(code)) << "offset " << at << " value " << v << ": " << msg;
  }

  const RuleSet rules_{Family::kKalah, 3, true, GrandSlam::kCapture, true, KalahEnd::kEmptySide};
  TempDir dir_;
  Layer layer_;
  std::vector<std::byte> good_;
  std::size_t data_start_ = 0;  // the first block
};

TEST_F(Tamper, GoodFileOpens) {
  EXPECT_EQ(open_error(good_), std::nullopt);
  auto b = good_;
  reseal(b);
  EXPECT_EQ(b, good_);
}

TEST_F(Tamper, Check2Magic) {
  for (std::size_t i = 0; i < 8; ++i) {
    auto b = good_;
    b[i] ^= std::byte{0x20};
    EXPECT_EQ(open_error(b), Code::kNotATable) << i;
  }
}

TEST_F(Tamper, Check3Version) {
  expect_field(8, 2, 0, Code::kVersion);
  expect_field(8, 2, kTableFormatVersion + 1, Code::kVersion);
  expect_field(8, 2, 0xFFFF, Code::kVersion);
  // The message says which versions this reader knows, in words a user can read.
  auto b = good_;
  test::put_le(b, 8, kTableFormatVersion + 1, 2);
  reseal(b);
  std::string msg;
  ASSERT_TRUE(open_error(b, &msg).has_value());
  EXPECT_NE(
      msg.find("check 3: format version " + std::to_string(kTableFormatVersion + 1) +
               " (this reader knows versions 1.." + std::to_string(kTableFormatVersion) + ")"),
      std::string::npos)
      << msg;
}

TEST_F(Tamper, Check5HeaderChecksum) {
  for (std::size_t i = 10; i < 64; ++i) {
    auto b = good_;
    b[i] ^= std::byte{0x01};
    EXPECT_EQ(open_error(b), Code::kChecksum) << i;
    write_bytes(dir_ / "bad.sdb", b);
    EXPECT_EQ(error_of([&] { read_info(dir_ / "bad.sdb"); }), Code::kChecksum) << i;
  }
}

TEST_F(Tamper, Check6HeaderSizeAndReserved) {
  expect_field(10, 2, 63, Code::kBadHeader);
  expect_field(10, 2, 72, Code::kBadHeader);
  for (std::size_t at = 42; at < 56; ++at)
    expect_field(at, 1, 1, Code::kBadHeader);
}

TEST_F(Tamper, Check7Flags) {
  for (int bit = 0; bit < 16; ++bit)
    expect_field(12, 4, 1u << bit, Code::kUnsupported);
  // Optional flags are ignored.
  for (int bit = 16; bit < 32; ++bit) {
    auto b = good_;
    test::put_le(b, 12, std::uint64_t{1} << bit, 4);
    reseal(b);
    EXPECT_EQ(open_error(b), std::nullopt) << bit;
    expect_reads_back(*LayerReader::open_memory(b), layer_);
  }
}

TEST_F(Tamper, Check8Codecs) {
  ASSERT_EQ(std::to_integer<int>(good_[41]), 1);  // the fixture's file: depth codec 1
  expect_field(40, 1, 1, Code::kUnsupported);
  expect_field(41, 1, 2, Code::kUnsupported);
  expect_field(41, 1, 255, Code::kUnsupported);
  expect_field(40, 1, 255, Code::kUnsupported);
  expect_field(8, 2, 1, Code::kUnsupported);  // depth codec 1 needs version 2
}

// A depth codec byte that disagrees with the depth frames (resealed, so only the frame check
// sees it): the values still read, the depths of every block whose stored-depth count changes
// fail check 18, never a wrong depth.
TEST_F(Tamper, DepthCodecSwappedAfterWriting) {
  for (const int codec : {0, 1}) {
    auto b = good_;
    test::put_le(b, 41, static_cast<std::uint64_t>(codec), 1);
    if (codec == 0) {
      // Now a version 2 file whose frames hold fewer depths than codec 0 wants.
      reseal(b);
      std::string msg;
      ASSERT_EQ(open_error(b, &msg), std::nullopt) << msg;
    } else {
      // A version 1 file relabelled to codec 1 and version 2.
      write_layer(dir_ / "v1.sdb", rules_, 5, layer_.values, layer_.depths, [] {
        WriteOptions o = test::write_options(40, 3);
        o.depth_codec = DepthCodec::kAll;
        return o;
      }());
      b = read_bytes(dir_ / "v1.sdb");
      test::put_le(b, 8, 2, 2);
      test::put_le(b, 41, 1, 1);
    }
    reseal(b);
    const auto r = LayerReader::open_memory(b);
    std::size_t failed = 0;
    for (std::uint64_t i = 0; i < layer_.values.size(); ++i) {
      ASSERT_EQ(r->value(i), layer_.values[i]);
      const auto d = r->depth(i);
      if (d.has_value())
        ASSERT_EQ(*d, layer_.depths[i]) << i;
      else
        ++failed;
    }
    EXPECT_GT(failed, 0u) << "codec " << codec;
    std::vector<std::uint16_t> d(layer_.values.size());
    EXPECT_TABLE_ERROR(r->read_all({}, d), Code::kCorrupt);
  }
}

TEST_F(Tamper, Check9RuleSet) {
  expect_field(16, 1, 3, Code::kBadHeader);  // family
  expect_field(17, 1, 0, Code::kBadHeader);  // pits_per_side
  expect_field(17, 1, 9, Code::kBadHeader);
  expect_field(18, 1, 2, Code::kBadHeader);  // skip_origin
  expect_field(19, 1, 3, Code::kBadHeader);  // grand_slam
  expect_field(19, 1, 2, Code::kBadHeader);  // a Kalah file with a grand slam rule set
  expect_field(20, 1, 2, Code::kBadHeader);  // capture_empty_opposite
  expect_field(21, 1, 2, Code::kBadHeader);  // end
  expect_field(16, 1, 0, Code::kBadHeader);  // Oware with Kalah options: not normalised
}

TEST_F(Tamper, Check10Sizes) {
  expect_field(22, 1, 128, Code::kBadHeader);  // stones beyond the index
  expect_field(22, 1, 6, Code::kBadHeader);    // entry_count no longer C(n+2P-1, 2P-1)
  expect_field(17, 1, 2, Code::kBadHeader);    // the same through P
  expect_field(24, 8, 253, Code::kBadHeader);  // entry_count
  expect_field(24, 8, 0, Code::kBadHeader);
  expect_field(32, 4, 0, Code::kBadHeader);  // block_entries
  expect_field(32, 4, kMaxBlockEntries + 1, Code::kBadHeader);
  expect_field(32, 4, 20, Code::kBadHeader);  // 13 blocks, but block_count says 7
  expect_field(36, 4, 8, Code::kBadHeader);   // block_count
  expect_field(36, 4, 0, Code::kBadHeader);
  expect_field(23, 1, 0, Code::kBadHeader);   // value_count
  expect_field(23, 1, 12, Code::kBadHeader);  // > 2n + 1
}

TEST_F(Tamper, Check11SizeAndFooter) {
  auto b = good_;
  b.insert(b.end(), std::byte{0});
  EXPECT_EQ(open_error(b), Code::kTruncated);
  b = good_;
  b[b.size() - 16] ^= std::byte{1};
  EXPECT_EQ(open_error(b), Code::kTruncated);
  write_bytes(dir_ / "bad.sdb", b);
  EXPECT_EQ(error_of([&] { read_info(dir_ / "bad.sdb"); }), Code::kTruncated);
}

TEST_F(Tamper, Check12ValueTable) {
  const auto value_count = std::to_integer<std::size_t>(good_[23]);
  ASSERT_GE(value_count, 3u);
  expect_field(64, 1, static_cast<std::uint8_t>(std::int8_t{6}), Code::kCorrupt);  // > n
  expect_field(64, 1, static_cast<std::uint8_t>(std::int8_t{-6}), Code::kCorrupt);
  expect_field(64, 1, std::to_integer<std::uint8_t>(good_[65]), Code::kCorrupt);  // twice
  if (value_count % 8 != 0)
    expect_field(64 + value_count, 1, 1, Code::kCorrupt);  // padding
}

TEST_F(Tamper, Check13ExpectedRuleSetAndStones) {
  RuleSet other = rules_;
  other.end = KalahEnd::kNoMove;
  EXPECT_EQ(open_error(good_, nullptr, test::expecting(other, std::nullopt)), Code::kRuleMismatch);
  EXPECT_EQ(open_error(good_, nullptr, test::expecting(std::nullopt, 4)), Code::kRuleMismatch);
  EXPECT_EQ(open_error(good_, nullptr, test::expecting(rules_, 5)), std::nullopt);
}

TEST_F(Tamper, Check14FileChecksum) {
  for (std::size_t i = 64; i < good_.size(); ++i) {
    auto b = good_;
    b[i] ^= std::byte{0x80};
    const auto got = open_error(b);
    ASSERT_TRUE(got.has_value()) << i;
    // The value table, the footer magic and the checksum bytes are caught by their own checks.
    EXPECT_TRUE(*got == Code::kChecksum || *got == Code::kCorrupt || *got == Code::kTruncated)
        << i << " " << name_of(*got);
    if (i >= data_start_ && i < good_.size() - 16) {
      EXPECT_EQ(*got, Code::kChecksum) << i;
    }
  }
}

TEST_F(Tamper, Check15SeekTable) {
  const std::uint32_t blocks = 7;  // ceil(252 / 40)
  const std::size_t seek = good_.size() - 16 - 24 * blocks;
  for (std::uint32_t e = 0; e < blocks; ++e) {
    const std::size_t at = seek + 24 * e;
    expect_field(at, 8, test::get_le(good_, at, 8) + 1, Code::kCorrupt);            // offset
    expect_field(at + 8, 4, test::get_le(good_, at + 8, 4) + 1, Code::kCorrupt);    // value size
    expect_field(at + 12, 4, test::get_le(good_, at + 12, 4) - 1, Code::kCorrupt);  // depth size
    expect_field(at + 8, 4, 0, Code::kCorrupt);
  }
}

// Check 17..20 at probe time: bytes changed after open (the whole-file check passed) are caught
// by the frame checksums; a probe gives nullopt, never a wrong value.
TEST_F(Tamper, ChangedAfterOpenNeverGivesAWrongValue) {
  const auto path = dir_ / "live.sdb";
  const std::size_t seek = good_.size() - 16 - 24 * 7;
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    write_bytes(path, good_);
    const auto r = LayerReader::open(path, test::options(0));
    auto b = good_;
    const std::size_t at = data_start_ + rng() % (seek - data_start_);
    b[at] ^= static_cast<std::byte>(1 + rng() % 255);
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(at));
      const char c = static_cast<char>(b[at]);
      f.write(&c, 1);
    }
    int missing = 0;
    for (std::uint64_t i = 0; i < layer_.values.size(); ++i) {
      const auto v = r->value(i);
      const auto d = r->depth(i);
      if (v) {
        ASSERT_EQ(*v, layer_.values[i]) << "flip at " << at;
      }
      if (d) {
        ASSERT_EQ(*d, layer_.depths[i]) << "flip at " << at;
      }
      missing += !v + !d;
    }
    EXPECT_GT(missing, 0) << "flip at " << at;
    std::vector<std::int8_t> v(layer_.values.size());
    std::vector<std::uint16_t> d(layer_.values.size());
    EXPECT_EQ(error_of([&] { r->read_all(v, d); }), Code::kChecksum);
  }
}

// Without checksums the decode checks (18..20) still stop anything out of bounds; in memory so
// AddressSanitizer builds would see any overrun.
TEST_F(Tamper, UncheckedFlipsNeverCrash) {
  const std::size_t seek = good_.size() - 16 - 24 * 7;
  std::mt19937_64 rng(6);
  for (int trial = 0; trial < 2000; ++trial) {
    auto b = good_;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k)
      b[data_start_ + rng() % (seek - data_start_)] ^= static_cast<std::byte>(rng());
    const auto r = LayerReader::open_memory(b, test::options(8, false));
    for (std::uint64_t i = 0; i < layer_.values.size(); ++i) {
      const auto v = r->value(i);
      if (v) {
        ASSERT_LE(std::abs(*v), 5);
      }
      (void)r->depth(i);
    }
  }
}

TEST_F(Tamper, TruncatedAnywhere) {
  std::vector<std::size_t> cuts = {0, 1, 7, 8, 9, 10, 63, 64, 65, 71, 72};
  const std::size_t seek = good_.size() - 16 - 24 * 7;
  for (std::uint32_t e = 0; e < 7; ++e) {
    const auto off = static_cast<std::size_t>(test::get_le(good_, seek + 24 * e, 8));
    const auto vsize = static_cast<std::size_t>(test::get_le(good_, seek + 24 * e + 8, 4));
    cuts.push_back(off);
    cuts.push_back(off + vsize);
    cuts.push_back(off + 1);
  }
  cuts.push_back(seek);
  for (std::size_t k = 1; k <= 16; ++k)
    cuts.push_back(good_.size() - k);
  std::mt19937_64 rng(8);
  for (int k = 0; k < 200; ++k)
    cuts.push_back(rng() % good_.size());
  for (const std::size_t cut : cuts) {
    const std::vector<std::byte> b(good_.begin(), good_.begin() + static_cast<std::ptrdiff_t>(cut));
    std::string msg;
    const auto got = open_error(b, &msg);
    ASSERT_TRUE(got.has_value()) << cut;
    EXPECT_EQ(name_of(*got), name_of(cut == 0 ? Code::kNotATable : Code::kTruncated))
        << cut << ": " << msg;
    write_bytes(dir_ / "bad.sdb", b);
    EXPECT_TRUE(error_of([&] { read_info(dir_ / "bad.sdb"); }).has_value());
  }
}

TEST(TableReader, MissingFile) {
  TempDir dir;
  std::string msg;
  EXPECT_EQ(error_of([&] { LayerReader::open(dir / "nope.sdb"); }, &msg), Code::kIo);
  EXPECT_NE(msg.find("nope.sdb"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { read_info(dir / "nope.sdb"); }), Code::kIo);
  EXPECT_EQ(error_of([&] { LayerReader::open(dir.path()); }), Code::kIo);  // a directory
}

// Check 1 on a FIFO: opening one must not wait for a writer (a blocking open hung every probe
// of the directory); the reader refuses it as not a regular file.
TEST(TableReader, FifoIsNotARegularFile) {
  TempDir dir;
  const std::filesystem::path fifo = dir / "layer-003.sdb";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string msg;
  EXPECT_EQ(error_of([&] { LayerReader::open(fifo); }, &msg), Code::kIo);
  EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { read_info(fifo); }), Code::kIo);
}

TEST(TableReader, NotATable) {
  TempDir dir;
  const std::string text = "this is a text file, not a table\n";
  std::vector<std::byte> b(text.size());
  std::memcpy(b.data(), text.data(), text.size());
  write_bytes(dir / "text.sdb", b);
  EXPECT_EQ(error_of([&] { LayerReader::open(dir / "text.sdb"); }), Code::kNotATable);
  EXPECT_EQ(error_of([&] { read_info(dir / "text.sdb"); }), Code::kNotATable);
  // A zstd frame is not a table either.
  const std::vector<std::byte> zstd_magic = {std::byte{0x28},
                                             std::byte{0xB5},
                                             std::byte{0x2F},
                                             std::byte{0xFD},
                                             std::byte{0},
                                             std::byte{0},
                                             std::byte{0},
                                             std::byte{0},
                                             std::byte{0}};
  EXPECT_EQ(error_of([&] { LayerReader::open_memory(zstd_magic); }), Code::kNotATable);
}

TEST(TableReader, ErrorCodeNames) {
  EXPECT_STREQ(to_string(Code::kIo), "Io");
  EXPECT_STREQ(to_string(Code::kChecksum), "Checksum");
  EXPECT_STREQ(to_string(static_cast<Code>(99)), "Unknown");
}

// --- Recompute entries (FORMAT.md, "Recompute entries", version 3). --------------------------

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

// Replaces the depth frame of block `b` of `bytes` (a file of `blocks` blocks) with `frame`,
// fixing the seek table and the checksums.
std::vector<std::byte> with_depth_frame(const std::vector<std::byte>& bytes,
                                        std::uint32_t blocks,
                                        std::uint32_t b,
                                        const std::vector<std::byte>& frame) {
  const std::size_t seek = bytes.size() - 16 - 24 * std::size_t{blocks};
  const std::size_t e = seek + 24 * std::size_t{b};
  const auto at =
      static_cast<std::size_t>(test::get_le(bytes, e, 8) + test::get_le(bytes, e + 8, 4));
  const auto old_size = static_cast<std::size_t>(test::get_le(bytes, e + 12, 4));
  std::vector<std::byte> out(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(at));
  out.insert(out.end(), frame.begin(), frame.end());
  out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at + old_size), bytes.end());
  const std::size_t new_seek = out.size() - 16 - 24 * std::size_t{blocks};
  const auto delta = static_cast<std::int64_t>(frame.size()) - static_cast<std::int64_t>(old_size);
  for (std::uint32_t k = b + 1; k < blocks; ++k) {
    const std::size_t ek = new_seek + 24 * std::size_t{k};
    test::put_le(
        out,
        ek,
        static_cast<std::uint64_t>(static_cast<std::int64_t>(test::get_le(out, ek, 8)) + delta),
        8);
  }
  const std::size_t eb = new_seek + 24 * std::size_t{b};
  test::put_le(out, eb + 12, frame.size(), 4);
  test::put_le(out, eb + 20, xxh64(frame) & 0xFFFFFFFFu, 4);
  reseal(out);
  return out;
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
  // Bit 1 in a version 3 file is unknown (the loop of Check7RequiredFlags); so is version 5.
  b = good;
  test::put_le(b, 8, 5, 2);
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

// Check 18: a depth frame that stores nothing (every value of the block 0) must still be one
// Zstandard frame. A skippable frame declares no content size, though zstd reports 0 for it.
TEST(TableReader, SkippableFrameIsNoDepthFrame) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 2, true, GrandSlam::kForbidden};
  Layer zero = make_layer(rules, 4, 1);
  std::fill(zero.values.begin(), zero.values.end(), std::int8_t{0});
  std::fill(zero.depths.begin(), zero.depths.end(), std::uint16_t{0});
  write_layer(dir / "zero.sdb", rules, 4, zero.source(), test::write_options(4096, 3));
  const auto good = read_bytes(dir / "zero.sdb");
  ASSERT_EQ(LayerReader::open_memory(good)->depth(0), std::optional<std::uint16_t>(0));
  // Skippable frame magic 0x184D2A50, 1 byte of user data.
  const std::vector<std::byte> skippable = {std::byte{0x50},
                                            std::byte{0x2A},
                                            std::byte{0x4D},
                                            std::byte{0x18},
                                            std::byte{0x01},
                                            std::byte{0x00},
                                            std::byte{0x00},
                                            std::byte{0x00},
                                            std::byte{0x41}};
  const auto bad = with_depth_frame(good, 1, 0, skippable);
  const auto r = LayerReader::open_memory(bad);
  EXPECT_EQ(r->value(0), std::optional<std::int8_t>(0));  // the value frame is fine
  EXPECT_EQ(r->depth(0), std::nullopt);
  std::vector<std::uint16_t> d(zero.values.size());
  std::string msg;
  EXPECT_EQ(error_of([&] { r->read_all({}, d); }, &msg), Code::kCorrupt);
  EXPECT_NE(msg.find("check 18"), std::string::npos) << msg;
}

// Without checksums the reader stays in bounds and gives values in [-n, n] or kRecomputeValue.
TEST_F(TamperV3, UncheckedFlipsNeverCrash) {
  const std::size_t data_start = 64 + (std::to_integer<std::size_t>(good_[23]) + 7) / 8 * 8;
  const std::size_t seek = good_.size() - 16 - 24 * 7;
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
