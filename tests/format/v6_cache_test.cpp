// The block cache of a format version 6 reader (OpenOptions::cache_blocks, cache_bytes and their
// depth counterparts): every entry reads the same with and without it, hits are counted, and
// threads sharing one cached reader get the uncached answers.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "table_test_util.h"

namespace sowdb::test {
namespace {

// A version 6 file of `l` in `dir`, 256 entries a block.
std::filesystem::path write_v6(const TempDir& dir, const Layer& l) {
  WriteOptions o;
  o.format_version = 6;
  o.block_entries = 256;
  auto path = dir / "layer.sdb";
  write_layer(path, l.rules, l.stones, l.source(), o);
  return path;
}

// The cache configurations under test, each named.
struct Config {
  std::string name;
  OpenOptions options;
};

std::vector<Config> cached_configs(std::uint64_t block_count) {
  std::vector<Config> out;
  out.push_back({"default (8 blocks shared)", OpenOptions{}});
  OpenOptions one;
  one.cache_blocks = 1;  // every other lookup evicts
  out.push_back({"1 block", one});
  OpenOptions all;
  all.cache_bytes = std::size_t{64} << 20;  // every frame: kept, found without a lock
  out.push_back({"every block", all});
  OpenOptions split;
  split.cache_blocks = 40;  // sharded
  split.depth_cache_blocks = 3;
  out.push_back({"split 40 + 3", split});
  OpenOptions split_all;
  split_all.cache_blocks = block_count;
  split_all.depth_cache_bytes = std::size_t{16} << 20;
  out.push_back({"split, both kept", split_all});
  OpenOptions values_only;
  values_only.cache_bytes = 64 * 256;
  values_only.depth_cache_bytes = 0;  // depths read entry by entry
  out.push_back({"values cached, depths not", values_only});
  OpenOptions mapped = all;
  mapped.memory_map = true;
  out.push_back({"every block, mapped", mapped});
  return out;
}

OpenOptions uncached() {
  OpenOptions o;
  o.cache_bytes = 0;
  return o;
}

// Every entry of `l`'s version 6 file: value, depth and value_and_depth, read with each cache
// configuration in two passes (misses, then hits), equal to the uncached reader's and to the
// layer's, recompute entries included.
void expect_cache_changes_nothing(const Layer& l) {
  TempDir dir("v6cache");
  const auto path = write_v6(dir, l);
  const auto plain = LayerReader::open(path, uncached());
  ASSERT_EQ(plain->info().format_version, 6);
  for (const Config& c : cached_configs(plain->info().block_count)) {
    SCOPED_TRACE(c.name);
    const auto r = LayerReader::open(path, c.options);
    for (int pass = 0; pass < 2; ++pass) {
      for (std::uint64_t i = 0; i < l.values.size(); ++i) {
        const auto v = r->value(i);
        const auto d = r->depth(i);
        ASSERT_EQ(v, plain->value(i)) << i;
        ASSERT_EQ(d, plain->depth(i)) << i;
        ASSERT_EQ(v, l.read_value(i)) << i;
        ASSERT_EQ(d, l.read_depth(i)) << i;
        // Out of order with the calls above: the depth block may be found before the value one.
        const std::uint64_t j = l.values.size() - 1 - i;
        const auto both = r->value_and_depth(j);
        ASSERT_TRUE(both.has_value()) << j;
        ASSERT_EQ(both->value, l.read_value(j)) << j;
        ASSERT_EQ(both->depth, l.read_depth(j)) << j;
      }
    }
    EXPECT_FALSE(r->value(l.values.size()).has_value());
    EXPECT_FALSE(r->depth(l.values.size()).has_value());
    EXPECT_FALSE(r->value_and_depth(l.values.size()).has_value());
    // The loop above may evict before each reuse (one block); the same entry twice hits.
    ASSERT_EQ(r->value(0), plain->value(0));
    ASSERT_EQ(r->value(0), plain->value(0));
    const CacheStats s = r->cache_stats();
    EXPECT_GT(s.hits, 0u);
    EXPECT_GT(s.misses, 0u);
  }
  // Nothing cached, nothing counted.
  const CacheStats s = plain->cache_stats();
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.cached, 0u);
}

TEST(V6Cache, CachedReadsAgreeWithUncachedOnPlainLayers) {
  for (const RuleSet& rules : {oware(3), kalah(3)}) {
    for (int stones : {0, 1, 6}) {
      SCOPED_TRACE(std::to_string(stones));
      expect_cache_changes_nothing(
          make_layer(rules, stones, 40 + static_cast<std::uint64_t>(stones)));
    }
  }
}

TEST(V6Cache, CachedReadsAgreeWithUncachedOnRecomputeLayers) {
  for (bool all_moves : {false, true}) {
    Layer l = make_layer(oware(4), 7, 13);
    mark_recompute(l, 14, 35);
    l.all_moves = all_moves;
    expect_cache_changes_nothing(l);
  }
}

// A lookup in a block already decoded is a hit; the first lookup of each stream of a block a
// miss; a reader with no cache counts nothing.
TEST(V6Cache, HitsAndMissesAreCounted) {
  const Layer l = make_layer(oware(4), 7, 3);
  TempDir dir("v6cache");
  const auto path = write_v6(dir, l);
  OpenOptions o;
  o.cache_blocks = 4;
  const auto r = LayerReader::open(path, o);
  ASSERT_GT(r->info().block_count, 2u);
  ASSERT_TRUE(r->value(0).has_value());
  EXPECT_EQ(r->cache_stats().misses, 1u);
  EXPECT_EQ(r->cache_stats().hits, 0u);
  ASSERT_TRUE(r->value(1).has_value());
  ASSERT_TRUE(r->value(255).has_value());
  EXPECT_EQ(r->cache_stats().hits, 2u);
  ASSERT_TRUE(r->depth(7).has_value());            // the depth frame: a miss
  ASSERT_TRUE(r->value_and_depth(8).has_value());  // both frames: two hits
  CacheStats s = r->cache_stats();
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.hits, 4u);
  EXPECT_EQ(s.cached, 2u);
  ASSERT_TRUE(r->value(256).has_value());  // the next block
  s = r->cache_stats();
  EXPECT_EQ(s.misses, 3u);
  EXPECT_EQ(s.cached, 3u);
  // A cache of 4 frames holds at most 4.
  for (std::uint64_t i = 0; i < l.values.size(); i += 256)
    ASSERT_TRUE(r->value_and_depth(i).has_value()) << i;
  EXPECT_LE(r->cache_stats().cached, 4u);

