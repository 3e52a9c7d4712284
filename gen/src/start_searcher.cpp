#include "start_searcher.h"

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <stdexcept>

#include "sowdb/format/index.h"

namespace sowdb::gen {
namespace {

// The depth a parent's bound holds to when a child's holds to `d`. Only bounds that hold
// (kExact) stay so; a chain of estimates never reaches kExact.
int up(int d) {
  return d == kExact ? kExact : std::min(d + 1, kExact - 1);
}

// A position marked busy while this thread searches it; unmarked however the search ends (a
// tick may throw to abandon it).
class Marked {
 public:
  Marked(BusyTable& busy, std::uint64_t key, int& ply)
      : busy_(busy), slot_(busy.mark(key)), ply_(ply) {
    ++ply_;
  }
  Marked(const Marked&) = delete;
  Marked& operator=(const Marked&) = delete;
  ~Marked() {
    --ply_;
    busy_.unmark(slot_);
  }

 private:
  BusyTable& busy_;
  int slot_;
  int& ply_;  // the searcher's plies below the test's root
};

}  // namespace

bool gains_at_once(const Rules& rules, const Pits& pos) {
  const RuleSet& r = rules.rule_set();
  if (r.family != Family::kKalah)
    return false;
  const int p = r.pits_per_side;
  const int k = 2 * p;
  for (int i = 0; i < p; ++i) {
    const int c = pos[static_cast<std::size_t>(i)];
    if (c == 0)
      continue;
    if (c >= p - i)
      return true;  // a seed reaches the store
    // No lap: pits i+1..i+c gain a seed each, and the opposite pit is not sown into.
    const int last = i + c;
    if (pos[static_cast<std::size_t>(last)] == 0 &&
        (r.capture_empty_opposite || pos[static_cast<std::size_t>(k - 1 - last)] > 0))
      return true;
  }
  return false;
}

Searcher::Searcher(const Rules& rules,
                   const TableSet* tables,
                   TranspositionTable& table,
                   const TableValues* values)
    : rules_(rules),
      tables_(tables),
      values_(tables ? values : nullptr),
      tables_max_(tables ? tables->max_stones() : -1),
      keys_(rules.board_pits()),
      kalah_(rules.rule_set().family == Family::kKalah),
      empty_side_(rules.rule_set().family == Family::kKalah &&
                  rules.rule_set().end == KalahEnd::kEmptySide),
      table_(table) {}

bool Searcher::over(const Pits& pos, int& value) const {
  // Rules::legal_moves of the searched families: no move when the mover's side is empty, nor
  // under `empty_side` when the opponent's is. Oware-family positions are never searched.
  const int own = rules_.own_seeds(pos);
  if (own != 0 && !(empty_side_ && rules_.opponent_seeds(pos) == 0))
    return false;
  value = rules_.final_value(pos);
  return true;
}

int Searcher::recompute(const Pits& pos, int n) const {
  MoveList moves;
  if (rules_.legal_moves(pos, moves) == 0)
    return rules_.final_value(pos);
  // The value is the best worth over every move (the game is acyclic). Version 4 files store
  // every child of a recompute entry; a version 3 file may not (it stores those of the moves
  // that gain seeds), and then the tables' own probe resolves the entry.
  int best = -kMaxBoardStones - 1;
  for (const Move& m : moves) {
    const int nn = n - m.gain();
    const std::int8_t* layer = values_->layer(nn);
    const int v = layer ? layer[index_of(m.child)] : kRecomputeValue;
    if (v == kRecomputeValue)
      return probe(pos);
    best = std::max(best, Rules::worth(m, v));
  }
  return best;
}

int Searcher::probe(const Pits& pos) const {
  int v = 0;
  const ProbeStatus s = tables_->value(pos, v);
  if (s != ProbeStatus::kOk)
    throw std::runtime_error(tables_->explain(s, pos));
  return v;
}

std::pair<int, int> Searcher::value(const Pits& pos,
                                    int n,
                                    int guess,
                                    const std::function<bool(int, int)>& proved,
                                    int lower,
                                    int upper) {
  if (n <= tables_max_) {
    const int v = probe(pos, n);
    return {v, v};
  }
  int proven = kExact;
  return mtdf(pos, n, guess, kExact, proven, proved, lower, upper);
}

int Searcher::estimate(const Pits& pos, int n, int guess, int max_depth, bool& exact) {
  exact = false;
  if (n <= tables_max_) {
    exact = true;
    return probe(pos, n);
  }
  int g = std::clamp(guess, -n, n);
  for (int depth = kFirstDepth; depth <= max_depth; depth += kDeepening) {
    int proven = 0;
    const auto b = mtdf(pos, n, g, depth, proven, [](int, int) { return false; });
    g = b.first;
    if (proven == kExact) {
      exact = true;
      break;
    }
    // Proved deeper than asked: the next pass starts beyond that depth.
    while (depth + kDeepening <= proven)
      depth += kDeepening;
  }
  return g;
}

int Searcher::test(const Pits& pos, int n, int beta) {
  if (n <= tables_max_)
    return probe(pos, n);
  int proven = 0;
  return search(pos, n, key_of(pos, n), beta - 1, beta, kExact, proven);
}

TableEntry Searcher::entry(const Pits& pos, int n) const {
  if (n <= tables_max_)
    return {};
  return table_.find(key_of(pos, n));
}

std::pair<int, int> Searcher::mtdf(const Pits& pos,
                                   int n,
                                   int guess,
                                   int depth,
                                   int& proven,
                                   const std::function<bool(int, int)>& enough,
                                   int known_lower,
                                   int known_upper) {
  const std::uint64_t key = key_of(pos, n);
  int lower = std::max(-n, known_lower);
  int upper = std::min(n, known_upper);
  int g = std::clamp(guess, lower, upper);
  proven = kExact;
  while (lower < upper) {
    const int beta = g == lower ? g + 1 : g;
    int d = 0;
    g = search(pos, n, key, beta - 1, beta, depth, d);
    proven = std::min(proven, d);
    if (g < beta)
      upper = g;
    else
      lower = g;
    if (enough(lower, upper))
      break;
  }
  return {lower, upper};
}

// One alpha-beta node, the search's hot path: its steps share a dozen locals a split would pass
// around, and the start-search branch (issue 34) is reworking it; left whole on purpose.
// NOLINTNEXTLINE(readability-function-size)
int Searcher::search(
    const Pits& pos, int n, std::uint64_t key, int alpha, int beta, int depth, int& proven) {
  const std::uint64_t nodes_before = nodes_;
  if ((++nodes_ & (kTickNodes - 1)) == 0 && tick_)
    tick_();
  MoveList moves;
  if (rules_.legal_moves(pos, moves) == 0) {
    proven = kExact;
    return rules_.final_value(pos);
  }
  const int next = depth == kExact ? kExact : depth - 1;
  // What is known of this node before it is searched, and the depth that holds to.
  int lower = -n;
  int upper = n;
  int known = kExact;
  int hint = -1;
  if (const TableEntry e = table_.find(key); e.found) {
    // The best move of a search as deep as this one: that of a shallower search was a worse
    // guess than the static order (with deepening, Kalah(6,3) every worth: 637 K positions
    // against 200 K).
    if (e.depth >= depth)
      hint = e.best;
    if (e.depth >= depth) {
      lower = std::max(lower, e.lower);
      upper = std::min(upper, e.upper);
      known = e.depth;
    }
  }
  if (lower >= beta || lower == upper) {
    proven = known;
    return lower;
  }
  if (upper <= alpha) {
    proven = known;
    return upper;
  }
  struct Child {
    std::uint64_t key = 0;
    int lower = 0;  // bounds on the move's worth...
    int upper = 0;
    int depth = 0;  // ...and the depth they hold to
    int score = 0;  // search order, larger first
  };
  std::array<Child, kMaxPitsPerSide> child{};
  std::array<int, kMaxPitsPerSide> order{};
  // The children's keys first, and their buckets on the way, so that the cache misses of the
  // lookups below overlap.
  // A child the tables hold keeps its index in the layer in `key`.
  for (int i = 0; i < moves.size; ++i) {
    const Move& m = moves.moves[i];
    const int nn = n - m.gain();
    Child& c = child[static_cast<std::size_t>(i)];
    const std::uint64_t index = index_of(m.child);
    if (nn > tables_max_) {
      c.key = keys_.base(nn) + index;
      table_.prefetch(c.key);
    } else {
      c.key = index;
      if (const std::int8_t* layer = values_ ? values_->layer(nn) : nullptr)
        __builtin_prefetch(layer + index);
      else
        tables_->prefetch(m.child);
    }
  }
  int best = -kMaxBoardStones - 1;  // a worth some move is proved to reach...
  int best_pit = -1;
  int best_depth = kExact;  // ...to this depth
  // The largest of the moves' upper bounds, and the least depth they hold to.
  int ceiling = -kMaxBoardStones - 1;
  int ceiling_depth = kExact;
  int ceiling_pit = -1;  // the move of the largest upper bound
  int open = 0;
  for (int i = 0; i < moves.size; ++i) {
    const Move& m = moves.moves[i];
    const int g = m.gain();
    const int nn = n - g;
    Child& c = child[static_cast<std::size_t>(i)];
    int lo = -nn;
    int hi = nn;
    int d = kExact;
    if (nn <= tables_max_) {
      lo = hi = probe(m.child, nn, c.key);
    } else if (int v = 0; over(m.child, v)) {
      lo = hi = v;
    } else {
      if (const TableEntry e = table_.find(c.key); e.found && e.depth >= next) {
        lo = std::max(lo, e.lower);
        hi = std::min(hi, e.upper);
        d = e.depth;
      }
      // The mover of the child gains a seed at once: its value is at least 2 - nn. Looked at
      // only where that bound settles the move (a worth of g - lo at most alpha, or of g + lo
      // at least beta); with tables to 20 seeds it rarely does (decision 0009).
      if (lo < 2 - nn && lo < hi && (m.extra_turn ? g + 2 - nn >= beta : g + nn - 2 <= alpha) &&
          gains_at_once(rules_, m.child)) {
        lo = std::min(2 - nn, hi);
        if (futility_hits_)
          ++*futility_hits_;
      }
      if (lo < hi && next == 0) {
        // The horizon of a search of limited depth: an estimate, nothing more gained.
        lo = hi = std::clamp(0, lo, hi);
        d = 0;
      }
    }
    c.lower = Rules::worth(g, m.extra_turn, m.extra_turn ? lo : hi);
    c.upper = Rules::worth(g, m.extra_turn, m.extra_turn ? hi : lo);
    c.depth = up(d);
    if (c.lower > best) {
      best = c.lower;
      best_pit = m.pit;
      best_depth = c.depth;
    }
    if (c.lower >= beta) {
      // An enhanced transposition cut-off (or the tables, or the end of the game).
      proven = c.depth;
      store(key, n, c.lower, alpha, beta, m.pit, proven, lower, upper, known, nodes_before);
      return c.lower;
    }
    if (c.lower == c.upper) {
      if (c.upper > ceiling)
        ceiling_pit = m.pit;
      ceiling = std::max(ceiling, c.upper);
      ceiling_depth = std::min(ceiling_depth, c.depth);
      continue;
    }
    // The table's best move, then extra turns, then the larger gains; among equals the pit
    // nearer the store first. Ordering by the bounds of shallower searches as well searched
    // 1.4-5x the positions (decision 0009).
    c.score = (m.pit == hint ? 1 << 20 : 0) + (m.extra_turn ? 1 << 12 : 0) + (g << 4) + m.pit;
    order[static_cast<std::size_t>(open++)] = i;
  }
  // At most 8 moves: an insertion sort (std::sort's unrolled start trips g++ 12's
  // -Warray-bounds on an 8-element array).
  for (int i = 1; i < open; ++i) {
    for (int j = i; j > 0 && child[order[j]].score > child[order[j - 1]].score; --j)
      std::swap(order[j], order[j - 1]);
  }
  // The moves another thread was searching when their turn came, searched after the others
  // (appended to the loop: `end` grows with them).
  std::array<int, kMaxPitsPerSide> later{};
  const bool share = busy_ && n >= share_from_;
  int end = open;
  for (int k = 0; k < end; ++k) {
    const int i =
        k < open ? order[static_cast<std::size_t>(k)] : later[static_cast<std::size_t>(k - open)];
    const Move& m = moves.moves[i];
    const Child& c = child[static_cast<std::size_t>(i)];
    const int a = std::max(alpha, best);
    if (c.upper <= a) {
      // This move cannot raise the node above alpha or above a move found already.
      if (c.upper > ceiling)
        ceiling_pit = m.pit;
      ceiling = std::max(ceiling, c.upper);
      ceiling_depth = std::min(ceiling_depth, c.depth);
      continue;
    }
    if (share && k < open && (k > 0 || root_all_ != ((ply_ & 1) != 0)) && busy_->busy(c.key)) {
      later[static_cast<std::size_t>(end++ - open)] = i;
      continue;
    }
    const int g = m.gain();
    const int nn = n - g;
    int d = 0;
    std::optional<Marked> marked;
    if (share)
      marked.emplace(*busy_, c.key, ply_);
    const int w = m.extra_turn ? g + search(m.child, nn, c.key, a - g, beta - g, next, d)
                               : g - search(m.child, nn, c.key, g - beta, g - a, next, d);
    marked.reset();
    if (w >= beta) {
      proven = up(d);
      store(key, n, w, alpha, beta, m.pit, proven, lower, upper, known, nodes_before);
      return w;
    }
    if (w > ceiling)
      ceiling_pit = m.pit;
    ceiling = std::max(ceiling, w);
    ceiling_depth = std::min(ceiling_depth, up(d));
    if (w > a) {
      // Inside the window: the move's worth is exact.
      best = w;
      best_pit = m.pit;
      best_depth = up(d);
    }
  }
  // Failing low, the node is worth at most the largest bound of its moves; inside the window,
  // it is worth the best move, which is also that largest bound.
  const int v = std::max(best, ceiling);
  proven = v > alpha ? std::min(best_depth, ceiling_depth) : ceiling_depth;
  // Failing low, the move that came nearest is the table's move for the next search here.
  if (v <= alpha)
    best_pit = ceiling_pit;
  store(key, n, v, alpha, beta, best_pit, proven, lower, upper, known, nodes_before);
  return v;
}

void Searcher::store(std::uint64_t key,
                     int n,
                     int v,
                     int alpha,
                     int beta,
                     int pit,
                     int proven,
                     int lower,
                     int upper,
                     int known,
                     std::uint64_t nodes_before) {
  // What was known before counts only where it holds at least as deep as the new result.
  if (known < proven) {
    lower = -n;
    upper = n;
  }
  if (v <= alpha)
    upper = std::min(upper, v);
  else if (v >= beta)
    lower = std::max(lower, v);
  else
    lower = upper = v;
  table_.store(key, lower, upper, pit, proven, nodes_ - nodes_before);
}

}  // namespace sowdb::gen
