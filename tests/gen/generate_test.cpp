// gen::generate beyond the tables it writes: the memory it plans for, the refusal that plan
// drives, and the progress it reports per phase.
#include "sowdb/gen/generate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "generated_tables.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/manifest.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb {
namespace {

using test::file_bytes;
using test::generate_into;
using test::TempDir;

long double positions(int pits, int n) {
  return static_cast<long double>(layer_size(pits, n));
}

// The plan: the last layer's 3.2 bytes per position beside the layers below it that a later
// layer still reads; in the Oware family (captures take 2 seeds or more) without layer N - 1.
TEST(MemoryNeeded, LastLayerBesideTheLayersItReads) {
  const RuleSet oware = parse_variant("oware")->rules;
  const RuleSet kalah = parse_variant("kalah")->rules;
  for (const int n : {2, 12, 24, 30}) {
    SCOPED_TRACE(n);
    long double below = 0;
    for (int m = 0; m < n - 1; ++m)
      below += positions(12, m);
    const long double last = 3.2L * positions(12, n);
    EXPECT_NEAR(static_cast<double>(gen::memory_needed(oware, n) / (below + last)), 1.0, 1e-9);
    EXPECT_NEAR(
        static_cast<double>(gen::memory_needed(kalah, n) / (below + positions(12, n - 1) + last)),
        1.0,
        1e-9);
  }
  EXPECT_NEAR(static_cast<double>(gen::memory_needed(oware, 0)), 3.2, 1e-9);
  // Oware 0..30, the largest run the project machine builds: about 15.7 GB.
  EXPECT_NEAR(static_cast<double>(gen::memory_needed(oware, 30) / 1e9), 15.697, 0.001);
}

// generate() refuses, before writing anything, a run whose plan exceeds the memory limit, and
// takes one that fits.
TEST(MemoryNeeded, DrivesTheRefusal) {
  const Variant v = *parse_variant("oware/3x4");
  const long double need = gen::memory_needed(v.rules, 9);
  TempDir dir("dir");
  const std::filesystem::path out = dir.path() / "t";
  const auto with_limit = [](std::uint64_t bytes) {
    return [bytes](gen::GenerateOptions& options) { options.memory_limit_bytes = bytes; };
  };
  EXPECT_THROW(
      generate_into(
          out, {"oware/3x4", 9}, with_limit(static_cast<std::uint64_t>(std::floor(need)) - 1)),
      gen::InvalidRequest);
  EXPECT_FALSE(std::filesystem::exists(out / gen::layer_file_name(0)));
  generate_into(out, {"oware/3x4", 9}, with_limit(static_cast<std::uint64_t>(std::ceil(need))));
  EXPECT_TRUE(std::filesystem::exists(out / gen::layer_file_name(9)));
}

// generate() refuses a zstd level outside `sowdb gen --zstd-level`'s 1..22 before it makes the
// directory, its manifest or its lock (the writer would refuse it only at the first layer).
TEST(GenerateRefuses, AZstdLevelOutsideTheCliRange) {
  TempDir dir("dir");
  const std::filesystem::path out = dir.path() / "t";
  for (const int level : {0, -5, 23, 99}) {
    EXPECT_THROW(generate_into(out,
                               {"kalah/2x1", 2},
                               [level](gen::GenerateOptions& o) { o.write.zstd_level = level; }),
                 gen::InvalidRequest)
        << level;
    EXPECT_FALSE(std::filesystem::exists(out)) << level;
  }
  generate_into(out, {"kalah/2x1", 2}, [](gen::GenerateOptions& o) { o.write.zstd_level = 22; });
  EXPECT_TRUE(std::filesystem::exists(out / gen::layer_file_name(2)));
}

// Each layer reports its phases in order, each with a rising fraction that ends at 1: solve then
// write for a layer it builds, read for one it reads back.
TEST(GenerateProgress, EveryPhaseRunsToTheEnd) {
  TempDir dir("dir");
  constexpr int kMax = 10;
  std::vector<std::tuple<int, gen::Phase, double>> seen;
  const auto record = [&](gen::GenerateOptions& options) {
    options.on_progress = [&](int n, gen::Phase phase, double f) {
      seen.emplace_back(n, phase, f);
    };
  };
  const auto check = [&](const std::vector<gen::Phase>& phases) {
    for (int n = 0; n <= kMax; ++n) {
      SCOPED_TRACE(n);
      std::vector<gen::Phase> order;
      double last = -1;
      for (const auto& [m, phase, f] : seen) {
        if (m != n)
          continue;
        if (order.empty() || order.back() != phase) {
          order.push_back(phase);
          last = -1;
        }
        EXPECT_GE(f, last) << gen::to_string(phase);
        EXPECT_LE(f, 1.0);
        last = f;
      }
      EXPECT_EQ(order, phases);
      EXPECT_EQ(last, 1.0);
    }
  };
  generate_into(dir.path(), {"oware/3x4", kMax}, record);
  check({gen::Phase::kSolve, gen::Phase::kWrite});
  seen.clear();
  generate_into(dir.path(), {"oware/3x4", kMax}, record);
  check({gen::Phase::kRead});
  EXPECT_STREQ(gen::to_string(gen::Phase::kWrite), "write");
}

// GenerateOptions::stop, asked in each phase: generate throws Stopped, the layer in progress
// leaves no file and no temporary, the layers before it stay, and a later run completes the
// directory with the bytes of an uninterrupted run.
TEST(GenerateStop, LeavesOnlyCompleteLayers) {
  for (const char* variant : {"oware/3x4", "kalah/3x3"}) {
    for (const gen::Phase at : {gen::Phase::kSolve, gen::Phase::kWrite}) {
      SCOPED_TRACE(std::string(variant) + " " + gen::to_string(at));
      TempDir dir("stop");
      constexpr int kStopLayer = 7;
      bool in_phase = false;
      const auto stop_at = [&](gen::GenerateOptions& options) {
        options.on_progress = [&](int n, gen::Phase phase, double f) {
          in_phase = n == kStopLayer && phase == at && f > 0;
        };
        options.stop = [&] { return in_phase; };
      };
      EXPECT_THROW(generate_into(dir / "t", {variant, 9}, stop_at), gen::Stopped);
      for (const auto& entry : std::filesystem::directory_iterator(dir / "t"))
        EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos);
      for (int n = 0; n < kStopLayer; ++n)
        EXPECT_TRUE(std::filesystem::exists(dir / "t" / gen::layer_file_name(n))) << n;
      EXPECT_FALSE(std::filesystem::exists(dir / "t" / gen::layer_file_name(kStopLayer)));
      generate_into(dir / "t", {variant, 9});
      generate_into(dir / "fresh", {variant, 9});
      for (int n = 0; n <= 9; ++n) {
        EXPECT_EQ(file_bytes(dir / "t" / gen::layer_file_name(n)),
                  file_bytes(dir / "fresh" / gen::layer_file_name(n)))
            << n;
      }
    }
  }
}

// The manifest names a seed count the tables do not hold: a run for another count refuses to
// relabel the directory, unless it asks to keep the label (the start-position cache, where
// solves for two counts of the same rules may build the directory at once).
TEST(GenerateLabel, AnotherSeedCountRefusedOrKept) {
  TempDir dir("dir");
  generate_into(dir.path(), {"kalah/3x2", 4});
  EXPECT_THROW(generate_into(dir.path(), {"kalah/3x1", 5}), gen::OutLabelledOtherwise);
  const auto keep = [](gen::GenerateOptions& options) { options.keep_label = true; };
  const auto reports = generate_into(dir.path(), {"kalah/3x1", 5}, keep);
  ASSERT_EQ(reports.size(), 6U);
  EXPECT_TRUE(reports[4].reused);
  EXPECT_FALSE(reports[5].reused);
  const auto manifest = read_manifest(dir.path());
  ASSERT_TRUE(manifest && manifest->variant);
  EXPECT_EQ(manifest->variant->to_string(), "kalah/3x2");
}

}  // namespace
}  // namespace sowdb
