// The state of one call of solve_start (gen/src/start_search.cpp runs the search,
// start_search_answer.cpp turns what it proved into the answer). Internal to sowdb_gen.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "busy_table.h"
#include "sowdb/gen/start_search.h"
#include "start_searcher.h"
#include "table_values.h"
#include "transposition_table.h"

namespace sowdb::gen::start_detail {

using Clock = std::chrono::steady_clock;

// Bounds shared between threads only ever tighten.
inline void raise_to(std::atomic<int>& bound, int v) {
  int old = bound.load();
  while (v > old && !bound.compare_exchange_weak(old, v)) {
  }
}
inline void lower_to(std::atomic<int>& bound, int v) {
  int old = bound.load();
  while (v < old && !bound.compare_exchange_weak(old, v)) {
  }
}

// Thrown from a search's tick when SolveStartOptions::stop says so.
struct Stopped {};

// MTD(f) on one position, shared by the threads that search it: each thread runs the current
// null-window test (their work divided by a BusyTable), and the first to finish it moves the
// bounds on and tells the others (their `leave` flags) to drop that test for the next one.
// THREAD SAFETY every call from any thread (one mutex, taken once a test).
class SharedMtdf {
 public:
  // Starts over on lower..upper from `guess` (no thread may be in a test).
  void reset(int lower, int upper, int guess) {
    const std::lock_guard lock(mutex_);
    lower_ = lower;
    upper_ = upper;
    guess_ = guess;
    ++round_;
    in_.clear();
  }
  // The next test for the thread whose flag is `leave` (cleared): its beta, its round, and
  // whether the guess expects it to fail low. False when the bounds have met.
  bool next(std::atomic<bool>& leave, int& beta, unsigned& round, bool& low) {
    const std::lock_guard lock(mutex_);
    leave = false;
    if (lower_ >= upper_)
      return false;
    const int g = std::clamp(guess_, lower_, upper_);
    beta = g == lower_ ? g + 1 : g;
    low = g == lower_;
    round = round_;
    in_.push_back(&leave);
    return true;
  }
  // The thread of `leave` ended its test of `round` at `beta`: with the fail-soft result `r`,
  // or (left) unfinished. Any finished test's bound is kept; the first of its round moves the
  // others on.
  void end(std::atomic<bool>& leave, unsigned round, int beta, int r, bool left) {
    const std::lock_guard lock(mutex_);
    std::erase(in_, &leave);
    if (left)
      return;
    if (r >= beta)
      lower_ = std::max(lower_, r);
    else
      upper_ = std::min(upper_, r);
    if (round != round_)
      return;
    guess_ = r;
    ++round_;
    for (std::atomic<bool>* other : in_)
      *other = true;
    in_.clear();
  }

 private:
  std::mutex mutex_;
  int lower_ = 0;
  int upper_ = 0;
  int guess_ = 0;
  unsigned round_ = 0;
  std::vector<std::atomic<bool>*> in_;  // the threads in the current round's test
};

// One exact value to find: the position after a first move (and a continuation), whose value
// gives that move's worth.
struct Task {
  StartMove* move;
  Pits position{};
  int stones = 0;
  int sign = 1;  // the worth is base + sign * value (sign -1: the opponent moves next)
  int base = 0;
  // Bounds on the worth proved so far, read by the progress reports of other threads.
  std::atomic<int> lower{0};
  std::atomic<int> upper{0};
  int first_pit = 0;     // the first move's pit
  Pits then{};           // a continuation: the position after the first move...
  int then_stones = -1;  // ...and its seeds; -1: not a continuation
  int estimate = 0;      // of the worth, for the order of the searches
  int priority = 0;      // the order of the searches, larger first
  SharedMtdf tests;      // the task's null-window tests, shared by the threads searching it

  Task(StartMove* m, const Pits& p, int n, int s, int b, int pit)
      : move(m),
        position(p),
        stones(n),
        sign(s),
        base(b),
        lower(b - n),
        upper(b + n),
        first_pit(pit),
        estimate(b),
        priority(b) {}

  // Records what a search of the task's position proved of its value (lo..hi, for its mover).
  void record(int lo, int hi) {
    raise_to(lower, base + (sign > 0 ? lo : -hi));
    lower_to(upper, base + (sign > 0 ? hi : -lo));
  }
};

inline StartMove start_move(const Move& m) {
  StartMove s;
  s.pit = m.pit;
  s.gain = m.gain();
  s.extra_turn = m.extra_turn;
  return s;
}

// One call of solve_start, in the steps it takes: plan (the moves and the searches to make),
// estimate (iterative deepening of the start position), root search (the start's value),
// every worth, summary.
class StartSearch {
 public:
  // `variant`: the game whose start is searched (its refusals name it); null for any other
  // position.
  StartSearch(const RuleSet& rules,
              const Pits& position,
              const Variant* variant,
              const SolveStartOptions& options)
      : variant_(variant),
        rules_(rules.normalised()),
        engine_(rules_),
        options_(options),
        tables_(options.tables) {
    out_.start = position;
  }

