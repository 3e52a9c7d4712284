// `sowdb solve`: the value of a game's start position and the worth of every first move. The
// work (which tables, the cache, the search, the report) is the analysis library's
// (sowdb/analysis/start_solve.h); this file binds the options and talks to the user.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "board_text.h"
#include "commands.h"
#include "interrupt.h"
#include "search_interrupt.h"
#include "solve_render.h"
#include "sowdb/analysis/start_solve.h"
#include "sowdb/format/index.h"

namespace sowdb::cli {
namespace {

struct SolveArgs {
  std::string variant;
  int pits = 0;
  int seeds = 0;
  std::string tables;
  bool tables_given = false;
  int threads = 0;
  double time_limit = 0;
  int hash_mb = 0;
  int cache_layers = -1;
  bool value_only = false;
  std::string objective = "competitive";
  bool json = false;
  std::vector<std::string> board;  // --board: a position in place of the start
  std::string stores;              // --stores A,B: with --board
  bool stores_given = false;
  double checkpoint_seconds = kCheckpointSeconds;
  bool no_checkpoint = false;
};

// --time-limit (a positive number of seconds) and --checkpoint-seconds (0 too), in solve's own
// words (CLI11's PositiveNumber would print its range of doubles, 309 digits long).
CLI::Validator seconds(bool zero) {
  return CLI::Validator(
      [zero](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size() && (v > 0 || (zero && v == 0)) &&
            v < 1e9)
          return "";
        return "'" + text + "' is not " + (zero ? "0 or " : "") + "a positive number of seconds";
      },
      "SECONDS");
}

std::string help_footer() {
  const std::filesystem::path root = start_cache_root();
  return "Without --tables, solve builds the small layers of the rule set once into a cache ("
         "layers holding at most " +
         std::to_string(static_cast<long long>(kStartCachePositions)) +
         " positions together) and reuses them in later runs: " +
         (root.empty() ? std::string("no cache directory is set") : root.string()) +
         " ($SOWDB_CACHE_DIR, else $XDG_CACHE_HOME/sowdb, else ~/.cache/sowdb), one directory per "
         "rule set. To clear it, delete that directory (rm -r); the next run builds it again. "
         "Building it is timed apart from the search, and --time-limit never counts it.\n\n"
         "What the search proves is kept in the proof store beside the cache (proofs/, "
         "docs/PROOF_STORE.md): every --checkpoint-seconds and when the search ends or is stopped "
         "(SIGINT, SIGTERM, --time-limit), so that solving the same position again resumes "
         "where it stopped, and a position proved before is answered at once (--no-checkpoint: "
         "neither).\n\n" +
         exit_codes_help();
}

void bind_options(CLI::App* cmd, SolveArgs& a) {
  cmd->add_option("--variant", a.variant, "Rule system, e.g. kalah or kalah-irving/6x4")
      ->required();
  cmd->add_option("--pits", a.pits, "Pits per side (overrides the variant's board)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 8));
  cmd->add_option("--seeds", a.seeds, "Seeds in each pit at the start (overrides the variant's)")
      ->transform(whole_number())
      ->check(CLI::Range(1, kMaxBoardStones));
  cmd->add_option("--tables",
                  a.tables,
                  "Table directory of the variant's rules (default: the cache, see below)");
  add_threads_option(cmd, a.threads);
  cmd->add_option("--time-limit",
                  a.time_limit,
                  "Stop the search after this many seconds of search and print the bounds "
                  "proved so far (building the cache's tables is not counted)")
      ->check(seconds(false));
  cmd->add_option("--hash-mb",
                  a.hash_mb,
                  "Memory of the search's transposition table in MiB, rounded down to a power "
                  "of two (default 128; 32 with --value-only when the start has at most 28 "
                  "seeds more than the tables' largest layer)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 1 << 16));
  cmd->add_option("--cache-layers",
                  a.cache_layers,
                  "Build the cache up to this many seeds instead of the default size (more "
                  "layers: a longer first run, a faster search)")
      ->transform(whole_number())
      ->check(CLI::Range(0, kMaxIndexedStones));
  cmd->add_flag("--value-only",
                a.value_only,
                "Only the value and a best first move: the other moves get an upper bound on "
                "their worth (a search of a fraction of the work)");
  add_objective_option(cmd, a.objective);
  cmd->add_option("--board",
                  a.board,
                  "Solve this position instead of the start: 2P pit counts, the mover's P first, "
                  "counter-clockwise (as probe takes them); its value and worths count the seeds "
                  "the mover nets from it on")
      ->expected(1, -1);
  cmd->add_option("--stores",
                  a.stores,
                  "With --board: seeds already in the stores, mover's first: A,B (default 0,0); "
                  "they decide the result and the final score, not the value");
  cmd->add_option("--checkpoint-seconds",
                  a.checkpoint_seconds,
                  "Keep what the search has proved in the proof store every this many seconds "
                  "(default 180; 0: only when it ends or is stopped, SIGINT and SIGTERM "
                  "included); a later solve of the same position resumes from it")
      ->check(seconds(true));
  cmd->add_flag("--no-checkpoint",
                a.no_checkpoint,
                "Neither read nor write the proof store: search from nothing (for timings)");
  cmd->add_flag("--json", a.json, "One JSON object on stdout");
  cmd->footer(help_footer());
}

Variant resolve(const SolveArgs& a) {
  Variant v;
  std::string error;
  if (!resolve_variant(a.variant, a.pits, v, error))
    throw UsageError(error);
  if (a.seeds > 0) {
    if (v.rules.pits() * a.seeds > kMaxBoardStones) {
      throw UsageError("--seeds " + std::to_string(a.seeds) + " on " +
                       std::to_string(v.rules.pits()) + " pits is more than the " +
                       std::to_string(kMaxBoardStones) + " seeds a board holds");
    }
    v.seeds_per_pit = a.seeds;
  }
  if (a.tables_given && a.tables.empty())
    throw UsageError("--tables: the table directory must not be an empty path");
  if (a.stores_given && a.board.empty())
    throw UsageError("--stores goes with --board (the start's stores are empty)");
  return v;
}

// --board and --stores into the request: the position's pits checked against the variant's
// board (parse_pits), the stores as numbers (the library checks them against the game).
void set_position(const Variant& v, const SolveArgs& a, StartSolveRequest& request) {
  if (a.board.empty())
    return;
  Pits board{};
  std::string error;
  if (!parse_pits(Rules(v.rules), a.board, board, error))
    throw UsageError("--board: " + error);
  request.position = board;
  if (!a.stores_given)
    return;
  const Stores stores = parse_stores(a.stores);
  // Larger stores than any game holds are refused by the library; keep them large, not wrapped.
  constexpr long long kCap = 1 << 20;
  request.store_mover = static_cast<int>(std::min(stores.mover, kCap));
  request.store_opponent = static_cast<int>(std::min(stores.opponent, kCap));
}

int solve_cooperative(const Variant& v, const SolveArgs& a) {
  if (a.value_only || a.time_limit > 0 || a.cache_layers >= 0 || !a.board.empty()) {
    throw UsageError(
        "--objective cooperative takes neither --value-only nor --time-limit nor --cache-layers "
        "nor --board (sowdb probe answers a position of co-operative tables)");
  }
  CooperativeStartReport r;
  try {
    r = solve_cooperative_start(
        v, a.tables_given ? std::optional(a.tables) : std::nullopt, a.threads);
  } catch (const gen::NeedsCompleteTables& e) {
    throw UsageError(std::string(a.tables_given ? "--tables: " : "") + e.what() + tables_remedy(e));
  } catch (const gen::InvalidRequest& e) {
    throw UsageError(std::string(a.tables_given ? "--tables: " : "") + e.what());
  }
  if (a.json)
    std::printf("%s\n", to_json(r).dump().c_str());
  else
    print_cooperative_text(r);
  return 0;
}

int run_solve(const SolveArgs& a) {
  const Variant v = resolve(a);
  if (a.objective == "cooperative")
    return solve_cooperative(v, a);
  StartSolveRequest request;
  request.threads = a.threads;
  request.variant = v;
  set_position(v, a, request);
  if (a.tables_given)
    request.tables = a.tables;
  request.cache_root = start_cache_root();
  request.worths = !a.value_only;
  request.hash_mib = a.hash_mb;
  request.time_limit = a.time_limit;
  request.cache_layers = a.cache_layers;
  request.checkpoint = !a.no_checkpoint;
  request.checkpoint_seconds = a.checkpoint_seconds;
  request.stop = [] { return interrupt_signal() != 0; };
  request.stop_name = "interrupt";
  // From here a signal stops the search softly; the cache build puts gen's handler in place
  // while it writes, and the search puts this one back.
  stop_on_interrupts();
  StartSolveReport r;
  try {
    r = solve_start_position(request, solve_terminal_events(a.json, v.rules.pits()));
  } catch (const gen::NeedsCompleteTables& e) {
    throw UsageError(std::string(a.tables_given ? "--tables: " : "") + e.what() + tables_remedy(e));
  } catch (const gen::InvalidRequest& e) {
    throw UsageError(std::string(a.tables_given ? "--tables: " : "") + e.what());
  }
  const bool tty = isatty(fileno(stderr)) && !a.json;
  if (tty)
    clear_progress_line();
  const int signal = interrupt_signal();
  if (a.json) {
    std::printf("%s\n", to_json(r).dump().c_str());
  } else {
    for (const std::string& note : r.notes)
      std::fprintf(stderr, "sowdb: note: %s\n", note.c_str());
    print_solve_text(r, signal);
  }
  return interrupted_exit("; the bounds proved so far are printed");
}

}  // namespace

void add_solve(CLI::App& app, Runner& run) {
  auto args = std::make_shared<SolveArgs>();
  auto* cmd = app.add_subcommand(
      "solve", "The value of a start position (or --board) and the worth of every first move");
  bind_options(cmd, *args);
  cmd->callback([&run, args, cmd] {
    args->tables_given = cmd->count("--tables") > 0;
    args->stores_given = cmd->count("--stores") > 0;
    run = [args] { return run_solve(*args); };
  });
}

}  // namespace sowdb::cli
