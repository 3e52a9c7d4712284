// Format version 6 (FORMAT.md, "Version 6"): every entry reads back as written and as the same
// layer's version 2..4 file reads; a damaged file never gives a wrong answer.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sowdb/format/layer_parts.h"
#include "table_test_util.h"

namespace sowdb::test {
namespace {

WriteOptions v6_options(std::uint32_t block_entries = kDefaultV6BlockEntries) {
  WriteOptions o;
  o.format_version = 6;
  o.block_entries = block_entries;
  return o;
}

// Every entry, read_all and read_block of the v6 file agree with the layer and with the same
// layer written in the lowest version 1..5 that describes it.
void expect_same_as_older(const Layer& l, std::uint32_t block_entries) {
  TempDir dir("v6");
  write_layer(dir / "v6.sdb", l.rules, l.stones, l.source(), v6_options(block_entries));
  WriteOptions old;
  write_layer(dir / "old.sdb", l.rules, l.stones, l.source(), old);
  const auto r6 = LayerReader::open(dir / "v6.sdb");
  const auto r = LayerReader::open(dir / "old.sdb");
  ASSERT_EQ(r6->info().format_version, 6);
  ASSERT_LE(r->info().format_version, 4);
  EXPECT_EQ(r6->info().value_table, r->info().value_table);
  EXPECT_EQ(r6->info().recompute, r->info().recompute);
  EXPECT_EQ(r6->info().all_moves, r->info().all_moves);
  expect_reads_back(*r6, l);
  for (std::uint64_t i = 0; i < l.values.size(); ++i) {
    ASSERT_EQ(r6->value(i), r->value(i)) << i;
    ASSERT_EQ(r6->depth(i), r->depth(i)) << i;
    // One walk of the value block for both gives what the two calls give.
    const auto both = r6->value_and_depth(i);
    ASSERT_TRUE(both.has_value()) << i;
    ASSERT_EQ(both->value, r->value(i)) << i;
    ASSERT_EQ(both->depth, r->depth(i)) << i;
    const auto old_both = r->value_and_depth(i);
    ASSERT_TRUE(old_both.has_value()) << i;
    ASSERT_EQ(old_both->value, both->value) << i;
    ASSERT_EQ(old_both->depth, both->depth) << i;
  }
  EXPECT_FALSE(r6->value_and_depth(l.values.size()).has_value());
  // The opt-in mapping reads the same bytes another way: the same answers.
  OpenOptions mapped;
  mapped.memory_map = true;
  const auto m6 = LayerReader::open(dir / "v6.sdb", mapped);
  for (std::uint64_t i = 0; i < l.values.size(); ++i) {
    m6->prefetch(i);
    ASSERT_EQ(m6->value(i), r->value(i)) << i;
    ASSERT_EQ(m6->depth(i), r->depth(i)) << i;
    const auto both = m6->value_and_depth(i);
    ASSERT_TRUE(both.has_value()) << i;
    ASSERT_EQ(both->value, r->value(i)) << i;
    ASSERT_EQ(both->depth, r->depth(i)) << i;
  }
  for (std::uint32_t b = 0; b < r6->info().block_count; ++b) {
    const std::size_t n = r6->block_size(b);
    std::vector<std::int8_t> v(n);
    std::vector<std::uint16_t> d(n);
    const auto got = r6->read_block(b, v, d);
    ASSERT_TRUE(got.values && got.depths) << got.error;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t at = std::uint64_t{b} * r6->info().block_entries + i;
      ASSERT_EQ(v[i], l.read_value(at));
      ASSERT_EQ(d[i], l.read_depth(at));
    }
  }
}

TEST(V6File, ReadsBackPlainLayers) {
  for (const RuleSet& rules : {oware(3), kalah(3), oware(4)}) {
    for (int stones : {0, 1, 5, 9}) {
      SCOPED_TRACE(std::to_string(stones));
      expect_same_as_older(make_layer(rules, stones, 7 + static_cast<std::uint64_t>(stones)), 256);
    }
  }
}

TEST(V6File, ReadsBackRecomputeLayers) {
  for (bool all_moves : {false, true}) {
    Layer l = make_layer(oware(4), 8, 11);
    mark_recompute(l, 12);
    l.all_moves = all_moves;
    expect_same_as_older(l, 256);
  }
}

TEST(V6File, ReadsBackAnyBlockSize) {
  Layer l = make_layer(kalah(3), 8, 5);
  mark_recompute(l, 6, 30);
  for (std::uint32_t e : {1u, 2u, 37u, 1000u, 65536u})
    expect_same_as_older(l, e);
}

// Long runs of one value and of one depth, and depths above 254 (the escape).
TEST(V6File, ReadsBackRunsAndLargeDepths) {
  Layer l = make_layer(oware(4), 9, 3);
  for (std::size_t i = 0; i < l.values.size(); ++i) {
    if (i % 1000 < 700) {
      l.values[i] = 2;
      l.depths[i] = static_cast<std::uint16_t>(i % 1000 < 300 ? 7 : 300 + i % 5);
    } else if (i % 1000 < 750) {
      l.depths[i] = l.values[i] == 0 ? 0 : static_cast<std::uint16_t>(60000 + i % 3);
    }
  }
  expect_same_as_older(l, 256);
  expect_same_as_older(l, 4096);
}

// A layer of 4096 blocks or more has its codes from the token counts of a sample of its blocks
// (every 16th): a depth, a deep depth (the escape), a value and a run that only blocks outside
// the sample hold must still be coded and read back.
TEST(V6File, ReadsBackLayersCodedFromASample) {
  Layer l = make_layer(oware(4), 9, 3);  // 11440 entries: 5720 blocks of 2, 11440 of 1
  for (std::size_t i = 0; i < l.values.size(); ++i) {
    if (l.values[i] == 9 || l.values[i] == -9)
      l.values[i] = static_cast<std::int8_t>(l.values[i] / 9 * 8);
    if (l.values[i] != 0 && l.depths[i] > 100)
      l.depths[i] = 100;
  }
  const std::size_t lone = 17 * 2;  // block 17 of 2 entries, 34 of 1: outside the sample
  l.values[lone] = 9;
  l.depths[lone] = 40000;
  l.values[lone + 1] = 9;
  l.depths[lone + 1] = 222;
  for (std::size_t i = 3000; i < 3003; ++i) {  // blocks 1500 and 1501 of 2 entries
    l.values[i] = -9;
    l.depths[i] = 99;
  }
  for (const std::uint32_t e : {1u, 2u})
    expect_same_as_older(l, e);
}

TEST(V6File, WriterRefusesWhatVersion6CannotHold) {
  TempDir dir("v6");
  const Layer l = make_layer(oware(3), 4, 1);
  WriteOptions o = v6_options(kMaxV6BlockEntries + 1);
  EXPECT_EQ(error_of([&] { write_layer(dir / "a.sdb", l.rules, l.stones, l.source(), o); }),
            TableError::Code::kInvalidArgument);
  o = v6_options();
  o.depth_codec = DepthCodec::kAll;
  EXPECT_EQ(error_of([&] { write_layer(dir / "a.sdb", l.rules, l.stones, l.source(), o); }),
            TableError::Code::kInvalidArgument);
  o = v6_options();
  o.format_version = 5;
  EXPECT_EQ(error_of([&] { write_layer(dir / "a.sdb", l.rules, l.stones, l.source(), o); }),
            TableError::Code::kInvalidArgument);
  const auto sets = make_reach_sets(l.rules, l.stones, 1, 10);
  EXPECT_EQ(
      error_of([&] { write_reach_layer(dir / "a.sdb", l.rules, l.stones, sets, v6_options()); }),
      TableError::Code::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir / "a.sdb"));
  // A writer in parts (sowdb-mpi) cannot be asked for version 6 and write another.
  EXPECT_EQ(
      error_of([&] {
        LayerEncoder(
            "a.sdb", l.rules, l.stones, count_layer_values(l.source()), false, false, v6_options());
      }),
      TableError::Code::kInvalidArgument);
}

