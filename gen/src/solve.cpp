#include "sowdb/gen/solve.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <deque>
#include <mutex>
#include <span>
#include <stdexcept>

#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"
#include "transposition_table.h"

namespace sowdb::gen {
namespace {

// An exact alpha-beta search of an acyclic game; one per thread, all sharing one table.
class Searcher {
 public:
  Searcher(const Rules& rules, const TableSet* tables, TranspositionTable& table)
      : rules_(rules),
        tables_(tables),
        tables_max_(tables ? tables->max_stones() : -1),
        table_(table) {}

  std::uint64_t nodes() const { return nodes_; }

  /// The key of `pos` (n seeds): its index among all positions of its board, layer by layer.
  std::uint64_t key_of(const Pits& pos, int n) const {
    const std::size_t p = static_cast<std::size_t>(rules_.pits());
    return binomial(n + static_cast<int>(p) - 1, static_cast<int>(p)) +
           rank(std::span<const std::uint8_t>(pos.data(), p));
  }

  // The value of `pos` (n seeds) for its mover, by MTD(f) from `guess`; `proved` is told the
  // bounds after each null-window search.
  std::pair<int, int> value(const Pits& pos,
                            int n,
                            int guess,
                            const std::function<void(int, int)>& proved) {
    if (n <= tables_max_) {
      const int v = probe(pos);
      return {v, v};
    }
    return mtdf(pos, n, key_of(pos, n), guess, kExact, [&](int lo, int hi) {
      proved(lo, hi);
      return false;
    });
  }

  // An estimate of the value of `pos` (n seeds) for its mover: MTD(f) from `guess` at
  // kFirstDepth plies, then kDeepening plies deeper each time up to `deepening`, with
  // positions at the horizon estimated at 0. The searches leave their best moves in the table
  // for the exact searches that follow.
  int estimate(const Pits& pos, int n, int guess, int deepening) {
    if (n <= tables_max_)
      return probe(pos);
    const std::uint64_t key = key_of(pos, n);
    int g = std::clamp(guess, -n, n);
    for (int depth = kFirstDepth; depth <= deepening; depth += kDeepening)
      g = mtdf(pos, n, key, g, depth, [](int, int) { return false; }).first;
    return g;
  }

  // Whether the value of `pos` (n seeds) for its mover is at least `beta`: a null-window search
  // to the end of the game. Fail-soft: a result >= beta is a lower bound, below beta an upper
  // bound; both at once (the value) when `exact` comes back true (the tables or the end of the
  // game answered).
  int test(const Pits& pos, int n, int beta, bool& exact) {
    exact = true;
    if (n <= tables_max_)
      return probe(pos);
    MoveList moves;
    if (rules_.legal_moves(pos, moves) == 0)
      return rules_.final_value(pos);
    exact = false;
    return search(pos, n, beta - 1, beta, key_of(pos, n), kExact);
  }

  // Calls `tick` every so many nodes (from this thread).
  void set_tick(std::function<void()> tick) { tick_ = std::move(tick); }

  static constexpr int kFirstDepth = 5;
  static constexpr int kDeepening = 3;

 private:
  // MTD(f) of `depth` plies (kExact: to the end of the game), from `guess`.
  std::pair<int, int> mtdf(const Pits& pos,
                           int n,
                           std::uint64_t key,
                           int guess,
                           int depth,
                           const std::function<bool(int, int)>& enough) {
    int lower = -n;
    int upper = n;
    int g = std::clamp(guess, lower, upper);
    while (lower < upper) {
      const int beta = g == lower ? g + 1 : g;
      g = search(pos, n, beta - 1, beta, key, depth);
      if (g < beta)
        upper = g;
      else
        lower = g;
      if (enough(lower, upper))
        break;
    }
    return {lower, upper};
  }

  int probe(const Pits& pos) const {
    int v = 0;
    const ProbeStatus s = tables_->value(pos, v);
    if (s != ProbeStatus::kOk)
      throw std::runtime_error(tables_->explain(s, pos));
    return v;
  }

