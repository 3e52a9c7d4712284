#include "brute_force.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace sowdb::test {
namespace {

// One legal move of a position, reduced to what the fixpoints need.
struct Edge {
  static constexpr std::size_t kLeaves = std::numeric_limits<std::size_t>::max();
  std::size_t child = kLeaves;  // in-layer child's position number, or kLeaves
  int worth = 0;                // the move's worth when it leaves the layer (known already)
};

[[noreturn]] void fail(const std::string& what) {
  throw std::logic_error("brute force: " + what);
}

void enumerate(int pits, int pit, int left, Pits& board, std::vector<Pits>& out) {
  if (pit == pits - 1) {
    board[pit] = static_cast<std::uint8_t>(left);
    out.push_back(board);
    return;
  }
  for (int s = 0; s <= left; ++s) {
    board[pit] = static_cast<std::uint8_t>(s);
    enumerate(pits, pit + 1, left - s, board, out);
  }
  board[pit] = 0;
}

}  // namespace

int stones_on(const Pits& board) {
  int s = 0;
  for (std::uint8_t x : board)
    s += x;
  return s;
}

std::vector<Pits> enumerate_boards(int pits, int stones) {
  std::vector<Pits> out;
  Pits board{};
  enumerate(pits, 0, stones, board, out);
  return out;
}

std::string board_text(const Pits& board, int pits_per_side) {
  std::ostringstream os;
  os << '[';
  for (int i = 0; i < 2 * pits_per_side; ++i) {
    if (i == pits_per_side)
      os << " |";
    if (i > 0)
      os << ' ';
    os << int{board[i]};
  }
  os << ']';
  return os.str();
}

BruteForce::BruteForce(const RuleSet& rules) : rules_(rules), pits_(rules.pits()) {}

BruteEntry BruteForce::at(const Pits& board) const {
  const BruteLayer& l = layers_.at(stones_on(board));
  const std::size_t i = l.index.at(board);
  return {l.value[i], l.depth[i]};
}

void BruteForce::solve_through(int stones) {
  for (int n = solved_through() + 1; n <= stones; ++n)
    solve_layer(n);
}

namespace {

// The moves of every position of a layer: edges[i] for position i; terminal[i] when it has none.
struct LayerEdges {
  std::vector<std::vector<Edge>> edges;
  std::vector<bool> terminal;
};

// The worth of a move of a layer whose values `value` holds.
int worth_of(const Edge& e, const std::vector<int>& value) {
  return e.child == Edge::kLeaves ? e.worth : -value[e.child];
}

// l.value from the layer's moves.
void solve_values(const Rules& rules, const LayerEdges& g, BruteLayer& l) {
  const int n = l.stones;
  const std::size_t size = l.boards.size();
  const std::vector<std::vector<Edge>>& edges = g.edges;
  const std::vector<bool>& terminal = g.terminal;
  // Values. For each threshold t, W[t] (the mover can force a result >= t) and L[t] (the mover
  // gets <= -t whatever it does) are least fixpoints; reaching t takes finitely many plies
  // because endless play is worth 0 < t.
  l.value.assign(size, 0);
  std::vector<char> w_prev(size, 1);
  std::vector<char> l_prev(size, 1);
  for (int t = 1; t <= n; ++t) {
    std::vector<char> w(size, 0);
    std::vector<char> lose(size, 0);
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t i = 0; i < size; ++i) {
        if (terminal[i]) {
          if (!lose[i] && rules.final_value(l.boards[i]) <= -t)
            lose[i] = changed = true;
          if (!w[i] && rules.final_value(l.boards[i]) >= t)
            w[i] = changed = true;
          continue;
        }
        if (!w[i]) {
          for (const Edge& e : edges[i]) {
            if (e.child == Edge::kLeaves ? e.worth >= t : lose[e.child]) {
              w[i] = changed = true;
              break;
            }
          }
        }
        if (!lose[i]) {
          bool all = true;
          for (const Edge& e : edges[i]) {
            if (!(e.child == Edge::kLeaves ? e.worth <= -t : w[e.child])) {
              all = false;
              break;
            }
          }
          if (all)
            lose[i] = changed = true;
        }
      }
    }
    bool any = false;
    for (std::size_t i = 0; i < size; ++i) {
      if (w[i] && lose[i])
        fail("a position both wins and loses by " + std::to_string(t));
      if ((w[i] && !w_prev[i]) || (lose[i] && !l_prev[i]))
        fail("thresholds not nested");
      if (w[i])
        l.value[i] = t;
      if (lose[i])
        l.value[i] = -t;
      any = any || w[i] || lose[i];
    }
    if (!any)
      break;  // the sets only shrink as t grows
    w_prev.swap(w);
    l_prev.swap(lose);
  }
}

