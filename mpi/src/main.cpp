// sowdb-mpi: `sowdb gen` over MPI ranks (decision record 0010, docs/CLUSTER.md).
//
//   mpirun -np K sowdb-mpi gen --variant V --max-stones N --out DIR [--threads T] [--json]
//                              [--quiet] [--no-recompute] [--write-mode gather|mpi-io]
//
// Builds the same files as `sowdb gen` with the same options. Rank 0 talks to the user.
#include <mpi.h>
#include <tbb/global_control.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "dist_generate.h"
#include "exchange.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/variant.h"

namespace {

using sowdb::mpi::Comm;

struct Args {
  std::string variant;
  int max_stones = -1;
  std::string out;
  int threads = 0;
  bool json = false;
  bool quiet = false;
  bool no_recompute = false;
  std::string objective = "competitive";
  unsigned block_entries = sowdb::kDefaultBlockEntries;
  int zstd_level = sowdb::kDefaultZstdLevel;
  double memory_limit_gib = 0;
  std::string write_mode = "gather";
};

const char* kUsage =
    "usage: mpirun -np K sowdb-mpi gen --variant V --max-stones N --out DIR [--threads T] "
    "[--json] [--quiet] [--no-recompute] [--block-entries N] [--zstd-level L] "
    "[--memory-limit GIB] [--objective competitive] [--write-mode gather|mpi-io]\n";

// Parses the command line; returns an error message, empty when it parsed.
std::string parse(int argc, char** argv, Args& a) {
  if (argc < 2 || std::strcmp(argv[1], "gen") != 0)
    return "the one command is `gen`";
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc)
        throw std::invalid_argument(std::string(name) + " needs a value");
      return argv[++i];
    };
    try {
      if (arg == "--variant")
        a.variant = value("--variant");
      else if (arg == "--max-stones")
        a.max_stones = std::stoi(value("--max-stones"));
      else if (arg == "--out")
        a.out = value("--out");
      else if (arg == "--threads")
        a.threads = std::stoi(value("--threads"));
      else if (arg == "--block-entries")
        a.block_entries = static_cast<unsigned>(std::stoul(value("--block-entries")));
      else if (arg == "--zstd-level")
        a.zstd_level = std::stoi(value("--zstd-level"));
      else if (arg == "--memory-limit")
        a.memory_limit_gib = std::stod(value("--memory-limit"));
      else if (arg == "--write-mode")
        a.write_mode = value("--write-mode");
      else if (arg == "--objective")
        a.objective = value("--objective");
      else if (arg == "--json")
        a.json = true;
      else if (arg == "--quiet")
        a.quiet = true;
      else if (arg == "--no-recompute")
        a.no_recompute = true;
      else
        return "unknown option " + arg;
    } catch (const std::exception& e) {
      return arg + ": " + e.what();
    }
  }
  if (a.variant.empty() || a.max_stones < 0 || a.out.empty())
    return "--variant, --max-stones and --out are required";
  if (a.block_entries < 1 || a.block_entries > sowdb::kMaxBlockEntries)
    return "--block-entries: 1.." + std::to_string(sowdb::kMaxBlockEntries);
  if (a.zstd_level < 1 || a.zstd_level > 22)
    return "--zstd-level: 1..22";
  if (a.memory_limit_gib < 0)
    return "--memory-limit: GiB, at least 0";
  if (a.write_mode != "gather" && a.write_mode != "mpi-io")
    return "--write-mode: gather or mpi-io";
  if (a.objective != "competitive" && a.objective != "cooperative")
    return "--objective: competitive or cooperative";
  return {};
}

// The progress line of rank 0 on a terminal: layer, phase, part done, rate, time left.
class Progress {
 public:
  void show(int n, sowdb::gen::Phase phase, double f, std::uint64_t positions) {
    const auto now = std::chrono::steady_clock::now();
    if (n != stones_ || phase != phase_) {
      stones_ = n;
      phase_ = phase;
      start_ = now;
      drawn_ = {};
    }
    if (f < 1 && now - drawn_ < std::chrono::milliseconds(200))
      return;
    drawn_ = now;
    const double s = std::chrono::duration<double>(now - start_).count();
    const double rate = s > 0 ? f * static_cast<double>(positions) / s : 0;
    const double eta = f > 0 ? s * (1 - f) / f : 0;
    std::fprintf(stderr,
                 "\r\033[Klayer %3d: %-5s %5.1f%%  %7.2f M positions/s  ETA %.0f s",
                 n,
                 sowdb::gen::to_string(phase),
                 100 * f,
                 rate / 1e6,
                 eta);
    std::fflush(stderr);
  }
  static void clear() { std::fprintf(stderr, "\r\033[K"); }

 private:
  int stones_ = -1;
  sowdb::gen::Phase phase_ = sowdb::gen::Phase::kRead;
  std::chrono::steady_clock::time_point start_, drawn_;
};

