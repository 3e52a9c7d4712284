// TableSet and the C ABI on small hand-written tables (written with sowdb::format's write_layer,
// arbitrary values): the plumbing from files to answers, independent of the generator. The
// generator's real tables are tested in tests/gen/probe_tables_test.cpp.
#include "sowdb/probe/tables.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/sowdb.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

extern "C" int sowdb_c_header_check(const char* dir, int32_t* value_out);

namespace sowdb::test {
namespace {
namespace fs = std::filesystem;

// The arbitrary but fixed entries of the hand-written tables.
int fake_value(int n, std::uint64_t i) {
  return static_cast<int>((i * 7 + static_cast<std::uint64_t>(n)) % (2 * n + 1)) - n;
}
// The format stores no depth for value 0 (FORMAT.md): such entries have depth 0.
int fake_depth(int n, std::uint64_t i) {
  return fake_value(n, i) == 0 ? 0 : static_cast<int>(i % 5);
}

RuleSet small_rules(int pits_per_side = 2) {
  RuleSet r;  // oware
  r.pits_per_side = static_cast<std::uint8_t>(pits_per_side);
  return r.normalised();
}

void write_fake_tables(const fs::path& dir, const RuleSet& rules, int max_stones) {
  fs::create_directories(dir);
  for (int n = 0; n <= max_stones; ++n) {
    const std::uint64_t size = layer_size(rules.pits(), n);
    std::vector<std::int8_t> values(size);
    std::vector<std::uint16_t> depths(size);
    for (std::uint64_t i = 0; i < size; ++i) {
      values[i] = static_cast<std::int8_t>(fake_value(n, i));
      depths[i] = static_cast<std::uint16_t>(fake_depth(n, i));
    }
    WriteOptions options;
    options.block_entries = 8;
    options.zstd_level = 1;
    char name[32];
    std::snprintf(name, sizeof name, "layer-%03d.sdb", n);
    write_layer(dir / name, rules, n, values, depths, options);
  }
  write_manifest(dir, Variant{"oware", rules, 4});
}

std::uint64_t index_of(const Pits& p, int pits) {
  return rank(std::span<const std::uint8_t>(p.data(), static_cast<std::size_t>(pits)));
}

std::vector<Pits> layer(int pits, int n) {
  std::vector<Pits> out;
  Pits p{};
  for (std::uint64_t i = 0; i < layer_size(pits, n); ++i) {
    unrank(i, n, std::span<std::uint8_t>(p.data(), static_cast<std::size_t>(pits)));
    out.push_back(p);
  }
  return out;
}

class FakeTables : public ::testing::Test {
 protected:
  static constexpr int kMax = 6;
  void SetUp() override { write_fake_tables(tmp_.path() / "t", small_rules(), kMax); }
  fs::path dir() const { return tmp_.path() / "t"; }
  TempDir tmp_;
};

TEST_F(FakeTables, ValuesAndDepthsComeBackAsWritten) {
  auto set = TableSet::open(dir());
  EXPECT_EQ(set->max_stones(), kMax);
  EXPECT_EQ(set->rules(), small_rules());
  for (int n = 0; n <= kMax; ++n) {
    for (const Pits& p : layer(4, n)) {
      int v = 99;
      int d = -1;
      ASSERT_EQ(set->value(p, v, d), ProbeStatus::kOk);
      EXPECT_EQ(v, fake_value(n, index_of(p, 4)));
      EXPECT_EQ(d, fake_depth(n, index_of(p, 4)));
    }
  }
}

// The value-only probe gives the value of value(p, v, d), with and without a cache.
TEST_F(FakeTables, ValueOnlyEqualsTheValueOfValueAndDepth) {
  for (const std::size_t cache : {std::size_t{0}, std::size_t{8}}) {
    TableSetOptions o;
    o.cache_blocks = cache;
    auto set = TableSet::open(dir(), o);
    for (int n = 0; n <= kMax; ++n) {
      for (const Pits& p : layer(4, n)) {
        int v = 99;
        int d = -1;
        ASSERT_EQ(set->value(p, v, d), ProbeStatus::kOk);
        int only = 99;
        ASSERT_EQ(set->value(p, only), ProbeStatus::kOk);
        EXPECT_EQ(only, v) << n;
      }
    }
    Pits too_many{};
    too_many[0] = kMax + 1;
    int v = 0;
    EXPECT_EQ(set->value(too_many, v), ProbeStatus::kTooManyStones);
    Pits beyond{};
    beyond[4] = 1;
    EXPECT_EQ(set->value(beyond, v), ProbeStatus::kBadPosition);
  }
}

// Prefetching changes no answer and no cache count, with a cache that keeps every block (where
// it acts, on blocks decoded already) and with a small one (where it does nothing), and on
// positions no table holds.
TEST_F(FakeTables, PrefetchChangesNoAnswer) {
  for (const std::size_t cache : {std::size_t{1} << 20, std::size_t{2}}) {
    TableSetOptions o;
    o.cache_blocks = cache;
    auto set = TableSet::open(dir(), o);
    Pits too_many{};
    too_many[0] = kMax + 1;
    Pits beyond{};
    beyond[4] = 1;
    set->prefetch(too_many);
    set->prefetch(beyond);
    for (int round = 0; round < 2; ++round) {  // blocks cold, then (large cache) all decoded
      for (int n = 0; n <= kMax; ++n) {
        for (const Pits& p : layer(4, n)) {
          set->prefetch(p);
          int v = 99;
          ASSERT_EQ(set->value(p, v), ProbeStatus::kOk);
          EXPECT_EQ(v, fake_value(n, index_of(p, 4))) << cache;
        }
      }
    }
    int v = 0;
    EXPECT_EQ(set->value(too_many, v), ProbeStatus::kTooManyStones);
  }
}

// The value-only probe never reads a depth frame: with every depth frame of the largest layer
// destroyed (checksums off, so only the frame decode notices), it still answers, while a probe
// of value and depth reports the corrupt table.
TEST_F(FakeTables, ValueOnlyNeverReadsDepthFrames) {
  const fs::path path = dir() / "layer-006.sdb";
  const LayerInfo info = read_info(path);
  std::vector<char> bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // "Seek table": 24-byte entries before the 16-byte footer; the depth frame follows the
  // value frame.
  const std::size_t seek = bytes.size() - 16 - std::size_t{24} * info.block_count;
  const auto le = [&](std::size_t at, int size) {
    std::uint64_t x = 0;
    for (int k = size - 1; k >= 0; --k)
      x = x << 8 | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(k)]);
    return x;
  };
  for (std::uint32_t b = 0; b < info.block_count; ++b) {
    const std::size_t e = seek + std::size_t{24} * b;
    const std::uint64_t depth_at = le(e, 8) + le(e + 8, 4);
    for (std::uint64_t k = 0; k < le(e + 12, 4); ++k)
      bytes[depth_at + k] = '\xff';
  }
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  TableSetOptions o;
  o.verify_checksums = false;
  auto set = TableSet::open(dir(), o);
  int corrupt = 0;
  for (const Pits& p : layer(4, kMax)) {
    int v = 99;
    ASSERT_EQ(set->value(p, v), ProbeStatus::kOk);
    EXPECT_EQ(v, fake_value(kMax, index_of(p, 4)));
    int d = 0;
    corrupt += set->value(p, v, d) == ProbeStatus::kCorruptTable;
  }
  EXPECT_GT(corrupt, 0);
  EXPECT_NE(set->layer_error(kMax).find("depth"), std::string::npos) << set->layer_error(kMax);
}

