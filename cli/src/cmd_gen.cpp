// `sowdb gen`: build a table directory.
#include <tbb/global_control.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "board_text.h"
#include "commands.h"
#include "interrupt.h"
#include "progress_line.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"

namespace sowdb::cli {

void add_gen(CLI::App& app, Runner& run) {
  struct Args {
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
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("gen", "Solve every layer up to N seeds and write the tables");
  cmd->add_option("--variant", args->variant, "Rule system, e.g. oware or kalah/4x3")->required();
  cmd->add_option("--pits", args->pits, "Pits per side (overrides the variant's board)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 8));
  cmd->add_option("--max-stones", args->max_stones, "Largest layer: seeds on the board")
      ->required()
      ->transform(whole_number())
      ->check(CLI::Range(0, kMaxIndexedStones));
  cmd->add_option("--out", args->out, "Table directory (created if missing)")->required();
  add_threads_option(cmd, args->threads);
  cmd->add_flag("--quiet", args->quiet, "No progress or summary lines");
  cmd->add_flag("--json", args->json, "One JSON line per layer on stdout");
  add_write_options(cmd, args->write);
  add_objective_option(cmd, args->objective, "co-operative tables hold each position's set");
  cmd->add_option("--memory-limit",
                  args->memory_limit_gib,
                  "GiB the run may plan for; a larger run is refused before any work (default: "
                  "90% of this machine's memory)")
      ->transform(number())
      ->check(CLI::Range(0.001, 1e9));
  cmd->callback([&run, args] {
    run = [args] {
      Variant v;
      std::string error;
      if (!resolve_variant(args->variant, args->pits, v, error))
        throw UsageError(error);
      if (args->out.empty())
        throw UsageError("--out: the table directory must not be an empty path");
      const int threads = thread_count(args->threads);
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                static_cast<std::size_t>(threads));
      const bool tty = isatty(fileno(stderr)) && !args->quiet && !args->json;
      gen::GenerateOptions options;
      options.variant = v;
      options.max_stones = args->max_stones;
      options.out = args->out;
      options.write.block_entries = args->write.block_entries;
      options.write.zstd_level = args->write.zstd_level;
      options.recompute = !args->write.no_recompute;
      options.objective = objective_of(args->objective);
      if (options.objective == Objective::kCooperative && args->write.no_recompute)
        throw UsageError("--no-recompute: co-operative tables have no recompute entries");
      options.memory_limit_bytes =
          static_cast<std::uint64_t>(args->memory_limit_gib * 1024.0 * 1024.0 * 1024.0);
      if (tty) {
        auto line = std::make_shared<ProgressLine>(v.rules.pits());
        options.on_progress = [line](int n, gen::Phase phase, double f) {
          line->show(n, gen::to_string(phase), f);
        };
      }
      double total_seconds = 0;
      double solve_seconds = 0;
      double write_seconds = 0;
      double read_seconds = 0;
      std::uint64_t total_positions = 0;
      std::uint64_t solved_positions = 0;
      std::uint64_t total_bytes = 0;
      int reused = 0;
      std::uint64_t peak_rss = 0;
      int top = -1;  // above --max-stones when layers there had to be checked again
      const auto run_start = std::chrono::steady_clock::now();
      options.on_rebuild = [&](int n, const std::string& why) {
        if (tty)
          ProgressLine::clear();
        // On stdout among the layer lines; on stderr when stdout carries JSON or nothing.
        std::FILE* to = args->json || args->quiet ? stderr : stdout;
        std::fprintf(to, "layer %3d: %s; solving it again\n", n, why.c_str());
        std::fflush(to);
      };
      options.on_layer = [&](const gen::LayerReport& r) {
        interrupt_progress(r.stones);
        top = r.stones;
        total_seconds += r.seconds;
        solve_seconds += r.solve_seconds;
        write_seconds += r.write_seconds;
        read_seconds += r.read_seconds;
        total_positions += r.positions;
        if (!r.reused)
          solved_positions += r.positions;
        total_bytes += r.bytes_on_disk;
        reused += r.reused ? 1 : 0;
        peak_rss = std::max(peak_rss, r.peak_rss_bytes);
        if (args->json) {
          nlohmann::json j;
          j["n"] = r.stones;
          j["positions"] = r.positions;
          j["seconds"] = r.seconds;
          j["positions_per_s"] = r.positions_per_s;
          j["solve_seconds"] = r.solve_seconds;
          j["write_seconds"] = r.write_seconds;
          j["read_seconds"] = r.read_seconds;
          j["peak_rss_bytes"] = r.peak_rss_bytes;
          j["bytes_on_disk"] = r.bytes_on_disk;
          j["reused"] = r.reused;
          if (!r.rebuilt_because.empty())
            j["rebuilt_because"] = r.rebuilt_because;
          std::printf("%s\n", j.dump().c_str());
          std::fflush(stdout);
        } else if (!args->quiet) {
          if (tty)
            ProgressLine::clear();
          if (r.reused) {
            std::printf("layer %3d: %12llu %s, reused (%s on disk)\n",
                        r.stones,
                        static_cast<unsigned long long>(r.positions),
                        r.positions == 1 ? "position" : "positions",
                        human_bytes(static_cast<double>(r.bytes_on_disk)).c_str());
          } else {
            std::printf(
                "layer %3d: %12llu %s, %8.2f s (solve %.2f, write %.2f), %7.2f M "
                "positions/s, %s on disk (%.3f bytes/position), peak RSS %s\n",
                r.stones,
                static_cast<unsigned long long>(r.positions),
                r.positions == 1 ? "position" : "positions",
                r.seconds,
                r.solve_seconds,
                r.write_seconds,
                r.positions_per_s / 1e6,
                human_bytes(static_cast<double>(r.bytes_on_disk)).c_str(),
                static_cast<double>(r.bytes_on_disk) / static_cast<double>(r.positions),
                human_bytes(static_cast<double>(r.peak_rss_bytes)).c_str());
          }
          std::fflush(stdout);
        }
      };
      catch_interrupts(options.out);
      try {
        gen::generate(options);
      } catch (const gen::InvalidRequest& e) {
        throw UsageError(e.what());
      }
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
      if (args->json) {
        // The run as a whole: the last line, told apart from the layers' by "summary".
        nlohmann::json j;
        j["summary"] = true;
        j["variant"] = v.to_string();
        j["max_stones"] = top;
        j["layers"] = top + 1;
        j["layers_reused"] = reused;
        j["positions"] = total_positions;
        j["solved_positions"] = solved_positions;
        j["seconds"] = wall;
        j["solve_seconds"] = solve_seconds;
        j["write_seconds"] = write_seconds;
        j["read_seconds"] = read_seconds;
        j["positions_per_s"] = wall > 0 ? static_cast<double>(solved_positions) / wall : 0.0;
        j["bytes_on_disk"] = total_bytes;
        j["bytes_per_position"] = total_positions > 0 ? static_cast<double>(total_bytes) /
                                                            static_cast<double>(total_positions)
                                                      : 0.0;
        j["peak_rss_bytes"] = std::max(peak_rss, gen::peak_rss_bytes());
        j["threads"] = threads;
        j["zstd_level"] = args->write.zstd_level;
        j["recompute"] = !args->write.no_recompute && options.objective == Objective::kCompetitive;
        j["objective"] = args->objective;
        std::printf("%s\n", j.dump().c_str());
        std::fflush(stdout);
      } else if (!args->quiet) {
        std::printf(
            "done: %s%s, layers 0..%d, %s, %.2f s solving and writing (solve %.2f, "
            "write %.2f), %s on disk, %s\n",
            v.to_string().c_str(),
            options.objective == Objective::kCooperative ? " (co-operative)" : "",
            top,
            count_text(total_positions, "position", "positions").c_str(),
            total_seconds,
            solve_seconds,
            write_seconds,
            human_bytes(static_cast<double>(total_bytes)).c_str(),
            count_text(threads, "thread", "threads").c_str());
      }
      return 0;
    };
  });
}

}  // namespace sowdb::cli
