#include "sowdb/gen/start_search.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "cyclic_search.h"
#include "parallel_loops.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"
#include "start_search_state.h"
#include "start_searcher.h"
#include "table_values.h"
#include "transposition_table.h"

namespace sowdb::gen {
namespace start_detail {

// Ticks between two progress reports of a thread: every 65,536 positions.
constexpr unsigned kReportTicks = 16;

void StartSearch::plan() {
  out_.stones = 0;
  for (int i = 0; i < engine_.board_pits(); ++i)
    out_.stones += out_.start[static_cast<std::size_t>(i)];
  if (tables_ && !(tables_->rules() == rules_)) {
    throw InvalidRequest("the tables in " + tables_->directory().string() + " hold " +
                         describe(tables_->rules()) + ", not " + describe(rules_));
  }
  out_.tables_max = tables_ ? tables_->max_stones() : -1;
  out_.by_tables = out_.tables_max >= out_.stones;
  const std::string what = variant_ ? variant_->to_string() : "a position of " + describe(rules_);
  std::string refusal;
  if (!out_.by_tables && rules_.family == Family::kOware) {
    // solve_position answers these by a search of its own (cyclic_search.h); only the start
    // search refuses them.
    refusal = "Oware-family positions can repeat, so a search cannot prove the value of " + what +
              " without complete tables: it needs layers 0.." + std::to_string(out_.stones) +
              (tables_ ? "; the tables hold up to " + std::to_string(out_.tables_max) : "");
  } else if (!out_.by_tables && out_.stones > 127) {
    // The table holds bounds of -128..127: a search of more seeds could not store them.
    refusal = "a search keeps values of -128..127 only, and " + what + " has " +
              std::to_string(out_.stones) + " seeds on the board";
  }
  if (!refusal.empty() && variant_)
    throw NeedsCompleteTables(refusal, *variant_, out_.stones, Objective::kCompetitive);
  if (!refusal.empty())
    throw InvalidRequest(refusal);
  // Keys count every position of up to 2PS seeds.
  key_bits_ =
      static_cast<int>(std::bit_width(binomial(out_.stones + rules_.pits(), rules_.pits())));
  // Every first move, and after an extra turn every continuation, as a value to find. The
  // moves are all in place before the tasks point into them.
  MoveList first;
  engine_.legal_moves(out_.start, first);
  std::array<MoveList, kMaxPitsPerSide> next{};
  for (int i = 0; i < first.size; ++i) {
    const Move& m = first.moves[i];
    out_.moves.push_back(start_move(m));
    if (m.extra_turn)
      engine_.legal_moves(m.child, next[static_cast<std::size_t>(i)]);
    for (const Move& c : next[static_cast<std::size_t>(i)])
      out_.moves.back().continuations.push_back(start_move(c));
  }
  for (int i = 0; i < first.size; ++i) {
    const Move& m = first.moves[i];
    StartMove& sm = out_.moves[static_cast<std::size_t>(i)];
    const int n = out_.stones - m.gain();
    const MoveList& then = next[static_cast<std::size_t>(i)];
    if (then.size == 0) {
      // No extra turn, or one in a finished game: the move's own value is what counts.
      tasks_.emplace_back(&sm, m.child, n, m.extra_turn ? 1 : -1, m.gain(), m.pit);
      continue;
    }
    for (int j = 0; j < then.size; ++j) {
      const Move& c = then.moves[j];
      tasks_.emplace_back(&sm.continuations[static_cast<std::size_t>(j)],
                          c.child,
                          n - c.gain(),
                          c.extra_turn ? 1 : -1,
                          m.gain() + c.gain(),
                          m.pit);
      tasks_.back().then = m.child;
      tasks_.back().then_stones = n;
    }
  }
  // The likeliest best moves first (most seeds gained), until estimates say better.
  order_.resize(tasks_.size());
  for (std::size_t t = 0; t < order_.size(); ++t)
    order_[t] = t;
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
    return tasks_[a].base > tasks_[b].base;
  });
}

void StartSearch::make_table(int bits) {
  const int least_bits = std::max(2, key_bits_ - TranspositionTable::kCheckBits + 2);
  table_ = std::make_unique<TranspositionTable>(std::max(bits, least_bits), key_bits_);
  out_.table_bytes = out_.by_tables ? 0 : table_->bytes();
}