TEST_F(FakeTables, MoveWorthsFollowFromTheChildren) {
  auto set = TableSet::open(dir());
  const Rules& rules = set->engine();
  for (int n = 0; n <= kMax; ++n) {
    for (const Pits& p : layer(4, n)) {
      MoveWorths moves;
      ASSERT_EQ(set->moves(p, moves), ProbeStatus::kOk);
      MoveList legal;
      ASSERT_EQ(moves.size, rules.legal_moves(p, legal));
      for (int j = 0; j < moves.size; ++j) {
        const MoveWorth& m = moves.moves[j];
        const Move& expect = legal.moves[j];
        EXPECT_EQ(m.move.pit, expect.pit);
        EXPECT_EQ(m.move.child, expect.child);
        const int child_n = n - expect.gain();
        const std::uint64_t ci = index_of(expect.child, 4);
        EXPECT_EQ(m.worth, Rules::worth(expect, fake_value(child_n, ci)));
        EXPECT_EQ(m.depth, expect.gain() > 0 ? 0 : fake_depth(child_n, ci));
      }
      // best_move: the highest worth; then depth (smallest when winning, largest when losing;
      // at 0 a gaining move first, then the smallest depth); then the lowest pit.
      MoveWorth best;
      const ProbeStatus s = set->best_move(p, best);
      if (moves.size == 0) {
        EXPECT_EQ(s, ProbeStatus::kGameOver);
        continue;
      }
      ASSERT_EQ(s, ProbeStatus::kOk);
      int v = -1000;
      for (const MoveWorth& m : moves)
        v = std::max(v, m.worth);
      auto key = [v](const MoveWorth& m) {
        if (v > 0)
          return m.depth;
        if (v < 0)
          return -m.depth;
        return (m.move.gain() > 0 ? 0 : 1 << 20) + m.depth;
      };
      const MoveWorth* expect = nullptr;
      for (const MoveWorth& m : moves) {
        if (m.worth == v && (!expect || key(m) < key(*expect)))
          expect = &m;
      }
      EXPECT_EQ(best.move.pit, expect->move.pit);
      EXPECT_EQ(best.worth, v);
    }
  }
}