  // Fail-soft alpha-beta on the open window (alpha, beta): a result <= alpha is an upper bound,
  // >= beta a lower bound, anything between exact. `key`: key_of(pos, n); n > tables_max_.
  // `depth`: plies to look ahead, kExact to the end of the game; a shallower search returns
  // estimates.
  int search(const Pits& pos, int n, int alpha, int beta, std::uint64_t key, int depth) {
    const std::uint64_t nodes_before = nodes_;
    if ((++nodes_ & 0xFFFF) == 0 && tick_)
      tick_();
    MoveList moves;
    if (rules_.legal_moves(pos, moves) == 0)
      return rules_.final_value(pos);
    if (depth == 0)
      return 0;
    const int next_depth = depth == kExact ? kExact : depth - 1;
    int lower = -n;
    int upper = n;
    int hint = -1;
    if (const TableEntry e = table_.find(key); e.found) {
      if (e.depth >= depth) {
        lower = std::max(lower, e.lower);
        upper = std::min(upper, e.upper);
      }
      hint = e.best;
    }
    if (lower >= beta || lower == upper)
      return lower;
    if (upper <= alpha)
      return upper;
    // What the tables and the transposition table know of each child, as bounds on the move's
    // worth for this mover. An exact answer or a lower bound of beta or more ends the node
    // without a child search (enhanced transposition cut-off).
    struct Child {
      std::uint64_t key = 0;
      int lower = 0;  // bounds on the move's worth
      int upper = 0;
      int score = 0;  // search order, larger first
    };
    std::array<Child, kMaxPitsPerSide> child{};
    std::array<int, kMaxPitsPerSide> order{};
    int best = -kMaxBoardStones - 1;
    int best_pit = -1;
    int open = 0;  // children still to search
    // The children's keys first, and their buckets on the way, so that the cache misses of
    // the lookups below overlap.
    for (int i = 0; i < moves.size; ++i) {
      const Move& m = moves.moves[i];
      const int nn = n - m.gain();
      if (nn > tables_max_) {
        child[static_cast<std::size_t>(i)].key = key_of(m.child, nn);
        table_.prefetch(child[static_cast<std::size_t>(i)].key);
      } else {
        tables_->prefetch(m.child);
      }
    }
    for (int i = 0; i < moves.size; ++i) {
      const Move& m = moves.moves[i];
      const int g = m.gain();
      const int nn = n - g;
      Child& c = child[static_cast<std::size_t>(i)];
      int lo = -nn;
      int hi = nn;
      if (nn <= tables_max_) {
        lo = hi = probe(m.child);
      } else {
        if (const TableEntry e = table_.find(c.key); e.found && e.depth >= next_depth) {
          lo = std::max(lo, e.lower);
          hi = std::min(hi, e.upper);
        }
      }
      // The child's bounds as bounds on the move's worth (a turn to the opponent swaps them).
      c.lower = Rules::worth(g, m.extra_turn, m.extra_turn ? lo : hi);
      c.upper = Rules::worth(g, m.extra_turn, m.extra_turn ? hi : lo);
      if (c.lower > best) {
        best = c.lower;
        best_pit = m.pit;
      }
      if (c.lower >= beta) {
        store(key, lower, upper, c.lower, alpha, beta, m.pit, depth, nodes_before);
        return c.lower;
      }
      if (c.lower == c.upper)
        continue;
      c.score = (m.pit == hint ? 1 << 20 : 0) + (m.extra_turn ? 1 << 12 : 0) + (g << 6) +
                (c.upper - c.lower < 2 * nn ? c.lower + 64 : 0);
      order[static_cast<std::size_t>(open++)] = i;
    }
    // At most 8 moves: an insertion sort (std::sort's unrolled start trips g++ 12's
    // -Warray-bounds on an 8-element array).
    for (int i = 1; i < open; ++i) {
      for (int j = i; j > 0 && child[order[j]].score > child[order[j - 1]].score; --j)
        std::swap(order[j], order[j - 1]);
    }
    // `best` so far is a worth some move reaches; an upper bound on the node is the largest of
    // the children's upper bounds, which the searches below tighten.
    int ceiling = best;
    for (int k = 0; k < open; ++k) {
      const int i = order[static_cast<std::size_t>(k)];
      const Move& m = moves.moves[i];
      const Child& c = child[static_cast<std::size_t>(i)];
      const int a = std::max(alpha, best);
      if (c.upper <= a) {
        // This move cannot raise the node above alpha or above a move found already.
        ceiling = std::max(ceiling, c.upper);
        continue;
      }
      const int g = m.gain();
      const int nn = n - g;
      const int w = m.extra_turn ? g + search(m.child, nn, a - g, beta - g, c.key, next_depth)
                                 : g - search(m.child, nn, g - beta, g - a, c.key, next_depth);
      ceiling = std::max(ceiling, w);
      if (w > best) {
        best = w;
        best_pit = m.pit;
      }
      if (best >= beta)
        break;
    }
    // Failing low, the node is worth at most the largest bound of its moves.
    const int v = best >= beta ? best : std::max(best, ceiling);
    store(key, lower, upper, v, alpha, beta, best_pit, depth, nodes_before);
    return v;
  }

