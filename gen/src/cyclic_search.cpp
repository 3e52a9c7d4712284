// gen::solve_cyclic: the driver of CyclicSearcher's tests over the moves of a position.
//
// Why the bounds hold. Write V for the true values (the tables' values: the mover's net seeds
// under perfect play, endless play worth 0). V obeys V(p) = max over moves m of gain(m) -
// V(child), so bounds on the children give bounds on p; the tables, the end of the game and
// [-n, n] are true bounds to start from. A test "V(p) >= beta?" answered kHigh or kLow is a proof
// tree: at the side that must find a move, one move; at the other, every move. Its leaves are
// exact (tables, end of game), true bounds from the table, or a position repeated an even number
// of plies below itself on the path, scored 0. Read as strategies, the tree plus "at a
// repetition, go on as at its first occurrence" guarantees the bound: a play that ends meets a
// leaf whose bound suffices; a play that goes on for ever goes round repetitions for ever after
// its last capture (no seed comes back to the board, so a repetition lies within one seed count,
// with no gain on the way), and at each of them 0 was checked against the threshold, which
// includes every seed gained before: endless play, worth 0 from there, meets it. A node whose
// proof rests on a repetition of a position above it has a proof for that path only (the
// repetition would not be one elsewhere): its result goes up to its parent but never into the
// table. Results resting only on repetitions of the node itself or below it hold for the node
// wherever it is met, and their bounds are stored; the root of every test is such a node.
#include "cyclic_search.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cyclic_searcher.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/manifest.h"
#include "table_values.h"

namespace sowdb::gen {
namespace {

// Thrown from a test's tick when SolveStartOptions::stop says so.
struct Stopped {};

// One legal move of the position and what is known of the value of its child.
struct Branch {
  Pits child{};
  int pit = 0;
  int gain = 0;
  int stones = 0;  // of the child
  int lower = 0;   // bounds on the child's value, for its mover
  int upper = 0;
  int guess = 0;  // an estimate of the child's value
  bool searched = false;
  // Worth bounds, for the position's mover.
  int worth_lower() const { return gain - upper; }
  int worth_upper() const { return gain - lower; }
  bool exact() const { return lower == upper; }
};

class CyclicSearch {
 public:
  CyclicSearch(const RuleSet& rules,
               const Pits& position,
               const SolveStartOptions& options,
               const CyclicKnobs& knobs)
      : rules_(rules.normalised()),
        engine_(rules_),
        position_(position),
        options_(options),
        knobs_(knobs),
        tables_(options.tables) {}

  StartSolution run();

 private:
  void check();
  void preload();
  // One round of tests on every branch still open, to `depth` plies.
  void round(int depth);
  // MTD(f) on one branch's child at `depth` plies until a test is left unknown.
  void refine(Branch& b, int depth);
  // One null-window test of `b`'s position at `beta` to `depth` plies (after asking `stop`),
  // its bounds tightened by the result; `v` the test's value.
  TestResult test(Branch& b, int beta, int depth, int& v);
  // Whether a test is worth making on `b` (its bounds can still change what is asked).
  bool wanted(const Branch& b) const;
  bool finished() const;
  void root_bounds(int& lower, int& upper) const;
  void tick();
  void report(bool last);
  StartSolution summary();