// The manifest names the variant, and a missing, damaged, edited, older or lying one is refused
// with a message naming the file and the repair, never guessed around.
TEST_F(FakeTables, ManifestNamesTheVariant) {
  EXPECT_EQ(TableSet::open(dir())->variant().to_string(), "oware/2x4");
  const Variant wari = *parse_variant("wari-kc/2x3");
  write_manifest(dir(), wari);
  auto set = TableSet::open(dir());
  EXPECT_EQ(set->variant().to_string(), "wari-kc/2x3");
  EXPECT_EQ(set->variant().seeds_per_pit, 3);
  const auto refused = [&](const std::string& text, const std::string& want) {
    SCOPED_TRACE(text);
    if (text.empty())
      fs::remove(dir() / kManifestName);
    else
      std::ofstream(dir() / kManifestName, std::ios::trunc) << text;
    try {
      TableSet::open(dir());
      ADD_FAILURE() << "opened";
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(want), std::string::npos) << what;
      EXPECT_NE(what.find("sowdb manifest --tables"), std::string::npos) << what;
    }
  };
  std::string text = manifest_text(wari);
  std::string edited = text;
  edited.replace(edited.find("2x3"), 3, "2x4");
  refused(edited, "checksum does not match");
  refused("", "sowdb.json is missing");
  refused("garbage", "not a manifest");
  refused("{\"variant\": \"nonsense/2x4\"}\n", "bad variant");
  refused("{\"variant\": \"wari-kc/2x3\"}\n", "no checksum");
  refused(manifest_text(*parse_variant("abapa/2x4")), "layer-000.sdb holds");
  std::string corrupt = text;
  corrupt[corrupt.size() - 4] ^= 1;
  refused(corrupt, "checksum does not match");
}

// The manifest's text reads back as what was written, and every field counts.
TEST(Manifest, ReadsBackWhatIsWritten) {
  for (const char* name : {"oware/6x4", "kalah-irving/4x3", "wari-us/3x2/skip_origin=off"}) {
    const Variant v = *parse_variant(name);
    const ManifestContent c = parse_manifest(manifest_text(v));
    EXPECT_TRUE(c.error.empty()) << c.error;
    ASSERT_TRUE(c.variant);
    EXPECT_EQ(c.variant->to_string(), v.to_string());
    EXPECT_FALSE(c.legacy);
  }
  const ManifestContent legacy = parse_manifest("{\"variant\": \"oware/6x4\"}\n");
  EXPECT_TRUE(legacy.legacy);
  EXPECT_FALSE(legacy.error.empty());
  ASSERT_TRUE(legacy.variant);
  EXPECT_EQ(legacy.variant->to_string(), "oware/6x4");
  // The rules text must be the variant's, even with a checksum made to match.
  std::string text = manifest_text(*parse_variant("oware/6x4"));
  EXPECT_TRUE(parse_manifest(text).error.empty());
  text.replace(text.find("6 pits"), 6, "5 pits");
  EXPECT_FALSE(parse_manifest(text).error.empty());
}

