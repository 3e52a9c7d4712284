// The reader's block cache (OpenOptions::cache_blocks, depth_cache_blocks): an LRU of decoded
// frames, its counts, the thread's last depth frame, and threads sharing a cache too small for
// them.
#include <atomic>
#include <optional>
#include <random>
#include <thread>
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
using test::write_bytes;

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
  EXPECT_EQ(s.hits + s.misses, l.values.size() * 2 * 2 + blocks);
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
    const std::size_t entry = bytes.size() - 16 - std::size_t{24} * r->info().block_count + 24;
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
    threads.reserve(4);
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
    threads.reserve(6);
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

}  // namespace
}  // namespace sowdb