void print_layer(const sowdb::mpi::DistLayerReport& r, const Args& a, int ranks) {
  const auto& l = r.layer;
  if (a.json) {
    std::printf(
        "{\"n\":%d,\"positions\":%llu,\"seconds\":%.6f,\"positions_per_s\":%.1f,"
        "\"solve_seconds\":%.6f,\"write_seconds\":%.6f,\"read_seconds\":%.6f,"
        "\"peak_rss_bytes\":%llu,\"bytes_on_disk\":%llu,\"reused\":%s,\"ranks\":%d,"
        "\"bytes_sent\":%llu,\"messages_sent\":%llu,\"slowest_rank_seconds\":%.6f,"
        "\"slowest_rank\":%d,\"rank0_peak_rss_bytes\":%llu,\"other_ranks_peak_rss_bytes\":%llu}\n",
        l.stones,
        static_cast<unsigned long long>(l.positions),
        l.seconds,
        l.positions_per_s,
        l.solve_seconds,
        l.write_seconds,
        l.read_seconds,
        static_cast<unsigned long long>(l.peak_rss_bytes),
        static_cast<unsigned long long>(l.bytes_on_disk),
        l.reused ? "true" : "false",
        ranks,
        static_cast<unsigned long long>(r.bytes_sent),
        static_cast<unsigned long long>(r.messages),
        r.slowest_seconds,
        r.slowest_rank,
        static_cast<unsigned long long>(r.rank0_rss_bytes),
        static_cast<unsigned long long>(r.other_rss_bytes));
  } else if (!a.quiet) {
    if (l.reused) {
      std::printf("layer %3d: %12llu positions, reused (%llu bytes on disk)\n",
                  l.stones,
                  static_cast<unsigned long long>(l.positions),
                  static_cast<unsigned long long>(l.bytes_on_disk));
    } else {
      std::printf(
          "layer %3d: %12llu positions, %8.2f s (solve %.2f, write %.2f), %7.2f M positions/s, "
          "%llu bytes on disk, %.2f bytes sent/position, peak RSS %.1f MiB (largest rank)\n",
          l.stones,
          static_cast<unsigned long long>(l.positions),
          l.seconds,
          l.solve_seconds,
          l.write_seconds,
          l.positions_per_s / 1e6,
          static_cast<unsigned long long>(l.bytes_on_disk),
          static_cast<double>(r.bytes_sent) / static_cast<double>(l.positions),
          static_cast<double>(l.peak_rss_bytes) / (1024.0 * 1024.0));
    }
  }
  std::fflush(stdout);
}

int run(const Comm& comm, int argc, char** argv) {
  Args a;
  const std::string error = parse(argc, argv, a);
  if (!error.empty()) {
    if (comm.rank == 0)
      std::fprintf(stderr, "sowdb-mpi: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  std::string why;
  const auto variant = sowdb::parse_variant(a.variant, &why);
  if (!variant) {
    if (comm.rank == 0)
      std::fprintf(stderr, "sowdb-mpi: --variant: %s\n", why.c_str());
    return 2;
  }
  const int threads = a.threads > 0
                          ? a.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  sowdb::mpi::DistOptions options;
  options.gen.variant = *variant;
  options.gen.max_stones = a.max_stones;
  options.gen.out = a.out;
  options.gen.recompute = !a.no_recompute;
  options.gen.write.block_entries = a.block_entries;
  options.gen.write.zstd_level = a.zstd_level;
  // The memory the whole job may plan for (gen's estimate for one process); 0: K times 90% of
  // this machine's memory.
  options.gen.memory_limit_bytes =
      static_cast<std::uint64_t>(a.memory_limit_gib * 1024.0 * 1024.0 * 1024.0);
  options.write_mode =
      a.write_mode == "mpi-io" ? sowdb::mpi::WriteMode::kMpiIo : sowdb::mpi::WriteMode::kGather;
  options.gen.objective = a.objective == "cooperative" ? sowdb::Objective::kCooperative
                                                       : sowdb::Objective::kCompetitive;
  // The kill-and-resume test's hook: SOWDB_MPI_TEST_KILL=RANK:LAYER.
  if (const char* kill = std::getenv("SOWDB_MPI_TEST_KILL")) {
    int rank = -1, layer = -1;
    if (std::sscanf(kill, "%d:%d", &rank, &layer) == 2 && rank == comm.rank)
      options.die_at_layer = layer;
  }
  // The deep-depth test's hook: SOWDB_MPI_TEST_DEEP=D keeps depths from D (1..255) up in a list.
  if (const char* deep = std::getenv("SOWDB_MPI_TEST_DEEP")) {
    const int d = std::atoi(deep);
    if (d >= 1 && d <= 255)
      options.deep_byte = static_cast<std::uint8_t>(d);
  }
  const bool tty = comm.rank == 0 && isatty(fileno(stderr)) && !a.quiet && !a.json;
  auto line = std::make_shared<Progress>();
  const int pits = variant->rules.pits();
  if (tty) {
    options.on_progress = [line, pits](int n, sowdb::gen::Phase phase, double f) {
      line->show(n, phase, f, sowdb::layer_size(pits, n));
    };
  }
  options.on_rebuild = [&](int n, const std::string& text) {
    if (tty)
      Progress::clear();
    std::FILE* to = a.json || a.quiet ? stderr : stdout;
    std::fprintf(to, "layer %3d: %s; solving it again\n", n, text.c_str());
    std::fflush(to);
  };
  options.on_layer = [&](const sowdb::mpi::DistLayerReport& r) {
    if (tty)
      Progress::clear();
    print_layer(r, a, comm.size);
  };
  const sowdb::mpi::DistError e = sowdb::mpi::generate_distributed(comm, options);
  if (e.exit_code != 0 && comm.rank == 0)
    std::fprintf(stderr, "sowdb-mpi: error: %s\n", e.message.c_str());
  return e.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const Comm comm = Comm::world();
  int code = 0;
  try {
    code = run(comm, argc, argv);
  } catch (const std::exception& e) {
    // A failure inside a collective phase: the other ranks wait for this one, so the job ends
    // here, naming the rank.
    std::fprintf(stderr, "sowdb-mpi: rank %d of %d failed: %s\n", comm.rank, comm.size, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}
