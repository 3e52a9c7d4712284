// Rewriting a table directory of an earlier format version in the current one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>

#include "sowdb/format/table_file.h"
#include "sowdb/probe/table_directory.h"

namespace sowdb::gen {

/// The file in a directory `migrate` is writing that says the migration is unfinished: it names
/// the source and the options; the manifest is written and the marker removed at the end. Its
/// presence makes `migrate` continue the directory and `sowdb manifest` refuse it.
using sowdb::kMigratingName;

/// What `migrate` reports after each layer.
struct MigrateLayerReport {
  int stones = 0;                   ///< n.
  std::uint64_t positions = 0;      ///< Positions in the layer.
  std::uint64_t bytes_before = 0;   ///< The source file's size.
  std::uint64_t bytes_on_disk = 0;  ///< The new file's size.
  int format_version = 0;           ///< The new file's format version.
  bool reused = false;              ///< Written by an earlier, interrupted run of the migration.
  double seconds = 0;               ///< Reading, marking and writing the layer.
};

/// Options of `migrate`.
struct MigrateOptions {
  std::filesystem::path from;  ///< The table directory to read (any format version, 1..4).
  std::filesystem::path out;   ///< The directory to write: missing or empty.
  /// Write recompute entries (format version 4), marked by the generator's minority rule
  /// (SolveOptions::mark); false: every value stored (version 2).
  bool recompute = true;
  /// Block size and zstd level of the new files (the executor and progress are set by migrate).
  WriteOptions write;
  /// Runs the reads, the marking and the block compression in parallel tasks (e.g.
  /// gen::tbb_executor()); empty: on the calling thread.
  Executor executor;
  /// Called after each layer is written or found written (from the calling thread).
  std::function<void(const MigrateLayerReport& layer)> on_layer;
  /// Called as a layer is read ("read") or written ("write"): stones, phase, fraction of the
  /// phase done in [0, 1] (from the executor's threads, one at a time, or the calling thread).
  std::function<void(int stones, const char* phase, double fraction)> on_progress;
};

/// Reads every layer of `options.from` through the probe library (recompute entries resolved,
/// every value and depth checked to read) and writes it into `options.out` in the current format,
/// with the same values and depths, and the manifest. A layer's new recompute entries are those
/// the generator would mark (SolveOptions::mark): migrating a directory of version 2 files gives
/// the bytes `sowdb gen` writes with the same write options, and --no-recompute over version 4
/// files gives those of `sowdb gen --no-recompute`. Each file is written to a temporary and
/// renamed into place; `out` is locked against a second writer while migrate runs. Until the
/// end `out` holds the marker kMigratingName and no manifest, so an interrupted migration never
/// passes for smaller tables; a rerun with the same `from` and options continues it, keeping the
/// layers already written (they are checked; the source's layers are still read, since the
/// layers above need their values).
/// ERRORS throws InvalidRequest (sowdb/gen/generate.h) when `from` is not a table directory or
///   holds co-operative tables (format version 5 is theirs), when `out` is not missing, empty
///   or an unfinished migration of the same source and options, or cannot be created or
///   written in (no permission, a read-only file system);
///   TableError naming the layer when an entry of `from` does not read; std::runtime_error on an
///   I/O failure (full disk included; no half-written file is left under a layer's name);
///   DirectoryBusy when another process holds `out`'s lock.
/// THREAD SAFETY calls for different `out` directories may run in parallel.
void migrate(const MigrateOptions& options);

}  // namespace sowdb::gen
