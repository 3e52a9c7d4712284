// The reports of the jobs that write or check a whole table directory (gen, migrate, verify):
// their totals, summed layer by layer, and the JSON of each layer and of each summary, written
// here only (the CLI's `--json` contract, docs/CLI.md).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "sowdb/format/table_file.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/migrate.h"
#include "sowdb/verify/verify.h"

namespace sowdb {

/// A `gen` run as a whole: `add` each layer's report as it comes, then set `seconds` (wall
/// clock) and `peak_rss_bytes` at the end. Not thread safe (one run, one thread).
struct GenerateSummary {
  std::string variant;  ///< Canonical variant text.
  Objective objective = Objective::kCompetitive;
  int max_stones = -1;                 ///< The last layer reported (-1: none).
  int layers_reused = 0;               ///< Layers read back instead of solved.
  std::uint64_t positions = 0;         ///< Every layer's positions.
  std::uint64_t solved_positions = 0;  ///< The positions of the layers solved now.
  std::uint64_t bytes_on_disk = 0;     ///< The files' sizes.
  std::uint64_t peak_rss_bytes = 0;    ///< The largest peak RSS reported.
  double seconds = 0;                  ///< Wall clock of the whole run (set by the caller).
  double layer_seconds = 0;            ///< Sum of the layers' solve and write times.
  double solve_seconds = 0;            ///< Sum of the layers' solve times.
  double write_seconds = 0;            ///< Sum of the layers' write times.
  double read_seconds = 0;             ///< Sum of the reused layers' read-back times.
  int threads = 0;                     ///< Worker threads.
  int zstd_level = 0;                  ///< The files' zstd level.
  bool recompute = false;              ///< Recompute entries allowed (competitive only).

  /// Adds one layer's report.
  void add(const gen::LayerReport& layer);
  /// Solved positions per wall-clock second (0 before `seconds` is set).
  double positions_per_s() const;
  /// Bytes on disk per position (0 without positions).
  double bytes_per_position() const;
};

/// A `migrate` run as a whole: `add` each layer's report, then set `seconds`.
struct MigrateSummary {
  int max_stones = -1;              ///< The last layer reported (-1: none).
  std::uint64_t positions = 0;      ///< Every layer's positions.
  std::uint64_t bytes_before = 0;   ///< The source files' sizes.
  std::uint64_t bytes_on_disk = 0;  ///< The new files' sizes.
  double seconds = 0;               ///< Wall clock of the whole run (set by the caller).
  bool recompute = true;            ///< Recompute entries written.

  /// Adds one layer's report.
  void add(const gen::MigrateLayerReport& layer);
};

/// A `verify` run as a whole: `add` each layer's check, then set `seconds`.
struct VerifySummary {
  std::string tables;   ///< The directory as the user named it.
  std::string variant;  ///< Canonical variant text.
  Objective objective = Objective::kCompetitive;
  int max_stones = -1;           ///< The last layer checked.
  std::uint64_t positions = 0;   ///< Positions checked.
  std::uint64_t problems = 0;    ///< Bad values, bad depths and unreadable entries.
  std::uint64_t unreadable = 0;  ///< Of `problems`, the entries that could not be read.
  std::string first_read_error;  ///< Why the first layer that did not read failed (its file).
  double seconds = 0;            ///< Wall clock (set by the caller).

  /// Adds one layer's check; `read_error` is the table set's error for an unreadable layer
  /// when the check carries none (VerifyReport::read_error).
  void add(const VerifyReport& layer, const std::string& read_error);
  /// Whether every entry agreed.
  bool verified() const { return problems == 0; }
  /// The failure in one line, naming the damaged file ("3 entries could not be read
  /// (DIR/layer-005.sdb: ...)"); empty when verified.
  std::string failure() const;
};

/// One `gen --json` layer line.
nlohmann::json to_json(const gen::LayerReport& layer);
/// The `gen --json` summary line (`"summary": true`).
nlohmann::json to_json(const GenerateSummary& summary);
/// One `migrate --json` layer line.
nlohmann::json to_json(const gen::MigrateLayerReport& layer);
/// The `migrate --json` summary line (`"summary": true`).
nlohmann::json to_json(const MigrateSummary& summary);
/// One `verify --json` layer line; `seconds`: the time the check took.
nlohmann::json to_json(const VerifyReport& layer, double seconds);
/// The `verify --json` summary line (`"summary": true`).
nlohmann::json to_json(const VerifySummary& summary);

}  // namespace sowdb