  // Records what a search of window (alpha, beta) that returned `v` proves, within the bounds
  // known before.
  void store(std::uint64_t key,
             int lower,
             int upper,
             int v,
             int alpha,
             int beta,
             int pit,
             int depth,
             std::uint64_t nodes_before) {
    if (v <= alpha)
      upper = std::min(upper, v);
    else if (v >= beta)
      lower = std::max(lower, v);
    else
      lower = upper = v;
    table_.store(key, lower, upper, pit, depth, nodes_ - nodes_before);
  }

  const Rules& rules_;
  const TableSet* tables_;
  int tables_max_;
  TranspositionTable& table_;
  std::uint64_t nodes_ = 0;
  std::function<void()> tick_;
};

// One exact value to find: the position after the first move (and a continuation), whose value
// gives that move's worth.
// Bounds shared between threads only ever tighten.
void raise_to(std::atomic<int>& bound, int v) {
  int old = bound.load();
  while (v > old && !bound.compare_exchange_weak(old, v)) {
  }
}
void lower_to(std::atomic<int>& bound, int v) {
  int old = bound.load();
  while (v < old && !bound.compare_exchange_weak(old, v)) {
  }
}

// Thrown from a search's tick when SolveStartOptions::stop says so.
struct Stopped {};

struct Task {
  StartMove* move;
  Pits position{};
  int stones = 0;
  int sign = 1;  // the worth is base + sign * value (sign -1: the opponent moves next)
  int base = 0;
  // Bounds on the worth proved so far, read by the progress reports of other threads.
  std::atomic<int> lower{0};
  std::atomic<int> upper{0};

