#include "sowdb/gen/solve.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <span>
#include <stdexcept>

#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"

namespace sowdb::gen {
namespace {

// One transposition-table entry: bounds on a position's value and the move that set them.
struct Entry {
  std::uint64_t index = 0;   // the position's index in its layer
  std::int16_t stones = -1;  // its layer; -1: empty
  std::int8_t lower = 0;
  std::int8_t upper = 0;
  std::int8_t best = -1;  // the pit of the best move found, -1: none
};

// An exact alpha-beta search of an acyclic game, one per thread.
class Searcher {
 public:
  Searcher(const Rules& rules, const TableSet* tables, int bits)
      : rules_(rules),
        tables_(tables),
        tables_max_(tables ? tables->max_stones() : -1),
        entries_(std::size_t{1} << bits),
        mask_(entries_.size() - 1) {}

  std::uint64_t nodes() const { return nodes_; }

  // The exact value of `pos` (n seeds) for its mover.
  int value(const Pits& pos, int n) { return search(pos, n, -n - 1, n + 1); }

  // Calls `tick` every so many nodes (from this thread).
  void set_tick(std::function<void(std::uint64_t)> tick) { tick_ = std::move(tick); }

 private:
  // A position as the table knows it: its layer and its index there (exact, no hash).
  struct Key {
    std::uint64_t index;
    int stones;
  };
  Key key_of(const Pits& pos, int n) const {
    return {
        rank(std::span<const std::uint8_t>(pos.data(), static_cast<std::size_t>(rules_.pits()))),
        n};
  }
  Entry& slot(const Key& key) {
    // A multiplicative hash: the indices of one layer are consecutive numbers.
    const std::uint64_t h =
        (key.index * 131 + static_cast<std::uint64_t>(key.stones)) * 0x9E3779B97F4A7C15ULL;
    return entries_[(h >> 20) & mask_];
  }
  static bool holds(const Entry& e, const Key& key) {
    return e.stones == key.stones && e.index == key.index;
  }

  // Fail-soft alpha-beta on the open window (alpha, beta): a result <= alpha is an upper bound,
  // >= beta a lower bound, anything between exact.
  // `known`: the position's key, when the caller has it already.
  int search(const Pits& pos, int n, int alpha, int beta, const Key* known = nullptr) {
    if (n <= tables_max_) {
      int v = 0;
      const ProbeStatus s = tables_->value(pos, v);
      if (s != ProbeStatus::kOk)
        throw std::runtime_error(tables_->explain(s, pos));
      return v;
    }
    if ((++nodes_ & 0xFFFF) == 0 && tick_)
      tick_(nodes_);
    MoveList moves;
    if (rules_.legal_moves(pos, moves) == 0)
      return rules_.final_value(pos);
    const Key key = known ? *known : key_of(pos, n);
    int lower = -n;
    int upper = n;
    int hint = -1;
    {
      const Entry& e = slot(key);
      if (holds(e, key)) {
        lower = e.lower;
        upper = e.upper;
        hint = e.best;
      }
    }
    if (lower >= beta || lower == upper)
      return lower;
    if (upper <= alpha)
      return upper;
    alpha = std::max(alpha, lower - 1);
    beta = std::min(beta, upper + 1);
    // Order: the move that was best here before, then extra turns, then larger gains.
    std::array<int, kMaxPitsPerSide> order{};
    std::array<int, kMaxPitsPerSide> score{};
    for (int i = 0; i < moves.size; ++i) {
      const Move& m = moves.moves[i];
      order[i] = i;
      score[i] = (m.pit == hint ? 1 << 20 : 0) + (m.extra_turn ? 1 << 10 : 0) + m.gain();
    }
    // At most 8 moves: an insertion sort (std::sort's unrolled start trips g++ 12's
    // -Warray-bounds on an 8-element array).
    for (int i = 1; i < moves.size; ++i) {
      for (int j = i; j > 0 && score[order[j]] > score[order[j - 1]]; --j)
        std::swap(order[j], order[j - 1]);
    }
    // Enhanced transposition cut-off: a child whose stored bound already gives a worth of beta
    // or more ends the search without a child search. The children's keys are kept for their
    // searches below.
    std::array<Key, kMaxPitsPerSide> child_keys{};
    for (int k = 0; k < moves.size; ++k) {
      const Move& m = moves.moves[order[k]];
      const int g = m.gain();
      const int nn = n - g;
      if (nn <= tables_max_)
        continue;
      const Key& child_key = child_keys[k] = key_of(m.child, nn);
      const Entry& c = slot(child_key);
      if (!holds(c, child_key))
        continue;
      const int least = m.extra_turn ? g + c.lower : g - c.upper;
      if (least >= beta) {
        store(key, lower, upper, least, alpha, beta, m.pit);
        return least;
      }
    }
    const int alpha0 = alpha;
    int best = -kMaxBoardStones - 1;
    int best_pit = -1;
    for (int k = 0; k < moves.size; ++k) {
      const Move& m = moves.moves[order[k]];
      const int g = m.gain();
      const int nn = n - g;
      const int a = std::max(alpha, best);
      const Key* key_of_child = nn > tables_max_ ? &child_keys[k] : nullptr;
      const int w = m.extra_turn ? g + search(m.child, nn, a - g, beta - g, key_of_child)
                                 : g - search(m.child, nn, g - beta, g - a, key_of_child);
      if (w > best) {
        best = w;
        best_pit = m.pit;
      }
      if (best >= beta)
        break;
    }
    store(key, lower, upper, best, alpha0, beta, best_pit);
    return best;
  }

