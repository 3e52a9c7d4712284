// gen::migrate (sowdb migrate): a directory of any earlier format version rewritten in the
// current one, byte for byte what the generator writes now.
#include "sowdb/gen/migrate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "generated_tables.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/probe/manifest.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb::test {
namespace {
namespace fs = std::filesystem;

std::vector<int> migrate(const fs::path& from, const fs::path& out, bool recompute) {
  gen::MigrateOptions options;
  options.from = from;
  options.out = out;
  options.recompute = recompute;
  options.executor = gen::tbb_executor();
  std::vector<int> versions;
  options.on_layer = [&](const gen::MigrateLayerReport& layer) {
    EXPECT_EQ(layer.stones, static_cast<int>(versions.size()));
    versions.push_back(layer.format_version);
  };
  gen::migrate(options);
  return versions;
}

// Every layer file and the manifest of `got` has the bytes of `want`'s.
void expect_same_files(const fs::path& want, const fs::path& got, int max_stones) {
  for (int n = 0; n <= max_stones; ++n) {
    EXPECT_EQ(file_bytes(want / gen::layer_file_name(n)), file_bytes(got / gen::layer_file_name(n)))
        << "layer " << n;
  }
  EXPECT_FALSE(fs::exists(got / gen::layer_file_name(max_stones + 1)));
  EXPECT_EQ(file_bytes(want / gen::kManifestName), file_bytes(got / gen::kManifestName));
}

class Migrate : public testing::TestWithParam<const char*> {};

// Version 2 -> 4 and back give what the generator writes with and without recompute entries
// (for the Oware family, whose moves cycle, the Kalah family and wari-us).
TEST_P(Migrate, BetweenVersionsTwoAndFourAsTheGeneratorWrites) {
  constexpr int kMax = 11;
  TempDir tmp("migrate");
  const fs::path& v2 = generated_dir({GetParam(), kMax, false});
  const fs::path& v4 = generated_dir({GetParam(), kMax});
  const std::vector<int> up = migrate(v2, tmp / "up", true);
  ASSERT_EQ(up.size(), kMax + 1u);
  EXPECT_EQ(up.back(), 4);  // the largest layers have recompute entries
  expect_same_files(v4, tmp / "up", kMax);
  const std::vector<int> down = migrate(v4, tmp / "down", false);
  for (int version : down)
    EXPECT_EQ(version, 2);
  expect_same_files(v2, tmp / "down", kMax);
}

// A version 1 directory (every depth stored, written here through the format library) comes
// out as the generator's version 4 files.
TEST_P(Migrate, FromVersionOne) {
  constexpr int kMax = 9;
  TempDir tmp("migrate-v1");
  const fs::path& v4 = generated_dir({GetParam(), kMax});
  const auto tables = TableSet::open(v4);
  fs::create_directories(tmp / "v1");
  write_manifest(tmp / "v1", tables->variant());
  const int pits = tables->rules().pits();
  std::vector<std::vector<std::int8_t>> values(kMax + 1);
  std::vector<std::vector<std::uint64_t>> marks(kMax + 1);
  for (int n = 0; n <= kMax; ++n) {
    values[n].resize(layer_size(pits, n));
    std::vector<std::uint16_t> depths(values[n].size());
    std::vector<LayerValues> below;
    below.reserve(static_cast<std::size_t>(n));
    for (int m = 0; m < n; ++m)
      below.push_back({values[m], marks[m]});
    ReadLayerOptions read;
    read.depths = [&](std::uint64_t first, std::span<const std::uint16_t> d) {
      std::copy(d.begin(), d.end(), depths.begin() + static_cast<std::ptrdiff_t>(first));
    };
    ASSERT_EQ(tables->read_layer(n, below, values[n], &marks[n], read), ProbeStatus::kOk);
    WriteOptions write;
    write.depth_codec = DepthCodec::kAll;
    write_layer(tmp / "v1" / gen::layer_file_name(n), tables->rules(), n, values[n], depths, write);
    ASSERT_EQ(read_info(tmp / "v1" / gen::layer_file_name(n)).format_version, 1);
  }
  migrate(tmp / "v1", tmp / "now", true);
  expect_same_files(v4, tmp / "now", kMax);
}

INSTANTIATE_TEST_SUITE_P(Presets,
                         Migrate,
                         testing::Values("oware/3x4", "kalah/3x4", "wari-us/3x4"),
                         [](const auto& param) {
                           std::string name = param.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           }
                           return name;
                         });

