// sowdb-mpi: `sowdb gen` over MPI ranks (decision record 0010, docs/CLUSTER.md).
//
//   mpirun -np K sowdb-mpi gen --variant V --max-stones N --out DIR [sowdb gen's options]
//                              [--write-mode gather|mpi-io]
//
// A front end like `sowdb`: gen's options with their names and ranges (cli/src/gen_args.h), the
// analysis library's request, summary, JSON and text (sowdb/analysis/generate_job.h,
// table_jobs.h, generate_text.h). Builds the same files as `sowdb gen`. Every rank parses the
// command line; rank 0 talks to the user.
#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "dist_generate.h"
#include "exchange.h"
#include "gen_args.h"
#include "progress_line.h"
#include "sowdb/analysis/generate_job.h"
#include "sowdb/analysis/generate_text.h"
#include "sowdb/analysis/table_jobs.h"
#include "sowdb/probe/version.h"

namespace {

using sowdb::mpi::Comm;

const char* const kExitCodes =
    "Exit codes: 0 success; 1 a failure while working (damaged data, I/O, a busy directory); 2 "
    "bad input, refused before any work. A rank that fails ends the job with mpirun's exit code, "
    "and a line naming the rank. Reference: docs/CLUSTER.md";

const char* const kMemoryHelp =
    "GiB the whole job may plan for (gen's estimate for one process); a larger run is refused "
    "before any work (default: the ranks times 90% of this machine's memory)";

struct MpiGenArgs {
  sowdb::cli::GenArgs gen;
  std::string write_mode = "gather";
};

// The command line, bound as `sowdb gen`'s plus --write-mode.
void add_options(CLI::App& app, MpiGenArgs& args) {
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("sowdb-mpi ") + SOWDB_VERSION_STRING);
  app.footer(kExitCodes);
  auto* cmd = app.add_subcommand(
      "gen", "Solve every layer up to N seeds over the MPI ranks and write sowdb gen's tables");
  sowdb::cli::add_gen_options(cmd, args.gen, kMemoryHelp);
  cmd->get_option("--threads")->description("Worker threads of each rank (default: all cores)");
  cmd->add_option("--write-mode",
                  args.write_mode,
                  "gather: the ranks send their compressed blocks to rank 0, which writes the "
                  "file; mpi-io: every rank writes its blocks with MPI-IO")
      ->check(CLI::IsMember({"gather", "mpi-io"}))
      ->capture_default_str();
}

// Parses the command line on every rank; rank 0 prints --help and --version, or the one line
// of a refusal. Returns the exit code when the program ends here, -1 when it goes on.
int parse(const Comm& comm, CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::Success& e) {
    return comm.rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (comm.rank == 0) {
      std::fprintf(stderr,
                   "sowdb-mpi: error: %s\n",
                   sowdb::cli::parse_error_text(app, e, "sowdb-mpi", "gen").c_str());
    }
    return 2;
  }
}

// One `--json` layer line: `sowdb gen --json`'s, and what the ranks did (docs/CLUSTER.md).
nlohmann::json layer_json(const sowdb::mpi::DistLayerReport& r, int ranks) {
  nlohmann::json j = sowdb::to_json(r.layer);
  j["ranks"] = ranks;
  j["bytes_sent"] = r.bytes_sent;
  j["messages_sent"] = r.messages;
  j["slowest_rank_seconds"] = r.slowest_seconds;
  j["slowest_rank"] = r.slowest_rank;
  j["rank0_peak_rss_bytes"] = r.rank0_rss_bytes;
  j["other_ranks_peak_rss_bytes"] = r.other_rss_bytes;
  return j;
}

// The test hooks: SOWDB_MPI_TEST_KILL=RANK:LAYER (the kill-and-resume test),
// SOWDB_MPI_TEST_DEEP=D (depths from D, 1..255, up kept in a list).
void test_hooks(const Comm& comm, sowdb::mpi::DistOptions& options) {
  if (const char* kill = std::getenv("SOWDB_MPI_TEST_KILL")) {
    int rank = -1, layer = -1;
    if (std::sscanf(kill, "%d:%d", &rank, &layer) == 2 && rank == comm.rank)
      options.die_at_layer = layer;
  }
  if (const char* deep = std::getenv("SOWDB_MPI_TEST_DEEP")) {
    const int d = std::atoi(deep);
    if (d >= 1 && d <= 255)
      options.deep_byte = static_cast<std::uint8_t>(d);
  }
}

