// Building a directory of tables, layer by layer, with resume.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "sowdb/format/table_file.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb::gen {

/// What happened to one layer.
struct LayerReport {
  int stones = 0;               ///< n: the layer's stone count.
  std::uint64_t positions = 0;  ///< Positions in the layer, layer_size(2P, n).
  double seconds = 0;           ///< Solve and write time (0 for a reused layer).
  double positions_per_s = 0;   ///< positions / seconds (0 for a reused layer).
  double solve_seconds = 0;     ///< Of `seconds`, the retrograde analysis (with marking).
  double write_seconds = 0;     ///< Of `seconds`, compressing and writing the table.
  double read_seconds = 0;      ///< A reused layer: reading it back (not counted in `seconds`).
  std::uint64_t peak_rss_bytes = 0;  ///< Peak resident set size of the process so far.
  std::uint64_t bytes_on_disk = 0;   ///< Size of the layer's table file.
  bool reused = false;               ///< The table was already present and valid.
  /// The layer's file was present but failed a check (the reader's message, naming the file
  /// and the check), so the layer was solved again; empty otherwise.
  std::string rebuilt_because;
};

/// A phase of the work on one layer, for GenerateOptions::on_progress.
enum class Phase {
  kRead,   ///< Reading back a layer already in the directory (decoding, recompute entries).
  kSolve,  ///< Retrograde analysis, recompute entries marked on the way.
  kWrite,  ///< Compressing the blocks and writing the file.
};

/// The name of `phase` in lower case ("read", "solve", "write"). Never null.
const char* to_string(Phase phase) noexcept;

/// Options of `generate`.
struct GenerateOptions {
  Variant variant;            ///< The rule system and board to solve.
  int max_stones = 0;         ///< Largest layer to build, 0..kMaxIndexedStones.
  std::filesystem::path out;  ///< The table directory (created if missing).
  WriteOptions write;         ///< Block size, zstd level and depth codec of the files.
  /// kCooperative: build co-operative tables (FORMAT.md, "Co-operative tables"): each layer's
  /// reachable sets (solve_reach_layer), every layer kept in memory while the larger ones are
  /// solved. `recompute` and the depth codec do not apply. A directory holds one objective.
  Objective objective = Objective::kCompetitive;
  /// Store recompute entries (format version 4, FORMAT.md "Recompute entries"; `sowdb gen
  /// --no-recompute` turns it off): the entries the solver marks by the minority rule
  /// (SolveOptions::mark), which the probe library resolves from their children. Smaller
  /// tables. Off: version 2 files.
  bool recompute = true;
  /// Memory the run may plan for, in bytes: a run whose estimate (memory_needed) exceeds it is
  /// refused before any work. 0: 90% of the machine's physical memory.
  std::uint64_t memory_limit_bytes = 0;
  /// When the directory's manifest names another seed count of the same rules, keep that label
  /// instead of refusing (false: refuse, since a run would relabel the user's tables). The
  /// start-position cache sets it: its tables serve every seed count, and two solves for
  /// different counts may build it at once.
  bool keep_label = false;
  /// Called after each layer (from the calling thread).
  std::function<void(const LayerReport&)> on_layer;
  /// Called while a layer is read, solved or written: stones, phase, fraction of the phase done
  /// in [0, 1] (from the calling thread).
  std::function<void(int, Phase, double)> on_progress;
  /// Called when a layer's file is present but fails a check, before the layer is solved again:
  /// stones, and the reader's message naming the file and the check (from the calling thread).
  std::function<void(int, const std::string&)> on_rebuild;
  /// Asked from the calling thread as the work goes on (before each layer and wherever
  /// on_progress is called, so at least every block written and every step of a solve; a caller
  /// that wants it rarely checks the clock itself): true stops the run, and generate throws
  /// Stopped. The layer in progress leaves no file (its temporary is removed); the layers written
  /// before it stay valid and a later run reuses them. May be empty. It must not throw.
  std::function<bool()> stop;
};

