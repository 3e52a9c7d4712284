// TableSet on small hand-written tables (fake_tables.h): values, depths, moves and best moves
// come back from the files, the manifest names the variant, threads agree, refusals and statuses
// say why. The C ABI: c_api_test.cpp; the generator's real tables: tests/gen/probe_tables_test.cpp.
#include "sowdb/probe/tables.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fake_tables.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/sowdb.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb::test {
namespace {
namespace fs = std::filesystem;

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
      EXPECT_EQ(best.depth, expect->depth);
    }
  }
}

// The principal line is best_move played again and again, step for step (it looks up depths
// only where moves tie, best_move every move's), to its end or its ply limit.
TEST_F(FakeTables, PrincipalLineFollowsBestMoves) {
  auto set = TableSet::open(dir());
  int ties = 0;
  for (int n = 0; n <= kMax; ++n) {
    for (const Pits& start : layer(4, n)) {
      for (const int max_plies : {3, 1000}) {
        PrincipalLine line;
        ASSERT_EQ(set->principal_line(start, line, max_plies), ProbeStatus::kOk);
        Pits pos = start;
        int mover = 0;
        for (const LineStep& step : line.steps) {
          EXPECT_EQ(step.before, pos);
          EXPECT_EQ(step.mover, mover);
          MoveWorths all;
          ASSERT_EQ(set->moves(pos, all), ProbeStatus::kOk);
          MoveWorth best;
          ASSERT_EQ(set->best_move(pos, best), ProbeStatus::kOk);
          ties += std::count_if(all.begin(), all.end(), [&](const MoveWorth& m) {
                    return m.worth == best.worth;
                  }) > 1;
          ASSERT_EQ(step.pit, best.move.pit);
          pos = best.move.child;
          if (!best.move.extra_turn)
            mover ^= 1;
        }
        EXPECT_EQ(line.last, pos);
        EXPECT_EQ(line.last_mover, mover);
        MoveWorth next;
        if (line.end == LineEnd::kGameOver) {
          EXPECT_EQ(set->best_move(pos, next), ProbeStatus::kGameOver);
        }
        if (line.end == LineEnd::kMaxPlies) {
          EXPECT_EQ(static_cast<int>(line.steps.size()), max_plies);
        }
      }
    }
  }
  EXPECT_GT(ties, 0);  // the tables make depth break ties, so the test can see a wrong one
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
  // The library states the cause (as text and as an OpenError) and the layers' rules, never a
  // command line: the remedy is the front end's to give.
  const auto refused = [&](const std::string& text,
                           const std::string& want,
                           OpenError cause = OpenError::kManifestDamaged) {
    SCOPED_TRACE(text);
    if (text.empty())
      fs::remove(dir() / kManifestName);
    else
      std::ofstream(dir() / kManifestName, std::ios::trunc) << text;
    try {
      TableSet::open(dir());
      ADD_FAILURE() << "opened";
    } catch (const TableSetError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(want), std::string::npos) << what;
      EXPECT_EQ(what.find("--"), std::string::npos) << what;
      EXPECT_EQ(what.find("sowdb manifest"), std::string::npos) << what;
      EXPECT_EQ(e.cause(), cause) << what;
      EXPECT_EQ(e.directory(), dir());
      EXPECT_EQ(e.layer_rules(), describe(small_rules()));
    }
  };
  std::string text = manifest_text(wari);
  std::string edited = text;
  edited.replace(edited.find("2x3"), 3, "2x4");
  refused(edited, "checksum does not match");
  refused("", "sowdb.json is missing", OpenError::kManifestMissing);
  refused("garbage", "not a manifest");
  refused("{\"variant\": \"nonsense/2x4\"}\n", "bad variant");
  refused("{\"variant\": \"wari-kc/2x3\"}\n", "no checksum", OpenError::kManifestUnconfirmed);
  refused(manifest_text(*parse_variant("abapa/2x4")),
          "layer-000.sdb holds",
          OpenError::kManifestMismatch);
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
  threads.reserve(4);
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
    threads.reserve(4);
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
  ASSERT_EQ(sowdb_open(dir().c_str(), nullptr, &h), SOWDB_OK) << sowdb_last_error();
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

}  // namespace
}  // namespace sowdb::test
