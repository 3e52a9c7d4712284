// Format version 6 through the generator and the probe library (FORMAT.md, "Version 6"): the
// generator's version 4 directories of several presets rewritten as version 6 (sowdb migrate
// --format-version 6) give every entry the same value and depth, and every probe the same
// answer (values, depths, moves, best moves, lines); `sowdb gen --format-version 6` writes the
// same bytes as that migration, and migrating back gives the version 4 files byte for byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "generated_tables.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/migrate.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/probe/tables.h"
#include "test_support.h"

namespace sowdb::test {
namespace {
namespace fs = std::filesystem;

constexpr int kMax = 10;

std::vector<int> migrate(const fs::path& from, const fs::path& out, std::uint16_t version) {
  gen::MigrateOptions options;
  options.from = from;
  options.out = out;
  options.recompute = true;
  options.write.format_version = version;
  if (version == 6)
    options.write.block_entries = kDefaultV6BlockEntries;
  options.executor = gen::tbb_executor();
  std::vector<int> versions;
  options.on_layer = [&](const gen::MigrateLayerReport& layer) {
    versions.push_back(layer.format_version);
  };
  gen::migrate(options);
  return versions;
}

// Every position of layers 0..kMax probes alike in both directories.
void expect_same_probes(const fs::path& want_dir, const fs::path& got_dir) {
  const auto want = TableSet::open(want_dir);
  const auto got = TableSet::open(got_dir);
  const int pits = want->rules().pits();  // 2P
  std::uint64_t lines = 0;
  for (int n = 0; n <= kMax; ++n) {
    for (std::uint64_t i = 0; i < layer_size(pits, n); ++i) {
      Pits p{};
      ASSERT_TRUE(unrank(i, n, std::span(p.data(), static_cast<std::size_t>(pits))));
      int v1 = 0, d1 = 0, v2 = 0, d2 = 0;
      ASSERT_EQ(want->value(p, v1, d1), ProbeStatus::kOk) << n << " " << i;
      ASSERT_EQ(got->value(p, v2, d2), ProbeStatus::kOk) << n << " " << i;
      ASSERT_EQ(v1, v2) << n << " " << i;
      ASSERT_EQ(d1, d2) << n << " " << i;
      MoveWorths m1, m2;
      ASSERT_EQ(want->moves(p, m1), got->moves(p, m2));
      ASSERT_EQ(m1.size, m2.size);
      for (int k = 0; k < m1.size; ++k) {
        ASSERT_EQ(m1.moves[k].move.pit, m2.moves[k].move.pit);
        ASSERT_EQ(m1.moves[k].worth, m2.moves[k].worth);
        ASSERT_EQ(m1.moves[k].depth, m2.moves[k].depth);
      }
      if (i % 7 != 0)
        continue;
      PrincipalLine l1, l2;
      ASSERT_EQ(want->principal_line(p, l1), got->principal_line(p, l2));
      ASSERT_EQ(l1.steps.size(), l2.steps.size());
      for (std::size_t s = 0; s < l1.steps.size(); ++s)
        ASSERT_EQ(l1.steps[s].pit, l2.steps[s].pit);
      ASSERT_EQ(l1.end, l2.end);
      ASSERT_EQ(l1.net_gain, l2.net_gain);
      ++lines;
    }
  }
  EXPECT_GT(lines, 0u);
}

class FormatV6 : public testing::TestWithParam<const char*> {};

TEST_P(FormatV6, MigratedTablesProbeAsVersionFour) {
  TempDir tmp("v6");
  const fs::path& v4 = generated_dir({GetParam(), kMax});
  const std::vector<int> versions = migrate(v4, tmp / "v6", 6);
  ASSERT_EQ(versions.size(), kMax + 1u);
  for (int version : versions)
    EXPECT_EQ(version, 6);
  // Every entry's value and depth, as the format library reads them.
  for (int n = 0; n <= kMax; ++n) {
    const auto a = LayerReader::open(v4 / gen::layer_file_name(n));
    const auto b = LayerReader::open(tmp / "v6" / gen::layer_file_name(n));
    ASSERT_EQ(b->info().format_version, 6);
    EXPECT_EQ(a->info().recompute, b->info().recompute) << n;
    std::vector<std::int8_t> va(a->info().entries), vb(va.size());
    std::vector<std::uint16_t> da(va.size()), db(va.size());
    a->read_all(va, da);
    b->read_all(vb, db);
    ASSERT_EQ(va, vb) << n;
    ASSERT_EQ(da, db) << n;
    for (std::uint64_t i = 0; i < va.size(); ++i) {
      ASSERT_EQ(b->value(i), va[i]) << n << " " << i;
      ASSERT_EQ(b->depth(i), da[i]) << n << " " << i;
    }
  }
  expect_same_probes(v4, tmp / "v6");
  // Back to version 4: the generator's bytes.
  migrate(tmp / "v6", tmp / "back", 0);
  for (int n = 0; n <= kMax; ++n) {
    EXPECT_EQ(file_bytes(v4 / gen::layer_file_name(n)),
              file_bytes(tmp / "back" / gen::layer_file_name(n)))
        << n;
  }
}

TEST_P(FormatV6, GeneratorWritesWhatMigrateWrites) {
  TempDir tmp("v6gen");
  const fs::path& v4 = generated_dir({GetParam(), kMax});
  migrate(v4, tmp / "migrated", 6);
  TableSpec spec{GetParam(), kMax};
  spec.block_entries = kDefaultV6BlockEntries;
  generate_into(tmp / "gen", spec, [](gen::GenerateOptions& o) { o.write.format_version = 6; });
  for (int n = 0; n <= kMax; ++n) {
    EXPECT_EQ(file_bytes(tmp / "migrated" / gen::layer_file_name(n)),
              file_bytes(tmp / "gen" / gen::layer_file_name(n)))
        << n;
  }
}

// The block cache of version 6 readers changes no answer: every position of layers 0..kMax,
// recompute entries resolved through their children, probes alike with no cache, the default
// one (a few blocks, evicting) and one that keeps every block, twice (the second pass from
// blocks the caches kept).
TEST_P(FormatV6, CachedProbesAgreeWithUncached) {
  TempDir tmp("v6cache");
  migrate(generated_dir({GetParam(), kMax}), tmp / "v6", 6);
  TableSetOptions none;
  none.cache_bytes = 0;
  TableSetOptions all;
  all.cache_bytes = std::size_t{64} << 20;
  const auto plain = TableSet::open(tmp / "v6", none);
  const auto small = TableSet::open(tmp / "v6");
  const auto kept = TableSet::open(tmp / "v6", all);
  const int pits = plain->rules().pits();
  std::uint64_t recompute = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (int n = 0; n <= kMax; ++n) {
      const auto layer = LayerReader::open(tmp / "v6" / gen::layer_file_name(n), OpenOptions{});
      for (std::uint64_t i = 0; i < layer_size(pits, n); ++i) {
        Pits p{};
        ASSERT_TRUE(unrank(i, n, std::span(p.data(), static_cast<std::size_t>(pits))));
        if (pass == 0 && layer->value(i) == kRecomputeValue)
          ++recompute;
        int v = 0, d = 0;
        ASSERT_EQ(plain->value(p, v, d), ProbeStatus::kOk) << n << " " << i;
        for (const TableSet* set : {small.get(), kept.get()}) {
          int v2 = 0, d2 = 0, v3 = 0;
          ASSERT_EQ(set->value(p, v2, d2), ProbeStatus::kOk) << n << " " << i;
          ASSERT_EQ(v2, v) << n << " " << i;
          ASSERT_EQ(d2, d) << n << " " << i;
          ASSERT_EQ(set->value(p, v3), ProbeStatus::kOk) << n << " " << i;
          ASSERT_EQ(v3, v) << n << " " << i;
        }
      }
    }
  }
  // The presets' v6 files hold recompute entries, which the loop above resolved.
  EXPECT_GT(recompute, 0u);
}

INSTANTIATE_TEST_SUITE_P(Presets,
                         FormatV6,
                         testing::Values("oware/3x4", "kalah/3x4", "wari-us/3x4", "kalah/4x3"),
                         [](const auto& param) {
                           std::string name = param.param;
                           for (char& c : name) {
                             if (c == '/' || c == '-')
                               c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace sowdb::test
