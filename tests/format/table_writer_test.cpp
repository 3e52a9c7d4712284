// The table writer: its depth source and executor give the same bytes, bad arguments are refused,
// and the temporary-then-rename write (the atomic file) leaves the old file and no temporary
// when anything fails: the source, the executor, a missing or read-only directory, a full disk.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <stdexcept>
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
using test::write_bytes;

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

}  // namespace
}  // namespace sowdb
