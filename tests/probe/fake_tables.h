// Small hand-written tables (written with sowdb::format's write_layer, arbitrary but fixed values)
// for the tests of TableSet and the C ABI (tables_test.cpp, c_api_test.cpp): the plumbing from
// files to answers, independent of the generator.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/manifest.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb::test {

// The arbitrary but fixed entries of the hand-written tables.
inline int fake_value(int n, std::uint64_t i) {
  return static_cast<int>((i * 7 + static_cast<std::uint64_t>(n)) % (2 * n + 1)) - n;
}
// The format stores no depth for value 0 (FORMAT.md): such entries have depth 0.
inline int fake_depth(int n, std::uint64_t i) {
  return fake_value(n, i) == 0 ? 0 : static_cast<int>(i % 5);
}

// The rules of the hand-written tables: oware on a board of `pits_per_side` pits a side.
inline RuleSet small_rules(int pits_per_side = 2) {
  RuleSet r;  // oware
  r.pits_per_side = static_cast<std::uint8_t>(pits_per_side);
  return r.normalised();
}

// Writes layers 0..max_stones of hand-written tables (fake_value, fake_depth) and a manifest
// into `dir`, in the writer's default format version or in `format_version` (6).
inline void write_fake_tables(const std::filesystem::path& dir,
                              const RuleSet& rules,
                              int max_stones,
                              int format_version = 0) {
  std::filesystem::create_directories(dir);
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
    if (format_version != 0)
      options.format_version = static_cast<std::uint16_t>(format_version);
    char name[32];
    std::snprintf(name, sizeof name, "layer-%03d.sdb", n);
    write_layer(dir / name, rules, n, values, depths, options);
  }
  write_manifest(dir, Variant{"oware", rules, 4});
}

// The index of `p` in its layer.
inline std::uint64_t index_of(const Pits& p, int pits) {
  return rank(std::span<const std::uint8_t>(p.data(), static_cast<std::size_t>(pits)));
}

// Every position of layer n of a board of `pits` pits, in index order.
inline std::vector<Pits> layer(int pits, int n) {
  std::vector<Pits> out;
  Pits p{};
  for (std::uint64_t i = 0; i < layer_size(pits, n); ++i) {
    unrank(i, n, std::span<std::uint8_t>(p.data(), static_cast<std::size_t>(pits)));
    out.push_back(p);
  }
  return out;
}

// A test with hand-written tables of layers 0..kMax in dir().
class FakeTables : public ::testing::Test {
 protected:
  static constexpr int kMax = 6;
  void SetUp() override { write_fake_tables(tmp_.path() / "t", small_rules(), kMax); }
  std::filesystem::path dir() const { return tmp_.path() / "t"; }
  TempDir tmp_;
};

}  // namespace sowdb::test
