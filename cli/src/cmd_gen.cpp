// `sowdb gen`: build a table directory. Option binding and rendering; the totals and the JSON
// are the analysis library's (sowdb/analysis/table_jobs.h), the work the generator's.
#include <tbb/global_control.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "board_text.h"
#include "commands.h"
#include "layer_job.h"
#include "progress_line.h"
#include "sowdb/analysis/table_jobs.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"

namespace sowdb::cli {
namespace {

struct GenArgs {
  std::string variant;
  int pits = 0;
  int max_stones = -1;
  std::string out;
  int threads = 0;
  bool quiet = false;
  bool json = false;
  WriteArgs write;
  double memory_limit_gib = 0;
  std::string objective = "competitive";
};

void create_gen_options(CLI::App* cmd, GenArgs& args) {
  cmd->add_option("--variant", args.variant, "Rule system, e.g. oware or kalah/4x3")->required();
  cmd->add_option("--pits", args.pits, "Pits per side (overrides the variant's board)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 8));
  cmd->add_option("--max-stones", args.max_stones, "Largest layer: seeds on the board")
      ->required()
      ->transform(whole_number())
      ->check(CLI::Range(0, kMaxIndexedStones));
  cmd->add_option("--out", args.out, "Table directory (created if missing)")->required();
  add_threads_option(cmd, args.threads);
  cmd->add_flag("--quiet", args.quiet, "No progress or summary lines");
  cmd->add_flag("--json", args.json, "One JSON line per layer on stdout");
  add_write_options(cmd, args.write);
  add_objective_option(cmd, args.objective, "co-operative tables hold each position's set");
  cmd->add_option("--memory-limit",
                  args.memory_limit_gib,
                  "GiB the run may plan for; a larger run is refused before any work (default: "
                  "90% of this machine's memory)")
      ->transform(number())
      ->check(CLI::Range(0.001, 1e9));
}

// Runs gen::generate; the refusals whose remedy is a flag of this command get it added here
// (the library's message states the cause only), as UsageError, exit 2.
void generate_with_remedies(const gen::GenerateOptions& options) {
  try {
    gen::generate(options);
  } catch (const gen::OutHoldsOtherTables& e) {
    throw UsageError(std::string(e.what()) + ". Use another --out directory.");
  } catch (const gen::OutLabelledOtherwise& e) {
    throw UsageError(std::string(e.what()) + ": use --variant " + e.held.to_string() +
                     ", or relabel the directory with `sowdb manifest --tables " + e.out.string() +
                     " --variant " + e.asked.to_string() + "`.");
  } catch (const gen::LayerAboveTooLarge& e) {
    throw UsageError(std::string(e.what()) + "; raise --memory-limit, or remove the layers above " +
                     std::to_string(e.max_stones) + " (probes may refuse some of their entries)");
  }
}

// The generator's options from the command line's; bad combinations are UsageError.
gen::GenerateOptions generate_options(const GenArgs& args) {
  gen::GenerateOptions options;
  std::string error;
  if (!resolve_variant(args.variant, args.pits, options.variant, error))
    throw UsageError(error);
  if (args.out.empty())
    throw UsageError("--out: the table directory must not be an empty path");
  options.max_stones = args.max_stones;
  options.out = args.out;
  options.write.block_entries = args.write.block_entries;
  options.write.zstd_level = args.write.zstd_level;
  options.recompute = !args.write.no_recompute;
  options.objective = objective_of(args.objective);
  if (options.objective == Objective::kCooperative && args.write.no_recompute)
    throw UsageError("--no-recompute: co-operative tables have no recompute entries");
  options.memory_limit_bytes =
      static_cast<std::uint64_t>(args.memory_limit_gib * 1024.0 * 1024.0 * 1024.0);
  return options;
}

void print_layer(const gen::LayerReport& r) {
  const std::string count = r.positions == 1 ? "position" : "positions";
  if (r.reused) {
    std::printf("layer %3d: %12llu %s, reused (%s on disk)\n",
                r.stones,
                static_cast<unsigned long long>(r.positions),
                count.c_str(),
                human_bytes(static_cast<double>(r.bytes_on_disk)).c_str());
    return;
  }
  std::printf(
      "layer %3d: %12llu %s, %8.2f s (solve %.2f, write %.2f), %7.2f M positions/s, %s on disk "
      "(%.3f bytes/position), peak RSS %s\n",
      r.stones,
      static_cast<unsigned long long>(r.positions),
      count.c_str(),
      r.seconds,
      r.solve_seconds,
      r.write_seconds,
      r.positions_per_s / 1e6,
      human_bytes(static_cast<double>(r.bytes_on_disk)).c_str(),
      static_cast<double>(r.bytes_on_disk) / static_cast<double>(r.positions),
      human_bytes(static_cast<double>(r.peak_rss_bytes)).c_str());
}

void print_summary(const GenerateSummary& s) {
  std::printf(
      "done: %s%s, layers 0..%d, %s, %.2f s solving and writing (solve %.2f, write %.2f), %s on "
      "disk, %s\n",
      s.variant.c_str(),
      s.objective == Objective::kCooperative ? " (co-operative)" : "",
      s.max_stones,
      count_text(s.positions, "position", "positions").c_str(),
      s.layer_seconds,
      s.solve_seconds,
      s.write_seconds,
      human_bytes(static_cast<double>(s.bytes_on_disk)).c_str(),
      count_text(s.threads, "thread", "threads").c_str());
}

int run_gen(const GenArgs& args) {
  gen::GenerateOptions options = generate_options(args);
  const int threads = thread_count(args.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  const bool tty = isatty(fileno(stderr)) && !args.quiet && !args.json;
  if (tty) {
    auto line = std::make_shared<ProgressLine>(options.variant.rules.pits());
    options.on_progress = [line](int n, gen::Phase phase, double f) {
      line->show(n, gen::to_string(phase), f);
    };
  }
  GenerateSummary summary;
  summary.variant = options.variant.to_string();
  summary.objective = options.objective;
  summary.threads = threads;
  summary.zstd_level = args.write.zstd_level;
  summary.recompute = options.recompute && options.objective == Objective::kCompetitive;
  options.on_rebuild = [&](int n, const std::string& why) {
    if (tty)
      ProgressLine::clear();
    // On stdout among the layer lines; on stderr when stdout carries JSON or nothing.
    std::FILE* to = args.json || args.quiet ? stderr : stdout;
    std::fprintf(to, "layer %3d: %s; solving it again\n", n, why.c_str());
    std::fflush(to);
  };
  options.on_layer = layer_printer<gen::LayerReport>(
      summary, {tty, args.json, args.quiet}, [](const gen::LayerReport& r) { print_layer(r); });
  summary.seconds = run_layer_job(options.out, [&] { generate_with_remedies(options); });
  summary.peak_rss_bytes = std::max(summary.peak_rss_bytes, gen::peak_rss_bytes());
  if (args.json)
    std::printf("%s\n", to_json(summary).dump().c_str());
  else if (!args.quiet)
    print_summary(summary);
  return 0;
}

}  // namespace

void add_gen(CLI::App& app, Runner& run) {
  auto args = std::make_shared<GenArgs>();
  auto* cmd = app.add_subcommand("gen", "Solve every layer up to N seeds and write the tables");
  create_gen_options(cmd, *args);
  cmd->callback([&run, args] { run = [args] { return run_gen(*args); }; });
}

}  // namespace sowdb::cli
