// Building a directory of tables, layer by layer, with resume.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

#include "sowdb/format/table_file.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb::gen {

/// What happened to one layer.
struct LayerReport {
  int stones = 0;                    ///< n: the layer's stone count.
  std::uint64_t positions = 0;       ///< Positions in the layer, layer_size(2P, n).
  double seconds = 0;                ///< Solve and write time (0 for a reused layer).
  double positions_per_s = 0;        ///< positions / seconds (0 for a reused layer).
  double solve_seconds = 0;          ///< Of `seconds`, the retrograde analysis.
  double write_seconds = 0;          ///< Of `seconds`, compressing and writing the table.
  std::uint64_t peak_rss_bytes = 0;  ///< Peak resident set size of the process so far.
  std::uint64_t bytes_on_disk = 0;   ///< Size of the layer's table file.
  bool reused = false;               ///< The table was already present and valid.
};

/// Options of `generate`.
struct GenerateOptions {
  Variant variant;            ///< The rule system and board to solve.
  int max_stones = 0;         ///< Largest layer to build, 0..kMaxIndexedStones.
  std::filesystem::path out;  ///< The table directory (created if missing).
  WriteOptions write;         ///< Block size, zstd level and depth codec of the files.
  /// Store the entries a one-ply probe recomputes as recompute entries (format version 3,
  /// FORMAT.md "Recompute entries"; `sowdb gen --no-recompute` turns it off). Smaller tables;
  /// the probe library recomputes those values. Only entries whose moves that gain seeds all
  /// lead to stored entries of smaller layers are marked (the one-ply rule), so a probe never
  /// recurses; the generator keeps one bit per position of every layer in memory for it. Off:
  /// version 2 files, as before.
  bool recompute = true;
  /// Memory the run may plan for, in bytes: a run whose estimate (the smaller layers' values
  /// and marks, the largest layer's 3 bytes per position) exceeds it is refused before any work.
  /// 0: 90% of the machine's physical memory.
  std::uint64_t memory_limit_bytes = 0;
  /// Called after each layer (from the calling thread).
  std::function<void(const LayerReport&)> on_layer;
  /// Called while a layer is solved: stones, fraction done in [0, 1] (from the calling thread).
  std::function<void(int, double)> on_progress;
};

// The directory layout is the probe library's (sowdb/probe/tables.h).
using sowdb::kManifestName;
using sowdb::layer_file_name;

/// What generate() throws for a request it refuses before any work, because of what was asked
/// rather than of a failure on the way: `max_stones` out of range, a run too large for the
/// memory limit, an `out` that is not and cannot become a directory (a file, a path through a
/// file), or an `out` that holds tables of another rule set or board. A command line reports it as
/// bad input.
struct InvalidRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Builds layers 0..max_stones into `out` (created if missing). Layers already present and
/// valid are reused (whether or not they hold recompute entries: their recompute entries are
/// resolved from the smaller layers, and a file whose recompute entries do not resolve, or
/// break the one-ply rule against the smaller layers' files, is solved again); others are solved
/// with the calling thread's oneTBB arena and written to a temporary file that is renamed into
/// place when complete. Throws InvalidRequest (a std::runtime_error) for a request it refuses
/// (above), and std::runtime_error with a clear message on an I/O failure (full disk included).
/// Which entries of a new layer are recompute entries depends on which entries of the smaller
/// layers' files are: resuming over version 2 files gives different (still valid) bytes above them
/// than a run from scratch; over files of this generator, the same bytes. When the run writes a
/// layer with recompute entries, it goes on past max_stones through the layers `out` already
/// holds above it (up to the first missing one), reusing or solving each again as above, so that
/// none is left with recompute entries that lead to recompute entries; if the memory limit
/// cannot take the next of those layers it throws InvalidRequest, naming them.
void generate(const GenerateOptions& options);

/// Peak resident set size of this process in bytes (0 if unknown: read from /proc). Thread
/// safe.
std::uint64_t peak_rss_bytes();

}  // namespace sowdb::gen