void StartSearch::preload() {
  if (options_.preload_delay > 0 && !options_.preloaded &&
      preload_fits(tables_, rules_.pits(), options_.preload_limit)) {
    background_ = std::make_unique<BackgroundValues>(*tables_, options_.preload_delay);
    shared_values_ = background_->values();
    return;
  }
  shared_values_ = search_values(options_, tables_, rules_.pits(), values_, out_.preload_seconds);
  out_.preloaded_bytes = values_ ? values_->bytes() : 0;
}

void StartSearch::finish_preload() {
  if (!background_)
    return;
  out_.preload_seconds = background_->finish();
  out_.preloaded_bytes = background_->values()->bytes();
}

void StartSearch::report(bool last) {
  if (!options_.progress)
    return;
  // From the threads, a report is skipped while another is being made; the last one waits.
  std::unique_lock lock(progress_mutex_, std::defer_lock);
  if (last)
    lock.lock();
  else if (!lock.try_lock())
    return;
  SolveProgress p;
  p.nodes = nodes_.load();
  p.done = done_.load();
  p.total = static_cast<int>(tasks_.size());
  p.lower = -kMaxBoardStones - 1;
  p.upper = -kMaxBoardStones - 1;
  for (const Task& t : tasks_) {
    p.lower = std::max(p.lower, t.lower.load());
    p.upper = std::max(p.upper, t.upper.load());
  }
  p.lower = std::max(p.lower, root_lower_.load());
  p.upper = std::min(p.upper, root_upper_.load());
  p.phase = phase_.load();
  p.beta = p.phase == SolvePhase::kValue ? beta_.load() : 0;
  options_.progress(p);
}

// Every kTickNodes positions: ends the search (throwing Stopped) when the caller asks to stop
// or `halt` (may be null) is set; every kReportTicks of them, counts the positions and reports
// progress. WHY the two rates: a budget of 0.05 s took 2.4 s when the stop was looked at every
// 65,536 positions (the first positions of a search, reading cold tables, ran at 50 K/s), and
// a report (a lock, a pass over the tasks, the caller's callback) is dearer than a clock read.
void StartSearch::watch(Searcher& searcher,
                        std::uint64_t& published,
                        const std::atomic<bool>* halt,
                        const std::atomic<bool>* leave) {
  searcher.set_tick([this, &searcher, &published, halt, leave, ticks = 0U]() mutable {
    const bool halted = (halt && halt->load()) || (leave && leave->load());
    if (halted || stopped_ || (options_.stop && options_.stop())) {
      if (!halted)
        stopped_ = true;
      throw Stopped{};
    }
    if (++ticks % kReportTicks != 0)
      return;
    publish(searcher, published);
    report();
    checkpoint();
  });
}

int StartSearch::share_from() const {
  return out_.tables_max + (options_.share_above >= 0 ? options_.share_above : kShareAbove);
}

void StartSearch::shared_tests(Searcher& searcher,
                               SharedMtdf& tests,
                               std::atomic<bool>& leave,
                               const Pits& pos,
                               int n,
                               const std::function<void(int, int)>& proved,
                               std::atomic<int>* current) {
  int beta = 0;
  unsigned round = 0;
  bool low = false;
  while (!stopped_ && tests.next(leave, beta, round, low)) {
    searcher.set_expect_low(low);
    if (current)
      *current = beta;
    int r = 0;
    try {
      r = searcher.test(pos, n, beta);
    } catch (const Stopped&) {
      tests.end(leave, round, beta, 0, true);
      if (!leave)
        throw;
      continue;  // another thread finished the test first
    } catch (...) {
      // `tests` must not keep the address of this thread's flag past its search.
      tests.end(leave, round, beta, 0, true);
      throw;
    }
    tests.end(leave, round, beta, r, false);
    proved(beta, r);
  }
}

// Runs `each` on every task, best first, the threads taking them one at a time, until the
// caller stops the search or `halt` (may be null) is set. A thread that finds no task left to
// take joins the task taken first among those not done, sharing its tests (SharedMtdf, and the
// BusyTable within them), instead of idling until it is done.
void StartSearch::each_task(
    const std::function<void(Searcher&, std::size_t, std::atomic<bool>&)>& each,
    const std::atomic<bool>* halt) {
  const int workers = std::max(1, parallel::max_concurrency());
  std::atomic<std::size_t> next_one{0};
  // By place in order_: 0 not taken, 1 taken, 2 done.
  std::vector<std::atomic<int>> state(order_.size());
  BusyTable busy;
  parallel::for_slots(workers, [&](int) {
    Searcher searcher(engine_, tables_, *table_, shared_values_);
    if (workers > 1)
      searcher.share(&busy, share_from());
    std::atomic<bool> leave{false};
    std::uint64_t published = 0;
    watch(searcher, published, halt, &leave);
    try {
      while (!stopped_ && !(halt && *halt)) {
        if (options_.stop && options_.stop()) {
          stopped_ = true;
          break;
        }
        std::size_t k = next_one++;
        if (k < order_.size()) {
          state[k] = 1;
        } else {
          k = 0;
          while (k < order_.size() && state[k] != 1)
            ++k;
          if (k == order_.size())
            break;
        }
        each(searcher, order_[k], leave);
        if (state[k].exchange(2) == 2)
          continue;
        ++done_;
        publish(searcher, published);
        report();
        checkpoint();
      }
    } catch (const Stopped&) {
    }
    publish(searcher, published);
  });
}

