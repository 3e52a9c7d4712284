// Rewriting a table directory of an earlier format version in the current one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>

#include "sowdb/format/table_file.h"

namespace sowdb::gen {

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
  /// Called after each layer is written (from the calling thread): stones, positions, the old
  /// file's bytes, the new file's bytes, the new file's format version.
  std::function<void(int stones,
                     std::uint64_t positions,
                     std::uint64_t bytes_before,
                     std::uint64_t bytes_after,
                     int version)>
      on_layer;
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
/// renamed into place; `out` is locked against a second writer while migrate runs.
/// ERRORS throws InvalidRequest (sowdb/gen/generate.h) when `from` is not a table directory or
///   holds co-operative tables (format version 5 is theirs), or `out` is not missing or empty;
///   TableError naming the layer when an entry of `from` does not read; std::runtime_error on an
///   I/O failure (full disk included; no half-written file is left under a layer's name);
///   DirectoryBusy when another process holds `out`'s lock.
/// THREAD SAFETY calls for different `out` directories may run in parallel.
void migrate(const MigrateOptions& options);

}  // namespace sowdb::gen
