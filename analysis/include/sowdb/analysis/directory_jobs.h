// The jobs over a whole table directory that a front end runs for a user: verifying it and
// migrating it to the current format. Each takes its thread count as a parameter, applied to
// that call alone (gen::run_with_threads), reports through callbacks, and returns the summary of
// sowdb/analysis/table_jobs.h, whose JSON every front end prints.
#pragma once

#include <functional>
#include <string>

#include "sowdb/analysis/refusal.h"
#include "sowdb/analysis/table_jobs.h"
#include "sowdb/gen/migrate.h"
#include "sowdb/probe/tables.h"
#include "sowdb/verify/verify.h"

namespace sowdb {

/// What verify_tables is asked.
struct VerifyRequest {
  std::string tables_name;  ///< The directory as the user named it (VerifySummary::tables).
  int last = -1;            ///< Check layers 0..last; -1: every layer the table set holds.
  int threads = 0;          ///< Threads of this call; 0: all cores (gen::thread_count).
};

/// The callbacks of verify_tables; any may be empty.
struct VerifyEvents {
  /// Verifier::Progress: the layer, "read" or "check", the fraction of that phase done. From
  /// the job's threads, one call at a time.
  std::function<void(int stones, const char* phase, double fraction)> on_progress;
  /// Each layer's check as soon as it is done, lowest first, with the seconds it took. From
  /// the calling thread (inside the call's arena).
  std::function<void(const VerifyReport& layer, double seconds)> on_layer;
};

/// Re-derives every entry of layers 0..request.last of `tables` from its successors through
/// the probe library (Verifier; ReachVerifier for co-operative tables) and returns the totals,
/// `seconds` set. Problems found are the answer (VerifySummary::verified, failure), not errors.
/// ERRORS throws Refused: kBadRequest for a `last` above the layers held or a negative thread
///   count, kInternal when the arrays do not fit in memory, or the refusal_of an exception a
///   callback threw.
/// THREAD SAFETY any number of calls at once, each with its own thread count.
VerifySummary verify_tables(const TableSet& tables,
                            const VerifyRequest& request,
                            const VerifyEvents& events = {});

/// What migrate_tables is asked: gen::migrate's options (its on_layer and on_progress are the
/// events; its executor is the call's own and is ignored) and the thread count.
struct MigrateRequest {
  gen::MigrateOptions options;
  int threads = 0;  ///< Threads of this call; 0: all cores (gen::thread_count).
};

/// Runs gen::migrate(request.options) on request.threads threads and returns the totals,
/// `seconds` and `recompute` set.
/// ERRORS throws Refused with the refusal_of gen::migrate's errors: kBadRequest or
///   kUnusableTables for a request refused before any work (gen::InvalidRequest), kBusy,
///   kCorruptTable or kMissingTable naming the layer of `from` that does not read, kIoFailure.
/// THREAD SAFETY calls for different `out` directories may run at once.
MigrateSummary migrate_tables(const MigrateRequest& request);

}  // namespace sowdb