// Fails unless every value of `l` is its best move's worth.
void check_best_moves(const Rules& rules, const LayerEdges& g, const BruteLayer& l, int pits) {
  const std::size_t size = l.boards.size();
  // A necessary condition (not sufficient, because of cycles): every value is the best worth of
  // the position's moves, or the final value of a finished game.
  for (std::size_t i = 0; i < size; ++i) {
    int best = 0;
    if (g.terminal[i]) {
      best = rules.final_value(l.boards[i]);
    } else {
      best = std::numeric_limits<int>::min();
      for (const Edge& e : g.edges[i])
        best = std::max(best, worth_of(e, l.value));
    }
    if (best != l.value[i])
      fail("value is not the best move's worth: " + board_text(l.boards[i], pits / 2));
  }
}

// l.depth from the layer's moves and values.
void solve_depths(const LayerEdges& g, BruteLayer& l) {
  const int n = l.stones;
  const std::size_t size = l.boards.size();
  // Depths (gen/solver.h): the least solution of
  //   finished game or value 0: 0;  v > 0: 1 + min;  v < 0: 1 + max,
  // over value-keeping moves (worth == v), a move's depth being 0 when it leaves the layer and
  // its child's depth otherwise. Computed in rounds, as a retrograde BFS would: in round k a
  // positive position is decided once one of its value-keeping moves has a depth decided before
  // round k, a negative one once all of them have.
  constexpr int kUnknown = -1;
  l.depth.assign(size, kUnknown);
  std::size_t open = 0;
  for (std::size_t i = 0; i < size; ++i) {
    if (g.terminal[i] || l.value[i] == 0) {
      l.depth[i] = 0;
    } else {
      ++open;
    }
  }
  for (int k = 1; open > 0; ++k) {
    std::size_t decided = 0;
    for (std::size_t i = 0; i < size; ++i) {
      if (l.depth[i] != kUnknown)
        continue;
      const int v = l.value[i];
      int lo = std::numeric_limits<int>::max();
      int hi = std::numeric_limits<int>::min();
      bool all_known = true;
      for (const Edge& e : g.edges[i]) {
        if (worth_of(e, l.value) != v)
          continue;
        int d = 0;
        if (e.child != Edge::kLeaves) {
          d = l.depth[e.child];
          if (d == kUnknown || d >= k) {  // not decided before this round
            all_known = false;
            continue;
          }
        }
        lo = std::min(lo, d);
        hi = std::max(hi, d);
      }
      int depth = kUnknown;
      if (v > 0 && lo != std::numeric_limits<int>::max())
        depth = 1 + lo;
      if (v < 0 && all_known) {
        if (hi == std::numeric_limits<int>::min())
          fail("negative position keeps no value");
        depth = 1 + hi;
      }
      if (depth == kUnknown)
        continue;
      if (depth != k)
        fail("depth not decided in its BFS round");
      l.depth[i] = depth;
      ++decided;
    }
    if (decided == 0)
      fail("depths are not well founded in layer " + std::to_string(n));
    open -= decided;
  }
}

}  // namespace

