// `sowdb migrate`: rewrite a table directory of an earlier format version in the current one.
// Option binding and rendering; the job, its totals and the JSON are the analysis library's
// (sowdb/analysis/directory_jobs.h).
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "board_text.h"
#include "commands.h"
#include "layer_job.h"
#include "progress_line.h"
#include "sowdb/analysis/directory_jobs.h"
#include "sowdb/gen/migrate.h"

namespace sowdb::cli {
namespace {

struct MigrateArgs {
  std::string tables;
  std::string out;
  int threads = 0;
  bool quiet = false;
  bool json = false;
  WriteArgs write;
};

void create_migrate_options(CLI::App* cmd, MigrateArgs& args) {
  cmd->add_option("--tables", args.tables, "Table directory to read")->required();
  cmd->add_option("--out",
                  args.out,
                  "New table directory (missing or empty, or one an interrupted migrate of the "
                  "same --tables and options left: it is continued)")
      ->required();
  add_threads_option(cmd, args.threads);
  cmd->add_flag("--quiet", args.quiet, "No progress or summary lines");
  cmd->add_flag("--json", args.json, "One JSON line per layer on stdout");
  add_write_options(cmd, args.write);
}

void print_layer(const gen::MigrateLayerReport& r) {
  std::printf("layer %3d: %12llu %s, %8.2f s, %s -> %s (format version %d%s)\n",
              r.stones,
              static_cast<unsigned long long>(r.positions),
              r.positions == 1 ? "position" : "positions",
              r.seconds,
              human_bytes(static_cast<double>(r.bytes_before)).c_str(),
              human_bytes(static_cast<double>(r.bytes_on_disk)).c_str(),
              r.format_version,
              r.reused ? ", written by the interrupted run" : "");
}

int run_migrate(const MigrateArgs& args) {
  if (args.out.empty())
    throw UsageError("--out: the table directory must not be an empty path");
  // Opened here too, so that a directory that is not one is reported as bad input and the
  // progress line knows the board.
  const int pits = open_tables(args.tables)->rules().pits();
  const bool tty = isatty(fileno(stderr)) && !args.quiet && !args.json;
  MigrateRequest request;
  request.threads = args.threads;
  gen::MigrateOptions& options = request.options;
  options.from = args.tables;
  options.out = args.out;
  options.recompute = !args.write.no_recompute;
  options.write = args.write.write_options();
  if (tty) {
    auto line = std::make_shared<ProgressLine>(pits);
    options.on_progress = [line](int n, const char* phase, double f) { line->show(n, phase, f); };
  }
  options.on_layer = layer_printer<gen::MigrateLayerReport>(
      {tty, args.json, args.quiet}, [](const gen::MigrateLayerReport& r) { print_layer(r); });
  MigrateSummary summary;
  run_layer_job(options.out, [&] { summary = migrate_tables(request); });
  if (args.json) {
    std::printf("%s\n", to_json(summary).dump().c_str());
  } else if (!args.quiet) {
    std::printf("done: %s -> %s, layers 0..%d, %s, %.2f s, %s -> %s on disk, %s\n",
                args.tables.c_str(),
                args.out.c_str(),
                summary.max_stones,
                count_text(summary.positions, "position", "positions").c_str(),
                summary.seconds,
                human_bytes(static_cast<double>(summary.bytes_before)).c_str(),
                human_bytes(static_cast<double>(summary.bytes_on_disk)).c_str(),
                count_text(thread_count(args.threads), "thread", "threads").c_str());
  }
  return 0;
}

}  // namespace

void add_migrate(CLI::App& app, Runner& run) {
  auto args = std::make_shared<MigrateArgs>();
  auto* cmd = app.add_subcommand(
      "migrate", "Rewrite a table directory of any earlier format version in the current one");
  create_migrate_options(cmd, *args);
  cmd->callback([&run, args] { run = [args] { return run_migrate(*args); }; });
}

}  // namespace sowdb::cli