TEST_F(FakeTables, ProbesFromManyThreadsAgree) {
  auto set = TableSet::open(dir());
  const std::vector<Pits> all = layer(4, kMax);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (const Pits& p : all) {
          int v = 0;
          int d = 0;
          if (set->value(p, v, d) != ProbeStatus::kOk || v != fake_value(kMax, index_of(p, 4))) {
            ++mismatches[t];
          }
        }
      }
    });
  }
  for (auto& th : threads)
    th.join();
  for (int m : mismatches)
    EXPECT_EQ(m, 0);
}

// read_layer with its tasks on four threads gives what it gives on one, and what value() gives.
TEST_F(FakeTables, ReadLayerFromThreads) {
  auto set = TableSet::open(dir());
  ReadLayerOptions threaded;
  threaded.executor = [](std::size_t tasks, const std::function<void(std::size_t)>& task) {
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (std::size_t i; (i = next.fetch_add(1)) < tasks;)
          task(i);
      });
    }
    for (auto& th : threads)
      th.join();
  };
  for (int n = 0; n <= kMax; ++n) {
    const std::uint64_t size = layer_size(4, n);
    std::vector<std::int8_t> one(size);
    std::vector<std::int8_t> four(size);
    std::vector<std::uint16_t> depths(size, 7777);
    std::mutex mutex;
    threaded.depths = [&](std::uint64_t first, std::span<const std::uint16_t> block) {
      std::lock_guard lock(mutex);
      std::copy(block.begin(), block.end(), depths.begin() + static_cast<std::ptrdiff_t>(first));
    };
    ASSERT_EQ(set->read_layer(n, {}, one, nullptr), ProbeStatus::kOk);
    ASSERT_EQ(set->read_layer(n, {}, four, nullptr, threaded), ProbeStatus::kOk);
    EXPECT_EQ(one, four);
    for (std::uint64_t i = 0; i < size; ++i) {
      EXPECT_EQ(four[i], fake_value(n, i));
      EXPECT_EQ(depths[i], fake_depth(n, i));
    }
  }
}

// The C ABI from several threads at once: probes of one handle agree, and each thread's
// sowdb_last_error() keeps its own last failure while the others fail differently.
TEST(CApi, ThreadsProbeOneHandleAndKeepTheirOwnErrors) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5);
  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(tmp.path().c_str(), &h), SOWDB_OK);
  constexpr int kThreads = 4;
  std::barrier sync(kThreads);
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        for (const Pits& p : layer(4, 5)) {
          std::int32_t v = 0;
          std::int32_t d = 0;
          if (sowdb_probe_value(h, p.data(), 4, &v, &d) != SOWDB_OK ||
              v != fake_value(5, index_of(p, 4)) || d != fake_depth(5, index_of(p, 4))) {
            ++wrong[t];
          }
        }
        // Each thread fails with its own seed count, then waits until all have failed.
        Pits too_many{};
        too_many[0] = static_cast<std::uint8_t>(6 + t);
        std::int32_t v = 0;
        if (sowdb_probe_value(h, too_many.data(), 4, &v, nullptr) != SOWDB_ERR_TOO_MANY_STONES)
          ++wrong[t];
        sync.arrive_and_wait();
        const std::string mine = "has " + std::to_string(6 + t) + " seeds";
        if (std::string(sowdb_last_error()).find(mine) == std::string::npos)
          ++wrong[t];
        sync.arrive_and_wait();
      }
    });
  }
  for (auto& th : threads)
    th.join();
  sowdb_close(h);
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

