// `sowdb book`: proves a game's opening ahead of time into the proof store (the analysis
// library's build_book), so that probe, the server and the page answer it at once. This file
// binds the options, finds the tables and the store, and talks to the user.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "board_text.h"
#include "commands.h"
#include "interrupt.h"
#include "probe_search.h"
#include "search_interrupt.h"
#include "solve_render.h"
#include "sowdb/analysis/opening_book.h"
#include "sowdb/analysis/start_solve.h"

namespace sowdb::cli {
namespace {

struct BookArgs {
  std::string variant;
  int pits = 0;
  int seeds = 0;
  int plies = 0;
  std::string tables;
  bool tables_given = false;
  std::string proof_store;
  bool worths = false;
  double seconds = 0;
  int threads = 0;
  bool json = false;
};

// The search tables' caches: every value block the searches touch stays decoded (as probe's).
constexpr std::size_t kBookCacheBytes = std::size_t{128} << 20;

void bind_options(CLI::App* cmd, BookArgs& a) {
  cmd->add_option("--variant", a.variant, "Rule system, e.g. kalah-irving/6x4")->required();
  cmd->add_option("--pits", a.pits, "Pits per side (overrides the variant's board)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 8));
  cmd->add_option("--seeds", a.seeds, "Seeds in each pit at the start (overrides the variant's)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 127));
  cmd->add_option("--plies",
                  a.plies,
                  "Plies from the start the book covers: every position reached within them "
                  "while one side plays its proved best moves and the other plays anything")
      ->required()
      ->transform(whole_number())
      ->check(CLI::Range(0, 64));
  cmd->add_option("--tables",
                  a.tables,
                  "Table directory of the variant's rules to search over (default: solve's "
                  "table cache, built first when missing)");
  cmd->add_option("--proof-store",
                  a.proof_store,
                  "The proof store to fill (default: proofs/ in solve's table cache, the file "
                  "probe and serve read)");
  cmd->add_flag("--worths",
                a.worths,
                "Prove every move's worth at the book side's positions, not only the value and "
                "a best move (several times the work; the page then shows every worth at once)");
  cmd->add_option("--time-per-position",
                  a.seconds,
                  "Give up on a position after this many seconds of search (its line is then "
                  "not followed); default: no limit")
      ->check(search_seconds());
  add_threads_option(cmd, a.threads);
  cmd->add_flag("--json", a.json, "One JSON object on stdout");
  cmd->footer(
      "A build stopped part way (Ctrl-C) keeps what it proved; the next run finds those "
      "positions in the store and goes on.\n\n" +
      std::string(exit_codes_help()));
}

Variant resolve(const BookArgs& a) {
  Variant v;
  std::string error;
  if (!resolve_variant(a.variant, a.pits, v, error))
    throw UsageError(error);
  if (a.seeds > 0)
    v.seeds_per_pit = a.seeds;
  if (a.tables_given && a.tables.empty())
    throw UsageError("--tables: the table directory must not be an empty path");
  return v;
}

// The tables the book searches over: --tables, else solve's cache of the rules, built when it
// is missing (as `sowdb solve` builds it; its start is solved on the way, value only).
std::string book_tables(const BookArgs& a, const Variant& v) {
  if (a.tables_given)
    return a.tables;
  StartSolveRequest request;
  request.variant = v;
  request.cache_root = start_cache_root();
  request.worths = false;
  request.threads = a.threads;
  request.stop = [] { return interrupt_signal() != 0; };
  request.stop_name = "interrupt";
  stop_on_interrupts();
  StartSolveReport r;
  try {
    r = solve_start_position(request, solve_terminal_events(a.json, v.rules.pits()));
  } catch (const gen::NeedsCompleteTables& e) {
    throw UsageError(std::string(e.what()) + tables_remedy(e));
  } catch (const gen::InvalidRequest& e) {
    throw UsageError(e.what());
  }
  if (r.source != TablesSource::kCache) {
    throw UsageError("no table cache could be built (" +
                     (r.notes.empty() ? std::string("no cache directory") : r.notes.front()) +
                     "): give the tables with --tables DIR");
  }
  return r.tables;
}

// Bytes the store's sparse file takes on disk (its records written so far).
unsigned long long disk_bytes(const std::filesystem::path& file) {
  struct stat st {};
  return ::stat(file.c_str(), &st) == 0 ? static_cast<unsigned long long>(st.st_blocks) * 512 : 0;
}

// One line on the terminal: the ply, the positions settled and queued, the search's rate, and a
// time left from the mean time a settled position took.
std::function<void(const BookProgress&)> progress_line(bool show) {
  if (!show)
    return {};
  auto drawn = std::make_shared<std::chrono::steady_clock::time_point>();
  return [drawn](const BookProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (now - *drawn < std::chrono::milliseconds(200))
      return;
    *drawn = now;
    const double each = p.done > 0 ? p.seconds / static_cast<double>(p.done) : 0;
    std::fprintf(stderr,
                 "\r\033[Kbook: ply %d, %llu positions proved or found, %llu queued, %.1f M "
                 "searched (%.2f M/s), about %.0f s left at this pace",
                 p.ply,
                 static_cast<unsigned long long>(p.done),
                 static_cast<unsigned long long>(p.queued),
                 static_cast<double>(p.positions) / 1e6,
                 p.seconds > 0 ? static_cast<double>(p.positions) / p.seconds / 1e6 : 0.0,
                 each * static_cast<double>(p.queued));
    std::fflush(stderr);
  };
}

void print_text(const BookReport& r, const std::string& tables, ProofStore& store) {
  std::printf(
      "ply  proved  found  unproved  opponent  tables  ended  positions searched  seconds\n");
  for (const BookPly& p : r.plies) {
    std::printf("%3d %7llu %6llu %9llu %9llu %7llu %6llu %19llu %8.1f\n",
                p.ply,
                static_cast<unsigned long long>(p.proved),
                static_cast<unsigned long long>(p.stored),
                static_cast<unsigned long long>(p.unproved),
                static_cast<unsigned long long>(p.opponent),
                static_cast<unsigned long long>(p.by_tables),
                static_cast<unsigned long long>(p.ended),
                static_cast<unsigned long long>(p.positions),
                p.seconds);
  }
  const ProofStoreCensus c = store.census();
  std::printf(
      "book: %llu positions proved now, %llu found proved before, %llu not proved in their time; "
      "%llu positions searched in %.1f s over the tables at up to %d seeds (%s; %s of values read "
      "whole once)\n",
      static_cast<unsigned long long>(r.proved),
      static_cast<unsigned long long>(r.stored),
      static_cast<unsigned long long>(r.unproved),
      static_cast<unsigned long long>(r.positions),
      r.seconds,
      r.tables_max,
      tables.c_str(),
      human_bytes(static_cast<double>(r.preloaded_bytes)).c_str());
  std::printf("proof store %s: %llu records (%llu exact), %s on disk of %s\n",
              store.path().string().c_str(),
              static_cast<unsigned long long>(c.records),
              static_cast<unsigned long long>(c.exact),
              human_bytes(static_cast<double>(disk_bytes(store.path()))).c_str(),
              human_bytes(static_cast<double>(store.capacity_bytes())).c_str());
}

nlohmann::json to_json(const BookReport& r, const std::string& tables, ProofStore& store) {
  nlohmann::json plies = nlohmann::json::array();
  for (const BookPly& p : r.plies) {
    plies.push_back({{"ply", p.ply},
                     {"proved", p.proved},
                     {"found", p.stored},
                     {"unproved", p.unproved},
                     {"opponent", p.opponent},
                     {"by_tables", p.by_tables},
                     {"ended", p.ended},
                     {"positions", p.positions},
                     {"seconds", p.seconds}});
  }
  const ProofStoreCensus c = store.census();
  return {{"plies", plies},
          {"proved", r.proved},
          {"found", r.stored},
          {"unproved", r.unproved},
          {"positions", r.positions},
          {"seconds", r.seconds},
          {"stopped", r.stopped},
          {"tables", tables},
          {"tables_max_stones", r.tables_max},
          {"tables_preloaded_bytes", r.preloaded_bytes},
          {"proof_store", store.path().string()},
          {"store_records", c.records},
          {"store_exact", c.exact},
          {"store_disk_bytes", disk_bytes(store.path())},
          {"store_capacity_bytes", store.capacity_bytes()}};
}

int run_book(const BookArgs& a) {
  const Variant v = resolve(a);
  const std::string tables = book_tables(a, v);
  TableSetOptions options;
  options.cache_bytes = kBookCacheBytes;
  options.depth_cache_bytes = 0;
  const std::unique_ptr<TableSet> set = open_tables(tables, options);
  const std::filesystem::path file = a.proof_store.empty()
                                         ? proof_store_path(start_cache_root(), v.rules)
                                         : std::filesystem::path(a.proof_store);
  if (file.empty())
    throw UsageError("no cache directory is set: name the store with --proof-store FILE");
  ProofStore store(file, v.rules);
  BookRequest request;
  request.variant = v;
  request.plies = a.plies;
  request.worths = a.worths;
  request.seconds_per_position = a.seconds;
  request.threads = a.threads;
  request.stop = [] { return interrupt_signal() != 0; };
  stop_on_interrupts();
  const bool tty = isatty(fileno(stderr)) && !a.json;
  const BookReport r = build_book(*set, store, request, progress_line(tty));
  if (tty)
    clear_progress_line();
  if (a.json)
    std::printf("%s\n", to_json(r, tables, store).dump().c_str());
  else
    print_text(r, tables, store);
  return interrupted_exit("; what was proved is kept, a rerun goes on");
}

}  // namespace

void add_book(CLI::App& app, Runner& run) {
  auto args = std::make_shared<BookArgs>();
  auto* cmd = app.add_subcommand(
      "book", "Prove a game's opening ahead of time into the proof store (an opening book)");
  bind_options(cmd, *args);
  cmd->callback([&run, args, cmd] {
    args->tables_given = cmd->count("--tables") > 0;
    run = [args] { return run_book(*args); };
  });
}

}  // namespace sowdb::cli
