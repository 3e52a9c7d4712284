#include "solve_render.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "board_text.h"
#include "interrupt.h"
#include "search_interrupt.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/manifest.h"

namespace sowdb::cli {
namespace {

using Clock = std::chrono::steady_clock;

// An exact worth, or the bounds a stopped search proved.
std::string worth(int lower, int upper) {
  char text[48];
  if (lower == upper)
    std::snprintf(text, sizeof text, "%+d", lower);
  else
    std::snprintf(text, sizeof text, "between %+d and %+d", lower, upper);
  return text;
}

std::string list(const std::vector<int>& d) {
  std::string s;
  for (const int x : d) {
    if (!s.empty())
      s += ' ';
    s += std::to_string(x);
  }
  return s;
}

void print_moves(const gen::StartSolution& s) {
  for (const gen::StartMove& m : s.moves) {
    std::printf("  pit %d: %s%s\n",
                m.pit,
                worth(m.lower, m.upper).c_str(),
                m.extra_turn ? " (extra turn)" : "");
    for (const gen::StartMove& c : m.continuations) {
      std::printf("      then pit %d: %s%s\n",
                  c.pit,
                  worth(c.lower, c.upper).c_str(),
                  c.extra_turn ? " (extra turn)" : "");
    }
  }
}

// Where the tables came from, in words.
std::string source_text(const StartSolveReport& r) {
  switch (r.source) {
    case TablesSource::kGiven:
      return r.tables;
    case TablesSource::kCache:
      return r.tables + (r.tables_built ? " (built now, in the cache)" : " (the cache)");
    case TablesSource::kNone:
      break;
  }
  return "no tables";
}

// How the run's time divides: the search, and the cache build when there was one.
void print_timing(const StartSolveReport& r) {
  const gen::StartSolution& s = r.solution;
  if (s.by_tables) {
    std::printf("from complete tables: %s, layers 0..%d; %.2f s\n",
                source_text(r).c_str(),
                s.tables_max,
                r.search_seconds);
  } else {
    const std::string probing =
        s.tables_max >= 0
            ? "the tables at up to " + std::to_string(s.tables_max) + " seeds: " + source_text(r)
            : std::string("no tables");
    std::printf("searched %llu positions in %.2f s (%.2f M/s), probing %s\n",
                static_cast<unsigned long long>(s.nodes),
                r.search_seconds,
                r.search_seconds > 0 ? static_cast<double>(s.nodes) / r.search_seconds / 1e6 : 0.0,
                probing.c_str());
  }
  if (r.build_seconds > 0) {
    std::printf(
        "building the cache's tables took %.2f s (%d %s solved; later runs reuse them); "
        "%.2f s in all\n",
        r.build_seconds,
        r.layers_built,
        r.layers_built == 1 ? "layer" : "layers",
        r.seconds);
  }
}

// The result with the stores, when the bounds decide it: who wins, and the final score once the
// value is exact.
void print_outcome(const StartSolveReport& r) {
  if (!r.outcome)
    return;
  const GameOutcome& o = *r.outcome;
  std::printf("stores %d (mover) and %d (opponent): ", r.store_mover, r.store_opponent);
  if (o.decided) {
    std::printf("the game is already decided: the %s holds a majority of the %d seeds\n",
                o.result == GameResult::kWin ? "mover" : "opponent",
                o.total_seeds);
    return;
  }
  const char* verb = o.result == GameResult::kWin    ? "wins"
                     : o.result == GameResult::kLoss ? "loses"
                                                     : "draws";
  std::printf("the mover %s", verb);
  if (r.solution.lower == r.solution.upper)
    std::printf(", final score %g-%g", o.mover, o.opponent);
  std::printf("\n");
}

}  // namespace

void print_solve_text(const StartSolveReport& r, int interrupted) {
  const gen::StartSolution& s = r.solution;
  if (r.position) {
    std::printf("%s (%s), the position %s, %d seeds on the board\n%s\n",
                r.variant.to_string().c_str(),
                describe(r.variant.rules.normalised()).c_str(),
                pits_text(Rules(r.variant.rules), *r.position).c_str(),
                s.stones,
                board_diagram(Rules(r.variant.rules), *r.position).c_str());
  } else {
    std::printf("%s (%s), %d seeds in each pit, %d on the board\n",
                r.variant.to_string().c_str(),
                describe(r.variant.rules.normalised()).c_str(),
                r.variant.seeds_per_pit,
                r.variant.total_stones());
  }
  if (!s.complete && interrupted != 0) {
    std::printf("interrupted by %s after %.2f s of search: what is not proved is given as bounds\n",
                signal_name(interrupted),
                r.search_seconds);
  } else if (!s.complete) {
    std::printf(
        "stopped after %g s (--time-limit): what is not proved is given as bounds (the "
        "limit counts the search only, never building the cache)\n",
        r.time_limit);
  }
  std::printf("value for the %s: %s",
              r.position ? "mover" : "first player",
              worth(s.lower, s.upper).c_str());
  if (s.best >= 0)
    std::printf(" (best %s: pit %d)", r.position ? "move" : "first move", s.best);
  std::printf("\n");
  if (r.position)
    print_outcome(r);
  print_moves(s);
  print_timing(r);
}

void print_cooperative_text(const CooperativeStartReport& r) {
  std::printf("%s (%s), co-operative objective: %s\n",
              r.variant.to_string().c_str(),
              describe(r.variant.rules.normalised()).c_str(),
              r.reach.balanced ? "the game can end balanced" : "no line of play ends balanced");
  std::printf("reachable differences for the first player: %s\n", list(r.reach.reachable).c_str());
  for (const auto& m : r.reach.moves) {
    std::printf("  pit %d%s: %s%s\n",
                m.pit,
                m.extra_turn ? " (extra turn)" : "",
                list(m.reachable).c_str(),
                m.balancing ? "  (keeps a balanced end possible)" : "");
  }
  if (!r.tables.empty()) {
    std::printf("read from the co-operative tables in %s in %.2f s\n", r.tables.c_str(), r.seconds);
  } else {
    std::printf("solved %s in memory in %.2f s\n",
                count_text(r.reach.positions, "position", "positions").c_str(),
                r.seconds);
  }
}

void print_build_notice(const CacheBuild& b) {
  if (b.reason != "new layers") {
    std::fprintf(stderr,
                 "sowdb: a table of the cache failed a check: checking layers 0..%d in %s and "
                 "solving the damaged ones again\n",
                 b.want,
                 b.dir.string().c_str());
  } else {
    std::fprintf(stderr,
                 "sowdb: building the cache's tables once: layers %d..%d (%s) in %s\n",
                 b.have + 1,
                 b.want,
                 count_text(b.positions, "position", "positions").c_str(),
                 b.dir.string().c_str());
  }
  std::fflush(stderr);
}

void BuildProgress::start(const CacheBuild& build, int pits) {
  pits_ = pits;
  want_ = build.want;
  total_ = build.positions;
  done_ = 0;
  start_ = Clock::now();
}

void BuildProgress::layer_done(int stones, bool reused) {
  if (!reused)
    done_ += layer_size(pits_, stones);
}

void BuildProgress::show(int stones, const char* phase, double fraction) {
  const auto now = Clock::now();
  if (now - drawn_ < std::chrono::milliseconds(200))
    return;
  drawn_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // Solving takes about four fifths of a layer's time, writing the rest; reading back a layer
  // an earlier run wrote solves nothing.
  const std::string name = phase;
  const double part = name == "solve" ? 0.8 * fraction : name == "write" ? 0.8 + 0.2 * fraction : 0;
  const double done =
      static_cast<double>(done_) + part * static_cast<double>(layer_size(pits_, stones));
  const double rate = elapsed > 0 ? done / elapsed : 0;
  const double left = static_cast<double>(total_) - done;
  std::fprintf(stderr,
               "\r\033[Kcache: layer %d of %d, %s %3.0f%%, %.2f M positions/s, ETA %.0f s",
               stones,
               want_,
               phase,
               100 * fraction,
               rate / 1e6,
               rate > 0 && left > 0 ? left / rate : 0.0);
  std::fflush(stderr);
}

void SearchProgress::start() {
  start_ = Clock::now();
}

void SearchProgress::show(const gen::SolveProgress& p) {
  const auto now = Clock::now();
  if (now - drawn_ < std::chrono::milliseconds(200))
    return;
  drawn_ = now;
  const double s = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr,
               "\r\033[Ksearch: value in [%+d, %+d], %d of %d first moves and continuations "
               "done, %llu positions, %.2f M positions/s",
               p.lower,
               p.upper,
               p.done,
               p.total,
               static_cast<unsigned long long>(p.nodes),
               s > 0 ? static_cast<double>(p.nodes) / s / 1e6 : 0.0);
  std::fflush(stderr);
}

