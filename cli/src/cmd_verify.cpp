// `sowdb verify`: re-derives every entry of a table directory from its successors, through the
// probe library only (not the generator's internals). The checks are those of verify_layer
// (sowdb/verify/verify.h); the totals and the JSON are the analysis library's.
#include <tbb/global_control.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "board_text.h"
#include "commands.h"
#include "progress_line.h"
#include "sowdb/analysis/table_jobs.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/probe/tables.h"
#include "sowdb/verify/verify.h"
#include "sowdb/verify/verify_reach.h"

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
  const int threads = thread_count(args.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  VerifySummary summary;
  summary.tables = args.tables;
  summary.variant = tables->variant().to_string();
  summary.objective = tables->objective();
  const int last = last_layer(*tables, args.max_stones, args.tables);
  const auto start_all = std::chrono::steady_clock::now();
  Verifier verifier(*tables, last, gen::tbb_executor());
  // Co-operative tables hold sets: ReachVerifier computes them again (verify_reach.h).
  ReachVerifier reach_verifier(*tables, gen::tbb_executor());
  const bool tty = isatty(fileno(stderr)) && !args.quiet && !args.json;
  if (tty) {
    auto line = std::make_shared<ProgressLine>(tables->rules().pits());
    const auto show = [line](int n, const char* phase, double f) { line->show(n, phase, f); };
    verifier.set_progress(show);
    reach_verifier.set_progress(show);
  }
  for (int n = 0; n <= last; ++n) {
    const auto start = std::chrono::steady_clock::now();
    const VerifyReport check = summary.objective == Objective::kCooperative
                                   ? reach_verifier.verify(n)
                                   : verifier.verify(n);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // An entry may fail through a smaller layer it depends on: the first layer's error.
    std::string read_error;
    for (int m = 0; m <= n && check.unreadable && read_error.empty(); ++m)
      read_error = tables->layer_error(m);
    summary.add(check, read_error);
    if (tty)
      ProgressLine::clear();
    if (args.json)
      std::printf("%s\n", to_json(check, seconds).dump().c_str());
    else if (!args.quiet || check.problems())
      print_layer(check, seconds);
    std::fflush(stdout);
  }
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_all).count();
  if (args.json) {
    // The verdict as the last line, told apart from the layers' by "summary".
    std::printf("%s\n", to_json(summary).dump().c_str());
  } else {
    std::printf("%s: %s, layers 0..%d, %s checked in %.1f s: %s\n",
                args.tables.c_str(),
                summary.variant.c_str(),
                last,
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
