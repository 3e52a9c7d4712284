#include "sowdb/gen/cooperative.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "sowdb/format/index.h"
#include "sowdb/probe/rules.h"

namespace sowdb::gen {
namespace {

// A set of one layer as a span of words.
using Set = std::span<std::uint64_t>;
using ConstSet = std::span<const std::uint64_t>;

void set_bit(Set s, int bit) {
  s[static_cast<std::size_t>(bit) / 64] |= std::uint64_t{1} << (bit % 64);
}

// Calls f(bit) for every bit of `s`.
template <typename F>
void for_each_bit(ConstSet s, F&& f) {
  for (std::size_t w = 0; w < s.size(); ++w) {
    for (std::uint64_t x = s[w]; x != 0; x &= x - 1)
      f(static_cast<int>(w * 64) + std::countr_zero(x));
  }
}

// out |= { sign * d + gain : d in `from` }, `from` a set of layer `from_n` and out of layer n.
void add_mapped(Set out, int n, ConstSet from, int from_n, int sign, int gain) {
  for_each_bit(from, [&](int bit) { set_bit(out, n + gain + sign * (bit - from_n)); });
}

void add(Set out, ConstSet from) {
  for (std::size_t w = 0; w < out.size(); ++w)
    out[w] |= from[w];
}

}  // namespace

long double reach_working_bytes(long double positions, int stones) {
  // Per position: the node record (24), the edge offsets (8), about two in-layer edges (16), the
  // colour (1), the base and the result sets (16 per word); plus the stack's and queue's peaks.
  return positions * (56.0L + 16.0L * reach_set_words(stones));
}

namespace {

constexpr std::uint64_t kProgressStep = std::uint64_t{1} << 16;

// One layer's moves: the sets the moves that leave the layer (or the end of the game) give
// (`base`, `words` per position), and the moves that stay in it, as edges from each position
// (edges[first[i]] .. edges[first[i + 1] - 1]).
struct LayerGraph {
  std::vector<std::uint64_t> base;
  std::vector<std::uint64_t> first;
  std::vector<std::uint64_t> edges;
};

// The graph of layer n of `engine`'s board from the smaller layers' sets (`below`); reports
// progress 0..0.4.
LayerGraph build_layer_graph(const Rules& engine,
                             int n,
                             std::size_t words,
                             const std::vector<const ReachLayer*>& below,
                             const std::function<void(double)>& report) {
  const int pits = engine.board_pits();
  const std::uint64_t size = layer_size(pits, n);
  LayerGraph g;
  g.base.assign(size * words, 0);
  g.first.assign(size + 1, 0);
  g.edges.reserve(size * 2);
  Pits board{};
  const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
  unrank(0, n, span);
  MoveList moves;
  report(0);
  for (std::uint64_t i = 0; i < size; ++i, next_position(span)) {
    if (i % kProgressStep == 0 && i > 0)
      report(0.4 * static_cast<double>(i) / static_cast<double>(size));
    g.first[i] = g.edges.size();
    const Set b(g.base.data() + i * words, words);
    if (engine.legal_moves(board, moves) == 0) {
      set_bit(b, n + engine.final_value(board));
      continue;
    }
    for (const Move& m : moves) {
      const std::uint64_t child =
          rank(std::span<const std::uint8_t>(m.child.data(), static_cast<std::size_t>(pits)));
      const int sign = m.extra_turn ? 1 : -1;
      if (m.gain() == 0) {
        // A move that gains nothing never gives an extra turn (an extra turn sows into the
        // store), so the edge stands for d -> -d.
        if (m.extra_turn)
          throw std::logic_error("an extra turn that gains nothing");
        g.edges.push_back(child);
        continue;
      }
      const ReachLayer& c = *below[static_cast<std::size_t>(n - m.gain())];
      const auto cw = static_cast<std::size_t>(c.words);
      add_mapped(b, n, ConstSet(c.sets.data() + child * cw, cw), c.stones, sign, m.gain());
    }
  }
  g.first[size] = g.edges.size();
  return g;
}

// Tarjan's strongly connected components over the in-layer moves of a LayerGraph, without
// recursion. A component is complete when every component its moves reach is: its sets then
// follow from its own base sets, the sets of the components below, and whether it holds a cycle.
class ComponentSolver {
 public:
  ComponentSolver(const LayerGraph& g, int n, std::size_t words, std::vector<std::uint64_t>& sets)
      : g_(g),
        n_(n),
        words_(words),
        sets_(sets),
        node_(g.first.size() - 1),
        colour_(g.first.size() - 1, -1),
        even_(words),
        reach_(words),
        negated_(words),
        odd_side_(words) {}