/// What generate() throws when GenerateOptions::stop asked it to stop: the message names the
/// directory and the layers complete in it.
struct Stopped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Bytes of memory `generate` plans for layers 0..max_stones of `rules`: the most it holds at
/// once, when it solves the layer that needs the most. While layer n is solved it holds the
/// values of the smaller layers that a later layer still reads (1 byte per position; every
/// layer below n, except that, with `last_releases`, the last layer does without those no move
/// reaches: layer n - 1 in the Oware family, whose captures take at least 2 seeds) and layer n's
/// working set (3.2 bytes per position). A layer above kMaxMarkedStones also keeps a bit per
/// position of marks. `generate` releases those layers unless the directory holds the layer
/// above max_stones (which it may go on to check). As long double: the counts of the largest
/// boards do not fit in 64 bits.
long double memory_needed(const RuleSet& rules, int max_stones, bool last_releases = true);

/// Bytes of memory a co-operative run (GenerateOptions::objective) plans for layers
/// 0..max_stones of `rules`: every smaller layer's sets (8 bytes per word per position) and the
/// working set of the layer being solved (reach_working_bytes), at the layer that needs the most.
long double reach_memory_needed(const RuleSet& rules, int max_stones);

// The directory layout is the probe library's (sowdb/probe/tables.h).
using sowdb::kManifestName;
using sowdb::layer_file_name;

/// What generate() throws for a request it refuses before any work, because of what was asked
/// rather than of a failure on the way: `max_stones` out of range, a run too large for the
/// memory limit, an `out` that is not and cannot become a directory (a file, a path through a
/// file, a parent without write permission), that cannot be listed, or in which a run that has a
/// layer to write cannot create a file (no write permission, a read-only file system), or an
/// `out` that holds tables of another rule set, board or objective. A full disk or an I/O error is
/// a failure on the way, not this. A command line reports it as bad input.
struct InvalidRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The refusal of an `out` that holds tables of another rule set, board or objective than the
/// request's. The message names the first such layer file; a front end may add its remedy
/// (another directory).
struct OutHoldsOtherTables : InvalidRequest {
  using InvalidRequest::InvalidRequest;
};

/// The refusal to relabel `out`, whose manifest names `held`: a variant of the same rules as the
/// requested `asked` but another seed count per pit (GenerateOptions::keep_label off). The
/// tables serve both; a front end may add its remedy (ask for `held`, or relabel the directory).
struct OutLabelledOtherwise : InvalidRequest {
  OutLabelledOtherwise(const std::string& what, Variant h, Variant a, std::filesystem::path o)
      : InvalidRequest(what), held(std::move(h)), asked(std::move(a)), out(std::move(o)) {}
  Variant held;
  Variant asked;
  std::filesystem::path out;
};

/// The refusal to go on past `max_stones` through `layer`, a layer `out` already holds whose
/// recompute entries may rely on a layer this run wrote again, when `layer` does not fit the
/// memory limit. A front end may add its remedy (a larger limit, or removing the layers above
/// `max_stones`).
struct LayerAboveTooLarge : InvalidRequest {
  LayerAboveTooLarge(const std::string& what, int l, int m)
      : InvalidRequest(what), layer(l), max_stones(m) {}
  int layer;
  int max_stones;
};

/// Builds layers 0..max_stones into `out` (created if missing). Layers already present and
/// valid are reused (whether or not they hold recompute entries: their recompute entries are
/// resolved from their children, and a file whose recompute entries do not resolve, or have a
/// child that is itself a recompute entry, against the layer itself or the smaller layers'
/// files (FORMAT.md, "Recompute entries"), is solved again); others are solved
/// with the calling thread's oneTBB arena and written to a temporary file that is renamed into
/// place when complete. Throws InvalidRequest (a std::runtime_error) for a request it refuses
/// (above), and std::runtime_error with a clear message on an I/O failure (full disk included).
/// Which entries of a new layer are recompute entries depends on which entries of the smaller
/// layers' files are: resuming over version 2 files gives different (still valid) bytes above them
/// than a run from scratch; over files of this generator, the same bytes. When the run writes a
/// layer with recompute entries, it goes on past max_stones through the layers `out` already
/// holds above it (up to the first missing one), reusing or solving each again as above, so that
/// none is left with recompute entries that lead to recompute entries; if the memory limit
/// cannot take the next of those layers it throws LayerAboveTooLarge, naming them. The messages
/// state causes only; OutHoldsOtherTables, OutLabelledOtherwise and LayerAboveTooLarge carry what
/// a front end needs to add its own remedy.
void generate(const GenerateOptions& options);

/// Peak resident set size of this process in bytes (0 if unknown: read from /proc). Thread
/// safe.
std::uint64_t peak_rss_bytes();

}  // namespace sowdb::gen