// Overwrites byte `at` of the file `p` in place (the reader's open descriptor sees it).
void flip_in_place(const std::filesystem::path& p, std::uint64_t at) {
  const int fd = ::open(p.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  unsigned char c = 0;
  ASSERT_EQ(::pread(fd, &c, 1, static_cast<off_t>(at)), 1);
  c ^= 0x5A;
  ASSERT_EQ(::pwrite(fd, &c, 1, static_cast<off_t>(at)), 1);
  ::close(fd);
}

// A byte flipped anywhere: open refuses the file (checksums), and a file changed after it was
// opened answers every entry right or not at all.
TEST(V6File, DamageNeverGivesAWrongAnswer) {
  Layer l = make_layer(oware(4), 8, 21);
  mark_recompute(l, 22, 35);
  l.all_moves = true;
  TempDir dir("v6");
  const auto path = dir / "layer.sdb";
  write_layer(path, l.rules, l.stones, l.source(), v6_options());
  const std::vector<std::byte> good = read_bytes(path);
  const std::uint64_t size = good.size();
  // One byte in each region: header, value table, layout record, code tables, indexes,
  // hashes, both streams, footer (the streams fill the end of the file, the rest its start).
  std::vector<std::uint64_t> offsets = {3,
                                        64,
                                        72,
                                        120,
                                        4000,
                                        size / 3,
                                        size / 2,
                                        size * 2 / 3,
                                        size - 600,
                                        size - 200,
                                        size - 40,
                                        size - 3};
  // And a byte every 1/31 of the file (97 took 83 s under the sanitizers, CI time).
  for (std::uint64_t at = 0; at < size; at += size / 31)
    offsets.push_back(at);
  for (const bool map : {false, true}) {
    SCOPED_TRACE(map ? "memory_map" : "pread");
    OpenOptions options;
    options.memory_map = map;
    int refused_later = 0;
    for (const std::uint64_t at : offsets) {
      SCOPED_TRACE(at);
      write_bytes(path, good);
      const auto r = LayerReader::open(path, options);
      flip_in_place(path, at);
      EXPECT_TRUE(error_of([&] { LayerReader::open(path); }).has_value());
      bool any_refused = false;
      for (std::uint64_t i = 0; i < l.values.size(); ++i) {
        const auto v = r->value(i);
        const auto d = r->depth(i);
        if (v) {
          ASSERT_EQ(*v, l.read_value(i)) << i;
        }
        if (d) {
          ASSERT_EQ(*d, l.read_depth(i)) << i;
        }
        if (const auto both = r->value_and_depth(i)) {
          ASSERT_EQ(both->value, l.read_value(i)) << i;
          ASSERT_EQ(both->depth, l.read_depth(i)) << i;
        }
        any_refused = any_refused || !v || !d;
      }
      refused_later += any_refused ? 1 : 0;
    }
    // The streams are most of the file: most flips land in a block and are caught there.
    EXPECT_GT(refused_later, 0);
  }
}

// A file cut short after it was opened (check 16): every lookup answers right or not at all,
// and the entries in the blocks still there keep answering.
TEST(V6File, ShrunkAfterOpenNeverGivesAWrongAnswer) {
  Layer l = make_layer(kalah(4), 7, 31);
  mark_recompute(l, 32, 30);
  TempDir dir("v6");
  const auto path = dir / "layer.sdb";
  write_layer(path, l.rules, l.stones, l.source(), v6_options());
  const auto r = LayerReader::open(path);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) * 3 / 4);
  std::uint64_t answered = 0, refused = 0;
  for (std::uint64_t i = 0; i < l.values.size(); ++i) {
    const auto v = r->value(i);
    const auto d = r->depth(i);
    if (v) {
      ASSERT_EQ(*v, l.read_value(i)) << i;
    }
    if (d) {
      ASSERT_EQ(*d, l.read_depth(i)) << i;
    }
    const auto both = r->value_and_depth(i);
    if (both) {
      ASSERT_EQ(both->value, l.read_value(i)) << i;
      ASSERT_EQ(both->depth, l.read_depth(i)) << i;
    }
    ASSERT_EQ(both.has_value(), v && d) << i;
    answered += v ? 1 : 0;
    refused += d ? 0 : 1;
  }
  // The value stream comes first and is mostly still there; the depth stream is cut.
  EXPECT_GT(answered, 0u);
  EXPECT_GT(refused, 0u);
}