void clear_progress_line() {
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

namespace {

// The searches of `s` (a first move each, or a continuation after an extra turn) whose worth
// is exact, and all of them.
std::pair<int, int> exact_searches(const gen::StartSolution& s) {
  int exact = 0;
  int total = 0;
  for (const gen::StartMove& m : s.moves) {
    if (m.continuations.empty()) {
      ++total;
      exact += m.lower == m.upper ? 1 : 0;
    }
    for (const gen::StartMove& c : m.continuations) {
      ++total;
      exact += c.lower == c.upper ? 1 : 0;
    }
  }
  return {exact, total};
}

}  // namespace

void print_resume(const StartCheckpoint& c) {
  std::fprintf(stderr,
               "sowdb: resumed from the proof store %s: value in [%+d, %+d], %d of %d first "
               "moves and continuations bounded, %d exact, %llu proved positions\n",
               c.store.c_str(),
               c.lower,
               c.upper,
               c.known,
               c.total,
               c.exact,
               static_cast<unsigned long long>(c.positions));
}

void print_checkpoint(const StartCheckpoint& c, const gen::StartSolution& s) {
  const auto [exact, total] = exact_searches(s);
  std::fprintf(stderr,
               "sowdb: checkpoint: value in [%+d, %+d], %d of %d first moves and continuations "
               "exact, %llu positions searched, %llu proved positions kept in %s\n",
               s.lower,
               s.upper,
               exact,
               total,
               static_cast<unsigned long long>(s.nodes),
               static_cast<unsigned long long>(s.proved.size()),
               c.store.c_str());
  std::fflush(stderr);
}

// The terminal's side of a solve: notices, progress lines, and the switch from the build's
// interruption (gen's: clean temporaries, exit) to the search's (stop, print the bounds).
StartSolveEvents solve_terminal_events(bool json, int pits) {
  const bool tty = isatty(fileno(stderr)) && !json;
  const bool talk = !json;
  auto build = std::make_shared<BuildProgress>();
  auto search = std::make_shared<SearchProgress>();
  StartSolveEvents e;
  e.on_build = [=](const CacheBuild& b) {
    if (const int signal = interrupt_signal(); signal != 0) {
      // Interrupted before the build started: nothing is written yet.
      std::fprintf(
          stderr, "sowdb: interrupted by %s before the cache was built\n", signal_name(signal));
      std::_Exit(128 + signal);
    }
    catch_interrupts(b.dir);
    if (talk)
      print_build_notice(b);
    build->start(b, pits);
  };
  e.on_wait = [=](const std::string& busy) {
    if (tty)
      clear_progress_line();
    if (talk)
      std::fprintf(stderr, "sowdb: waiting: %s\n", busy.c_str());
  };
  e.on_layer = [=](const gen::LayerReport& r) {
    interrupt_progress(r.stones);
    build->layer_done(r.stones, r.reused);
  };
  e.on_rebuild = [=](int n, const std::string& why) {
    if (tty)
      clear_progress_line();
    if (talk)
      std::fprintf(stderr, "sowdb: cache layer %d: %s; solving it again\n", n, why.c_str());
  };
  if (tty)
    e.on_build_progress = [=](int n, gen::Phase p, double f) { build->show(n, to_string(p), f); };
  e.on_search = [=] {
    if (tty)
      clear_progress_line();
    stop_on_interrupts();
    search->start();
  };
  if (tty)
    e.on_search_progress = [=](const gen::SolveProgress& p) { search->show(p); };
  if (talk) {
    e.on_resume = [](const StartCheckpoint& c) { print_resume(c); };
    e.on_checkpoint = [=](const StartCheckpoint& c, const gen::StartSolution& s) {
      if (tty)
        clear_progress_line();
      print_checkpoint(c, s);
    };
  }
  return e;
}

}  // namespace sowdb::cli
