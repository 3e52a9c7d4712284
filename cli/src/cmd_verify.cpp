// `sowdb verify`: re-derives every entry of a table directory from its successors, through the
// probe library only (not the generator's internals). The job, its totals and the JSON are the
// analysis library's (sowdb/analysis/directory_jobs.h); this file binds the options and renders.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "board_text.h"
#include "commands.h"
#include "progress_line.h"
#include "sowdb/analysis/directory_jobs.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/tables.h"

namespace sowdb::cli {
namespace {

struct VerifyArgs {
  std::string tables;
  int max_stones = -1;
  int threads = 0;
  bool json = false;
  bool quiet = false;
};

void create_verify_options(CLI::App* cmd, VerifyArgs& args) {
  cmd->add_option("--tables", args.tables, "Table directory")->required();
  cmd->add_option("--max-stones", args.max_stones, "Check layers 0..N only (default: all)")
      ->transform(whole_number())
      ->check(CLI::Range(0, kMaxIndexedStones));
  add_threads_option(cmd, args.threads);
  cmd->add_flag("--json", args.json, "One JSON line per layer on stdout");
  cmd->add_flag("--quiet", args.quiet, "Print only problems and the final line");
}

void print_layer(const VerifyReport& check, double seconds) {
  const std::uint64_t bad = check.problems();
  std::printf("layer %3d: %12llu %s, %s, %.2f s\n",
              check.stones,
              static_cast<unsigned long long>(check.positions),
              check.positions == 1 ? "position" : "positions",
              bad ? count_text(bad, "PROBLEM", "PROBLEMS").c_str() : "all entries agree",
              seconds);
  for (const auto& e : check.examples)
    std::printf("    %s\n", e.c_str());
}

int run_verify(const VerifyArgs& args) {
  // The layers are read whole (TableSet::read_layer): no block cache is needed.
  const std::unique_ptr<TableSet> tables = open_tables(args.tables, TableSetOptions{});
  VerifyRequest request;
  request.tables_name = args.tables;
  request.last = last_layer(*tables, args.max_stones, args.tables);
  request.threads = args.threads;
  VerifyEvents events;
  const bool tty = isatty(fileno(stderr)) && !args.quiet && !args.json;
  if (tty) {
    auto line = std::make_shared<ProgressLine>(tables->rules().pits());
    events.on_progress = [line](int n, const char* phase, double f) { line->show(n, phase, f); };
  }
  events.on_layer = [&](const VerifyReport& check, double seconds) {
    if (tty)
      ProgressLine::clear();
    if (args.json)
      std::printf("%s\n", to_json(check, seconds).dump().c_str());
    else if (!args.quiet || check.problems())
      print_layer(check, seconds);
    std::fflush(stdout);
  };
  const VerifySummary summary = verify_tables(*tables, request, events);
  if (args.json) {
    // The verdict as the last line, told apart from the layers' by "summary".
    std::printf("%s\n", to_json(summary).dump().c_str());
  } else {
    std::printf("%s: %s, layers 0..%d, %s checked in %.1f s: %s\n",
                args.tables.c_str(),
                summary.variant.c_str(),
                request.last,
                count_text(summary.positions, "position", "positions").c_str(),
                summary.seconds,
                summary.verified() ? "verified"
                                   : count_text(summary.problems, "problem", "problems").c_str());
  }
  std::fflush(stdout);
  if (!summary.verified()) {
    std::fprintf(stderr, "sowdb: error: %s\n", summary.failure().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

void add_verify(CLI::App& app, Runner& run) {
  auto args = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand(
      "verify", "Re-derive every table entry from its successors through the probe library");
  create_verify_options(cmd, *args);
  cmd->callback([&run, args] { run = [args] { return run_verify(*args); }; });
}

}  // namespace sowdb::cli