// A file cut to nothing after it was opened, read the default way (pread): every lookup is
// refused, with the block it needed named, and none crashes.
TEST(V6File, CutToNothingAfterOpenRefusesEveryLookup) {
  const Layer l = make_layer(oware(3), 6, 4);
  TempDir dir("v6");
  const auto path = dir / "layer.sdb";
  write_layer(path, l.rules, l.stones, l.source(), v6_options());
  const auto r = LayerReader::open(path);
  std::filesystem::resize_file(path, 0);
  for (std::uint64_t i = 0; i < l.values.size(); ++i) {
    r->prefetch(i);
    ASSERT_FALSE(r->value(i).has_value()) << i;
    ASSERT_FALSE(r->depth(i).has_value()) << i;
    ASSERT_FALSE(r->value_and_depth(i).has_value()) << i;
  }
  std::vector<std::int8_t> v(r->block_size(0));
  const auto got = r->read_block(0, v, {});
  EXPECT_FALSE(got.values);
  EXPECT_NE(got.error.find("layer.sdb"), std::string::npos) << got.error;
}

// The library installs no signal handler: opening and reading version 6 files, mapped or not,
// leaves SIGBUS's disposition as the process had it (the default, or a sanitizer's own).
TEST(V6File, ReadingInstallsNoSignalHandler) {
  struct sigaction before {};
  ASSERT_EQ(::sigaction(SIGBUS, nullptr, &before), 0);
  const Layer l = make_layer(oware(3), 5, 2);
  TempDir dir("v6");
  write_layer(dir / "layer.sdb", l.rules, l.stones, l.source(), v6_options());
  for (const bool map : {false, true}) {
    OpenOptions options;
    options.memory_map = map;
    const auto r = LayerReader::open(dir / "layer.sdb", options);
    ASSERT_TRUE(r->value_and_depth(0).has_value());
    struct sigaction after {};
    ASSERT_EQ(::sigaction(SIGBUS, nullptr, &after), 0);
    EXPECT_EQ(after.sa_flags & SA_SIGINFO, before.sa_flags & SA_SIGINFO) << map;
    if ((before.sa_flags & SA_SIGINFO) != 0)
      EXPECT_EQ(after.sa_sigaction, before.sa_sigaction) << map;
    else
      EXPECT_EQ(after.sa_handler, before.sa_handler) << map;
  }
}