TEST_F(FakeTables, TooManyStonesIsAStatus) {
  auto set = TableSet::open(dir());
  Pits p{};
  p[0] = kMax + 1;
  int v = 0;
  int d = 0;
  EXPECT_EQ(set->value(p, v, d), ProbeStatus::kTooManyStones);
  EXPECT_EQ(set->explain(ProbeStatus::kTooManyStones, p),
            "position has 7 seeds; tables in " + dir().string() + " hold up to 6");
  PrincipalLine line;
  EXPECT_EQ(set->principal_line(p, line), ProbeStatus::kTooManyStones);
}

// Counts of one read in the singular: "1 seed", "room for 1 move" (issue 20, item 7).
TEST_F(FakeTables, MessagesCountOneInTheSingular) {
  TempDir tmp("singular");
  write_fake_tables(tmp / "t", small_rules(), 0);
  auto set = TableSet::open(tmp / "t");
  Pits one{};
  one[1] = 1;
  int v = 0;
  EXPECT_EQ(set->value(one, v), ProbeStatus::kTooManyStones);
  EXPECT_EQ(set->explain(ProbeStatus::kTooManyStones, one),
            "position has 1 seed; tables in " + (tmp / "t").string() + " hold up to 0");

  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(dir().c_str(), &h), SOWDB_OK) << sowdb_last_error();
  const std::uint8_t two_moves[4] = {1, 1, 0, 1};
  sowdb_move_worth out[1];
  std::int32_t count = 0;
  EXPECT_EQ(sowdb_probe_moves(h, two_moves, 4, out, 1, &count), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(count, 2);
  EXPECT_STREQ(sowdb_last_error(), "sowdb_probe_moves: room for 1 move, 2 needed");
  sowdb_close(h);
}

TEST(TableSetOpen, RefusesBadDirectories) {
  TempDir tmp;
  EXPECT_THROW(TableSet::open(tmp.path() / "missing"), std::runtime_error);
  EXPECT_THROW(TableSet::open(tmp.path()), std::runtime_error);  // empty
  std::ofstream(tmp.path() / "file") << "x";
  EXPECT_THROW(TableSet::open(tmp.path() / "file"), std::runtime_error);
  // Two boards in one directory.
  write_fake_tables(tmp.path() / "mixed", small_rules(2), 3);
  write_fake_tables(tmp.path() / "other", small_rules(3), 5);
  fs::copy_file(tmp.path() / "other" / "layer-005.sdb", tmp.path() / "mixed" / "layer-005.sdb");
  try {
    TableSet::open(tmp.path() / "mixed");
    ADD_FAILURE() << "opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("different rule sets"), std::string::npos) << e.what();
  }
}

TEST(ProbeStatusText, Names) {
  EXPECT_STREQ(to_string(ProbeStatus::kOk), "Ok");
  EXPECT_STREQ(to_string(ProbeStatus::kTooManyStones), "TooManyStones");
  EXPECT_STREQ(to_string(ProbeStatus::kGameOver), "GameOver");
}

// The C ABI: the header compiles as C99 (c_header_test.c), and bad arguments are statuses.
TEST(CApi, HeaderCompilesAsCAndWorks) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5);
  std::int32_t value = -100;
  EXPECT_EQ(sowdb_c_header_check(tmp.path().c_str(), &value), 0) << sowdb_last_error();
  Pits ones{1, 1, 1, 1};
  EXPECT_EQ(value, fake_value(4, index_of(ones, 4)));
}

// sowdb_probe_value_only: the value of sowdb_probe_value, and the same statuses.
TEST(CApi, ValueOnly) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5);
  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(tmp.path().c_str(), &h), SOWDB_OK);
  for (int n = 0; n <= 5; ++n) {
    for (const Pits& p : layer(4, n)) {
      std::int32_t v = -100;
      std::int32_t d = -1;
      ASSERT_EQ(sowdb_probe_value(h, p.data(), 4, &v, &d), SOWDB_OK);
      std::int32_t only = -100;
      ASSERT_EQ(sowdb_probe_value_only(h, p.data(), 4, &only), SOWDB_OK);
      EXPECT_EQ(only, v);
      EXPECT_EQ(only, fake_value(n, index_of(p, 4)));
    }
  }
  std::uint8_t pits[4] = {6, 0, 0, 0};
  std::int32_t v = 7;
  EXPECT_EQ(sowdb_probe_value_only(h, pits, 4, &v), SOWDB_ERR_TOO_MANY_STONES);
  EXPECT_NE(std::string(sowdb_last_error()).find("hold up to 5"), std::string::npos);
  EXPECT_EQ(v, 7);
  EXPECT_EQ(sowdb_probe_value_only(h, pits, 3, &v), SOWDB_ERR_BAD_POSITION);
  EXPECT_EQ(sowdb_probe_value_only(h, pits, 4, nullptr), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(sowdb_probe_value_only(h, nullptr, 4, &v), SOWDB_ERR_ARGUMENT);
  sowdb_close(h);
}

