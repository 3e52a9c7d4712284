// `sowdb verify`: re-derives every entry of a table directory from its successors, through the
// probe library only (not the generator's internals).
//
// The checks are those of verify_layer (sowdb/verify/verify.h).
#include <tbb/global_control.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "board_text.h"
#include "commands.h"
#include "progress_line.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/probe/tables.h"
#include "sowdb/verify/verify.h"
#include "sowdb/verify/verify_reach.h"

namespace sowdb::cli {

void add_verify(CLI::App& app, Runner& run) {
  struct Args {
    std::string tables;
    int max_stones = -1;
    int threads = 0;
    bool json = false;
    bool quiet = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "verify", "Re-derive every table entry from its successors through the probe library");
  cmd->add_option("--tables", args->tables, "Table directory")->required();
  cmd->add_option("--max-stones", args->max_stones, "Check layers 0..N only (default: all)")
      ->transform(whole_number())
      ->check(CLI::Range(0, kMaxIndexedStones));
  add_threads_option(cmd, args->threads);
  cmd->add_flag("--json", args->json, "One JSON line per layer on stdout");
  cmd->add_flag("--quiet", args->quiet, "Print only problems and the final line");
  cmd->callback([&run, args] {
    run = [args] {
      // The layers are read whole (TableSet::read_layer): no block cache is needed.
      const std::unique_ptr<TableSet> tables = open_tables(args->tables, TableSetOptions{});
      const int threads = thread_count(args->threads);
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                static_cast<std::size_t>(threads));
      const int last = last_layer(*tables, args->max_stones, args->tables);
      std::uint64_t total = 0;
      std::uint64_t problems = 0;
      std::uint64_t unreadable = 0;
      std::string first_read_error;  // why the first layer with unreadable entries failed
      const auto start_all = std::chrono::steady_clock::now();
      Verifier verifier(*tables, last, gen::tbb_executor());
      // Co-operative tables hold sets: ReachVerifier computes them again (verify_reach.h).
      const bool cooperative = tables->objective() == Objective::kCooperative;
      ReachVerifier reach_verifier(*tables, gen::tbb_executor());
      const bool tty = isatty(fileno(stderr)) && !args->quiet && !args->json;
      if (tty) {
        auto line = std::make_shared<ProgressLine>(tables->rules().pits());
        const auto show = [line](int n, const char* phase, double f) { line->show(n, phase, f); };
        verifier.set_progress(show);
        reach_verifier.set_progress(show);
      }
      for (int n = 0; n <= last; ++n) {
        const auto start = std::chrono::steady_clock::now();
        const VerifyReport check = cooperative ? reach_verifier.verify(n) : verifier.verify(n);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::uint64_t bad = check.problems();
        total += check.positions;
        problems += bad;
        unreadable += check.unreadable;
        if (check.unreadable && first_read_error.empty())
          first_read_error = check.read_error;
        if (check.unreadable && first_read_error.empty()) {
          // The entry may fail through a smaller layer it depends on: name the first error.
          for (int m = 0; m <= n && first_read_error.empty(); ++m)
            first_read_error = tables->layer_error(m);
        }
        if (tty)
          ProgressLine::clear();
        if (args->json) {
          nlohmann::json j;
          j["n"] = n;
          j["positions"] = check.positions;
          j["bad_values"] = check.bad_values;
          j["bad_depths"] = check.bad_depths;
          j["unreadable"] = check.unreadable;
          j["seconds"] = seconds;
          j["examples"] = check.examples;
          std::printf("%s\n", j.dump().c_str());
        } else if (!args->quiet || bad) {
          std::printf("layer %3d: %12llu %s, %s, %.2f s\n",
                      n,
                      static_cast<unsigned long long>(check.positions),
                      check.positions == 1 ? "position" : "positions",
                      bad ? count_text(bad, "PROBLEM", "PROBLEMS").c_str() : "all entries agree",
                      seconds);
          for (const auto& e : check.examples)
            std::printf("    %s\n", e.c_str());
        }
        std::fflush(stdout);
      }
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_all).count();
      if (args->json) {
        // The verdict as the last line, told apart from the layers' by "summary".
        nlohmann::json j;
        j["summary"] = true;
        j["tables"] = args->tables;
        j["variant"] = tables->variant().to_string();
        j["max_stones"] = last;
        j["positions"] = total;
        j["problems"] = problems;
        j["unreadable"] = unreadable;
        j["seconds"] = seconds;
        j["verified"] = problems == 0;
        j["objective"] = to_string(tables->objective());
        std::printf("%s\n", j.dump().c_str());
        std::fflush(stdout);
      } else {
        std::printf("%s: %s, layers 0..%d, %s checked in %.1f s: %s\n",
                    args->tables.c_str(),
                    tables->variant().to_string().c_str(),
                    last,
                    count_text(total, "position", "positions").c_str(),
                    seconds,
                    problems ? count_text(problems, "problem", "problems").c_str() : "verified");
      }
      if (problems) {
        // Unreadable entries are a damaged file, not a wrong value: say which, in one line.
        std::string what;
        if (problems > unreadable) {
          what = problems - unreadable == 1 ? "1 entry disagrees with its successors"
                                            : std::to_string(problems - unreadable) +
                                                  " entries disagree with their successors";
          if (cooperative)
            what += " (the sets their moves give)";
        }
        if (unreadable) {
          what += std::string(what.empty() ? "" : "; ") +
                  count_text(unreadable, "entry", "entries") + " could not be read";
          if (!first_read_error.empty())
            what += " (" + first_read_error + ")";
        }
        std::fprintf(stderr, "sowdb: error: %s\n", what.c_str());
        return 1;
      }
      return 0;
    };
  });
}

}  // namespace sowdb::cli
