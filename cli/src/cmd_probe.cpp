// `sowdb probe`: look positions up in a table directory.
#include <poll.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "board_text.h"
#include "commands.h"
#include "line_json.h"
#include "probe_reach.h"
#include "sowdb/probe/outcome.h"
#include "sowdb/probe/tables.h"

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
};

// One position reads a few blocks. Bulk mode goes back to blocks again and again (every line's
// principal line, the smaller layers of recompute entries): 2,000 random Oware positions of 20
// seeds with lines took 4.1 s with 8 blocks, 1.7 s with 1024, on 2 threads. With 4096-entry
// blocks, 1024 of each keep at most 8 MiB of values (a depth block holds on to its block's
// values) and 8 MiB of depths per layer.
constexpr long long kBulkCache = 1024;

// Bytes of a bad line that bulk mode's error object echoes: enough to find the line, not a
// copy of a 10 MB one.
constexpr std::size_t kEchoedInput = 200;

std::string seeds_text(double s) {
  char buf[32];
  if (s == static_cast<int>(s)) {
    std::snprintf(buf, sizeof buf, "%d", static_cast<int>(s));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f", s);
  }
  return buf;
}

// A whole number of seeds as an integer, a half (endless play) as a float.
nlohmann::json seeds_json(double s) {
  if (s == static_cast<int>(s))
    return static_cast<int>(s);
  return s;
}

// The seeds already in the stores (--stores A,B).
struct Stores {
  int mover = 0;
  int opponent = 0;
  std::string text;  // as given, for messages
};

// Parses --stores: two whole numbers >= 0. How many seeds the stores may hold depends on the
// tables' game and on the position (check_stores, read_position), so any size is taken here;
// throws UsageError for anything else.
Stores parse_stores(const std::string& text) {
  // Any store beyond kMaxBoardStones is as impossible as this one, in every game: kept at this
  // size, the sums cannot overflow, and messages quote `text` as given.
  constexpr long long kBeyond = kMaxBoardStones + 1;
  const std::size_t comma = text.find(',');
  auto number = [&](std::string_view w, int& out) {
    long long v = 0;
    auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (w.empty() || ptr != w.data() + w.size())
      return false;
    if (ec == std::errc::result_out_of_range && w.front() != '-')
      v = kBeyond;  // a number of 20 digits: a number, far too large
    else if (ec != std::errc() || v < 0)
      return false;
    out = static_cast<int>(std::min(v, kBeyond));
    return true;
  };
  Stores s;
  s.text = clipped(text, 40);
  if (comma == std::string::npos || !number(std::string_view(text).substr(0, comma), s.mover) ||
      !number(std::string_view(text).substr(comma + 1), s.opponent)) {
    throw UsageError("--stores wants A,B: the mover's and the opponent's store, e.g. 3,5; got '" +
                     s.text + "'");
  }
  return s;
}

// "2 x 6 pits x 4 seeds" for oware/6x4: where a game's seed count comes from.
std::string game_seeds_text(const Variant& v) {
  return std::to_string(v.total_stones()) + " seeds (2 x " +
         count_text(v.rules.pits_per_side, "pit", "pits") + " x " +
         count_text(v.seeds_per_pit, "seed", "seeds") + ")";
}

// Refuses stores that hold more seeds than the tables' game whatever the position: the same
// for every position, so bad input for the whole command.
void check_stores(const TableSet& set, const Stores& stores) {
  GameOutcome o;
  if (game_outcome(set.variant(), 0, stores.mover, stores.opponent, 0, o) ==
      OutcomeStatus::kImpossible) {
    throw UsageError("--stores " + stores.text + ": the stores alone hold more than a game of " +
                     set.variant().to_string() + ", which has " + game_seeds_text(set.variant()));
  }
}

// Everything `probe` reports about one position. Throws std::runtime_error on a failed probe.
struct Report {
  Pits board{};
  int stones = 0;
  int value = 0;
  int depth = 0;
  Stores stores;
  GameOutcome outcome;
  MoveWorths moves;
  bool has_best = false;
  MoveWorth best;
  PrincipalLine line;
};

Report probe_position(const TableSet& set, const Pits& board, const Stores& stores, int max_plies) {
  Report r;
  r.board = board;
  r.stores = stores;
  for (int i = 0; i < set.rules().pits(); ++i)
    r.stones += board[i];
  ProbeStatus s = set.value(board, r.value, r.depth);
  if (s == ProbeStatus::kOk) {
    std::string error;
    // read_position has refused stores the game cannot hold: this cannot fail.
    if (game_outcome(
            set.variant(), r.value, stores.mover, stores.opponent, r.stones, r.outcome, &error) !=
        OutcomeStatus::kOk) {
      throw std::runtime_error(error);
    }
    s = set.moves(board, r.moves);
  }
  if (s == ProbeStatus::kOk && r.moves.size > 0) {
    s = set.best_move(board, r.best);
    r.has_best = s == ProbeStatus::kOk;
  }
  if (s == ProbeStatus::kOk)
    s = set.principal_line(board, r.line, max_plies);
  if (s != ProbeStatus::kOk)
    throw std::runtime_error(set.explain(s, board));
  return r;
}