// sowdb_open_with_cache: any cache size, none included, gives the values of sowdb_open.
TEST(CApi, OpenWithCacheOfAnySize) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5);
  for (const std::uint64_t blocks : {std::uint64_t{0},
                                     std::uint64_t{1},
                                     std::uint64_t{3},
                                     std::uint64_t{1} << 20,
                                     std::numeric_limits<std::uint64_t>::max()}) {
    sowdb_tables* h = nullptr;
    ASSERT_EQ(sowdb_open_with_cache(tmp.path().c_str(), blocks, &h), SOWDB_OK)
        << blocks << ": " << sowdb_last_error();
    for (int n = 0; n <= 5; ++n) {
      for (const Pits& p : layer(4, n)) {
        std::int32_t v = -100;
        std::int32_t d = -1;
        ASSERT_EQ(sowdb_probe_value(h, p.data(), 4, &v, &d), SOWDB_OK) << blocks;
        EXPECT_EQ(v, fake_value(n, index_of(p, 4))) << blocks;
      }
    }
    sowdb_close(h);
  }
  sowdb_tables* h = reinterpret_cast<sowdb_tables*>(1);
  EXPECT_EQ(sowdb_open_with_cache(nullptr, 8, &h), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(h, nullptr);
  EXPECT_STREQ(sowdb_last_error(), "sowdb_open_with_cache: null argument");
  EXPECT_EQ(sowdb_open_with_cache("/nonexistent/sowdb", 8, &h), SOWDB_ERR_OPEN);
  EXPECT_EQ(h, nullptr);
}

// sowdb_open_opts: the options struct reaches the same caches as the older calls; its errors
// name it; the version call and macros agree.
TEST(CApi, OpenWithOptions) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5);
  sowdb_open_options options;
  sowdb_open_options_init(&options);
  EXPECT_EQ(options.cache_blocks, TableSetOptions{}.cache_blocks);
  for (const int separate : {0, 1}) {
    options.separate_depth_cache = separate;
    options.cache_blocks = 1;
    options.depth_cache_blocks = 3;
    sowdb_tables* h = nullptr;
    ASSERT_EQ(sowdb_open_opts(tmp.path().c_str(), &options, &h), SOWDB_OK) << sowdb_last_error();
    for (int n = 0; n <= 5; ++n) {
      for (const Pits& p : layer(4, n)) {
        std::int32_t v = -100;
        std::int32_t d = -1;
        ASSERT_EQ(sowdb_probe_value(h, p.data(), 4, &v, &d), SOWDB_OK);
        EXPECT_EQ(v, fake_value(n, index_of(p, 4)));
        EXPECT_EQ(d, fake_depth(n, index_of(p, 4)));
      }
    }
    sowdb_close(h);
  }
  sowdb_tables* h = reinterpret_cast<sowdb_tables*>(1);
  EXPECT_EQ(sowdb_open_opts(nullptr, &options, &h), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(h, nullptr);
  EXPECT_STREQ(sowdb_last_error(), "sowdb_open_opts: null argument");
  sowdb_open_options_init(nullptr);  // ignored
  EXPECT_STREQ(sowdb_version(), SOWDB_VERSION_STRING);
  EXPECT_EQ(std::string(SOWDB_VERSION_STRING),
            std::to_string(SOWDB_VERSION_MAJOR) + "." + std::to_string(SOWDB_VERSION_MINOR) + "." +
                std::to_string(SOWDB_VERSION_PATCH));
}

