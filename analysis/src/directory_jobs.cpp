#include "sowdb/analysis/directory_jobs.h"

#include <chrono>
#include <exception>
#include <optional>

#include "elapsed.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/verify/verify_reach.h"

namespace sowdb {
namespace {

using analysis_internal::Clock;
using analysis_internal::since;

// Runs `job` and turns whatever it throws into Refused: the one boundary where these jobs'
// library exceptions become refusals.
template <typename Job>
auto refusing(Job&& job) {
  try {
    return job();
  } catch (...) {
    throw Refused(refusal_of(std::current_exception()));
  }
}

VerifySummary verify_layers(const TableSet& tables, int last, const VerifyEvents& events) {
  VerifySummary summary;
  summary.objective = tables.objective();
  const auto start_all = Clock::now();
  // Co-operative tables hold sets: ReachVerifier computes them again (verify_reach.h).
  std::optional<Verifier> verifier;
  std::optional<ReachVerifier> reach_verifier;
  if (summary.objective == Objective::kCooperative) {
    reach_verifier.emplace(tables, gen::tbb_executor());
    if (events.on_progress)
      reach_verifier->set_progress(events.on_progress);
  } else {
    verifier.emplace(tables, last, gen::tbb_executor());
    if (events.on_progress)
      verifier->set_progress(events.on_progress);
  }
  for (int n = 0; n <= last; ++n) {
    const auto start = Clock::now();
    const VerifyReport check = verifier ? verifier->verify(n) : reach_verifier->verify(n);
    const double seconds = since(start);
    // An entry may fail through a smaller layer it depends on: the first layer's error.
    std::string read_error;
    for (int m = 0; m <= n && check.unreadable && read_error.empty(); ++m)
      read_error = tables.layer_error(m);
    summary.add(check, read_error);
    if (events.on_layer)
      events.on_layer(check, seconds);
  }
  summary.seconds = since(start_all);
  return summary;
}

}  // namespace

VerifySummary verify_tables(const TableSet& tables,
                            const VerifyRequest& request,
                            const VerifyEvents& events) {
  return refusing([&] {
    const int held = tables.max_stones();
    if (request.last > held) {
      throw Refused(RefusalKind::kBadRequest,
                    "layer " + std::to_string(request.last) + ": " + request.tables_name +
                        " holds layers up to " + std::to_string(held));
    }
    const int last = request.last < 0 ? held : request.last;
    VerifySummary summary =
        gen::run_with_threads(request.threads, [&] { return verify_layers(tables, last, events); });
    summary.tables = request.tables_name;
    summary.variant = tables.variant().to_string();
    return summary;
  });
}

MigrateSummary migrate_tables(const MigrateRequest& request) {
  return refusing([&] {
    MigrateSummary summary;
    summary.recompute = request.options.recompute;
    gen::MigrateOptions options = request.options;
    options.executor = gen::tbb_executor();
    options.on_layer = [&summary, &request](const gen::MigrateLayerReport& r) {
      summary.add(r);
      if (request.options.on_layer)
        request.options.on_layer(r);
    };
    const auto start = Clock::now();
    gen::run_with_threads(request.threads, [&] { gen::migrate(options); });
    summary.seconds = since(start);
    return summary;
  });
}

}  // namespace sowdb
