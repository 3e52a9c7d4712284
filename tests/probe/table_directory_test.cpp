// The table directory's owner (table_directory.h, directory_writer.h): names, the scan, gaps,
// what writers left behind, sizes, the agreement of the headers and the lock.
#include "sowdb/probe/table_directory.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fake_tables.h"
#include "sowdb/probe/directory_writer.h"

namespace sowdb {
namespace {

using test::TempDir;

// Writes `bytes` bytes into `path`.
void touch(const std::filesystem::path& path, std::size_t bytes = 0) {
  std::ofstream out(path, std::ios::binary);
  out << std::string(bytes, 'x');
}

// The id of a process that has ended (a child, waited for).
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST(TableDirectory, NamesItsFiles) {
  EXPECT_EQ(layer_file_name(0), "layer-000.sdb");
  EXPECT_EQ(layer_file_name(127), "layer-127.sdb");
  EXPECT_EQ(parse_layer_file_name("layer-042.sdb"), 42);
  for (const char* other : {"layer-7.sdb",
                            "layer-0007.sdb",
                            "layer-042.sdb.tmp.12",
                            "layer-04a.sdb",
                            "layer-.sdb",
                            "layer-042.sdb.plain",
                            "sowdb.json"}) {
    EXPECT_FALSE(parse_layer_file_name(other)) << other;
  }
  EXPECT_EQ(temporary_name(kManifestName, 42), "sowdb.json.tmp.42");
  EXPECT_EQ(temporary_name(layer_file_name(3), 7), "layer-003.sdb.tmp.7");
  EXPECT_STREQ(kLockName, ".sowdb.lock");
  EXPECT_STREQ(kMigratingName, "sowdb.migrating");
}

TEST(TableDirectory, FindsLayersAndTheFirstGap) {
  TempDir dir;
  EXPECT_TRUE(layer_numbers(dir / "missing").empty());
  EXPECT_FALSE(find_gap(dir / "missing"));
  for (const char* name : {"layer-000.sdb",
                           "layer-001.sdb",
                           "layer-003.sdb",
                           "layer-005.sdb",
                           "layer-7.sdb",
                           "layer-002.sdb.tmp.1",
                           "sowdb.json"}) {
    touch(dir / name);
  }
  EXPECT_EQ(layer_numbers(dir.path()), (std::vector<int>{0, 1, 3, 5}));
  EXPECT_EQ(contiguous_top(layer_numbers(dir.path())), 1);
  const auto gap = find_gap(dir.path());
  ASSERT_TRUE(gap);
  EXPECT_EQ(gap->missing, 2);
  EXPECT_EQ(gap->above, 3);
  touch(dir / "layer-002.sdb");
  EXPECT_EQ(find_gap(dir.path())->missing, 4);
  EXPECT_EQ(find_gap(dir.path())->above, 5);
  touch(dir / "layer-004.sdb");
  EXPECT_FALSE(find_gap(dir.path()));
  EXPECT_EQ(contiguous_top(layer_numbers(dir.path())), 5);
  // Without layer 0 every layer present is above the gap.
  EXPECT_EQ(contiguous_top({1, 2}), -1);
  EXPECT_EQ(find_gap(std::vector<int>{1, 2})->missing, 0);
  EXPECT_EQ(find_gap(std::vector<int>{1, 2})->above, 1);
  EXPECT_FALSE(find_gap(std::vector<int>{}));
}

TEST(TableDirectory, SizesItsFiles) {
  TempDir dir;
  EXPECT_EQ(directory_sizes(dir / "missing", 10).total, 0u);
  touch(dir / "layer-000.sdb", 10);
  touch(dir / "layer-001.sdb", 20);
  touch(dir / "layer-003.sdb", 40);
  touch(dir / "layer-003.sdb.tmp.9", 1000);
  touch(dir / kLockName, 100);
  DirectorySizes sizes = directory_sizes(dir.path(), 1);
  EXPECT_EQ(sizes.layers, (std::map<int, std::uint64_t>{{0, 10}, {1, 20}}));
  EXPECT_EQ(sizes.manifest, 0u);
  EXPECT_EQ(sizes.total, 30u);
  touch(dir / kManifestName, 5);
  sizes = directory_sizes(dir.path(), 127);
  EXPECT_EQ(sizes.layers.size(), 3u);
  EXPECT_EQ(sizes.manifest, 5u);
  EXPECT_EQ(sizes.total, 75u);
}

TEST(TableDirectory, FindsAndRemovesWhatWritersLeftBehind) {
  TempDir dir;
  const long dead = dead_pid();
  const std::string live = std::to_string(::getpid());
  const std::string gone = std::to_string(dead);
  for (const std::string& name : {"layer-002.sdb.tmp." + gone,
                                  std::string(kManifestName) + ".tmp." + gone,
                                  "layer-003.sdb.tmp." + live,
                                  std::string("layer-001.sdb.plain"),
                                  std::string("layer-001.sdb.tmp.x1"),
                                  "other.tmp." + gone,
                                  std::string("layer-001.sdb")}) {
    touch(dir / name);
  }
  std::map<std::string, LeftBehind> found;
  for (const LeftBehind& left : left_behind(dir.path()))
    found[left.path.filename().string()] = left;
  ASSERT_EQ(found.size(), 4u);
  EXPECT_TRUE(found["layer-002.sdb.tmp." + gone].stale);
  EXPECT_EQ(found["layer-002.sdb.tmp." + gone].pid, dead);
  EXPECT_TRUE(found["sowdb.json.tmp." + gone].stale);
  EXPECT_FALSE(found["layer-003.sdb.tmp." + live].stale);
  EXPECT_TRUE(found["layer-001.sdb.plain"].stale);
  EXPECT_EQ(found["layer-001.sdb.plain"].pid, 0);

  remove_stale_temporaries(dir.path());
  std::vector<std::string> kept;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    kept.push_back(entry.path().filename().string());
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept,
            (std::vector<std::string>{"layer-001.sdb",
                                      "layer-001.sdb.tmp.x1",
                                      "layer-003.sdb.tmp." + live,
                                      "other.tmp." + gone}));
}

TEST(TableDirectory, AgreedLayersNamesTheFilesThatDisagree) {
  TempDir dir;
  test::write_fake_tables(dir.path(), test::small_rules(), 2);
  std::map<int, LayerFile> layers = read_layer_files(dir.path());
  ASSERT_EQ(layers.size(), 3u);
  const auto agreed = agreed_layers(dir.path(), layers);
  ASSERT_TRUE(agreed);
  EXPECT_EQ(agreed->rules, test::small_rules());
  EXPECT_EQ(agreed->objective, Objective::kCompetitive);
  EXPECT_EQ(agreed->from, 0);

  // A header that does not read says nothing; none at all gives nullopt.
  std::map<int, LayerFile> damaged = layers;
  damaged[0].info.reset();
  EXPECT_EQ(agreed_layers(dir.path(), damaged)->from, 1);
  for (auto& [n, f] : damaged)
    f.info.reset();
  EXPECT_FALSE(agreed_layers(dir.path(), damaged));

  std::map<int, LayerFile> mixed = layers;
  mixed[2].info->objective = Objective::kCooperative;
  try {
    agreed_layers(dir.path(), mixed);
    ADD_FAILURE() << "mixed objectives were accepted";
  } catch (const TableSetError& e) {
    EXPECT_EQ(e.cause(), OpenError::kMixedTables);
    EXPECT_EQ(std::string(e.what()),
              dir.path().string() +
                  " mixes competitive and co-operative tables: layer-000.sdb is competitive, "
                  "layer-002.sdb co-operative");
  }
  std::map<int, LayerFile> other = layers;
  other[1].info->rules = test::small_rules(3);
  try {
    agreed_layers(dir.path(), other);
    ADD_FAILURE() << "mixed rule sets were accepted";
  } catch (const TableSetError& e) {
    EXPECT_EQ(e.cause(), OpenError::kMixedTables);
    EXPECT_EQ(std::string(e.what()),
              dir.path().string() + " holds tables of different rule sets: layer-000.sdb (" +
                  describe(test::small_rules()) + ") and layer-001.sdb (" +
                  describe(test::small_rules(3)) + ")");
  }
}

TEST(TableDirectory, OneWriterHoldsTheLock) {
  TempDir dir;
  {
    const DirectoryLock lock(dir.path(), "the first writer");
    try {
      const DirectoryLock second(dir.path(), "the second writer");
      ADD_FAILURE() << "two writers hold the lock";
    } catch (const DirectoryBusy& e) {
      EXPECT_NE(std::string(e.what()).find("the first writer"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(std::filesystem::exists(dir / kLockName));
  EXPECT_NO_THROW(DirectoryLock(dir.path(), "the second writer"));
  EXPECT_NO_THROW(wait_for_directory(dir.path()));
}

}  // namespace
}  // namespace sowdb
