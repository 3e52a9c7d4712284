#include "probe_search.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "board_text.h"
#include "search_interrupt.h"
#include "solve_render.h"

namespace sowdb::cli {
namespace {

// "+4", or "-2..+6" while the bounds are apart.
std::string bounds_text(int lower, int upper) {
  char buf[32];
  if (lower == upper)
    std::snprintf(buf, sizeof buf, "%+d", lower);
  else
    std::snprintf(buf, sizeof buf, "%+d..%+d", lower, upper);
  return buf;
}

// "12.3 M positions in 4.6 s".
std::string work_text(const SearchFacts& f) {
  char buf[96];
  if (f.positions >= 1'000'000)
    std::snprintf(buf, sizeof buf, "%.1f M positions", static_cast<double>(f.positions) / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%llu positions", static_cast<unsigned long long>(f.positions));
  char secs[48];
  std::snprintf(secs, sizeof secs, " in %.2f s", f.seconds);
  return std::string(buf) + secs;
}

const char* result_word(GameResult r) {
  return r == GameResult::kWin ? "wins" : r == GameResult::kLoss ? "loses" : "draws";
}

// Why the search stopped, in the user's words.
std::string stop_text(const SearchFacts& f) {
  if (f.stopped_by == "time_limit")
    return "the time ran out (--search-time SECONDS gives it longer)";
  if (f.stopped_by == "positions")
    return "the positions allowed ran out";
  return "it was interrupted";
}

void print_value(const PositionReport& r) {
  const SearchFacts& f = *r.search;
  if (r.exact()) {
    std::printf("value %+d for the mover, proved by search (%s)\n", r.value, work_text(f).c_str());
  } else {
    std::printf("value between %+d and %+d for the mover: bounds proved by search (%s); %s\n",
                r.lower,
                r.upper,
                work_text(f).c_str(),
                stop_text(f).c_str());
  }
  std::printf("stores %d (mover) and %d (opponent): ", r.store_mover, r.store_opponent);
  const GameOutcome& o = r.outcome;
  if (o.decided) {
    std::printf("the game is already decided (%s)\n",
                o.result == GameResult::kWin ? "mover wins" : "mover loses");
  } else if (r.exact()) {
    std::printf("the mover %s, final score %g-%g\n", result_word(o.result), o.mover, o.opponent);
  } else if (r.outcome_known) {
    std::printf("the mover %s (the bounds decide it; the final score is not proved)\n",
                result_word(o.result));
  } else {
    std::printf("the result is not decided by these bounds\n");
  }
}

void print_moves(const PositionReport& r) {
  std::vector<ReportedMove> by_pit = r.moves;
  std::sort(by_pit.begin(), by_pit.end(), [](const ReportedMove& a, const ReportedMove& b) {
    return a.pit < b.pit;
  });
  std::printf("\nmoves (worth: seeds the mover nets by playing it; a range: bounds so far):\n");
  const std::optional<int> best = r.best();
  for (const ReportedMove& m : by_pit) {
    std::string what = gain_text(m.gain, m.extra_turn);
    if (best && m.pit == *best) {
      what.resize(std::max<std::size_t>(what.size(), 22), ' ');
      what += "<- best";
    } else if (!best && m.pit == r.search->best_found) {
      what.resize(std::max<std::size_t>(what.size(), 22), ' ');
      what += "<- best found so far";
    }
    if (!what.empty())
      what.insert(0, "  ");
    std::printf(
        "  pit %d: worth %-9s%s\n", m.pit, bounds_text(m.lower, m.upper).c_str(), what.c_str());
  }
}

// The progress line of one search: the bounds and the rate, redrawn at most every 200 ms.
class SearchLine {
 public:
  void show(const sowdb::SearchProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    if (now - drawn_ < std::chrono::milliseconds(200))
      return;
    drawn_ = now;
    std::fprintf(stderr,
                 "\r\033[Ksearching: value in [%+d, %+d], %llu positions, %.2f M positions/s, "
                 "%.1f s",
                 p.lower,
                 p.upper,
                 static_cast<unsigned long long>(p.positions),
                 p.seconds > 0 ? static_cast<double>(p.positions) / p.seconds / 1e6 : 0.0,
                 p.seconds);
    std::fflush(stderr);
  }

 private:
  std::mutex mutex_;
  std::chrono::steady_clock::time_point drawn_{};
};

}  // namespace

CLI::Validator search_seconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size() && v >= 0 && v < 3.2e7)
          return "";
        return "'" + text + "' is not a number of seconds from 0 (no search) to a year";
      },
      "SECONDS");
}

SearchBudget terminal_budget(double seconds, bool progress_line) {
  SearchBudget b;
  b.seconds = seconds;
  b.threads = 1;
  b.stop = [] { return interrupt_signal() != 0; };
  if (progress_line) {
    auto line = std::make_shared<SearchLine>();
    b.progress = [line](const sowdb::SearchProgress& p) { line->show(p); };
  }
  return b;
}

void print_search_text(const TableSet& set, const PositionReport& r) {
  const Rules& rules = set.engine();
  std::printf(
      "variant %s, %s on the board (tables %s hold up to %d; answered by search above them)"
      "\n\n%s\n",
      set.variant().to_string().c_str(),
      count_text(r.stones, "seed", "seeds").c_str(),
      set.directory().string().c_str(),
      set.max_stones(),
      board_diagram(rules, r.board).c_str());
  print_value(r);
  if (r.moves.empty()) {
    print_game_over(rules, r.board);
    return;
  }
  print_moves(r);
  if (r.line.steps.empty())
    return;
  std::printf("\nprincipal line (proved best moves; each position before the move):\n");
  print_line(rules, r.line);
  if (!r.line_proved)
    std::printf("  (the best move is not proved beyond this point)\n");
}

}  // namespace sowdb::cli
