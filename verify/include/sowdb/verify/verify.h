// Independent check of a table directory: every entry re-derived from its successors through the
// probe library (not the generator's internals).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sowdb/format/table_file.h"
#include "sowdb/probe/tables.h"

namespace sowdb {

/// What verify_layer found in one layer.
struct VerifyReport {
  int stones = 0;                     ///< n: the layer checked.
  std::uint64_t positions = 0;        ///< Positions checked (the whole layer).
  std::uint64_t bad_values = 0;       ///< value != max over moves of worth (or the final split)
  std::uint64_t bad_depths = 0;       ///< value right, depth != the depth its moves give
  std::uint64_t unreadable = 0;       ///< the position or a successor could not be probed
  std::vector<std::string> examples;  ///< the first few problems, in words
  /// Why a layer the check needed did not read (the first such layer's error, naming its file);
  /// empty when every layer read or the error is the table set's (TableSet::layer_error).
  std::string read_error;

  /// Every problem found: bad values, bad depths and unreadable entries.
  std::uint64_t problems() const { return bad_values + bad_depths + unreadable; }
};

/// Checks the layers of a table set, keeping what it read of the layers below. Each layer's
/// values (and, for the layer being checked, its depths) are read once with
/// TableSet::read_layer, which answers as the table set's probes do, into arrays of 1 byte per
/// position, 1/8 more for its recompute bits, and 1 more for the depths of the layer being
/// checked (a depth past 254 goes in a short list); every position's successors are then
/// looked up in those arrays. Checking layers 0..N in order so reads each layer once. Not
/// thread safe (its executor runs the work on threads of its own); the table set must outlive
/// it.
class Verifier {
 public:
  /// PARAMETERS tables: the table set to check. last: the largest layer `verify` will be asked
  ///   for, when known: checking it first lets go of the layers its moves cannot reach (Oware:
  ///   layer last - 1), so 0..last needs no more memory than the generator did.
  ///   run: runs the reads and the checks in parallel tasks (e.g. gen::tbb_executor()); empty:
  ///   one after the other on the calling thread.
  explicit Verifier(const TableSet& tables,
                    std::optional<int> last = std::nullopt,
                    Executor run = {});

  /// Checks every position of layer `stones` as verify_layer does; reads the layers below that it
  /// has not read yet. Requires stones <= tables.max_stones(). Never throws for bad tables: an
  /// entry whose value or depth the table set cannot answer counts as unreadable, and so does
  /// every position that moves to an entry whose value it cannot answer, or (by a move that gains
  /// nothing, whose depth counts) whose depth. Throws std::bad_alloc when the arrays do not fit
  /// in memory.
  VerifyReport verify(int stones);

  /// Progress of the work `verify` does: `stones` the layer, `phase` "read" (a layer's values and
  /// depths read through the table set) or "check" (the layer's entries checked), `fraction` of
  /// that phase done, in [0, 1], ending at 1. Called from the executor's threads, one call at
  /// a time (a call that would wait for another is skipped, except the last of a phase, which
  /// comes from the calling thread); a report may come after one with a larger fraction. Set
  /// before verify; empty: none.
  using Progress = std::function<void(int stones, const char* phase, double fraction)>;
  void set_progress(Progress progress) { progress_ = std::move(progress); }

 private:
  // Reports `done` of `total` of a phase (see Progress) unless another report is under way.
  void report(int stones, const char* phase, std::uint64_t done, std::uint64_t total);

  // A depth byte that sends the lookup to LayerDepths::overflow.
  static constexpr int kDepthInList = 255;
  // The depths of the layer being checked: a byte each, and the larger ones (kUnreadableDepth
  // where the depth does not read) in a list sorted by index.
  struct LayerDepths {
    std::vector<std::uint8_t> depth;
    std::vector<std::pair<std::uint64_t, std::uint16_t>> overflow;
    std::uint16_t at(std::uint64_t i) const;
  };
  // Reads layer `stones`' values and recompute bits into values_ and masks_, and with `depths`
  // its depths too.
  void load(int stones, LayerDepths* depths);
  // Lets go of layer `stones`' arrays.
  void release(int stones);

  const TableSet& tables_;
  std::optional<int> last_;
  Executor run_;
  std::vector<std::vector<std::int8_t>> values_;   // per layer read; empty: not read
  std::vector<std::vector<std::uint64_t>> masks_;  // its recompute bits; empty: none
  Progress progress_;
  std::mutex progress_mutex_;
};

/// Checks every position of layer `stones` of `tables`, in parallel through `run` (a Verifier
/// used once: it reads layers 0..stones). For each position p, with the
/// tables' own values and depths:
///   - no legal move: value == the final split, depth == 0;
///   - otherwise value == max over moves of worth (gain +- the child's value);
///   - value 0: depth 0; value v > 0: depth == 1 + min over moves worth v of the move depth;
///     value v < 0: depth == 1 + max over those (a move that gains seeds has depth 0).
/// The value equations alone admit wrong fixpoints on cycles of in-layer moves; the depth
/// equations rule them out: a stored v != 0 must be realised along strictly falling depths, and
/// the first position on a winning line that was wrongly stored as 0 sees a correctly stored
/// successor worth more than 0. Requires stones <= tables.max_stones(). Never throws for bad
/// tables: problems are counted in the report.
VerifyReport verify_layer(const TableSet& tables, int stones, const Executor& run = {});

}  // namespace sowdb