  StartSolution run() {
    plan();
    know_tasks();
    if (out_.by_tables) {
      // Complete tables answer every task without a search: the least table that holds the
      // keys serves.
      make_table(0);
      every_worth();
    } else {
      make_table(options_.table_bits);
      seed_table();
      // Every worth known beforehand (a proof store's): nothing to read or search.
      const bool known = all_known();
      if (!tasks_.empty() && !known)
        preload();
      if (!tasks_.empty()) {
        next_checkpoint_ = (Clock::now() + checkpoint_interval()).time_since_epoch().count();
        if (!known)
          estimate();
        know();
        const bool value_first = options_.value_first || !options_.worths;
        if (!stopped_ && value_first && root_lower_ != root_upper_ && !known)
          root_value();
        if (!stopped_ && value_first)
          root_moves();
        if (options_.worths && !stopped_)
          every_worth();
      }
    }
    finish_preload();
    return summary();
  }

 private:
  // The moves of the start position, the tasks, and the checks on the request.
  void plan();
  void make_table(int bits);
  // SolveStartOptions::known_positions into the table (start_search_kept.cpp).
  void seed_table();
  // StartSolution::proved: the table's costliest bounds, SolveStartOptions::keep_positions of
  // them at most. Safe during the search.
  std::vector<ProvedPosition> kept_positions() const;
  // The tables' values read whole, when they fit SolveStartOptions::preload_limit.
  void preload();
  // Stops the reading of preload_delay, keeping the layers read, and reports what it read.
  void finish_preload();
  // Iterative deepening of the start position, when asked (SolveStartOptions::deepening).
  void estimate();
  // The bounds on the start's value known before the search (SolveStartOptions::known_lower).
  void know();
  // The bounds on the tasks' worths known before it (SolveStartOptions::known_worths).
  void know_tasks();
  // Whether every task's worth is known.
  bool all_known() const;
  // The start's value: MTD(f) on the start position, every thread at once (Lazy SMP).
  void root_value();
  // Each task's bounds and order from the table, then what the start's value proves of each
  // (MTD(f) on the start from its value, its tests split over the tasks).
  void root_moves();
  // Each task's exact worth by MTD(f) from its bounds.
  void every_worth();
  StartSolution summary();
  // What is proved so far into `s` (out_, or a copy of it): each move's bounds from its tasks,
  // the value's from the moves and the root search, the best move. Safe during the search.
  void fill(StartSolution& s) const;
  // The move (or continuation) of `s`, a copy of out_, that `task` finds the worth of.
  StartMove& slot(StartSolution& s, const Task& task) const;
  // Gives SolveStartOptions::checkpoint what is proved so far, when one is due.
  void checkpoint();
  Clock::duration checkpoint_interval() const {
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(std::max(0.0, options_.checkpoint_seconds)));
  }
  // StartSolution::line, from the moves' worths and the transposition table.
  void proved_line();
  // The exact value of `pos` (n seeds) when the tables, the end of the game or the table prove
  // it.
  bool exact_value(const Searcher& searcher, const Pits& pos, int n, int& v) const;

  void report(bool last = false);
  void watch(Searcher& searcher,
             std::uint64_t& published,
             const std::atomic<bool>* halt,
             const std::atomic<bool>* leave = nullptr);
  // The least seeds of a node whose moves the threads share (SolveStartOptions::share_above).
  int share_from() const;
  // Runs the tests of `tests` on `pos` (n seeds) until its bounds meet, with the other threads
  // in it; `proved` is told each finished test's beta and result; `current` (may be null) is
  // set to each test's beta as it starts. Returns when the bounds meet;
  // throws Stopped when the search stops (not when `leave` moves it to the next test).
  void shared_tests(Searcher& searcher,
                    SharedMtdf& tests,
                    std::atomic<bool>& leave,
                    const Pits& pos,
                    int n,
                    const std::function<void(int, int)>& proved,
                    std::atomic<int>* current = nullptr);
  void publish(const Searcher& searcher, std::uint64_t& published) {
    nodes_ += searcher.nodes() - published;
    published = searcher.nodes();
  }
  // Runs `each` on every task, best first (see start_search.cpp); `each` gets the thread's
  // searcher, the task and the thread's leave flag for the task's SharedMtdf.
  void each_task(const std::function<void(Searcher&, std::size_t, std::atomic<bool>&)>& each,
                 const std::atomic<bool>* halt);

  const Variant* variant_;
  const RuleSet rules_;
  const Rules engine_;
  const SolveStartOptions& options_;
  const TableSet* tables_;
  StartSolution out_;
  std::deque<Task> tasks_;  // a deque: tasks hold atomics, which do not move
  std::vector<std::size_t> order_;
  int key_bits_ = 1;
  int root_guess_ = 0;  // the start's value as the deepening estimated it
  std::unique_ptr<TranspositionTable> table_;
  std::unique_ptr<TableValues> values_;
  std::unique_ptr<BackgroundValues> background_;  // SolveStartOptions::preload_delay's reading
  const TableValues* shared_values_ = nullptr;    // values_, or SolveStartOptions::preloaded's
  std::atomic<std::uint64_t> nodes_{0};
  std::atomic<int> done_{0};
  std::atomic<bool> stopped_{false};
  // Bounds proved on the start's value by the root search.
  std::atomic<int> root_lower_{-kMaxBoardStones - 1};
  std::atomic<int> root_upper_{kMaxBoardStones + 1};
  std::atomic<SolvePhase> phase_{SolvePhase::kValue};
  std::atomic<int> beta_{0};  // the start's current test, in kValue
  std::mutex progress_mutex_;
  std::mutex checkpoint_mutex_;
  std::atomic<Clock::rep> next_checkpoint_{0};  // when the next checkpoint is due
  Clock::time_point next_gather_{};             // when a checkpoint may gather kept positions again
};

}  // namespace sowdb::gen::start_detail