  // Records what a search of window (alpha, beta) that returned `v` proves, within the bounds
  // known before.
  void store(const Key& key, int lower, int upper, int v, int alpha, int beta, int pit) {
    if (v <= alpha)
      upper = std::min(upper, v);
    else if (v >= beta)
      lower = std::max(lower, v);
    else
      lower = upper = v;
    Entry& e = slot(key);
    e.index = key.index;
    e.stones = static_cast<std::int16_t>(key.stones);
    e.lower = static_cast<std::int8_t>(lower);
    e.upper = static_cast<std::int8_t>(upper);
    e.best = static_cast<std::int8_t>(pit);
  }

  const Rules& rules_;
  const TableSet* tables_;
  int tables_max_;
  std::vector<Entry> entries_;
  std::uint64_t mask_;
  std::uint64_t nodes_ = 0;
  std::function<void(std::uint64_t)> tick_;
};

// One exact value to find: the position after the first move (and a continuation), whose value
// gives that move's worth.
struct Task {
  StartMove* move;
  Pits position{};
  int stones = 0;
  int sign = 1;  // the worth is base + sign * value (sign -1: the opponent moves next)
  int base = 0;
};

}  // namespace

StartSolution solve_start(const Variant& variant, const SolveStartOptions& options) {
  const RuleSet rules = variant.rules.normalised();
  const Rules engine(rules);
  StartSolution out;
  out.stones = variant.total_stones();
  for (int i = 0; i < rules.pits(); ++i)
    out.start[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(variant.seeds_per_pit);
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
  std::vector<Task> tasks;
  for (int i = 0; i < first.size; ++i) {
    const Move& m = first.moves[i];
    StartMove& sm = out.moves[static_cast<std::size_t>(i)];
    const int n = out.stones - m.gain();
    const MoveList& then = next[static_cast<std::size_t>(i)];
    if (then.size == 0) {
      // No extra turn, or one in a finished game: the move's own value is what counts.
      tasks.push_back({&sm, m.child, n, m.extra_turn ? 1 : -1, m.gain()});
      continue;
    }
    for (int j = 0; j < then.size; ++j) {
      const Move& c = then.moves[j];
      tasks.push_back({&sm.continuations[static_cast<std::size_t>(j)],
                       c.child,
                       n - c.gain(),
                       c.extra_turn ? 1 : -1,
                       m.gain() + c.gain()});
    }
  }
  std::atomic<std::uint64_t> nodes{0};
  std::atomic<int> done{0};
  std::mutex progress_mutex;
  const auto report = [&](std::uint64_t extra) {
    if (!options.progress)
      return;
    const std::unique_lock lock(progress_mutex, std::try_to_lock);
    if (lock.owns_lock())
      options.progress(nodes.load() + extra, done.load(), static_cast<int>(tasks.size()));
  };
  tbb::enumerable_thread_specific<std::unique_ptr<Searcher>> searchers;
  tbb::parallel_for(std::size_t{0}, tasks.size(), std::size_t{1}, [&](std::size_t t) {
    auto& searcher = searchers.local();
    if (!searcher) {
      searcher = std::make_unique<Searcher>(engine, tables, options.table_bits);
      searcher->set_tick([&](std::uint64_t) { report(0); });
    }
    Task& task = tasks[t];
    const std::uint64_t before = searcher->nodes();
    const int v = searcher->value(task.position, task.stones);
    task.move->worth = task.base + task.sign * v;
    nodes += searcher->nodes() - before;
    ++done;
    report(0);
  });
  out.nodes = nodes.load();
  // A move with an extra turn is worth its best continuation; without one (the game ended) its
  // own search's value.
  for (StartMove& m : out.moves) {
    if (!m.continuations.empty()) {
      m.worth = m.continuations.front().worth;
      for (const StartMove& c : m.continuations)
        m.worth = std::max(m.worth, c.worth);
    }
  }
  if (!out.moves.empty()) {
    const StartMove* best = &out.moves.front();
    for (const StartMove& m : out.moves) {
      if (m.worth > best->worth)
        best = &m;
    }
    out.value = best->worth;
    out.best = best->pit;
  } else {
    out.value = engine.final_value(out.start);
  }
  return out;
}

}  // namespace sowdb::gen