  Task(StartMove* m, const Pits& p, int n, int s, int b)
      : move(m), position(p), stones(n), sign(s), base(b), lower(b - n), upper(b + n) {}
};

}  // namespace

StartSolution solve_start(const Variant& variant, const SolveStartOptions& options) {
  const RuleSet rules = variant.rules.normalised();
  const Rules engine(rules);
  StartSolution out;
  out.stones = variant.total_stones();
  out.start = variant.start();
  const TableSet* tables = options.tables;
  if (tables && !(tables->rules() == rules)) {
    throw InvalidRequest("the tables in " + tables->directory().string() + " hold " +
                         describe(tables->rules()) + ", not " + describe(rules));
  }
  out.tables_max = tables ? tables->max_stones() : -1;
  out.by_tables = out.tables_max >= out.stones;
  if (!out.by_tables && rules.family == Family::kOware) {
    throw InvalidRequest(
        "Oware-family positions can repeat, so a search cannot prove the value of " +
        variant.to_string() + " without complete tables: it needs layers 0.." +
        std::to_string(out.stones) + " (sowdb gen --variant " + variant.to_string() +
        " --max-stones " + std::to_string(out.stones) + ")" +
        (tables ? "; the tables hold up to " + std::to_string(out.tables_max) : ""));
  }
  // Every first move, and after an extra turn every continuation, as a value to find. The moves
  // are all in place before the tasks point into them.
  const auto start_move = [](const Move& m) {
    StartMove s;
    s.pit = m.pit;
    s.gain = m.gain();
    s.extra_turn = m.extra_turn;
    return s;
  };
  MoveList first;
  engine.legal_moves(out.start, first);
  std::array<MoveList, kMaxPitsPerSide> next{};
  for (int i = 0; i < first.size; ++i) {
    const Move& m = first.moves[i];
    out.moves.push_back(start_move(m));
    if (m.extra_turn)
      engine.legal_moves(m.child, next[static_cast<std::size_t>(i)]);
    for (const Move& c : next[static_cast<std::size_t>(i)])
      out.moves.back().continuations.push_back(start_move(c));
  }
  // A deque: tasks hold atomics, which do not move.
  std::deque<Task> tasks;
  for (int i = 0; i < first.size; ++i) {
    const Move& m = first.moves[i];
    StartMove& sm = out.moves[static_cast<std::size_t>(i)];
    const int n = out.stones - m.gain();
    const MoveList& then = next[static_cast<std::size_t>(i)];
    if (then.size == 0) {
      // No extra turn, or one in a finished game: the move's own value is what counts.
      tasks.emplace_back(&sm, m.child, n, m.extra_turn ? 1 : -1, m.gain());
      continue;
    }
    for (int j = 0; j < then.size; ++j) {
      const Move& c = then.moves[j];
      tasks.emplace_back(&sm.continuations[static_cast<std::size_t>(j)],
                         c.child,
                         n - c.gain(),
                         c.extra_turn ? 1 : -1,
                         m.gain() + c.gain());
    }
  }
  // The likeliest best moves first (most seeds gained, extra turns), so that their values
  // guide the searches of the others.
  std::vector<std::size_t> order(tasks.size());
  for (std::size_t t = 0; t < order.size(); ++t)
    order[t] = t;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return tasks[a].base > tasks[b].base;
  });
  const int total_stones = out.stones;
  int key_bits = 1;
  {
    // Keys count every position of up to 2PS seeds.
    const std::uint64_t positions = binomial(total_stones + rules.pits(), rules.pits());
    key_bits = static_cast<int>(std::bit_width(positions));
  }
  // The table holds bounds of -128..127: a search of more seeds could not store them.
  if (!out.by_tables && total_stones > 127) {
    throw InvalidRequest("a search keeps values of -128..127 only, and " + variant.to_string() +
                         " has " + std::to_string(total_stones) + " seeds on the board");
  }
  // Complete tables answer without a search: the least table that holds the keys serves.
  const int least_bits = std::max(2, key_bits - TranspositionTable::kCheckBits + 2);
  TranspositionTable table(out.by_tables ? least_bits : std::max(options.table_bits, least_bits),
                           key_bits);
  out.table_bytes = out.by_tables ? 0 : table.bytes();
  std::atomic<std::uint64_t> nodes{0};
  std::atomic<int> done{0};
  std::atomic<bool> stopped{false};
  // Bounds proved on the start's value by MTD(f) on the start (value only).
  std::atomic<int> root_lower{-kMaxBoardStones - 1};
  std::atomic<int> root_upper{kMaxBoardStones + 1};
  std::mutex progress_mutex;
  // From the threads, a report is skipped while another is being made; the last one waits.
  const auto report = [&](bool last = false) {
    if (!options.progress)
      return;
    std::unique_lock lock(progress_mutex, std::defer_lock);
    if (last)
      lock.lock();
    else if (!lock.try_lock())
      return;
    SolveProgress p;
    p.nodes = nodes.load();
    p.done = done.load();
    p.total = static_cast<int>(tasks.size());
    p.lower = -kMaxBoardStones - 1;
    p.upper = -kMaxBoardStones - 1;
    for (const Task& t : tasks) {
      p.lower = std::max(p.lower, t.lower.load());
      p.upper = std::max(p.upper, t.upper.load());
    }
    p.lower = std::max(p.lower, root_lower.load());
    p.upper = std::min(p.upper, root_upper.load());
    options.progress(p);
  };
  const int workers = std::max(1, tbb::this_task_arena::max_concurrency());
  // Counts a searcher's positions into `nodes`.
  const auto publish = [&](const Searcher& searcher, std::uint64_t& published) {
    nodes += searcher.nodes() - published;
    published = searcher.nodes();
  };
  // Every 2^16 positions: counts them, reports progress, and ends the search (throwing Stopped)
  // when the caller asks to stop or `halt` is set.
  const auto watch =
      [&](Searcher& searcher, std::uint64_t& published, const std::atomic<bool>* halt) {
        searcher.set_tick([&, halt] {
          const bool halted = halt && halt->load();
          if (halted || stopped || (options.stop && options.stop())) {
            if (!halted)
              stopped = true;
            throw Stopped{};
          }
          publish(searcher, published);
          report();
        });
      };
  // Runs `each` on every task, best first, the threads taking them one at a time, until the
  // caller stops the search or `halt` (may be null) is set.
  const auto each_task = [&](const std::function<void(Searcher&, std::size_t)>& each,
                             const std::atomic<bool>* halt) {
    std::atomic<std::size_t> next_one{0};
    tbb::parallel_for(0, workers, 1, [&](int) {
      Searcher searcher(engine, tables, table);
      std::uint64_t published = 0;
      watch(searcher, published, halt);
      try {
        for (std::size_t k = next_one++; k < order.size() && !stopped && !(halt && *halt);
             k = next_one++) {
          if (options.stop && options.stop()) {
            stopped = true;
            break;
          }
          each(searcher, order[k]);
          ++done;
          publish(searcher, published);
          report();
        }
      } catch (const Stopped&) {
      }
      publish(searcher, published);
    });
  };
  const bool root_first = !options.worths && !out.by_tables && !tasks.empty();
  if (root_first) {
    // Value only: MTD(f) on the start position, each of its null-window tests ("is the value at
    // least beta?") split over the first moves and continuations (the tasks), which the
    // threads take one at a time. Every task must fail for the value to be below beta, so a
    // test that fails keeps both cores busy to its end; the first task to reach beta ends the
    // others' searches. The tasks are first estimated by iterative deepening and tried best
    // first; the best estimate is MTD(f)'s first guess.
    const int deepening = std::min(options.deepening, kExact - 1);
    std::vector<int> estimate(tasks.size(), 0);
    if (deepening > 0) {
      each_task(
          [&](Searcher& searcher, std::size_t t) {
            const Task& task = tasks[t];
            estimate[t] =
                task.base + task.sign * searcher.estimate(task.position, task.stones, 0, deepening);
          },
          nullptr);
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return estimate[a] > estimate[b];
      });
    }
    int lower = -total_stones;
    int upper = total_stones;
    int g = deepening > 0 ? estimate[order.front()] : 0;
    while (lower < upper && !stopped) {
      g = std::clamp(g, lower, upper);
      const int beta = g == lower ? g + 1 : g;
      std::atomic<bool> high{false};
      done = 0;
      each_task(
          [&](Searcher& searcher, std::size_t t) {
            Task& task = tasks[t];
            if (task.upper < beta)
              return;
            if (task.lower < beta) {
              // The task's worth is base + sign * value of its position.
              bool exact = false;
              if (task.sign > 0) {
                const int r = searcher.test(task.position, task.stones, beta - task.base, exact);
                if (exact || r >= beta - task.base)
                  raise_to(task.lower, task.base + r);
                if (exact || r < beta - task.base)
                  lower_to(task.upper, task.base + r);
              } else {
                const int b = task.base - beta + 1;
                const int r = searcher.test(task.position, task.stones, b, exact);
                if (exact || r >= b)
                  lower_to(task.upper, task.base - r);
                if (exact || r < b)
                  raise_to(task.lower, task.base - r);
              }
            }
            if (task.lower >= beta)
              high = true;
          },
          &high);
      if (stopped)
        break;
      if (high) {
        g = -kMaxBoardStones - 1;
        for (const Task& t : tasks)
          g = std::max(g, t.lower.load());
        lower = g;
        raise_to(root_lower, g);
      } else {
        g = -kMaxBoardStones - 1;
        for (const Task& t : tasks)
          g = std::max(g, t.upper.load());
        upper = g;
        lower_to(root_upper, g);
      }
      report();
    }
    done = lower == upper ? static_cast<int>(tasks.size()) : 0;
  }
  if (!root_first) {
    // Every worth: each task by MTD(f) from the best worth proved so far.
    each_task(
        [&](Searcher& searcher, std::size_t t) {
          Task& task = tasks[t];
          // Bounds on the value of the task's position, as bounds on the move's worth.
          const auto record = [&task](int lo, int hi) {
            task.lower = task.base + (task.sign > 0 ? lo : -hi);
            lower_to(task.upper, task.base + (task.sign > 0 ? hi : -lo));
          };
          int best = task.base - task.stones;
          for (const Task& o : tasks)
            best = std::max(best, o.lower.load());
          const auto v = searcher.value(
              task.position, task.stones, task.sign * (best - task.base), [&](int lo, int hi) {
                record(lo, hi);
                report();
              });
          record(v.first, v.second);
        },
        nullptr);
  }
  report(true);
  out.nodes = nodes.load();
  out.complete = done.load() == static_cast<int>(tasks.size()) && !stopped;
  for (Task& t : tasks) {
    // No move is worth more than the start's value: what the search of the start proved of it
    // bounds every move (value only, stopped before the moves were asked).
    lower_to(t.upper, std::max(root_upper.load(), t.lower.load()));
    t.move->lower = t.lower.load();
    t.move->upper = t.upper.load();
    t.move->worth = t.move->lower == t.move->upper ? t.move->lower : 0;  // 0: not known
  }
  // A move with an extra turn is worth its best continuation; without one (the game ended) its
  // own search's value.
  for (StartMove& m : out.moves) {
    if (!m.continuations.empty()) {
      m.lower = m.upper = -kMaxBoardStones - 1;
      for (const StartMove& c : m.continuations) {
        m.lower = std::max(m.lower, c.lower);
        m.upper = std::max(m.upper, c.upper);
      }
      m.worth = m.lower == m.upper ? m.lower : 0;
    }
  }
  if (out.moves.empty()) {
    out.value = out.lower = out.upper = engine.final_value(out.start);
    return out;
  }
  out.lower = out.upper = -kMaxBoardStones - 1;
  for (const StartMove& m : out.moves) {
    out.lower = std::max(out.lower, m.lower);
    out.upper = std::max(out.upper, m.upper);
  }
  out.lower = std::max(out.lower, std::min(root_lower.load(), out.upper));
  // The best move is known when one move is proved at least as good as every other can be.
  for (const StartMove& m : out.moves) {
    bool best = true;
    for (const StartMove& o : out.moves)
      best = best && (&o == &m || m.lower >= o.upper);
    if (best) {
      out.best = m.pit;
      break;
    }
  }
  if (out.lower == out.upper)
    out.value = out.lower;
  if (out.complete) {
    // The lowest pit among equals.
    for (const StartMove& m : out.moves) {
      if (m.lower == m.upper && m.worth == out.value) {
        out.best = m.pit;
        break;
      }
    }
  }
  return out;
}

}  // namespace sowdb::gen
