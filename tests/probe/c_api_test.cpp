// The C ABI (sowdb.h) on small hand-written tables (fake_tables.h): the header compiles as C99,
// every way to open gives the tables' values, threads share a handle and keep their own errors,
// and null or bad arguments come back as statuses.
#include <gtest/gtest.h>

#include <barrier>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fake_tables.h"
#include "sowdb/probe/sowdb.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

extern "C" int sowdb_c_header_check(const char* dir, int32_t* value_out);

namespace sowdb::test {
namespace {

// The C ABI from several threads at once: probes of one handle agree, and each thread's
// sowdb_last_error() keeps its own last failure while the others fail differently.
TEST(CApi, ThreadsProbeOneHandleAndKeepTheirOwnErrors) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5);
  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(tmp.path().c_str(), nullptr, &h), SOWDB_OK);
  constexpr int kThreads = 4;
  std::barrier sync(kThreads);
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
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
  ASSERT_EQ(sowdb_open(tmp.path().c_str(), nullptr, &h), SOWDB_OK);
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

// sowdb_open with options: any cache size in bytes, none included, one cache or two, gives the
// values and depths the tables hold.
TEST(CApi, OpenWithCachesOfAnyByteSize) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5);
  constexpr std::uint64_t kAll = std::numeric_limits<std::uint64_t>::max();
  const std::pair<std::uint64_t, std::uint64_t> sizes[] = {{0, 0},
                                                           {1, 0},
                                                           {0, 1},
                                                           {3, 2},
                                                           {48, 32},
                                                           {8192, 0},
                                                           {std::uint64_t{1} << 20, 0},
                                                           {kAll, kAll}};
  for (const int separate : {0, 1}) {
    for (const auto& [value_bytes, depth_bytes] : sizes) {
      sowdb_open_options options;
      sowdb_open_options_init(&options);
      options.separate_depth_cache = separate;
      options.cache_bytes = value_bytes;
      options.depth_cache_bytes = depth_bytes;
      const std::string what = std::to_string(separate) + ":" + std::to_string(value_bytes) + "," +
                               std::to_string(depth_bytes);
      sowdb_tables* h = nullptr;
      ASSERT_EQ(sowdb_open(tmp.path().c_str(), &options, &h), SOWDB_OK)
          << what << ": " << sowdb_last_error();
      for (int n = 0; n <= 5; ++n) {
        for (const Pits& p : layer(4, n)) {
          std::int32_t v = -100;
          std::int32_t d = -1;
          ASSERT_EQ(sowdb_probe_value(h, p.data(), 4, &v, &d), SOWDB_OK) << what;
          EXPECT_EQ(v, fake_value(n, index_of(p, 4))) << what;
          EXPECT_EQ(d, fake_depth(n, index_of(p, 4))) << what;
        }
      }
      sowdb_close(h);
    }
  }
}