// A run stopped after layer 5 (here by an exception from its callback, as a signal would stop
// it) leaves no manifest, so no table set opens the directory; a rerun with the same source and
// options keeps layers 0..5, writes the rest and ends with the bytes of an uninterrupted run. A
// rerun with other options is refused.
TEST(MigrateResumes, AnInterruptedRun) {
  constexpr int kMax = 9;
  TempDir tmp("migrate-resume");
  const fs::path& v2 = generated_dir({"oware/3x4", kMax, false});
  const fs::path& v4 = generated_dir({"oware/3x4", kMax});
  gen::MigrateOptions options;
  options.from = v2;
  options.out = tmp / "out";
  options.executor = gen::tbb_executor();
  struct Stop {};
  options.on_layer = [](const gen::MigrateLayerReport& layer) {
    if (layer.stones == 5)
      throw Stop{};
  };
  EXPECT_THROW(gen::migrate(options), Stop);
  EXPECT_TRUE(fs::exists(tmp / "out" / gen::kMigratingName));
  EXPECT_FALSE(fs::exists(tmp / "out" / gen::kManifestName));
  EXPECT_THROW(TableSet::open(tmp / "out"), std::runtime_error);

  gen::MigrateOptions other = options;
  other.recompute = false;
  EXPECT_THROW(gen::migrate(other), gen::InvalidRequest);

  std::vector<bool> reused;
  options.on_layer = [&](const gen::MigrateLayerReport& layer) { reused.push_back(layer.reused); };
  gen::migrate(options);
  ASSERT_EQ(reused.size(), kMax + 1u);
  for (int n = 0; n <= kMax; ++n)
    EXPECT_EQ(reused[static_cast<std::size_t>(n)], n <= 5) << "layer " << n;
  expect_same_files(v4, tmp / "out", kMax);
  EXPECT_FALSE(fs::exists(tmp / "out" / gen::kMigratingName));
  EXPECT_NO_THROW(TableSet::open(tmp / "out"));
}

TEST(MigrateRefuses, AZstdLevelOutsideTheCliRange) {
  TempDir tmp("migrate-refuse");
  gen::MigrateOptions options;
  options.from = generated_dir({"kalah/3x3", 6});
  options.out = tmp / "out";
  options.write.zstd_level = 23;
  EXPECT_THROW(gen::migrate(options), gen::InvalidRequest);
  EXPECT_FALSE(fs::exists(tmp / "out"));
}

TEST(MigrateRefuses, AnOutputDirectoryThatIsNotEmpty) {
  TempDir tmp("migrate-refuse");
  fs::create_directories(tmp / "out");
  std::ofstream(tmp / "out" / "note.txt") << "mine";
  gen::MigrateOptions options;
  options.from = generated_dir({"kalah/3x3", 6});
  options.out = tmp / "out";
  EXPECT_THROW(gen::migrate(options), gen::InvalidRequest);
  EXPECT_EQ(file_bytes(tmp / "out" / "note.txt"), "mine");
  options.from = tmp / "nowhere";
  options.out = tmp / "new";
  EXPECT_THROW(gen::migrate(options), gen::InvalidRequest);
}

// A layer that does not read stops the run with the layer named; no file is left under its
// name, and the layers below it are complete.
TEST(MigrateRefuses, ALayerThatDoesNotRead) {
  TempDir tmp("migrate-corrupt");
  generate_into(tmp / "from", {"kalah/3x3", 8});
  const fs::path six = tmp / "from" / gen::layer_file_name(6);
  std::string bytes = file_bytes(six);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x55);
  std::ofstream(six, std::ios::binary | std::ios::trunc) << bytes;
  gen::MigrateOptions options;
  options.from = tmp / "from";
  options.out = tmp / "out";
  try {
    gen::migrate(options);
    FAIL() << "migrate read a damaged layer";
  } catch (const TableError& e) {
    EXPECT_NE(std::string(e.what()).find("layer 6"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(tmp / "out" / gen::layer_file_name(6)));
  for (int n = 0; n < 6; ++n) {
    EXPECT_EQ(file_bytes(tmp / "from" / gen::layer_file_name(n)),
              file_bytes(tmp / "out" / gen::layer_file_name(n)));
  }
}

}  // namespace
}  // namespace sowdb::test
