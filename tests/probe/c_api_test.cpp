// The C ABI (sowdb.h) on small hand-written tables (fake_tables.h): the header compiles as C99,
// every way to open gives the tables' values, threads share a handle and keep their own errors,
// and null or bad arguments come back as statuses.
#include <gtest/gtest.h>

#include <barrier>
#include <cstdint>
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