nlohmann::json report_json(const TableSet& set, const Report& r) {
  const Rules& rules = set.engine();
  const GameOutcome& o = r.outcome;
  nlohmann::json j;
  j["variant"] = set.variant().to_string();
  j["pits"] = pits_vector(rules, r.board);
  j["stones"] = r.stones;
  j["value"] = r.value;
  j["depth"] = r.depth;
  j["stores"] = {r.stores.mover, r.stores.opponent};
  j["result"] = to_string(o.result);
  j["final"] = {seeds_json(o.mover), seeds_json(o.opponent)};
  j["decided"] = o.decided;
  j["game_over"] = r.moves.size == 0;
  nlohmann::json moves = nlohmann::json::array();
  for (const MoveWorth& m : r.moves) {
    moves.push_back({{"pit", m.move.pit},
                     {"worth", m.worth},
                     {"depth", m.depth},
                     {"gain", m.move.gain()},
                     {"extra_turn", m.move.extra_turn}});
  }
  j["moves"] = moves;
  j["best"] = r.has_best ? nlohmann::json(r.best.move.pit) : nlohmann::json(nullptr);
  put_line(j, rules, r.line);
  return j;
}

void print_text(const TableSet& set, const Report& r) {
  const Rules& rules = set.engine();
  const GameOutcome& o = r.outcome;
  const int store_a = r.stores.mover;
  const int store_b = r.stores.opponent;
  std::printf("variant %s, %s on the board (tables %s hold up to %d)\n\n%s\n",
              set.variant().to_string().c_str(),
              count_text(r.stones, "seed", "seeds").c_str(),
              set.directory().string().c_str(),
              set.max_stones(),
              board_diagram(rules, r.board).c_str());
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
  } else {
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
  if (r.moves.size == 0) {
    print_game_over(rules, r.board);
    return;
  }
  std::printf("\nmoves (worth: seeds the mover nets by playing it; depth: plies to realise):\n");
  for (const MoveWorth& m : r.moves) {
    std::string what = gain_text(m.move.gain(), m.move.extra_turn);
    if (r.has_best && m.move.pit == r.best.move.pit) {
      what.resize(std::max<std::size_t>(what.size(), 22), ' ');
      what += "<- best";
    }
    if (!what.empty())
      what = "  " + what;
    std::printf("  pit %d: worth %+3d, depth %3d%s\n", m.move.pit, m.worth, m.depth, what.c_str());
  }
  std::printf("\nprincipal line (each position before the move, from the side of who moves):\n");
  print_line(rules, r.line);
}

// Parses one position for the tables' board and checks that the game can hold it with
// `stores`; the error names the tables when the pit count is wrong, and the game's seeds when
// the stores and the board hold more.
bool read_position(const TableSet& set,
                   const std::vector<std::string>& words,
                   const Stores& stores,
                   Pits& board,
                   std::string& error) {
  if (!parse_pits(set.engine(), words, board, error)) {
    if (static_cast<int>(words.size()) != set.rules().pits()) {
      error = "tables in " + set.directory().string() + " are for " + set.variant().to_string() +
              ": " + error;
    }
    return false;
  }
  int n = 0;
  for (int i = 0; i < set.rules().pits(); ++i)
    n += board[i];
  // Above a missing layer the probe itself names the missing file (kMissingTable).
  int value = 0;
  ReachSet reach;
  if (n > set.max_stones() && (set.objective() == Objective::kCooperative
                                   ? set.reach(board, reach)
                                   : set.value(board, value)) == ProbeStatus::kTooManyStones) {
    error = set.explain(ProbeStatus::kTooManyStones, board);
    return false;
  }
  GameOutcome o;
  if (game_outcome(set.variant(), 0, stores.mover, stores.opponent, n, o, &error) !=
      OutcomeStatus::kOk) {
    return false;
  }
  return true;
}

// Whether `fd` is ready for `events` (POLLIN, POLLOUT) within `timeout_ms` (-1: wait until it
// is). Both ends of bulk mode may be non-blocking descriptors handed over by the caller.
bool ready(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  int r;
  do {
    r = ::poll(&p, 1, timeout_ms);
  } while (r < 0 && errno == EINTR);
  return r > 0;
}