void StartSearch::estimate() {
  const int deepening = std::min(options_.deepening, kExact - 2);
  if (deepening <= 0)
    return;
  phase_ = SolvePhase::kDeepening;
  Searcher searcher(engine_, tables_, *table_, shared_values_);
  std::uint64_t published = 0;
  watch(searcher, published, nullptr);
  try {
    bool exact = false;
    root_guess_ = searcher.estimate(out_.start, out_.stones, 0, deepening, exact);
  } catch (const Stopped&) {
  }
  publish(searcher, published);
}

void StartSearch::know() {
  raise_to(root_lower_, options_.known_lower);
  lower_to(root_upper_, options_.known_upper);
  if (root_lower_ > root_upper_)
    throw InvalidRequest("the known bounds on the position's value are empty");
  root_guess_ = std::clamp(root_guess_, root_lower_.load(), root_upper_.load());
  // No move is worth more than the position's value.
  for (Task& t : tasks_)
    lower_to(t.upper, std::max(root_upper_.load(), t.lower.load()));
}

void StartSearch::root_value() {
  // Every thread runs the same MTD(f) over the one table, each null-window test by all at once,
  // sharing its nodes' moves (simplified ABDADA); the first to finish a test moves all to the
  // next. (Lazy SMP, every thread on its own MTD(f) with the helpers ordering equal moves the
  // other way round, searched 2x the positions for 1.05-1.12x the speed: Kalah(6,4), issue 44.)
  const int workers = std::max(1, parallel::max_concurrency());
  phase_ = SolvePhase::kValue;
  SharedMtdf tests;
  tests.reset(std::max(-out_.stones, root_lower_.load()),
              std::min(out_.stones, root_upper_.load()),
              root_guess_);
  BusyTable busy;
  parallel::for_slots(workers, [&](int w) {
    Searcher searcher(engine_, tables_, *table_, shared_values_);
    if (workers > 1)
      searcher.share(&busy, share_from());
    std::atomic<bool> leave{false};
    std::uint64_t published = 0;
    watch(searcher, published, nullptr, &leave);
    try {
      shared_tests(
          searcher,
          tests,
          leave,
          out_.start,
          out_.stones,
          [&](int beta, int r) {
            if (r >= beta)
              raise_to(root_lower_, r);
            else
              lower_to(root_upper_, r);
            report();
          },
          w == 0 ? &beta_ : nullptr);
    } catch (const Stopped&) {
    }
    publish(searcher, published);
  });
  if (root_lower_ == root_upper_)
    root_guess_ = root_lower_;
}