// With the opt-in mapping (OpenOptions::memory_map), a file cut short under a running process
// ends it with SIGBUS, as with any reader that maps a file: the library turns no fault into an
// answer. AddressSanitizer installs a SIGBUS handler of its own (it reports and aborts), so
// the signal that ends the process is not SIGBUS there.
TEST(V6FileDeathTest, MappedFileCutShortEndsTheProcessWithSigbus) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer handles SIGBUS itself";
#endif
  const Layer l = make_layer(oware(3), 6, 4);
  TempDir dir("v6");
  const auto path = dir / "layer.sdb";
  // With no block cache, the lookup reads the block again; with one, a block it has not kept
  // (the last; entry 0's block answers from the cache without touching the file).
  for (const bool cached : {false, true}) {
    SCOPED_TRACE(cached ? "cached" : "no cache");
    write_layer(path, l.rules, l.stones, l.source(), v6_options());
    OpenOptions options;
    options.memory_map = true;
    if (!cached)
      options.cache_bytes = 0;
    const auto r = LayerReader::open(path, options);
    ASSERT_GT(r->info().block_count, 1u);
    ASSERT_TRUE(r->value(0).has_value());
    const std::uint64_t probe = cached ? r->info().entries - 1 : 0;
    EXPECT_EXIT(
        {
          std::filesystem::resize_file(path, 0);
          (void)r->value(probe);
          std::_Exit(0);
        },
        testing::KilledBySignal(SIGBUS),
        "");
  }
}

}  // namespace
}  // namespace sowdb::test