// The run's callbacks (rank 0's): as `sowdb gen` shows a run, each layer added to `summary`.
void show_run(const Comm& comm,
              const sowdb::cli::GenArgs& args,
              int pits,
              sowdb::GenerateSummary& summary,
              sowdb::mpi::DistOptions& options) {
  const bool tty = comm.rank == 0 && isatty(fileno(stderr)) && !args.quiet && !args.json;
  if (tty) {
    auto line = std::make_shared<sowdb::cli::ProgressLine>(pits);
    options.on_progress = [line](int n, sowdb::gen::Phase phase, double f) {
      line->show(n, sowdb::gen::to_string(phase), f);
    };
  }
  options.on_rebuild = [tty, &args](int n, const std::string& why) {
    if (tty)
      sowdb::cli::ProgressLine::clear();
    std::FILE* to = args.json || args.quiet ? stderr : stdout;
    std::fprintf(to, "%s\n", sowdb::rebuild_text(n, why).c_str());
    std::fflush(to);
  };
  options.on_layer =
      [tty, &args, &summary, ranks = comm.size](const sowdb::mpi::DistLayerReport& r) {
        summary.add(r.layer);
        if (tty)
          sowdb::cli::ProgressLine::clear();
        if (args.json)
          std::printf("%s\n", layer_json(r, ranks).dump().c_str());
        else if (!args.quiet)
          std::printf("%s\n", sowdb::layer_text(r.layer).c_str());
        std::fflush(stdout);
      };
}

int run_gen(const Comm& comm, const MpiGenArgs& args) {
  sowdb::GenerateRequest request;
  try {
    request = sowdb::cli::generate_request(args.gen);
  } catch (const sowdb::cli::UsageError& e) {
    if (comm.rank == 0)
      std::fprintf(stderr, "sowdb-mpi: error: %s\n", e.what());
    return 2;
  }
  sowdb::mpi::DistOptions options;
  options.gen = sowdb::generate_options(request);
  options.threads = request.threads;
  options.write_mode =
      args.write_mode == "mpi-io" ? sowdb::mpi::WriteMode::kMpiIo : sowdb::mpi::WriteMode::kGather;
  test_hooks(comm, options);
  sowdb::GenerateSummary summary = sowdb::start_summary(request);
  show_run(comm, args.gen, request.variant.rules.pits(), summary, options);
  const auto start = std::chrono::steady_clock::now();
  const sowdb::mpi::DistError e = sowdb::mpi::generate_distributed(comm, options);
  if (e.exit_code != 0) {
    if (comm.rank == 0)
      std::fprintf(stderr, "sowdb-mpi: error: %s\n", e.message.c_str());
    return e.exit_code;
  }
  sowdb::finish_summary(
      summary, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (comm.rank == 0) {
    if (args.gen.json)
      std::printf("%s\n", sowdb::to_json(summary).dump().c_str());
    else if (!args.gen.quiet)
      std::printf("%s\n", sowdb::summary_text(summary).c_str());
    std::fflush(stdout);
  }
  return 0;
}

int run(const Comm& comm, int argc, char** argv) {
  CLI::App app{"sowdb-mpi: sowdb gen over MPI ranks (run under mpirun or srun)", "sowdb-mpi"};
  MpiGenArgs args;
  add_options(app, args);
  const int code = parse(comm, app, argc, argv);
  if (code >= 0) {
    std::cout.flush();
    return code;
  }
  return run_gen(comm, args);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const Comm comm = Comm::world();
  int code = 0;
  try {
    code = run(comm, argc, argv);
  } catch (...) {
    // A failure inside a collective phase: the other ranks wait for this one, so the job ends
    // here, naming the rank.
    const sowdb::Refusal r = sowdb::refusal_of(std::current_exception());
    std::fprintf(
        stderr, "sowdb-mpi: rank %d of %d failed: %s\n", comm.rank, comm.size, r.message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}