void StartSearch::root_moves() {
  phase_ = SolvePhase::kMoves;
  // Each task's estimate from what the start's search left in the table: the start's best
  // move (and its best continuation) first, then the others by the bounds proved of them.
  // (Deepening each task on its own searched 15 times the start's positions for Kalah(6,3).)
  Searcher searcher(engine_, tables_, *table_, shared_values_);
  const TableEntry root = searcher.entry(out_.start, out_.stones);
  for (Task& task : tasks_) {
    const TableEntry e = searcher.entry(task.position, task.stones);
    int v = 0;
    if (task.stones <= out_.tables_max) {
      v = searcher.test(task.position, task.stones, 0);
      task.record(v, v);
    } else if (e.found) {
      // The bound on the side of the task's worth that the start's tests proved.
      v = task.sign > 0 ? (e.upper < task.stones ? e.upper : e.lower)
                        : (e.lower > -task.stones ? e.lower : e.upper);
    }
    task.estimate = task.base + task.sign * v;
    task.priority = task.estimate;
    if (root.found && task.first_pit == root.best) {
      task.priority += 1000;
      // A continuation: the best of the position the first move's extra turn leads to.
      if (task.then_stones >= 0 &&
          searcher.entry(task.then, task.then_stones).best == task.move->pit)
        task.priority += 1000;
    }
  }
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
    return tasks_[a].priority > tasks_[b].priority;
  });
  // MTD(f) on the start position from its value, each of its null-window tests ("is the value
  // at least beta?") split over the tasks, which the threads take one at a time, best first.
  // From the value, two tests settle it: one move reaches it, and none exceeds it; both find
  // most of what they need in the table. (This split, as the whole search of the value, searched
  // twice the positions of one search of the start: Kalah(6,4), 16.3 M against 8.7 M.)
  int lower = -out_.stones;
  int upper = out_.stones;
  int g = root_guess_;
  while (lower < upper && !stopped_) {
    g = std::clamp(g, lower, upper);
    const int beta = g == lower ? g + 1 : g;
    std::atomic<bool> high{false};
    done_ = 0;
    for (Task& task : tasks_) {
      // The task's worth is base + sign * value of its position: a test of the value at
      // (beta - base) for sign 1, at (base - beta + 1) for sign -1, the one test of the window
      // b - 1..b.
      const int b = task.sign > 0 ? beta - task.base : task.base - beta + 1;
      if (task.upper < beta || task.lower >= beta)
        task.tests.reset(0, 0, 0);
      else
        task.tests.reset(b - 1, b, b);
    }
    each_task(
        [&](Searcher& worker, std::size_t t, std::atomic<bool>& leave) {
          Task& task = tasks_[t];
          shared_tests(worker, task.tests, leave, task.position, task.stones, [&](int b, int r) {
            task.record(r >= b ? r : -task.stones, r >= b ? task.stones : r);
          });
          if (task.lower >= beta)
            high = true;
        },
        &high);
    if (stopped_)
      break;
    g = -kMaxBoardStones - 1;
    for (const Task& t : tasks_)
      g = std::max(g, high ? t.lower.load() : t.upper.load());
    if (high) {
      lower = g;
      raise_to(root_lower_, g);
    } else {
      upper = g;
      lower_to(root_upper_, g);
    }
    report();
  }
  done_ = lower == upper ? static_cast<int>(tasks_.size()) : 0;
}

void StartSearch::every_worth() {
  // Each task by MTD(f) from the bound nearest its worth that the root search proved (an
  // upper bound for every move but the best): its tests are null windows next to the worth,
  // and the table already holds most of what they need.
  done_ = 0;
  phase_ = SolvePhase::kWorths;
  for (Task& task : tasks_) {
    // The search starts from the bounds proved so far (of its position's value, for its mover),
    // known beforehand or by the root search, and proves neither again.
    const int lower = task.lower.load();
    const int upper = task.upper.load();
    const int guess = std::clamp(task.estimate, lower, upper);
    const int sign = task.sign;
    if (task.stones <= out_.tables_max) {
      // The tables' value, by one probe (a test of any beta returns it).
      task.tests.reset(0, lower == upper ? 0 : 1, 1);
    } else {
      task.tests.reset(sign > 0 ? lower - task.base : task.base - upper,
                       sign > 0 ? upper - task.base : task.base - lower,
                       sign * (guess - task.base));
    }
  }
  each_task(
      [&](Searcher& searcher, std::size_t t, std::atomic<bool>& leave) {
        Task& task = tasks_[t];
        shared_tests(searcher, task.tests, leave, task.position, task.stones, [&](int b, int r) {
          if (task.stones <= out_.tables_max)
            task.record(r, r);
          else
            task.record(r >= b ? r : -task.stones, r >= b ? task.stones : r);
          report();
        });
      },
      nullptr);
}

}  // namespace start_detail

StartSolution solve_start(const Variant& variant, const SolveStartOptions& options) {
  start_detail::StartSearch search(variant.rules, variant.start(), &variant, options);
  return search.run();
}

StartSolution solve_position(const RuleSet& rules,
                             const Pits& position,
                             const SolveStartOptions& options) {
  if (rules.family == Family::kOware) {
    // Positions repeat: a search of its own, sound under repetition (cyclic_search.h).
    StartSolution s = solve_cyclic(rules, position, options);
    // Its `best` may be the best found so far: keep it only where it is proved best, as
    // solve_start's is (at least as good as every other move can be).
    for (const StartMove& m : s.moves) {
      if (m.pit != s.best)
        continue;
      for (const StartMove& o : s.moves) {
        if (&o != &m && m.lower < o.upper)
          s.best = -1;
      }
    }
    return s;
  }
  start_detail::StartSearch search(rules, position, nullptr, options);
  return search.run();
}

}  // namespace sowdb::gen