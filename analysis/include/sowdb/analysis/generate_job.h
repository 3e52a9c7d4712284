// The `gen` job: building a table directory, as every front end asks for it (`sowdb gen`,
// Python's sowdb.generate, and, for its request and summary, `sowdb-mpi gen`). The request
// carries the thread count, applied to this run only; the answer is the run's summary, whose
// JSON and text are written in one place (table_jobs.h, generate_text.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "sowdb/analysis/refusal.h"
#include "sowdb/analysis/table_jobs.h"
#include "sowdb/format/table_file.h"
#include "sowdb/gen/generate.h"
#include "sowdb/probe/variant.h"

namespace sowdb {

/// What to build: gen::GenerateOptions' inputs, less its callbacks, plus the thread count.
struct GenerateRequest {
  Variant variant;            ///< The rule system and board to solve.
  int max_stones = 0;         ///< Largest layer to build, 0..kMaxIndexedStones.
  std::filesystem::path out;  ///< The table directory (created if missing).
  Objective objective = Objective::kCompetitive;
  WriteOptions write;     ///< Block size, zstd level and depth codec of the files.
  bool recompute = true;  ///< Store recompute entries (competitive only; gen::GenerateOptions).
  /// Memory the run may plan for, in bytes; 0: 90% of the machine's memory.
  std::uint64_t memory_limit_bytes = 0;
  /// Worker threads of this run, applied to it alone (a oneTBB task arena of this size, whatever
  /// other runs of the process use); 0: every core (gen::thread_count).
  int threads = 0;
  /// Asked as the work goes on (gen::GenerateOptions::stop); true stops the run, which is then
  /// refused as kInterrupted. May be empty; must not throw.
  std::function<bool()> stop;
};

/// What a run reports as it goes, from the calling thread (gen::GenerateOptions' callbacks).
/// Each may be empty. An exception thrown by one ends the run and is refused as refusal_of says.
struct GenerateEvents {
  /// After each layer, with its report (already added to the summary).
  std::function<void(const gen::LayerReport&)> on_layer;
  /// While a layer is read, solved or written: the layer, the phase, the fraction done.
  std::function<void(int, gen::Phase, double)> on_progress;
  /// When a layer's file fails a check and is solved again: the layer, the reader's message.
  std::function<void(int, const std::string&)> on_rebuild;
};

/// The generator's options for `request` (without callbacks). Thread safe.
gen::GenerateOptions generate_options(const GenerateRequest& request);

/// The summary of a run of `request` before its first layer: variant, objective, threads
/// (gen::thread_count), zstd level and whether recompute entries are written. A front end that
/// drives the layers itself (sowdb-mpi) adds each layer's report and sets `seconds` and
/// `peak_rss_bytes` (finish_summary) at the end.
GenerateSummary start_summary(const GenerateRequest& request);

/// Sets the summary's wall clock `seconds` and raises its peak RSS to this process's.
void finish_summary(GenerateSummary& summary, double seconds);

/// Builds layers 0..max_stones of `request.variant` into `request.out` (gen::generate: layers
/// present and valid are reused) with `request.threads` threads of its own
/// (gen::run_with_threads), reporting through `events`, and returns the run's summary.
///
/// ERRORS throws Refused, of the kind refusal_of gives the library's exception: bad input
/// (is_bad_input; kBadRequest) for a request out of range (max_stones, a negative thread count, a
/// zstd level or block size the writer refuses) or refused before any work (gen::InvalidRequest:
/// too little memory, an `out` that cannot be used or that holds other tables), kBusy when
/// another process writes `out`, kInterrupted when `stop` asked, kIoFailure for a failure on the
/// way (a full disk), kInternal otherwise. The library's exception is nested in the Refused
/// (std::nested_exception), so a front end that adds a remedy of its own can read its facts
/// (gen::OutLabelledOtherwise's variants, gen::LayerAboveTooLarge's layers) with
/// std::rethrow_if_nested.
///
/// Thread safe for runs into different directories: each run uses its own arena, so two runs
/// of one process keep their own thread counts.
GenerateSummary generate_tables(const GenerateRequest& request, const GenerateEvents& events = {});

}  // namespace sowdb
