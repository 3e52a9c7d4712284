// `sowdb migrate`: rewrite a table directory of an earlier format version in the current one.
#include <tbb/global_control.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "board_text.h"
#include "commands.h"
#include "interrupt.h"
#include "progress_line.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/migrate.h"
#include "sowdb/gen/parallel.h"

namespace sowdb::cli {

void add_migrate(CLI::App& app, Runner& run) {
  struct Args {
    std::string tables;
    std::string out;
    int threads = 0;
    bool quiet = false;
    bool json = false;
    WriteArgs write;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "migrate", "Rewrite a table directory of any earlier format version in the current one");
  cmd->add_option("--tables", args->tables, "Table directory to read")->required();
  cmd->add_option("--out", args->out, "New table directory (missing or empty)")->required();
  add_threads_option(cmd, args->threads);
  cmd->add_flag("--quiet", args->quiet, "No progress or summary lines");
  cmd->add_flag("--json", args->json, "One JSON line per layer on stdout");
  add_write_options(cmd, args->write);
  cmd->callback([&run, args] {
    run = [args] {
      if (args->out.empty())
        throw UsageError("--out: the table directory must not be an empty path");
      // Opened here too, so that a directory that is not one is reported as bad input and the
      // progress line knows the board.
      const int pits = open_tables(args->tables)->rules().pits();
      const int threads = thread_count(args->threads);
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                static_cast<std::size_t>(threads));
      const bool tty = isatty(fileno(stderr)) && !args->quiet && !args->json;
      gen::MigrateOptions options;
      options.from = args->tables;
      options.out = args->out;
      options.recompute = !args->write.no_recompute;
      options.write.block_entries = args->write.block_entries;
      options.write.zstd_level = args->write.zstd_level;
      options.executor = gen::tbb_executor();
      if (tty) {
        auto line = std::make_shared<ProgressLine>(pits);
        options.on_progress = [line](int n, const char* phase, double f) {
          line->show(n, phase, f);
        };
      }
      std::uint64_t positions = 0;
      std::uint64_t before = 0;
      std::uint64_t after = 0;
      int top = -1;
      auto start = std::chrono::steady_clock::now();
      const auto run_start = start;
      options.on_layer = [&](const gen::MigrateLayerReport& r) {
        interrupt_progress(r.stones);
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - start).count();
        start = now;
        top = r.stones;
        positions += r.positions;
        before += r.bytes_before;
        after += r.bytes_on_disk;
        if (args->json) {
          nlohmann::json j;
          j["n"] = r.stones;
          j["positions"] = r.positions;
          j["seconds"] = seconds;
          j["bytes_before"] = r.bytes_before;
          j["bytes_on_disk"] = r.bytes_on_disk;
          j["format_version"] = r.format_version;
          j["reused"] = r.reused;
          std::printf("%s\n", j.dump().c_str());
          std::fflush(stdout);
        } else if (!args->quiet) {
          if (tty)
            ProgressLine::clear();
          std::printf("layer %3d: %12llu %s, %8.2f s, %s -> %s (format version %d%s)\n",
                      r.stones,
                      static_cast<unsigned long long>(r.positions),
                      r.positions == 1 ? "position" : "positions",
                      seconds,
                      human_bytes(static_cast<double>(r.bytes_before)).c_str(),
                      human_bytes(static_cast<double>(r.bytes_on_disk)).c_str(),
                      r.format_version,
                      r.reused ? ", written by the interrupted run" : "");
          std::fflush(stdout);
        }
      };
      catch_interrupts(options.out);
      try {
        gen::migrate(options);
      } catch (const gen::InvalidRequest& e) {
        throw UsageError(e.what());
      }
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
      if (args->json) {
        nlohmann::json j;
        j["summary"] = true;
        j["max_stones"] = top;
        j["layers"] = top + 1;
        j["positions"] = positions;
        j["seconds"] = wall;
        j["bytes_before"] = before;
        j["bytes_on_disk"] = after;
        j["recompute"] = !args->write.no_recompute;
        std::printf("%s\n", j.dump().c_str());
      } else if (!args->quiet) {
        std::printf("done: %s -> %s, layers 0..%d, %s, %.2f s, %s -> %s on disk, %s\n",
                    args->tables.c_str(),
                    args->out.c_str(),
                    top,
                    count_text(positions, "position", "positions").c_str(),
                    wall,
                    human_bytes(static_cast<double>(before)).c_str(),
                    human_bytes(static_cast<double>(after)).c_str(),
                    count_text(threads, "thread", "threads").c_str());
      }
      return 0;
    };
  });
}

}  // namespace sowdb::cli