  const auto plain = LayerReader::open(path, uncached());
  for (std::uint64_t i = 0; i < 600; ++i)
    ASSERT_TRUE(plain->value_and_depth(i).has_value()) << i;
  s = plain->cache_stats();
  EXPECT_EQ(s.hits + s.misses + s.cached, 0u);
}

// Several threads probing random entries of one cached reader (a small cache that evicts all
// the time, a sharded one, one that keeps every block) get the uncached reader's answers.
TEST(V6Cache, ThreadsShareACachedReader) {
  Layer l = make_layer(kalah(4), 7, 71);
  mark_recompute(l, 72, 30);
  TempDir dir("v6cache");
  const auto path = write_v6(dir, l);
  const auto plain = LayerReader::open(path, uncached());
  const std::uint64_t n = l.values.size();
  std::vector<std::optional<std::int8_t>> values(n);
  std::vector<std::optional<std::uint16_t>> depths(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    values[i] = plain->value(i);
    depths[i] = plain->depth(i);
    ASSERT_TRUE(values[i] && depths[i]) << i;
  }
  OpenOptions small;
  small.cache_blocks = 3;
  OpenOptions sharded;
  sharded.cache_blocks = 64;
  sharded.depth_cache_blocks = 40;
  OpenOptions all;
  all.cache_bytes = std::size_t{64} << 20;
  for (const OpenOptions& o : {small, sharded, all}) {
    const auto r = LayerReader::open(path, o);
    std::atomic<std::uint64_t> wrong{0};
    std::vector<std::thread> threads;
    for (std::uint64_t t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        SplitMix rng{100 + t};
        for (int k = 0; k < 20000; ++k) {
          const std::uint64_t i = rng.next() % n;
          bool ok = true;
          switch (k % 3) {
            case 0:
              ok = r->value(i) == values[i];
              break;
            case 1:
              ok = r->depth(i) == depths[i];
              break;
            default: {
              const auto both = r->value_and_depth(i);
              ok = both && both->value == *values[i] && both->depth == *depths[i];
            }
          }
          if (!ok)
            wrong.fetch_add(1, std::memory_order_relaxed);
        }
      });
    }
    for (std::thread& th : threads)
      th.join();
    EXPECT_EQ(wrong.load(), 0u);
    const CacheStats s = r->cache_stats();
    EXPECT_GT(s.hits, 0u);
    EXPECT_GT(s.misses, 0u);
  }
}

}  // namespace
}  // namespace sowdb::test