// Version 6 tables read with pread (the default) and mapped (memory_map) give the tables'
// values and depths; a layer file cut short under an open handle read the default way makes
// the probes that need it fail with SOWDB_ERR_CORRUPT_TABLE, never a wrong answer or a crash.
TEST(CApi, Version6ReadOrMappedAndCutShort) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5, 6);
  for (const int map : {0, 1}) {
    sowdb_open_options options;
    sowdb_open_options_init(&options);
    options.cache_bytes = 0;
    options.memory_map = map;
    sowdb_tables* h = nullptr;
    ASSERT_EQ(sowdb_open(tmp.path().c_str(), &options, &h), SOWDB_OK) << sowdb_last_error();
    for (int n = 0; n <= 5; ++n) {
      for (const Pits& p : layer(4, n)) {
        std::int32_t v = -100;
        std::int32_t d = -1;
        ASSERT_EQ(sowdb_probe_value(h, p.data(), 4, &v, &d), SOWDB_OK) << map;
        EXPECT_EQ(v, fake_value(n, index_of(p, 4))) << map;
        EXPECT_EQ(d, fake_depth(n, index_of(p, 4))) << map;
        ASSERT_EQ(sowdb_probe_value_only(h, p.data(), 4, &v), SOWDB_OK) << map;
        EXPECT_EQ(v, fake_value(n, index_of(p, 4))) << map;
      }
    }
    sowdb_close(h);
  }
  sowdb_open_options options;
  sowdb_open_options_init(&options);
  options.cache_bytes = 0;
  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(tmp.path().c_str(), &options, &h), SOWDB_OK) << sowdb_last_error();
  const Pits first = layer(4, 5).front();
  std::int32_t v = -100;
  ASSERT_EQ(sowdb_probe_value_only(h, first.data(), 4, &v), SOWDB_OK);  // opens layer 5
  const auto file = tmp.path() / "layer-005.sdb";
  std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
  int refused = 0;
  for (const Pits& p : layer(4, 5)) {
    std::int32_t d = -1;
    const sowdb_status s = sowdb_probe_value(h, p.data(), 4, &v, &d);
    if (s == SOWDB_OK) {
      EXPECT_EQ(v, fake_value(5, index_of(p, 4)));
      EXPECT_EQ(d, fake_depth(5, index_of(p, 4)));
    } else {
      ASSERT_EQ(s, SOWDB_ERR_CORRUPT_TABLE) << sowdb_last_error();
      EXPECT_NE(std::string(sowdb_last_error()).find("layer-005.sdb"), std::string::npos)
          << sowdb_last_error();
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
  sowdb_close(h);
}

// The options struct: init sets the defaults and its size; NULL means the defaults; a caller
// compiled against a shorter struct (struct_size covering the first fields only) gets the
// defaults for the rest; a struct_size too small for even those is refused, naming the cause.
TEST(CApi, OpenOptionsCarryTheirSize) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5);
  sowdb_open_options options;
  sowdb_open_options_init(&options);
  EXPECT_EQ(options.struct_size, sizeof options);
  EXPECT_EQ(options.cache_bytes, std::uint64_t{SOWDB_DEFAULT_CACHE_BYTES});
  EXPECT_EQ(options.cache_bytes, kDefaultCacheBytes);
  EXPECT_EQ(options.separate_depth_cache, 0);
  EXPECT_EQ(options.depth_cache_bytes, 0u);
  EXPECT_EQ(options.memory_map, 0);
  sowdb_open_options_init(nullptr);  // ignored

  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(tmp.path().c_str(), nullptr, &h), SOWDB_OK) << sowdb_last_error();
  sowdb_close(h);

  // An older caller's struct: only struct_size and separate_depth_cache; the bytes after it are
  // garbage the library must not read.
  sowdb_open_options old;
  std::memset(&old, 0xFF, sizeof old);
  old.struct_size = offsetof(sowdb_open_options, cache_bytes);
  old.separate_depth_cache = 0;
  h = nullptr;
  ASSERT_EQ(sowdb_open(tmp.path().c_str(), &old, &h), SOWDB_OK) << sowdb_last_error();
  const Pits p = layer(4, 3).front();
  std::int32_t v = -100;
  ASSERT_EQ(sowdb_probe_value_only(h, p.data(), 4, &v), SOWDB_OK);
  EXPECT_EQ(v, fake_value(3, index_of(p, 4)));
  sowdb_close(h);

  sowdb_open_options tiny = options;
  tiny.struct_size = 4;
  h = reinterpret_cast<sowdb_tables*>(1);
  EXPECT_EQ(sowdb_open(tmp.path().c_str(), &tiny, &h), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(h, nullptr);
  EXPECT_NE(std::string(sowdb_last_error()).find("struct_size is 4"), std::string::npos)
      << sowdb_last_error();

  EXPECT_STREQ(sowdb_version(), SOWDB_VERSION_STRING);
  EXPECT_EQ(std::string(SOWDB_VERSION_STRING),
            std::to_string(SOWDB_VERSION_MAJOR) + "." + std::to_string(SOWDB_VERSION_MINOR) + "." +
                std::to_string(SOWDB_VERSION_PATCH));
}

// The status numbers are a stable ABI: each keeps the number the header promises.
TEST(CApi, StatusNumbersAreStable) {
  EXPECT_EQ(SOWDB_OK, 0);
  EXPECT_EQ(SOWDB_ERR_ARGUMENT, 1);
  EXPECT_EQ(SOWDB_ERR_BAD_POSITION, 2);
  EXPECT_EQ(SOWDB_ERR_TOO_MANY_STONES, 3);
  EXPECT_EQ(SOWDB_ERR_MISSING_TABLE, 4);
  EXPECT_EQ(SOWDB_ERR_CORRUPT_TABLE, 5);
  EXPECT_EQ(SOWDB_ERR_OPEN, 6);
  EXPECT_EQ(SOWDB_ERR_GAME_OVER, 7);
  EXPECT_EQ(SOWDB_ERR_ILLEGAL_MOVE, 8);
  EXPECT_EQ(SOWDB_ERR_INTERNAL, 9);
  EXPECT_EQ(SOWDB_ERR_WRONG_OBJECTIVE, 10);
  EXPECT_EQ(SOWDB_ERR_UNREACHABLE, 11);
  EXPECT_EQ(SOWDB_LOSS, -1);
  EXPECT_EQ(SOWDB_DRAW, 0);
  EXPECT_EQ(SOWDB_WIN, 1);
}

