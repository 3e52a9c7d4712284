// Independent check of co-operative tables (`sowdb gen --objective cooperative`; FORMAT.md,
// "Co-operative tables"): every layer's sets computed again from their definition by another
// algorithm than the generator's, and compared entry by entry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sowdb/format/table_file.h"
#include "sowdb/probe/tables.h"
#include "sowdb/verify/verify.h"

namespace sowdb {

/// Checks the layers of co-operative tables in order, keeping the sets of the layers below (8
/// bytes per position per word of a set). For layer n it takes the layer's file and the smaller
/// layers' sets as read and computes the least sets that satisfy the definition: a finished
/// game's split; each move's child set mapped through the move (the children in smaller layers
/// from their files); 0 for every position from which play can go on forever without gaining
/// seeds (found by peeling off the positions all of whose moves that gain nothing lead to peeled
/// ones); then the sets grown along the moves that gain nothing, by a work list over the
/// positions' predecessors, until nothing changes. A set that differs from the file's counts as a
/// bad value. The generator instead closes each strongly connected component of those moves in
/// one step (gen::solve_reach_layer), so the two share the definition and the rules engine only.
/// Needs about 40 bytes per position of the layer checked. Not thread safe (its executor runs
/// the reads on threads of its own); the table set must outlive it.
class ReachVerifier {
 public:
  /// PARAMETERS tables: co-operative tables (TableSet::objective()); run: runs the passes over a
  /// layer in parallel tasks (e.g. gen::tbb_executor()); empty: on the calling thread.
  explicit ReachVerifier(const TableSet& tables, Executor run = {});

  /// Checks every position of layer `stones` (<= tables.max_stones()), reading the layers below
  /// it has not read yet. bad_depths stays 0 (the files hold no depths). A layer whose file does
  /// not read counts every position as unreadable, and so does every layer above it. Throws
  /// std::bad_alloc when the arrays do not fit in memory.
  VerifyReport verify(int stones);

  /// As Verifier::set_progress: phases "read" and "check".
  void set_progress(Verifier::Progress progress) { progress_ = std::move(progress); }

 private:
  // Reads layers sets_.size()..n into sets_ and errors_ (a layer above one that did not read
  // does not read either).
  void read_up_to(int n);

  const TableSet& tables_;
  Executor run_;
  std::vector<std::vector<std::uint64_t>> sets_;  // per layer read, reach_set_words(m) words each
  std::vector<std::string> errors_;               // per layer: why it did not read, else empty
  Verifier::Progress progress_;
};

}  // namespace sowdb