// sowdb_open_with_caches: any pair of cache sizes, none included, gives the values and depths
// that the tables hold; its errors name it.
TEST(CApi, OpenWithCachesOfAnySizes) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5);
  constexpr std::uint64_t kAll = std::numeric_limits<std::uint64_t>::max();
  const std::pair<std::uint64_t, std::uint64_t> sizes[] = {
      {0, 0}, {1, 0}, {0, 1}, {3, 2}, {std::uint64_t{1} << 20, 0}, {kAll, kAll}};
  for (const auto& [value_blocks, depth_blocks] : sizes) {
    sowdb_tables* h = nullptr;
    ASSERT_EQ(sowdb_open_with_caches(tmp.path().c_str(), value_blocks, depth_blocks, &h), SOWDB_OK)
        << value_blocks << "," << depth_blocks << ": " << sowdb_last_error();
    for (int n = 0; n <= 5; ++n) {
      for (const Pits& p : layer(4, n)) {
        std::int32_t v = -100;
        std::int32_t d = -1;
        ASSERT_EQ(sowdb_probe_value(h, p.data(), 4, &v, &d), SOWDB_OK);
        EXPECT_EQ(v, fake_value(n, index_of(p, 4))) << value_blocks << "," << depth_blocks;
        EXPECT_EQ(d, fake_depth(n, index_of(p, 4))) << value_blocks << "," << depth_blocks;
      }
    }
    sowdb_close(h);
  }
  sowdb_tables* h = reinterpret_cast<sowdb_tables*>(1);
  EXPECT_EQ(sowdb_open_with_caches(nullptr, 8, 8, &h), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(h, nullptr);
  EXPECT_STREQ(sowdb_last_error(), "sowdb_open_with_caches: null argument");
  EXPECT_EQ(sowdb_open_with_caches(tmp.path().c_str(), 8, 8, nullptr), SOWDB_ERR_ARGUMENT);
  h = reinterpret_cast<sowdb_tables*>(1);
  EXPECT_EQ(sowdb_open_with_caches("/nonexistent/sowdb", 8, 8, &h), SOWDB_ERR_OPEN);
  EXPECT_EQ(h, nullptr);
  EXPECT_NE(std::string(sowdb_last_error()).find("/nonexistent/sowdb"), std::string::npos);
}

TEST(CApi, NullAndBadArguments) {
  sowdb_tables* h = reinterpret_cast<sowdb_tables*>(1);
  EXPECT_EQ(sowdb_open(nullptr, &h), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(h, nullptr);
  EXPECT_EQ(sowdb_open("/nonexistent/sowdb", nullptr), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(sowdb_open("/nonexistent/sowdb", &h), SOWDB_ERR_OPEN);
  EXPECT_NE(std::string(sowdb_last_error()).find("/nonexistent/sowdb"), std::string::npos);
  sowdb_close(nullptr);
  EXPECT_EQ(sowdb_pits(nullptr), 0);
  EXPECT_EQ(sowdb_max_stones(nullptr), -1);
  EXPECT_STREQ(sowdb_variant_name(nullptr), "");
  std::uint8_t pits[4] = {1, 1, 1, 1};
  std::int32_t v = 0;
  EXPECT_EQ(sowdb_probe_value(nullptr, pits, 4, &v, nullptr), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(sowdb_probe_value_only(nullptr, pits, 4, &v), SOWDB_ERR_ARGUMENT);
  sowdb_move_worth m;
  std::int32_t count = 0;
  EXPECT_EQ(sowdb_probe_moves(nullptr, pits, 4, &m, 1, &count), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(sowdb_best_move(nullptr, pits, 4, &m), SOWDB_ERR_ARGUMENT);
  std::uint8_t child[16];
  EXPECT_EQ(sowdb_play(nullptr, pits, 4, 0, child, nullptr, nullptr), SOWDB_ERR_ARGUMENT);
  EXPECT_STREQ(sowdb_status_name(SOWDB_OK), "SOWDB_OK");
  EXPECT_STREQ(sowdb_status_name(SOWDB_ERR_INTERNAL), "SOWDB_ERR_INTERNAL");
}

}  // namespace
}  // namespace sowdb::test