  const RuleSet rules_;
  const Rules engine_;
  const Pits position_;
  const SolveStartOptions& options_;
  const CyclicKnobs knobs_;
  const TableSet* tables_;
  int stones_ = 0;
  std::vector<Branch> branches_;
  std::unique_ptr<TableValues> values_;
  const TableValues* shared_values_ = nullptr;  // values_, or SolveStartOptions::preloaded's
  std::unique_ptr<CyclicTable> table_;
  std::unique_ptr<CyclicSearcher> searcher_;
  StartSolution out_;
  std::chrono::steady_clock::time_point last_report_{};
  int reported_lower_ = 1;
  int reported_upper_ = 0;
};

void CyclicSearch::check() {
  if (rules_.family != Family::kOware)
    throw InvalidRequest("solve_cyclic searches Oware-family rules only, not " + describe(rules_));
  if (tables_ && !(tables_->rules() == rules_)) {
    throw InvalidRequest("the tables in " + tables_->directory().string() + " hold " +
                         describe(tables_->rules()) + ", not " + describe(rules_));
  }
  const int pits = engine_.board_pits();
  int n = 0;
  for (int i = 0; i < kMaxPits; ++i) {
    const int s = position_[static_cast<std::size_t>(i)];
    if (i >= pits && s != 0) {
      throw InvalidRequest("the position has seeds in pit " + std::to_string(i) +
                           ", beyond the board's " + std::to_string(pits) + " pits");
    }
    n += s;
  }
  // Values and bounds are kept in a byte, and keys (the index among every position of up to n
  // seeds) must fit 64 bits.
  const long double keys = std::exp(std::lgamma(static_cast<long double>(n + pits + 1)) -
                                    std::lgamma(static_cast<long double>(pits + 1)) -
                                    std::lgamma(static_cast<long double>(n + 1)));
  if (n > kMaxIndexedStones || keys > 1.0e19L) {
    throw InvalidRequest(
        "a search keeps values of -127..127 and 64-bit keys only; the position has " +
        std::to_string(n) + " seeds on " + std::to_string(pits) + " pits");
  }
  stones_ = n;
}

void CyclicSearch::preload() {
  shared_values_ =
      search_values(options_, tables_, engine_.board_pits(), values_, out_.preload_seconds);
  out_.preloaded_bytes = values_ ? values_->bytes() : 0;
}

StartSolution CyclicSearch::run() {
  check();
  out_.start = position_;
  out_.stones = stones_;
  out_.tables_max = tables_ ? tables_->max_stones() : -1;
  out_.by_tables = true;
  // Probes only until a search is needed; the table and the preload come then.
  table_ = std::make_unique<CyclicTable>(2);
  searcher_ = std::make_unique<CyclicSearcher>(engine_, tables_, nullptr, *table_, knobs_.endless);
  MoveList moves;
  if (engine_.legal_moves(position_, moves) == 0) {
    out_.value = out_.lower = out_.upper = engine_.final_value(position_);
    out_.complete = true;
    report(true);
    return out_;
  }
  bool open = false;
  for (const Move& m : moves) {
    Branch b;
    b.child = m.child;
    b.pit = m.pit;
    b.gain = m.gain();
    b.stones = stones_ - b.gain;
    b.lower = -b.stones;
    b.upper = b.stones;
    MoveList next;
    if (b.stones <= out_.tables_max) {
      b.lower = b.upper = searcher_->probe(b.child, b.stones);
    } else if (engine_.legal_moves(b.child, next) == 0) {
      b.lower = b.upper = engine_.final_value(b.child);
    } else {
      open = true;
    }
    b.guess = std::clamp(0, b.lower, b.upper);  // nothing more gained
    branches_.push_back(b);
  }
  if (open) {
    out_.by_tables = false;
    preload();
    table_ = std::make_unique<CyclicTable>(std::max(2, options_.table_bits - 1));
    out_.table_bytes = table_->bytes();
    searcher_ =
        std::make_unique<CyclicSearcher>(engine_, tables_, shared_values_, *table_, knobs_.endless);
    searcher_->set_tick([this] { tick(); });
    searcher_->set_reuse(knobs_.reuse);
    searcher_->set_cache_unknown(knobs_.cache_unknown);
    try {
      for (int depth = 1; depth <= CyclicSearcher::kMaxDepth && !finished();
           depth += std::max(1, knobs_.step)) {
        searcher_->clear_horizon();
        round(depth);
        report(false);

        if (!searcher_->horizon_hit())
          break;  // every test was decided or stopped at repetitions only: deeper is the same
      }
    } catch (const Stopped&) {
    }
    // Bounds the table proved of a child beyond what its own tests returned.
    for (Branch& b : branches_) {
      if (!b.exact() && b.stones > out_.tables_max) {
        int lo = 0;
        int hi = 0;
        searcher_->bounds(b.child, b.stones, lo, hi);
        b.lower = std::max(b.lower, lo);
        b.upper = std::min(b.upper, hi);
      }
    }
    out_.nodes = searcher_->nodes();
  }
  report(true);
  return summary();
}

void CyclicSearch::root_bounds(int& lower, int& upper) const {
  if (branches_.empty()) {
    // The game is over: its value is settled already.
    lower = out_.lower;
    upper = out_.upper;
    return;
  }
  lower = -kMaxBoardStones - 1;
  upper = -kMaxBoardStones - 1;
  for (const Branch& b : branches_) {
    lower = std::max(lower, b.worth_lower());
    upper = std::max(upper, b.worth_upper());
  }
}

bool CyclicSearch::wanted(const Branch& b) const {
  if (b.exact())
    return false;
  if (options_.worths)
    return true;
  // Only the value is asked: a move that cannot beat another's proved worth changes nothing.
  int lower = 0;
  int upper = 0;
  root_bounds(lower, upper);
  return lower < upper && b.worth_upper() > lower;
}

bool CyclicSearch::finished() const {
  return std::none_of(
      branches_.begin(), branches_.end(), [this](const Branch& b) { return wanted(b); });
}

void CyclicSearch::round(int depth) {
  // The most promising moves first: they raise the position's lower bound, which lets the
  // others stop early when only the value is asked.
  std::vector<Branch*> order;
  for (Branch& b : branches_)
    order.push_back(&b);
  std::stable_sort(order.begin(), order.end(), [](const Branch* a, const Branch* b) {
    return a->gain - a->guess > b->gain - b->guess;
  });
  for (Branch* b : order) {
    if (wanted(*b))
      refine(*b, depth);
  }
}

TestResult CyclicSearch::test(Branch& b, int beta, int depth, int& v) {
  if (options_.stop && options_.stop())
    throw Stopped{};
  const TestResult r = searcher_->test(b.child, b.stones, beta, depth, v);
  if (r == TestResult::kHigh)
    b.lower = std::max(b.lower, v);
  else if (r == TestResult::kLow)
    b.upper = std::min(b.upper, v);
  return r;
}

void CyclicSearch::refine(Branch& b, int depth) {
  b.searched = true;
  int g = std::clamp(b.guess, b.lower, b.upper);
  // MTD(f) from the guess; a test the horizon leaves unknown ends it at this depth.
  bool unknown = false;
  while (!unknown && wanted(b)) {
    g = std::clamp(g, b.lower, b.upper);
    int v = 0;
    unknown = test(b, g == b.lower ? g + 1 : g, depth, v) == TestResult::kUnknown;
    g = v;
    b.guess = std::clamp(v, b.lower, b.upper);
    report(false);
  }
  if (!unknown || !knobs_.both_sides)
    return;
  // Squeeze from both ends: tests far from the value are decided at depths where those near it
  // are not.
  bool raise = true;
  bool lower = true;
  while ((raise || lower) && wanted(b)) {
    const bool up = raise && (!lower || b.guess - b.lower >= b.upper - b.guess);
    int v = 0;
    if (test(b, up ? b.lower + 1 : b.upper, depth, v) == TestResult::kUnknown)
      (up ? raise : lower) = false;
    b.guess = std::clamp(b.guess, b.lower, b.upper);
    report(false);
  }
}

void CyclicSearch::tick() {
  if (options_.stop && options_.stop())
    throw Stopped{};
  report(false);
}

void CyclicSearch::report(bool last) {
  if (!options_.progress)
    return;
  int lower = 0;
  int upper = 0;
  root_bounds(lower, upper);
  const auto now = std::chrono::steady_clock::now();
  if (!last && (now - last_report_ < std::chrono::milliseconds(250) ||
                (lower == reported_lower_ && upper == reported_upper_ &&
                 now - last_report_ < std::chrono::seconds(2))))
    return;
  last_report_ = now;
  reported_lower_ = lower;
  reported_upper_ = upper;
  SolveProgress p;
  p.nodes = searcher_ ? searcher_->nodes() : 0;
  p.total = static_cast<int>(branches_.size());
  p.done = static_cast<int>(
      std::count_if(branches_.begin(), branches_.end(), [](const Branch& b) { return b.exact(); }));
  p.lower = lower;
  p.upper = upper;
  p.phase = options_.worths ? SolvePhase::kWorths : SolvePhase::kValue;
  options_.progress(p);
}

StartSolution CyclicSearch::summary() {
  root_bounds(out_.lower, out_.upper);
  out_.value = out_.lower == out_.upper ? out_.lower : 0;
  bool every = true;
  int best_lower = -kMaxBoardStones - 1;
  for (const Branch& b : branches_) {
    StartMove m;
    m.pit = b.pit;
    m.gain = b.gain;
    m.lower = b.worth_lower();
    m.upper = b.worth_upper();
    m.worth = b.exact() ? m.lower : 0;
    every = every && b.exact();
    if (m.lower > best_lower) {
      best_lower = m.lower;
      out_.best = m.pit;
    }
    out_.moves.push_back(m);
  }
  out_.complete = out_.lower == out_.upper && (every || !options_.worths);
  return out_;
}

}  // namespace

StartSolution solve_cyclic(const RuleSet& rules,
                           const Pits& position,
                           const SolveStartOptions& options,
                           const CyclicKnobs& knobs) {
  CyclicSearch search(rules, position, options, knobs);
  return search.run();
}

StartSolution solve_cyclic(const RuleSet& rules,
                           const Pits& position,
                           const SolveStartOptions& options) {
  return solve_cyclic(rules, position, options, CyclicKnobs{});
}

}  // namespace sowdb::gen
