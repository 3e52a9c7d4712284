// A solve's checkpoint in the proof store (issue 44): what the search has proved of a position
// (its value, every first move's worth) and of each position an extra turn leads to (every
// continuation's worth) kept as records of the store, and read back as bounds the search starts
// from. Internal to sowdb_analysis (start_solve.cpp).
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "sowdb/analysis/proof_store.h"
#include "sowdb/analysis/start_solve.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/rules.h"

namespace sowdb {

/// One solve's checkpoint. Every bound it writes or reads is a proof, and the store merges
/// records by intersecting their bounds, so a partial checkpoint is as sound as a whole one;
/// a damaged record fails its checksum and is not read (the search then proves it again).
/// THREAD SAFETY write() may be called from any thread, one call at a time; the rest from the
/// thread that made it.
class SolveCheckpoint {
 public:
  /// Opens the store of `rules` under the cache root `root` for `position` (`stones` seeds, the
  /// mover's pits first), checkpoints every `seconds` (0: at the end only). What went wrong with
  /// the store's file is added to `notes`. Never throws but std::bad_alloc.
  SolveCheckpoint(const std::filesystem::path& root,
                  const RuleSet& rules,
                  const Pits& position,
                  int stones,
                  double seconds,
                  std::vector<std::string>& notes);

  /// Records the store holds room for.
  std::uint64_t capacity_records() const { return store_.capacity_records(); }

  /// Whether checkpoints can be written (else `notes` said why).
  bool usable() const { return store_.writable(); }

  /// Reads what the store holds of the position and its continuations into `options`
  /// (known_lower, known_upper, known_worths), and every position of at most the position's
  /// seeds it holds bounds on (known_positions), and returns what was read. Records that
  /// contradict each other (a bug of whoever wrote them) are all left out, with a note.
  StartCheckpoint resume(gen::SolveStartOptions& options, std::vector<std::string>& notes);

  /// Writes what `s`, an answer (partial or whole) for the position, proved, StartSolution::proved
  /// included.
  void write(const gen::StartSolution& s);

  /// Checkpoints written so far.
  int writes() const { return writes_.load(); }
  /// Proved positions of the search's table the last write that carried any kept
  /// (StartSolution::proved).
  std::uint64_t kept() const { return kept_.load(); }

 private:
  // The worth bounds (pit, continuation -1 or its pit) the store holds, into `known`; false
  // when two records contradict each other.
  bool read_worths(std::vector<gen::KnownWorth>& known);

  ProofStore store_;
  Rules engine_;
  Pits position_;
  int stones_;
  double seconds_;
  std::atomic<int> writes_{0};
  std::atomic<std::uint64_t> kept_{0};
};

}  // namespace sowdb