  // Fills the sets of every position; reports progress 0.4..1.
  void run(const std::function<void(double)>& report) {
    const std::uint64_t size = node_.size();
    report(0.4);
    for (std::uint64_t start = 0; start < size; ++start) {
      if (start % kProgressStep == 0 && start > 0)
        report(0.4 + 0.6 * static_cast<double>(start) / static_cast<double>(size));
      if (node_[start].order != kNone)
        continue;
      discover(start);
      while (!calls_.empty()) {
        auto& [v, next] = calls_.back();
        if (next < g_.first[v + 1]) {
          const std::uint64_t c = g_.edges[next++];
          const Node& child = node_[c];
          if (child.order == kNone) {
            discover(c);                          // invalidates v and next
          } else if (child.component == kNone) {  // on the stack
            node_[v].low = std::min(node_[v].low, child.order);
          }
          continue;
        }
        const std::uint64_t done = v;
        calls_.pop_back();
        if (!calls_.empty()) {
          Node& parent = node_[calls_.back().first];
          parent.low = std::min(parent.low, node_[done].low);
        }
        if (node_[done].low == node_[done].order)
          close_component(done);
      }
    }
    report(1);
  }

 private:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  // One record per position, so that the walk's look-up of a child costs one cache miss: its
  // discovery number, Tarjan's low link, and its component once complete (a position on the
  // walk's stack has been discovered and has no component yet).
  struct Node {
    std::uint64_t order = kNone;
    std::uint64_t low = 0;
    std::uint64_t component = kNone;
  };

  Set set_of(std::vector<std::uint64_t>& v, std::uint64_t i) const {
    return Set(v.data() + i * words_, words_);
  }
  ConstSet base_of(std::uint64_t i) const { return ConstSet(g_.base.data() + i * words_, words_); }

  void discover(std::uint64_t x) {
    node_[x].order = node_[x].low = counter_++;
    stack_.push_back(x);
    calls_.emplace_back(x, g_.first[x]);
    // The walk visits the children next: fetch their records now.
    for (std::uint64_t j = g_.first[x]; j < g_.first[x + 1]; ++j)
      __builtin_prefetch(&node_[g_.edges[j]]);
  }

  // Completes the component whose root is `root` (on top of the stack).
  void close_component(std::uint64_t root) {
    members_.clear();
    std::uint64_t x = 0;
    do {
      x = stack_.back();
      stack_.pop_back();
      node_[x].component = components_;
      members_.push_back(x);
    } while (x != root);
    const std::uint64_t self = components_++;
    if (members_.size() == 1) {
      // Most components are one position without a move to itself: its children are all in
      // components already complete.
      bool to_itself = false;
      for (std::uint64_t j = g_.first[root]; j < g_.first[root + 1]; ++j)
        to_itself = to_itself || g_.edges[j] == root;
      if (!to_itself) {
        const Set own = set_of(sets_, root);
        add(own, base_of(root));
        for (std::uint64_t j = g_.first[root]; j < g_.first[root + 1]; ++j)
          add_mapped(own, n_, set_of(sets_, g_.edges[j]), n_, -1, 0);
        return;
      }
    }
    close_cyclic(self);
  }

  // The sets of members_, a component `self` with a cycle. E(q): q's base set and the negated
  // sets of its children in components already complete; whether the component holds a cycle; a
  // 2-colouring of its moves (a move flips the sign of d, so members of one colour reach each
  // other's sets as they are, of the other negated), which fails when the component has a cycle
  // of odd length.
  void close_cyclic(std::uint64_t self) {
    bool cycle = members_.size() > 1;
    bool two_colours = true;
    colour_[members_[0]] = 0;
    queue_.assign(1, members_[0]);
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const std::uint64_t q = queue_[head];
      for (std::uint64_t j = g_.first[q]; j < g_.first[q + 1]; ++j) {
        const std::uint64_t c = g_.edges[j];
        if (node_[c].component != self)
          continue;
        cycle = cycle || c == q;
        if (colour_[c] < 0) {
          colour_[c] = static_cast<std::int8_t>(1 - colour_[q]);
          queue_.push_back(c);
        } else if (colour_[c] == colour_[q]) {
          two_colours = false;
        }
      }
    }
    std::fill(even_.begin(), even_.end(), 0);
    std::fill(odd_side_.begin(), odd_side_.end(), 0);
    for (const std::uint64_t q : members_) {
      const Set e = colour_[q] == 0 ? Set(even_) : Set(odd_side_);
      add(e, base_of(q));
      if (cycle)
        set_bit(e, n_);  // endless play: d = 0
      for (std::uint64_t j = g_.first[q]; j < g_.first[q + 1]; ++j) {
        const std::uint64_t c = g_.edges[j];
        if (node_[c].component != self)
          add_mapped(e, n_, set_of(sets_, c), n_, -1, 0);
      }
    }
    // reach: what a member of colour 0 reaches, given the union of each colour's E; the members
    // of colour 1 reach its negation. With an odd cycle every member reaches both signs.
    std::fill(reach_.begin(), reach_.end(), 0);
    add(reach_, even_);
    add_mapped(reach_, n_, odd_side_, n_, -1, 0);
    if (!two_colours) {
      negated_ = reach_;
      add_mapped(reach_, n_, negated_, n_, -1, 0);
    }
    std::fill(negated_.begin(), negated_.end(), 0);
    add_mapped(negated_, n_, reach_, n_, -1, 0);
    for (const std::uint64_t q : members_)
      add(set_of(sets_, q), (two_colours && colour_[q] == 1) ? negated_ : reach_);
  }