// Reads standard input line by line with read(2), so that it can tell whether a whole line is
// already there without waiting for one: bulk mode answers every line that has arrived before
// it blocks for more, so a program that writes one line and waits for the answer (an engine
// using `sowdb probe` as a co-process) gets it at once, while a file or a full pipe is looked up
// in large batches spread over the threads.
class StdinLines {
 public:
  // The next line, without its line end ('\n' or "\r\n"), into `line`; false at the end of the
  // input. With `wait` false it returns only a line that is there without blocking (false
  // otherwise). Throws std::runtime_error when standard input cannot be read.
  bool next(std::string& line, bool wait) {
    for (;;) {
      if (take_line(line))
        return true;
      if (eof_) {
        if (at_ == buffer_.size())
          return false;
        line.assign(buffer_, at_, std::string::npos);  // a last line without '\n'
        at_ = scanned_ = buffer_.size();
        drop_cr(line);
        return true;
      }
      // A regular file is always readable, so this never waits there.
      if (!wait && !ready(STDIN_FILENO, POLLIN, 0))
        return false;
      fill();
    }
  }

 private:
  bool take_line(std::string& line) {
    // Bytes before scanned_ hold no '\n': a long line is searched once, not once per read.
    const std::size_t newline = buffer_.find('\n', scanned_);
    if (newline == std::string::npos) {
      scanned_ = buffer_.size();
      return false;
    }
    line.assign(buffer_, at_, newline - at_);
    at_ = scanned_ = newline + 1;
    drop_cr(line);
    return true;
  }

  static void drop_cr(std::string& line) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
  }

  void fill() {
    buffer_.erase(0, at_);
    scanned_ -= at_;
    at_ = 0;
    char chunk[1 << 16];
    ssize_t got;
    for (;;) {
      got = ::read(STDIN_FILENO, chunk, sizeof chunk);
      if (got >= 0)
        break;
      if (errno == EINTR)
        continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        break;
      ready(STDIN_FILENO, POLLIN, -1);  // left non-blocking by whoever started us
    }
    if (got < 0)
      throw std::runtime_error(std::string("reading standard input: ") + std::strerror(errno));
    if (got == 0)
      eof_ = true;
    buffer_.append(chunk, static_cast<std::size_t>(got));
  }

  std::string buffer_;
  std::size_t at_ = 0;       // start of the first line not yet returned
  std::size_t scanned_ = 0;  // buffer_[at_, scanned_) holds no '\n'
  bool eof_ = false;
};

// Writes all of `text` to standard output, waiting when it is non-blocking (a socket or a
// terminal shared with a non-blocking standard input). Throws std::runtime_error when it
// cannot be written.
void write_stdout(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t put = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (put >= 0) {
      done += static_cast<std::size_t>(put);
      continue;
    }
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      throw std::runtime_error(std::string("writing standard output: ") + std::strerror(errno));
    ready(STDOUT_FILENO, POLLOUT, -1);
  }
}

// One line of bulk mode as its JSON text; empty for a blank line. Sets `failed` for a line that
// cannot be looked up.
std::string bulk_answer(const TableSet& set,
                        const Args& args,
                        const Stores& stores,
                        const std::string& text,
                        std::uint64_t line_number,
                        bool& failed) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;)
    words.push_back(w);
  if (words.empty())
    return {};
  nlohmann::json j;
  std::string error;
  Pits board{};
  try {
    if (!read_position(set, words, stores, board, error))
      throw std::runtime_error(error);
    if (set.objective() == Objective::kCooperative) {
      j = reach_report_json(set,
                            probe_reach(set, board, stores.mover, stores.opponent, args.max_plies));
    } else {
      j = report_json(set, probe_position(set, board, stores, args.max_plies));
    }
  } catch (const std::exception& e) {
    failed = true;
    j = nlohmann::json{
        {"error", e.what()}, {"line", line_number}, {"input", clipped(text, kEchoedInput)}};
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

int run_stdin(const TableSet& set, const Args& args, const Stores& stores) {
  // Lines looked up together at most: enough to keep every thread busy, few enough that the
  // answers (up to about 10 KB each with a principal line) stay a small amount of memory.
  constexpr std::size_t kBatch = 4096;
  const int threads = thread_count(args.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  StdinLines input;
  std::vector<std::string> lines;
  std::vector<std::string> answers;
  std::uint64_t line_number = 0;  // of the last line read, blank lines included
  bool failed = false;
  std::string line;
  // Whatever stdio holds goes first: the answers below bypass it.
  std::fflush(stdout);
  while (input.next(line, true)) {
    lines.assign(1, line);
    // A read error after some lines: answer those first, then report it.
    std::exception_ptr read_error;
    try {
      while (lines.size() < kBatch && input.next(line, false))
        lines.push_back(line);
    } catch (const std::exception&) {
      read_error = std::current_exception();
    }
    answers.assign(lines.size(), std::string());
    std::vector<char> line_failed(lines.size(), 0);
    const std::uint64_t first = line_number + 1;
    tbb::parallel_for(std::size_t{0}, lines.size(), [&](std::size_t i) {
      bool bad = false;
      answers[i] = bulk_answer(set, args, stores, lines[i], first + i, bad);
      line_failed[i] = bad ? 1 : 0;
    });
    line_number += lines.size();
    // One write per batch, before waiting for more input: a co-process reads these answers
    // now.
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      failed |= line_failed[i] != 0;
      if (!answers[i].empty()) {
        out += answers[i];
        out += '\n';
      }
    }
    write_stdout(out);
    if (read_error)
      std::rethrow_exception(read_error);
  }
  return failed ? 1 : 0;
}

}  // namespace

