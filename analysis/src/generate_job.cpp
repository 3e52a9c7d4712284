#include "sowdb/analysis/generate_job.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>

#include "sowdb/format/index.h"
#include "sowdb/gen/parallel.h"

namespace sowdb {
namespace {

// The refusals of a request the generator would take but that no run should be.
void check_request(const GenerateRequest& request) {
  if (request.threads < 0)
    throw Refused(RefusalKind::kBadRequest, "threads must be 0 (all cores) or more");
  if (request.write.block_entries < 1 || request.write.block_entries > kMaxBlockEntries) {
    throw Refused(RefusalKind::kBadRequest,
                  "block entries " + std::to_string(request.write.block_entries) +
                      " are outside 1.." + std::to_string(kMaxBlockEntries));
  }
}

}  // namespace

gen::GenerateOptions generate_options(const GenerateRequest& request) {
  gen::GenerateOptions options;
  options.variant = request.variant;
  options.max_stones = request.max_stones;
  options.out = request.out;
  options.write = request.write;
  options.objective = request.objective;
  options.recompute = request.recompute;
  options.memory_limit_bytes = request.memory_limit_bytes;
  options.stop = request.stop;
  return options;
}

GenerateSummary start_summary(const GenerateRequest& request) {
  GenerateSummary summary;
  summary.variant = request.variant.to_string();
  summary.objective = request.objective;
  summary.threads = gen::thread_count(request.threads);
  summary.zstd_level = request.write.zstd_level;
  summary.recompute = request.recompute && request.objective == Objective::kCompetitive;
  return summary;
}

void finish_summary(GenerateSummary& summary, double seconds) {
  summary.seconds = seconds;
  summary.peak_rss_bytes = std::max(summary.peak_rss_bytes, gen::peak_rss_bytes());
}

GenerateSummary generate_tables(const GenerateRequest& request, const GenerateEvents& events) {
  const auto start = std::chrono::steady_clock::now();
  try {
    check_request(request);
    GenerateSummary summary = start_summary(request);
    gen::GenerateOptions options = generate_options(request);
    options.on_layer = [&](const gen::LayerReport& layer) {
      summary.add(layer);
      if (events.on_layer)
        events.on_layer(layer);
    };
    options.on_progress = events.on_progress;
    options.on_rebuild = events.on_rebuild;
    // The thread count of this run only (gen::run_with_threads), as every request's.
    gen::run_with_threads(request.threads, [&] { gen::generate(options); });
    finish_summary(summary,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return summary;
  } catch (const Refused&) {
    throw;
  } catch (...) {
    std::throw_with_nested(Refused(refusal_of(std::current_exception())));
  }
}

}  // namespace sowdb