  const LayerGraph& g_;
  const int n_;
  const std::size_t words_;
  std::vector<std::uint64_t>& sets_;
  std::vector<Node> node_;
  std::vector<std::uint64_t> stack_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls_;  // (position, next edge)
  std::vector<std::uint64_t> members_;
  std::vector<std::int8_t> colour_;
  std::vector<std::uint64_t> queue_;
  std::vector<std::uint64_t> even_;
  std::vector<std::uint64_t> reach_;
  std::vector<std::uint64_t> negated_;
  std::vector<std::uint64_t> odd_side_;
  std::uint64_t counter_ = 0;
  std::uint64_t components_ = 0;
};

}  // namespace

ReachLayer solve_reach_layer(const RuleSet& rules,
                             int stones,
                             const std::function<const ReachLayer&(int stones)>& smaller,
                             const std::function<void(double)>& progress) {
  const std::function<void(double)> report = [&](double f) {
    if (progress)
      progress(f);
  };
  if (stones < 0 || stones > kMaxIndexedStones)
    throw std::invalid_argument("stone count out of range: " + std::to_string(stones));
  const Rules engine(rules);
  const int n = stones;
  ReachLayer out;
  out.stones = n;
  out.words = reach_set_words(n);
  const auto words = static_cast<std::size_t>(out.words);
  std::vector<const ReachLayer*> below(static_cast<std::size_t>(n));
  for (int m = 0; m < n; ++m)
    below[static_cast<std::size_t>(m)] = &smaller(m);
  const LayerGraph graph = build_layer_graph(engine, n, words, below, report);
  out.sets.assign(layer_size(engine.board_pits(), n) * words, 0);
  ComponentSolver(graph, n, words, out.sets).run(report);
  return out;
}

ReachStart solve_reach_start(const Variant& variant, std::uint64_t max_positions) {
  const RuleSet rules = variant.rules.normalised();
  const Rules engine(rules);
  const int pits = engine.board_pits();
  const int stones = variant.total_stones();
  std::uint64_t total = 0;
  for (int n = 0; n <= stones; ++n)
    total += layer_size(pits, n);
  if (total > max_positions) {
    throw TooLarge("layers 0.." + std::to_string(stones) + " of " + variant.to_string() + " hold " +
                   std::to_string(total) +
                   " positions; the co-operative objective is "
                   "solved in memory up to " +
                   std::to_string(max_positions));
  }
  std::vector<ReachLayer> layers;
  layers.reserve(static_cast<std::size_t>(stones) + 1);
  for (int n = 0; n <= stones; ++n) {
    layers.push_back(
        solve_reach_layer(rules, n, [&](int m) -> const ReachLayer& { return layers.at(m); }));
  }
  const auto set_of = [&](const Pits& board, int n) {
    const std::uint64_t i =
        rank(std::span<const std::uint8_t>(board.data(), static_cast<std::size_t>(pits)));
    std::vector<int> out;
    for (int d = -n; d <= n; ++d) {
      if (layers[static_cast<std::size_t>(n)].contains(i, d))
        out.push_back(d);
    }
    return out;
  };
  const Pits start = variant.start();
  ReachStart out;
  out.positions = total;
  out.reachable = set_of(start, stones);
  out.balanced = std::binary_search(out.reachable.begin(), out.reachable.end(), 0);
  MoveList moves;
  engine.legal_moves(start, moves);
  for (const Move& m : moves) {
    ReachStart::Move rm;
    rm.pit = m.pit;
    rm.gain = m.gain();
    rm.extra_turn = m.extra_turn;
    for (const int d : set_of(m.child, stones - m.gain()))
      rm.reachable.push_back(Rules::worth(m.gain(), m.extra_turn, d));
    std::sort(rm.reachable.begin(), rm.reachable.end());
    rm.balancing = std::binary_search(rm.reachable.begin(), rm.reachable.end(), 0);
    out.moves.push_back(std::move(rm));
  }
  return out;
}

}  // namespace sowdb::gen