void add_probe(CLI::App& app, Runner& run) {
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "probe", "Look a position up in a table directory: value, move worths, principal line");
  cmd->add_option("--tables", args->tables, "Table directory written by sowdb gen")->required();
  cmd->add_option(
      "--stores",
      args->stores,
      "Seeds already in the stores, mover's first: A,B (default 0,0); with the board at most "
      "the game's 2PS seeds");
  cmd->add_flag(
      "--json", args->json, "Print one JSON object; with PITS '-', one object per stdin line");
  cmd->add_option("--max-plies", args->max_plies, "Longest principal line (default 1000)")
      ->transform(whole_number())
      ->check(CLI::Range(0, 100000));
  add_threads_option(cmd, args->threads, "Bulk mode: worker threads (default: all cores)");
  cmd->add_option("--objective",
                  args->objective,
                  "The question asked: competitive (values) or cooperative (which differences "
                  "joint play reaches); default: what the tables hold, which must match")
      ->check(CLI::IsMember({"competitive", "cooperative"}));
  cmd->add_option("--cache-blocks",
                  args->cache_blocks,
                  "Decoded blocks kept per layer, values and depths each (default: 8 in all; "
                  "1024 of each in bulk mode)")
      ->transform(whole_number())
      ->check(CLI::Range(0LL, 1LL << 40));
  cmd->add_option("PITS",
                  args->board,
                  "Seeds per pit, mover first, counter-clockwise; '-' reads one position per "
                  "line from stdin (with --json)")
      ->required()
      ->allow_extra_args();
  cmd->footer(
      "Bulk mode: `sowdb probe --tables DIR --json -` reads positions from stdin, one per line "
      "(pit counts separated by spaces; blank lines skipped), and prints one JSON object per "
      "line. A line that cannot be looked up gives {\"error\": ..., \"line\": N, \"input\": ...} "
      "(the first 200 bytes of a longer line) "
      "and the command goes on, then exits 1. The lines that have arrived are looked up "
      "together over --threads threads and answered, in order, before more input is awaited, "
      "so a program can also write one line and wait for its answer.");
  cmd->callback([&run, args] {
    run = [args] {
      const Stores stores = parse_stores(args->stores);
      const bool bulk = args->board.size() == 1 && args->board[0] == "-";
      if (bulk && !args->json)
        throw UsageError("reading positions from stdin ('-') needs --json");
      if (!bulk && args->threads > 0)
        throw UsageError("--threads applies to reading positions from stdin ('-') only");
      // A missing, empty or inconsistent directory is bad input, as in verify and stats.
      TableSetOptions options;
      const long long cache = args->cache_blocks >= 0 ? args->cache_blocks : bulk ? kBulkCache : -1;
      if (cache >= 0) {
        options.cache_blocks = static_cast<std::size_t>(cache);
        options.depth_cache_blocks = static_cast<std::size_t>(cache);
      }
      const std::unique_ptr<TableSet> set = open_tables(args->tables, options);
      if (!args->objective.empty() && objective_of(args->objective) != set->objective()) {
        throw UsageError("--objective " + args->objective + ": " +
                         set->explain(ProbeStatus::kWrongObjective, Pits{}) +
                         objective_remedy(set->objective()));
      }
      check_stores(*set, stores);
      if (bulk)
        return run_stdin(*set, *args, stores);
      Pits board{};
      std::string error;
      if (!read_position(*set, args->board, stores, board, error))
        throw UsageError(error);
      if (set->objective() == Objective::kCooperative) {
        const ReachReport r =
            probe_reach(*set, board, stores.mover, stores.opponent, args->max_plies);
        if (args->json) {
          std::printf("%s\n", reach_report_json(*set, r).dump().c_str());
        } else {
          print_reach_text(*set, r);
        }
        return 0;
      }
      const Report r = probe_position(*set, board, stores, args->max_plies);
      if (args->json) {
        std::printf("%s\n", report_json(*set, r).dump().c_str());
      } else {
        print_text(*set, r);
      }
      return 0;
    };
  });
}

}  // namespace sowdb::cli