// Pits: the board's 2P (the array length) and the side's P, and the deprecated name of 2P.
TEST(CApi, BoardPitsAndPitsPerSide) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5);
  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(tmp.path().c_str(), nullptr, &h), SOWDB_OK) << sowdb_last_error();
  EXPECT_EQ(sowdb_board_pits(h), 4);
  EXPECT_EQ(sowdb_pits_per_side(h), 2);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_EQ(sowdb_pits(h), 4);
#pragma GCC diagnostic pop
  sowdb_close(h);
  EXPECT_EQ(sowdb_board_pits(nullptr), 0);
  EXPECT_EQ(sowdb_pits_per_side(nullptr), 0);
}

// sowdb_probe_wdl is sowdb_probe_value_only then sowdb_game_outcome in one call: the same
// value, result, majority and (doubled) final scores for every position of the tables and many
// stores; impossible stores and bad arguments come back as statuses with the cause.
TEST(CApi, ProbeWdlAgreesWithValueAndOutcome) {
  TempDir tmp;
  write_fake_tables(tmp.path(), small_rules(), 5);  // oware/2x4: 16 seeds in a game
  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(tmp.path().c_str(), nullptr, &h), SOWDB_OK) << sowdb_last_error();
  int checked = 0;
  for (int n = 0; n <= 5; ++n) {
    for (const Pits& p : layer(4, n)) {
      std::int32_t v = -100;
      ASSERT_EQ(sowdb_probe_value_only(h, p.data(), 4, &v), SOWDB_OK);
      for (int a = 0; a <= 12; a += 3) {
        for (int b = 0; b <= 12; b += 4) {
          sowdb_outcome want{};
          const sowdb_status ws = sowdb_game_outcome(h, v, a, b, n, &want);
          sowdb_wdl got{};
          const sowdb_status gs = sowdb_probe_wdl(h, p.data(), 4, a, b, &got);
          ASSERT_EQ(gs, ws) << sowdb_last_error();
          if (gs != SOWDB_OK)
            continue;
          ++checked;
          EXPECT_EQ(got.value, v);
          EXPECT_EQ(got.result, want.result);
          EXPECT_EQ(got.decided, want.decided);
          EXPECT_EQ(got.final_mover_x2, static_cast<std::int32_t>(2 * want.final_mover));
          EXPECT_EQ(got.final_opponent_x2, static_cast<std::int32_t>(2 * want.final_opponent));
        }
      }
    }
  }
  EXPECT_GT(checked, 500);
  const Pits p = layer(4, 4).back();
  sowdb_wdl w{};
  EXPECT_EQ(sowdb_probe_wdl(h, p.data(), 4, 10, 3, &w), SOWDB_ERR_ARGUMENT);
  EXPECT_NE(std::string(sowdb_last_error()).find("a game of oware/2x4 holds 16"), std::string::npos)
      << sowdb_last_error();
  EXPECT_EQ(sowdb_probe_wdl(h, p.data(), 4, -1, 0, &w), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(sowdb_probe_wdl(h, p.data(), 4, 0, 0, nullptr), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(sowdb_probe_wdl(h, p.data(), 3, 0, 0, &w), SOWDB_ERR_BAD_POSITION);
  EXPECT_EQ(sowdb_probe_wdl(nullptr, p.data(), 4, 0, 0, &w), SOWDB_ERR_ARGUMENT);
  const Pits big = {9, 0, 0, 0};  // 9 seeds: past the tables' 5
  EXPECT_EQ(sowdb_probe_wdl(h, big.data(), 4, 0, 0, &w), SOWDB_ERR_TOO_MANY_STONES);
  sowdb_close(h);
}

TEST(CApi, NullAndBadArguments) {
  sowdb_tables* h = reinterpret_cast<sowdb_tables*>(1);
  EXPECT_EQ(sowdb_open(nullptr, nullptr, &h), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(h, nullptr);
  EXPECT_STREQ(sowdb_last_error(), "sowdb_open: null argument");
  EXPECT_EQ(sowdb_open("/nonexistent/sowdb", nullptr, nullptr), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(sowdb_open("/nonexistent/sowdb", nullptr, &h), SOWDB_ERR_OPEN);
  EXPECT_NE(std::string(sowdb_last_error()).find("/nonexistent/sowdb"), std::string::npos);
  sowdb_close(nullptr);
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
