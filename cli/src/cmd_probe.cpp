// `sowdb probe`: look positions up in a table directory.
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "board_text.h"
#include "commands.h"
#include "probe_reach.h"
#include "probe_search.h"
#include "search_interrupt.h"
#include "solve_render.h"
#include "sowdb/analysis/position_answer.h"
#include "sowdb/analysis/proof_store.h"
#include "sowdb/analysis/report_json.h"
#include "sowdb/analysis/start_solve.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/outcome.h"
#include "sowdb/probe/tables.h"
#include "stdin_lines.h"

namespace sowdb::cli {
namespace {

struct Args {
  std::string tables;
  std::string stores = "0,0";
  bool json = false;
  int max_plies = 1000;
  int threads = 0;  // bulk mode; 0: all cores
  // Decoded blocks kept per layer and stream; -1: the library's default cache for one position,
  // kBulkCache blocks of each stream in bulk mode.
  long long cache_blocks = -1;
  std::vector<std::string> board;
  std::string objective;  // empty: the tables'
  // Seconds a position above the tables may be searched (each line's, in bulk mode); 0: refused.
  double search_time = kDefaultSearchSeconds;
  std::string proof_store;  // empty: the cache's (proof_store_path)
  bool no_proof_store = false;
};

// One position reads a few blocks. Bulk mode goes back to blocks again and again (every line's
// principal line, the smaller layers of recompute entries): 2,000 random Oware positions of 20
// seeds with lines took 4.1 s with 8 blocks, 1.7 s with 1024, on 2 threads. With 4096-entry
// blocks, 1024 of each keep at most 8 MiB of values (a depth block holds on to its block's
// values) and 8 MiB of depths per layer.
constexpr long long kBulkCache = 1024;

// A search above the tables decodes the same value blocks again and again, across every layer:
// up to 128 MiB of decoded values per layer are kept (filled only as blocks are read), and the
// depths keep the library's default. Reading the tables whole before the search instead (solve's
// way) cost 1.25 s for Kalah(6,4)'s tables 0..20, more than most searches of a game's positions:
// they are read beside the search once it has run kSearchPreloadDelay, where they fit.
constexpr std::size_t kSearchCache = std::size_t{128} << 20;
constexpr std::size_t kSearchDepthCache = std::size_t{64} << 10;

// A search still running after this many seconds has the tables' values read whole beside it
// (SearchBudget::preload_delay; as solve's, when they fit its bound): the block caches decode
// the same values block by block at 3-4x the cost per position searched, and by 10 s of a
// search of 44-48 seeds over Kalah(6,4)'s 0..22 they hold most of the tables anyway (issue 41).
// Searches that end sooner (the positions up to about 36 seeds of those tables) read nothing.
constexpr double kSearchPreloadDelay = 0.5;
// Tables of at most this many bytes are read before the search as solve reads them, without the
// delay: 8 MB read in about 35 ms (Kalah(6,4)'s 548 MB of 0..22 took 2.3 CPU seconds).
constexpr std::int64_t kSearchReadAtOnceBytes = 8'000'000;

// The delay before a search over `set` reads the tables whole (SearchBudget::preload_delay).
double preload_delay(const TableSet& set) {
  return gen::preload_reads(set, kSearchReadAtOnceBytes) ? 0 : kSearchPreloadDelay;
}
// The values kept per layer by such a search's block caches until the layer is read whole:
// 128 MiB of them on top of the tables read whole took Kalah(6,4)'s 0..22 from 780 MB to
// 950 MB (the most of a search of 4 M positions) for no fewer CPU seconds.
constexpr std::size_t kSearchCacheBeforeRead = std::size_t{16} << 20;

std::string seeds_text(double s) {
  char buf[32];
  if (s == static_cast<int>(s)) {
    std::snprintf(buf, sizeof buf, "%d", static_cast<int>(s));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f", s);
  }
  return buf;
}

// Refuses stores that hold more seeds than the tables' game whatever the position: the same
// for every position, so bad input for the whole command.
void check_stores(const TableSet& set, const Stores& stores) {
  if (std::optional<Refusal> r = check_stores(set.variant(), stores.mover, stores.opponent)) {
    r->message = "--stores " + stores.text + ": " + r->message;
    throw Refused(*r);
  }
}

// The value and what it means with the stores: the result, or the majority already won.
void print_value_text(const TableSet& set, const PositionReport& r) {
  const GameOutcome& o = r.outcome;
  const int store_a = r.store_mover;
  const int store_b = r.store_opponent;
  std::printf("value %+d for the mover", r.value);
  if (r.value != 0) {
    std::printf(" (realised in %d pl%s)", r.depth, r.depth == 1 ? "y" : "ies");
  }
  std::printf("\n");
  std::printf("stores %d (mover) and %d (opponent): ", store_a, store_b);
  const bool mover_decides = o.result == GameResult::kWin;
  if (o.decided) {
    std::printf("the game is already decided: the %s holds %d of %d seeds, a majority (%s)\n",
                mover_decides ? "mover" : "opponent",
                mover_decides ? store_a : store_b,
                o.total_seeds,
                mover_decides ? "mover wins" : "mover loses");
    return;
  }
  const char* verb = o.result == GameResult::kWin    ? "wins"
                     : o.result == GameResult::kLoss ? "loses"
                                                     : "draws";
  std::printf("the mover %s, final score %s-%s",
              verb,
              seeds_text(o.mover).c_str(),
              seeds_text(o.opponent).c_str());
  // The majority is out of the game's seeds. Only stores that account for all of them (the
  // rest on the board) end in a score of that total; the default 0,0 mid-game ends lower,
  // next to which the majority would read as a contradiction.
  if (set.rules().family == Family::kOware && o.mover != o.opponent &&
      store_a + store_b + r.stones == o.total_seeds) {
    std::printf(" (majority: more than %d of %d seeds)", o.total_seeds / 2, o.total_seeds);
  }
  std::printf("\n");
}

// The moves in pit order, the best one marked.
void print_moves_text(const PositionReport& r) {
  std::vector<ReportedMove> by_pit = r.moves;
  std::sort(by_pit.begin(), by_pit.end(), [](const ReportedMove& a, const ReportedMove& b) {
    return a.pit < b.pit;
  });
  std::printf("\nmoves (worth: seeds the mover nets by playing it; depth: plies to realise):\n");
  for (const ReportedMove& m : by_pit) {
    std::string what = gain_text(m.gain, m.extra_turn);
    if (m.pit == r.best()) {
      what.resize(std::max<std::size_t>(what.size(), 22), ' ');
      what += "<- best";
    }
    if (!what.empty())
      what.insert(0, "  ");
    std::printf("  pit %d: worth %+3d, depth %3d%s\n", m.pit, m.worth, m.depth, what.c_str());
  }
}

void print_text(const TableSet& set, const PositionReport& r) {
  const Rules& rules = set.engine();
  std::printf("variant %s, %s on the board (tables %s hold up to %d)\n\n%s\n",
              set.variant().to_string().c_str(),
              count_text(r.stones, "seed", "seeds").c_str(),
              set.directory().string().c_str(),
              set.max_stones(),
              board_diagram(rules, r.board).c_str());
  print_value_text(set, r);
  if (r.moves.empty()) {
    print_game_over(rules, r.board);
    return;
  }
  print_moves_text(r);
  std::printf("\nprincipal line (each position before the move, from the side of who moves):\n");
  print_line(rules, r.line);
}

// The answer of the tables to one position given as words; a refusal's message names the
// tables when the pit count is wrong.
Answer<PositionAnswer> answer(const TableSet& set,
                              const std::vector<std::string>& words,
                              const Stores& stores,
                              int max_plies,
                              const std::optional<SearchBudget>& search) {
  PositionQuery query;
  query.store_mover = stores.mover;
  query.store_opponent = stores.opponent;
  query.max_plies = max_plies;
  query.search = search;
  std::string error;
  if (!pit_numbers(set.engine(), words, query.board, error))
    return Refusal{RefusalKind::kBadPosition, error};
  Answer<PositionAnswer> a = answer_position(set, query);
  if (!a && static_cast<int>(words.size()) != set.engine().board_pits()) {
    Refusal r = a.refusal();
    r.message = "tables in " + set.directory().string() + " are for " + set.variant().to_string() +
                ": " + r.message;
    return r;
  }
  return a;
}

// The answer as JSON text: the co-operative report or the position report (written as text,
// without a document).
std::string position_json(const PositionAnswer& a) {
  if (a.cooperative) {
    return to_json(*a.cooperative).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return to_json_text(*a.competitive);
}

// One line of bulk mode as its JSON text; empty for a blank line. Sets `failed` for a line that
// cannot be looked up.
std::string bulk_answer(const TableSet& set,
                        const Args& args,
                        ProofStore* proofs,
                        const Stores& stores,
                        const InputLine& line,
                        std::uint64_t line_number,
                        bool& failed) {
  std::string error;
  if (line.too_long) {
    error = "line too long: " + std::to_string(line.too_long) + " bytes (at most " +
            std::to_string(kMaxLineBytes) + "; a position is " +
            std::to_string(set.engine().board_pits()) + " pit counts)";
  } else {
    std::istringstream in(line.text);
    std::vector<std::string> words;
    for (std::string w; in >> w;)
      words.push_back(w);
    if (words.empty())
      return {};
    std::optional<SearchBudget> search;
    if (args.search_time > 0) {
      search = terminal_budget(args.search_time, false);
      search->proofs = proofs;
      // Each line's search reads the tables whole only once it has run a while, as one
      // position's does: a line just above the tables is answered in a fraction of the reading.
      search->preload_delay = preload_delay(set);
    }
    const Answer<PositionAnswer> a = answer(set, words, stores, args.max_plies, search);
    if (a)
      return position_json(*a);
    error = a.refusal().message;
  }
  failed = true;
  // clipped()'s form, for a line of which only the first bytes were kept.
  const std::string input = line.too_long
                                ? line.text + "... (" + std::to_string(line.too_long) + " bytes)"
                                : clipped(line.text, kEchoedInput);
  return nlohmann::json{{"error", error}, {"line", line_number}, {"input", input}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Answers `lines` (the first numbered `first`) over the threads, in order, with one write;
// true when every line was looked up.
bool answer_batch(const TableSet& set,
                  const Args& args,
                  ProofStore* proofs,
                  const Stores& stores,
                  const std::vector<InputLine>& lines,
                  std::uint64_t first) {
  std::vector<std::string> answers(lines.size());
  std::vector<char> line_failed(lines.size(), 0);
  tbb::parallel_for(std::size_t{0}, lines.size(), [&](std::size_t i) {
    bool bad = false;
    answers[i] = bulk_answer(set, args, proofs, stores, lines[i], first + i, bad);
    line_failed[i] = bad ? 1 : 0;
  });
  // One write per batch, before waiting for more input: a co-process reads these answers now.
  std::string out;
  bool ok = true;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    ok &= line_failed[i] == 0;
    if (!answers[i].empty()) {
      out += answers[i];
      out += '\n';
    }
  }
  write_stdout(out);
  return ok;
}

int run_stdin(const TableSet& set, const Args& args, ProofStore* proofs, const Stores& stores) {
  // Lines looked up together at most: enough to keep every thread busy, few enough that the
  // answers (up to about 10 KB each with a principal line) stay a small amount of memory.
  constexpr std::size_t kBatch = 4096;
  StdinLines input;
  std::vector<InputLine> lines;
  std::uint64_t line_number = 0;  // of the last line read, blank lines included
  bool failed = false;
  InputLine line;
  // Whatever stdio holds goes first: the answers below bypass it.
  std::fflush(stdout);
  while (input.next(line, true)) {
    lines.assign(1, line);
    // A read error after some lines: answer those first, then report it.
    std::exception_ptr read_error;
    try {
      while (lines.size() < kBatch && input.next(line, false))
        lines.push_back(line);
    } catch (...) {
      read_error = std::current_exception();
    }
    // --threads holds for the lookups alone (a task arena), not for the process.
    failed |= !gen::run_with_threads(args.threads, [&] {
      return answer_batch(set, args, proofs, stores, lines, line_number + 1);
    });
    line_number += lines.size();
    if (read_error)
      std::rethrow_exception(read_error);
  }
  return failed ? 1 : 0;
}

void create_probe_options(CLI::App* cmd, Args& args) {
  cmd->add_option("--tables", args.tables, "Table directory written by sowdb gen")->required();
  cmd->add_option(
      "--stores",
      args.stores,
      "Seeds already in the stores, mover's first: A,B (default 0,0); with the board at most "
      "the game's 2PS seeds");
  cmd->add_flag(
      "--json", args.json, "Print one JSON object; with PITS '-', one object per stdin line");
  cmd->add_option("--max-plies", args.max_plies, "Longest principal line (default 1000)")
      ->transform(whole_number())
      ->check(CLI::Range(0, 100000));
  add_threads_option(cmd,
                     args.threads,
                     "Worker threads: bulk mode's lookups, or one position's search above the "
                     "tables (default: all cores)");
  cmd->add_option("--search-time",
                  args.search_time,
                  "A position with more seeds than the tables hold is searched for up to this "
                  "many seconds (default 10; each line's in bulk mode): the exact value and "
                  "worths where proved, else proved bounds. 0: refuse such a position")
      ->check(search_seconds());
  cmd->add_option("--proof-store",
                  args.proof_store,
                  "File of positions proved by search, read and extended by every search "
                  "(default: proofs/ in solve's table cache, $SOWDB_CACHE_DIR)");
  cmd->add_flag("--no-proof-store", args.no_proof_store, "Neither read nor keep proved positions")
      ->excludes("--proof-store");
  cmd->add_option("--objective",
                  args.objective,
                  "The question asked: competitive (values) or cooperative (which differences "
                  "joint play reaches); default: what the tables hold, which must match")
      ->check(CLI::IsMember({"competitive", "cooperative"}));
  cmd->add_option("--cache-blocks",
                  args.cache_blocks,
                  "Decoded blocks kept per layer, values and depths each (default: 8 in all; "
                  "1024 of each in bulk mode)")
      ->transform(whole_number())
      ->check(CLI::Range(0LL, 1LL << 40));
  // Required, but checked in run_probe: CLI11's own message would send the user to
  // `sowdb --help` rather than to this command's.
  cmd->add_option("PITS",
                  args.board,
                  "Seeds per pit, mover first, counter-clockwise; '-' reads one position per "
                  "line from stdin (with --json)")
      ->allow_extra_args();
  cmd->footer(
      "Bulk mode: `sowdb probe --tables DIR --json -` reads positions from stdin, one per line "
      "(pit counts separated by spaces; blank lines skipped), and prints one JSON object per "
      "line. A line that cannot be looked up gives {\"error\": ..., \"line\": N, \"input\": ...} "
      "(the first 200 bytes of a longer line; a line of more than 4096 bytes is refused as "
      "\"line too long\") "
      "and the command goes on, then exits 1. The lines that have arrived are looked up "
      "together over --threads threads and answered, in order, before more input is awaited, "
      "so a program can also write one line and wait for its answer.\n\n" +
      std::string(exit_codes_help()));
}

// The table set `args` asks for, checked against --objective and --stores.
std::unique_ptr<TableSet> open_probe_tables(const Args& args, const Stores& stores, bool bulk) {
  // A missing, empty or inconsistent directory is bad input, as in verify and stats.
  TableSetOptions options;
  const long long cache = args.cache_blocks >= 0 ? args.cache_blocks : bulk ? kBulkCache : -1;
  if (cache >= 0) {
    options.cache_blocks = static_cast<std::size_t>(cache);
    options.depth_cache_blocks = static_cast<std::size_t>(cache);
  }
  const bool search_caches = args.search_time > 0 && args.cache_blocks < 0 && !bulk;
  if (search_caches) {
    // A search probes values only, the same blocks again and again: keep them (kSearchCache).
    options.cache_bytes = kSearchCache;
    options.depth_cache_bytes = kSearchDepthCache;
  }
  std::unique_ptr<TableSet> set = open_tables(args.tables, options);
  if (search_caches && gen::preload_reads(*set)) {
    // Opening reads no values: opened again, with the caches of a search that reads the tables
    // whole (kSearchCacheBeforeRead).
    options.cache_bytes = kSearchCacheBeforeRead;
    set = open_tables(args.tables, options);
  }
  const std::optional<Objective> asked =
      args.objective.empty() ? std::nullopt : std::optional(objective_of(args.objective));
  if (std::optional<Refusal> r = check_objective(*set, asked)) {
    r->message =
        "--objective " + args.objective + ": " + r->message + objective_remedy(set->objective());
    throw Refused(*r);
  }
  check_stores(*set, stores);
  return set;
}

// The proof store searches read and extend: --proof-store, else the cache's file of the tables'
// rules; none without a search, with --no-proof-store, or for co-operative tables. A store that
// cannot be used is no reason to refuse an answer: the search goes on without it.
std::unique_ptr<ProofStore> open_proof_store(const Args& args, const TableSet& set) {
  if (args.search_time <= 0 || args.no_proof_store || set.objective() != Objective::kCompetitive)
    return nullptr;
  const std::filesystem::path file = args.proof_store.empty()
                                         ? proof_store_path(start_cache_root(), set.rules())
                                         : std::filesystem::path(args.proof_store);
  if (file.empty())
    return nullptr;
  auto store = std::make_unique<ProofStore>(file, set.rules());
  if (const std::optional<Refusal> r = store->failure(); r && !args.json)
    std::fprintf(stderr, "sowdb: note: proved positions are not kept: %s\n", r->message.c_str());
  return store;
}

int run_probe(const Args& args) {
  if (args.board.empty())
    throw UsageError("PITS is required (see sowdb probe --help)");
  const Stores stores = parse_stores(args.stores);
  const bool bulk = args.board.size() == 1 && args.board[0] == "-";
  if (bulk && !args.json)
    throw UsageError("reading positions from stdin ('-') needs --json");
  const std::unique_ptr<TableSet> set = open_probe_tables(args, stores, bulk);
  const std::unique_ptr<ProofStore> proofs = open_proof_store(args, *set);
  if (bulk)
    return run_stdin(*set, args, proofs.get(), stores);
  // A signal stops a search softly: the bounds proved so far are printed, then the exit status
  // says it was interrupted.
  stop_on_interrupts();
  std::optional<SearchBudget> search;
  if (args.search_time > 0) {
    search = terminal_budget(args.search_time, !args.json && isatty(fileno(stderr)));
    // One position: the search has every core (as solve), unless --threads says otherwise.
    search->threads = args.threads;
    search->proofs = proofs.get();
    search->preload_limit = -1;
    search->preload_delay = preload_delay(*set);
  }
  const PositionAnswer a =
      answer(*set, args.board, stores, args.max_plies, search).value_or_throw();
  if (search && search->progress)
    clear_progress_line();
  if (args.json)
    std::printf("%s\n", position_json(a).c_str());
  else if (a.cooperative)
    print_reach_text(*set, *a.cooperative);
  else if (a.competitive->method == AnswerMethod::kSearch)
    print_search_text(*set, *a.competitive);
  else
    print_text(*set, *a.competitive);
  return interrupted_exit("");
}

}  // namespace

void add_probe(CLI::App& app, Runner& run) {
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "probe", "Look a position up in a table directory: value, move worths, principal line");
  create_probe_options(cmd, *args);
  cmd->callback([&run, args] { run = [args] { return run_probe(*args); }; });
}

}  // namespace sowdb::cli
