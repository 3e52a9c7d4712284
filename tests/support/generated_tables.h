// Table directories written by the generator, for the tests that need real tables. Header-only;
// it needs sowdb::gen (CMake target sowdb_gen_test_support).
//
// Two ways in:
// - generated_tables(spec): a directory generated once per process and cached, under one
//   TempDir removed at exit. Tests only read it (open it, probe it, migrate from it, copy it);
//   a test that changes files works on copy_tables() of it or on its own directory.
// - generate_into(dir, spec): generates into the caller's directory (new, or holding layers to
//   resume from) and returns the layer reports, for tests that resume, damage or rewrite files.
//
// Under ctest every test is its own process (gtest_discover_tests), so a cached directory is
// shared by the tests of one process: all of them when the executable runs whole, and within
// one test the directories it asks for twice.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "sowdb/format/table_file.h"
#include "sowdb/gen/generate.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb::test {

/// What to generate: a variant up to a stone count, with the write options that change the
/// files. Everything else is gen::GenerateOptions' default.
struct TableSpec {
  std::string variant;    ///< Variant text, e.g. "oware/3x4" (parse_variant).
  int max_stones = 0;     ///< Layers 0..max_stones.
  bool recompute = true;  ///< GenerateOptions::recompute: false writes version 2 files.
  int zstd_level = kDefaultZstdLevel;                  ///< WriteOptions::zstd_level.
  std::uint32_t block_entries = kDefaultBlockEntries;  ///< WriteOptions::block_entries.
};

/// The variant of `text`. ERRORS throws std::invalid_argument, naming the text, when it does not
/// parse.
inline Variant variant_of(const std::string& text) {
  std::string error;
  const std::optional<Variant> v = parse_variant(text, &error);
  if (!v)
    throw std::invalid_argument("variant '" + text + "': " + error);
  return *v;
}

/// The generator's options for `spec` writing into `dir`, before any caller's changes.
inline gen::GenerateOptions generate_options(const TableSpec& spec,
                                             const std::filesystem::path& dir) {
  gen::GenerateOptions options;
  options.variant = variant_of(spec.variant);
  options.max_stones = spec.max_stones;
  options.out = dir;
  options.recompute = spec.recompute;
  options.write.zstd_level = spec.zstd_level;
  options.write.block_entries = spec.block_entries;
  return options;
}

/// Generates `spec` into `dir` (created if missing; layers already there are reused or rebuilt
/// as gen::generate does) and returns one report per layer the run went through. `configure`,
/// when given, changes the options last (a memory limit, a progress callback). ERRORS whatever
/// gen::generate throws.
inline std::vector<gen::LayerReport> generate_into(
    const std::filesystem::path& dir,
    const TableSpec& spec,
    const std::function<void(gen::GenerateOptions&)>& configure = {}) {
  gen::GenerateOptions options = generate_options(spec, dir);
  std::vector<gen::LayerReport> reports;
  options.on_layer = [&reports](const gen::LayerReport& r) { reports.push_back(r); };
  if (configure)
    configure(options);
  gen::generate(options);
  return reports;
}

/// A cached directory of generated tables. Read-only: tests must not change its files.
struct GeneratedTables {
  Variant variant;  ///< As parsed from TableSpec::variant.
  int max_stones = 0;
  std::filesystem::path dir;
};

/// The tables of `spec`, generated on first use in this process into a directory of one
/// TempDir that is removed at exit, and returned from the cache after that: one directory per
/// (variant, max stones, recompute, zstd level, block entries). The reference stays valid until
/// exit. Thread safe. ERRORS whatever gen::generate throws (and the next call tries again).
inline const GeneratedTables& generated_tables(const TableSpec& spec) {
  static std::mutex mutex;
  static TempDir root("generated");
  static std::map<std::tuple<std::string, int, bool, int, std::uint32_t>,
                  std::unique_ptr<GeneratedTables>>
      cache;
  const Variant variant = variant_of(spec.variant);
  const auto key = std::make_tuple(
      variant.to_string(), spec.max_stones, spec.recompute, spec.zstd_level, spec.block_entries);
  const std::lock_guard lock(mutex);
  std::unique_ptr<GeneratedTables>& slot = cache[key];
  if (!slot) {
    auto tables = std::make_unique<GeneratedTables>();
    tables->variant = variant;
    tables->max_stones = spec.max_stones;
    tables->dir = root / ("tables-" + std::to_string(cache.size()));
    std::filesystem::remove_all(tables->dir);  // left by an earlier try that threw
    generate_into(tables->dir, spec);
    slot = std::move(tables);
  }
  return *slot;
}

/// The directory of generated_tables(spec).
inline const std::filesystem::path& generated_dir(const TableSpec& spec) {
  return generated_tables(spec).dir;
}

/// Copies the table directory `from` (e.g. a cached one) to `to`, which must not exist, so that
/// a test can damage or extend the copy. Returns `to`.
inline std::filesystem::path copy_tables(const std::filesystem::path& from,
                                         const std::filesystem::path& to) {
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
  return to;
}

}  // namespace sowdb::test
