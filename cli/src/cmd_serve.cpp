// `sowdb serve`: the JSON API and the analysis page over table directories (docs/API.md).
#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "sowdb/analysis/start_solve.h"
#include "sowdb/server/api.h"
#include "sowdb/server/server.h"

namespace sowdb::cli {
namespace {

struct ServeArgs {
  std::vector<std::string> tables;
  std::string bind = "127.0.0.1";
  int port = 8080;
  int threads = 0;        // 0: half the cores, at least one
  int workers = 0;        // 0: all cores
  int batch_workers = 0;  // 0: all workers but one
  long long cache_mb = 64;
  long long table_cache_mb = 32;
  long long max_batch = 1000;
  long long max_body_kb = 1024;
  long long max_answer_kb = 32768;
  int read_timeout = 10;
  long long max_connections = 4096;
  long long max_connections_per_client = 64;
  int max_search_ms = 10000;
  int search_slots = 1;
  int max_job_seconds = 300;
  long long search_memory_mb = 1024;
  bool no_proof_store = false;
  std::string cors;
};

void create_serve_options(CLI::App* cmd, ServeArgs& args) {
  cmd->add_option("--tables",
                  args.tables,
                  "Table directory written by sowdb gen (repeat for more; each is served under "
                  "its manifest's variant and objective)")
      ->required();
  cmd->add_option("--bind", args.bind, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", args.port, "Port to listen on; 0 picks a free one")
      ->transform(whole_number())
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  // One I/O thread answers a cached position at about 40,000 requests/s on this 2-core machine;
  // a second one there only competed with the workers and the clients (docs/BENCHMARKS.md).
  cmd->add_option("--threads",
                  args.threads,
                  "Threads serving connections (default: half the cores, at least 1)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 64));
  cmd->add_option("--workers", args.workers, "Threads reading tables (default: all cores)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--batch-workers",
                  args.batch_workers,
                  "Workers batches may hold at once (default: all workers but one)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 1024));
}

// The bounds on what one request, one connection and one client may take (docs/API.md).
void create_serve_limits(CLI::App* cmd, ServeArgs& args) {
  cmd->add_option("--cache-mb", args.cache_mb, "Response cache, MiB (0: none)")
      ->transform(whole_number())
      ->check(CLI::Range(0LL, 1LL << 20))
      ->capture_default_str();
  cmd->add_option(
         "--table-cache-mb", args.table_cache_mb, "Decoded table blocks kept per layer, MiB")
      ->transform(whole_number())
      ->check(CLI::Range(0LL, 1LL << 20))
      ->capture_default_str();
  cmd->add_option("--max-batch", args.max_batch, "Positions in one batch request at most")
      ->transform(whole_number())
      ->check(CLI::Range(1LL, 1000000LL))
      ->capture_default_str();
  cmd->add_option("--max-body-kb", args.max_body_kb, "Request body at most, KiB")
      ->transform(whole_number())
      ->check(CLI::Range(1LL, 1LL << 20))
      ->capture_default_str();
  cmd->add_option("--max-answer-kb",
                  args.max_answer_kb,
                  "Answer body at most, KiB, before compression (larger: 413, never cut short)")
      ->transform(whole_number())
      ->check(CLI::Range(1LL, 1LL << 30))
      ->capture_default_str();
  cmd->add_option("--read-timeout",
                  args.read_timeout,
                  "Seconds a client has to send a whole request (and an idle connection stays)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  cmd->add_option("--max-connections",
                  args.max_connections,
                  "Connections at most; beyond, the longest idle one is closed for a new one, "
                  "or the new one is answered 503")
      ->transform(whole_number())
      ->check(CLI::Range(1LL, 1000000LL))
      ->capture_default_str();
  cmd->add_option("--max-connections-per-client",
                  args.max_connections_per_client,
                  "Connections from one client address at most (more: 503); raise it for a "
                  "benchmark from one address")
      ->transform(whole_number())
      ->check(CLI::Range(1LL, 1000000LL))
      ->capture_default_str();
  cmd->add_option("--max-search-ms",
                  args.max_search_ms,
                  "Longest search a position request may ask for (search_ms), in ms")
      ->transform(whole_number())
      ->check(CLI::Range(0, 600000))
      ->capture_default_str();
  cmd->add_option("--search-slots",
                  args.search_slots,
                  "Searches running at once, one thread each; more are refused as busy")
      ->transform(whole_number())
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--max-job-seconds",
                  args.max_job_seconds,
                  "Longest a followed search (follow=1) runs on as a job after its request, in "
                  "seconds; it stops sooner when nobody asks about it for 10 s")
      ->transform(whole_number())
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  cmd->add_option("--search-memory-mb",
                  args.search_memory_mb,
                  "Table values read whole for the searches, MiB over every served set (read "
                  "beside the first search of a set that fits; 0: searches probe the tables)")
      ->transform(whole_number())
      ->check(CLI::Range(0LL, 1048576LL))
      ->capture_default_str();
}

// Where a page may come from and where proved positions are kept.
void create_serve_sharing(CLI::App* cmd, ServeArgs& args) {
  cmd->add_option("--cors",
                  args.cors,
                  "Let pages of this origin (e.g. https://example.org, or *) call the API from "
                  "a browser (CORS); off by default");
  cmd->add_flag("--no-proof-store",
                args.no_proof_store,
                "Neither read nor keep positions proved by search (default: proofs/ in solve's "
                "table cache, $SOWDB_CACHE_DIR)");
}

// Blocks SIGINT and SIGTERM in this thread and in every thread it starts after this call, so
// that the signals wait for sigwait instead of killing the process mid-response. Their handling
// is reset first: a shell starts a background job with SIGINT ignored, and an ignored signal
// that reaches a thread not blocking it is dropped.
sigset_t block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return set;
}

std::shared_ptr<const server::Api> open_api(const ServeArgs& args) {
  TableSetOptions options;
  options.cache_bytes = static_cast<std::size_t>(args.table_cache_mb) << 20;
  std::vector<std::shared_ptr<const TableSet>> sets;
  for (const std::string& dir : args.tables)
    sets.push_back(open_tables(dir, options));
  server::ApiOptions api;
  api.cache_bytes = static_cast<std::size_t>(args.cache_mb) << 20;
  api.max_batch = static_cast<std::size_t>(args.max_batch);
  api.max_body_bytes = static_cast<std::size_t>(args.max_body_kb) << 10;
  api.max_answer_bytes = static_cast<std::size_t>(args.max_answer_kb) << 10;
  api.max_search_ms = args.max_search_ms;
  api.search_slots = args.search_slots;
  api.max_job_seconds = args.max_job_seconds;
  api.search_memory_bytes = static_cast<std::uint64_t>(args.search_memory_mb) << 20;
  api.cors_origin = args.cors;
  if (!args.no_proof_store)
    api.proofs_root = start_cache_root();
  try {
    return std::make_shared<const server::Api>(std::move(sets), api);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

int run_serve(const ServeArgs& args) {
  // Before any thread starts (opening tables may start some), so that every thread blocks them.
  const sigset_t stop_signals = block_stop_signals();
  const std::shared_ptr<const server::Api> api = open_api(args);
  server::ServerOptions options;
  options.bind = args.bind;
  options.port = args.port;
  options.io_threads = args.threads > 0 ? args.threads : std::max(1, thread_count(0) / 2);
  options.workers = thread_count(args.workers);
  options.batch_workers = args.batch_workers;
  options.read_timeout = std::chrono::seconds(args.read_timeout);
  options.max_connections = static_cast<std::size_t>(args.max_connections);
  options.max_connections_per_client = static_cast<std::size_t>(args.max_connections_per_client);
  options.max_body_bytes = static_cast<std::size_t>(args.max_body_kb) << 10;
  auto log_mutex = std::make_shared<std::mutex>();
  options.log = [log_mutex](const std::string& line) {
    const std::lock_guard lock(*log_mutex);
    std::fprintf(stderr, "sowdb serve: %s\n", line.c_str());
  };
  std::unique_ptr<server::Server> server;
  try {
    server = std::make_unique<server::Server>(api, options);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--bind " + args.bind + ": " + e.what());
  }
  for (const std::string& line : api->describe_tables())
    std::printf("serving %s\n", line.c_str());
  // Damage found at start: the server still serves what reads, and health says "degraded".
  for (const std::string& line : api->start_warnings())
    options.log("warning: " + line);
  std::printf("listening on %s (Ctrl-C stops)\n", server->url().c_str());
  std::fflush(stdout);
  int signal = 0;
  sigwait(&stop_signals, &signal);
  server->stop();
  std::printf("stopped on %s\n", signal == SIGINT ? "SIGINT" : "SIGTERM");
  return 0;
}

}  // namespace

void add_serve(CLI::App& app, Runner& run) {
  auto args = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand(
      "serve", "Serve the tables over HTTP: a JSON API and the analysis page (docs/API.md)");
  create_serve_options(cmd, *args);
  create_serve_limits(cmd, *args);
  create_serve_sharing(cmd, *args);
  cmd->callback([&run, args] { run = [args] { return run_serve(*args); }; });
}

}  // namespace sowdb::cli