void BruteForce::solve_layer(int n) {
  BruteLayer l;
  l.stones = n;
  l.boards = enumerate_boards(pits_, n);
  const std::size_t size = l.boards.size();
  for (std::size_t i = 0; i < size; ++i) {
    if (!l.index.emplace(l.boards[i], i).second)
      fail("enumeration repeats a board");
  }

  // The moves of every position. A move that gains seeds leaves for a smaller, solved layer and
  // its worth is known; a move that gains nothing stays in this layer.
  std::vector<std::vector<Edge>> edges(size);
  std::vector<bool> terminal(size);
  MoveList moves;
  for (std::size_t i = 0; i < size; ++i) {
    const Pits& b = l.boards[i];
    const int count = rules_.legal_moves(b, moves);
    terminal[i] = count == 0;
    for (const Move& m : moves) {
      const int child_stones = stones_on(m.child);
      if (child_stones != n - m.gain())
        fail("a move does not conserve seeds");
      Edge e;
      if (m.gain() > 0) {
        e.worth = Rules::worth(m, at(m.child).value);
      } else {
        // docs/RULES.md: an extra turn (Kalah) always sows into the store, so an in-layer move
        // always passes the turn; the fixpoints below rely on that.
        if (m.extra_turn)
          fail("an in-layer move keeps the turn: " + board_text(b, pits_ / 2));
        e.child = l.index.at(m.child);
      }
      edges[i].push_back(e);
    }
  }

  const LayerEdges g{std::move(edges), std::move(terminal)};
  solve_values(rules_, g, l);
  check_best_moves(rules_, g, l, pits_);
  solve_depths(g, l);
  layers_.push_back(std::move(l));
}

std::vector<Pits> find_in_layer_cycle(const Rules& rules, int stones) {
  const std::vector<Pits> boards = enumerate_boards(rules.board_pits(), stones);
  std::map<Pits, std::size_t> index;
  for (std::size_t i = 0; i < boards.size(); ++i)
    index.emplace(boards[i], i);
  std::vector<std::vector<std::size_t>> next(boards.size());
  MoveList moves;
  for (std::size_t i = 0; i < boards.size(); ++i) {
    rules.legal_moves(boards[i], moves);
    for (const Move& m : moves) {
      if (m.gain() == 0)
        next[i].push_back(index.at(m.child));
    }
  }
  // Iterative depth-first search; colour 1 = on the stack, 2 = done.
  std::vector<char> colour(boards.size(), 0);
  std::vector<std::size_t> parent(boards.size());
  for (std::size_t root = 0; root < boards.size(); ++root) {
    if (colour[root])
      continue;
    std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
    colour[root] = 1;
    while (!stack.empty()) {
      auto& [node, edge] = stack.back();
      if (edge == next[node].size()) {
        colour[node] = 2;
        stack.pop_back();
        continue;
      }
      const std::size_t child = next[node][edge++];
      if (colour[child] == 1) {
        std::vector<Pits> cycle{boards[child]};
        for (std::size_t x = node; x != child; x = parent[x])
          cycle.push_back(boards[x]);
        cycle.push_back(boards[child]);
        std::reverse(cycle.begin(), cycle.end());
        return cycle;
      }
      if (colour[child] == 0) {
        colour[child] = 1;
        parent[child] = node;
        stack.emplace_back(child, 0);
      }
    }
  }
  return {};
}

namespace {

// Whether `board` lies on a cycle of moves: some line of moves that gain nothing leads back to
// it (moves that gain seeds never return).
bool on_cycle(const Rules& rules, const Pits& board) {
  std::set<Pits> seen;
  std::vector<Pits> todo;
  MoveList moves;
  rules.legal_moves(board, moves);
  for (const Move& m : moves) {
    if (m.gain() == 0)
      todo.push_back(m.child);
  }
  while (!todo.empty()) {
    const Pits b = todo.back();
    todo.pop_back();
    if (b == board)
      return true;
    if (!seen.insert(b).second)
      continue;
    rules.legal_moves(b, moves);
    for (const Move& m : moves) {
      if (m.gain() == 0)
        todo.push_back(m.child);
    }
  }
  return false;
}

}  // namespace

Reach brute_reach(const Rules& rules, int max_stones, bool endless) {
  Reach r;
  for (int n = 0; n <= max_stones; ++n) {
    const std::vector<Pits> boards = enumerate_boards(rules.board_pits(), n);
    std::map<Pits, bool> cycles;
    for (const Pits& b : boards) {
      r[b];
      cycles[b] = endless && on_cycle(rules, b);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const Pits& b : boards) {
        std::set<int> next = r[b];
        MoveList moves;
        if (rules.legal_moves(b, moves) == 0)
          next.insert(rules.final_value(b));
        for (const Move& m : moves) {
          for (const int d : r.at(m.child))
            next.insert(m.gain() + (m.extra_turn ? d : -d));
        }
        if (cycles[b])
          next.insert(0);
        if (next != r[b]) {
          r[b] = std::move(next);
          changed = true;
        }
      }
    }
  }
  return r;
}

}  // namespace sowdb::test
