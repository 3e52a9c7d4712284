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

ReachLayer solve_reach_layer(const RuleSet& rules,
                             int stones,
                             const std::function<const ReachLayer&(int stones)>& smaller,
                             const std::function<void(double)>& progress) {
  constexpr std::uint64_t kProgressStep = std::uint64_t{1} << 16;
  const auto report = [&](double f) {
    if (progress)
      progress(f);
  };
  if (stones < 0 || stones > kMaxIndexedStones)
    throw std::invalid_argument("stone count out of range: " + std::to_string(stones));
  const Rules engine(rules);
  const int pits = engine.pits();
  const int n = stones;
  const std::uint64_t size = layer_size(pits, n);
  ReachLayer out;
  out.stones = n;
  out.words = reach_set_words(n);
  const auto words = static_cast<std::size_t>(out.words);
  const auto set_of = [&](std::vector<std::uint64_t>& v, std::uint64_t i) {
    return Set(v.data() + i * words, words);
  };
  std::vector<const ReachLayer*> below(static_cast<std::size_t>(n));
  for (int m = 0; m < n; ++m)
    below[static_cast<std::size_t>(m)] = &smaller(m);

  // The sets the moves that leave the layer (or the end of the game) give, and the moves that
  // stay in it, as edges from each position (first[i] .. first[i + 1]).
  std::vector<std::uint64_t> base(size * words, 0);
  std::vector<std::uint64_t> first(size + 1, 0);
  std::vector<std::uint64_t> edges;
  edges.reserve(size * 2);
  Pits board{};
  const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
  unrank(0, n, span);
  MoveList moves;
  report(0);
  for (std::uint64_t i = 0; i < size; ++i, next_position(span)) {
    if (i % kProgressStep == 0 && i > 0)
      report(0.4 * static_cast<double>(i) / static_cast<double>(size));
    first[i] = edges.size();
    const Set b = set_of(base, i);
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
        edges.push_back(child);
        continue;
      }
      const ReachLayer& c = *below[static_cast<std::size_t>(n - m.gain())];
      const auto cw = static_cast<std::size_t>(c.words);
      add_mapped(b, n, ConstSet(c.sets.data() + child * cw, cw), c.stones, sign, m.gain());
    }
  }
  first[size] = edges.size();

  // Tarjan's strongly connected components over the in-layer moves, without recursion. A
  // component is complete when every component its moves reach is: its sets then follow from
  // its own base sets, the sets of the components below, and whether it holds a cycle.
  constexpr std::uint64_t kNone = ~std::uint64_t{0};
  // One record per position, so that the walk's look-up of a child costs one cache miss: its
  // discovery number, Tarjan's low link, and its component once complete (a position on the
  // walk's stack has been discovered and has no component yet).
  struct Node {
    std::uint64_t order = kNone;
    std::uint64_t low = 0;
    std::uint64_t component = kNone;
  };
  std::vector<Node> node(size);
  std::vector<std::uint64_t> stack;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;  // (position, next edge)
  std::vector<std::uint64_t> members;
  std::vector<std::int8_t> colour(size, -1);
  std::vector<std::uint64_t> queue;
  std::vector<std::uint64_t> even(words);
  std::vector<std::uint64_t> reach(words);
  std::vector<std::uint64_t> negated(words);
  std::vector<std::uint64_t> odd_side(words);
  std::uint64_t counter = 0;
  std::uint64_t components = 0;
  const auto discover = [&](std::uint64_t x) {
    node[x].order = node[x].low = counter++;
    stack.push_back(x);
    calls.emplace_back(x, first[x]);
    // The walk visits the children next: fetch their records now.
    for (std::uint64_t j = first[x]; j < first[x + 1]; ++j)
      __builtin_prefetch(&node[edges[j]]);
  };
  out.sets.assign(size * words, 0);

  // Completes the component whose root is `root` (on top of `stack`).
  const auto close_component = [&](std::uint64_t root) {
    members.clear();
    std::uint64_t x = 0;
    do {
      x = stack.back();
      stack.pop_back();
      node[x].component = components;
      members.push_back(x);
    } while (x != root);
    const std::uint64_t self = components++;
    const Set own = set_of(out.sets, root);
    if (members.size() == 1) {
      // Most components are one position without a move to itself: its children are all in
      // components already complete.
      bool to_itself = false;
      for (std::uint64_t j = first[root]; j < first[root + 1]; ++j)
        to_itself = to_itself || edges[j] == root;
      if (!to_itself) {
        add(own, set_of(base, root));
        for (std::uint64_t j = first[root]; j < first[root + 1]; ++j)
          add_mapped(own, n, set_of(out.sets, edges[j]), n, -1, 0);
        return;
      }
    }
    // E(q): q's base set and the negated sets of its children in components already complete;
    // whether the component holds a cycle; a 2-colouring of its moves (a move flips the sign of
    // d, so members of one colour reach each other's sets as they are, of the other negated),
    // which fails when the component has a cycle of odd length.
    bool cycle = members.size() > 1;
    bool two_colours = true;
    colour[members[0]] = 0;
    queue.assign(1, members[0]);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::uint64_t q = queue[head];
      for (std::uint64_t j = first[q]; j < first[q + 1]; ++j) {
        const std::uint64_t c = edges[j];
        if (node[c].component != self)
          continue;
        cycle = cycle || c == q;
        if (colour[c] < 0) {
          colour[c] = static_cast<std::int8_t>(1 - colour[q]);
          queue.push_back(c);
        } else if (colour[c] == colour[q]) {
          two_colours = false;
        }
      }
    }
    std::fill(even.begin(), even.end(), 0);
    std::fill(odd_side.begin(), odd_side.end(), 0);
    for (const std::uint64_t q : members) {
      const Set e = colour[q] == 0 ? Set(even) : Set(odd_side);
      add(e, set_of(base, q));
      if (cycle)
        set_bit(e, n);  // endless play: d = 0
      for (std::uint64_t j = first[q]; j < first[q + 1]; ++j) {
        const std::uint64_t c = edges[j];
        if (node[c].component != self)
          add_mapped(e, n, set_of(out.sets, c), n, -1, 0);
      }
    }
    // reach: what a member of colour 0 reaches, given the union of each colour's E; the members
    // of colour 1 reach its negation. With an odd cycle every member reaches both signs.
    std::fill(reach.begin(), reach.end(), 0);
    add(reach, even);
    add_mapped(reach, n, odd_side, n, -1, 0);
    if (!two_colours) {
      negated = reach;
      add_mapped(reach, n, negated, n, -1, 0);
    }
    std::fill(negated.begin(), negated.end(), 0);
    add_mapped(negated, n, reach, n, -1, 0);
    for (const std::uint64_t q : members)
      add(set_of(out.sets, q), (two_colours && colour[q] == 1) ? negated : reach);
  };

  report(0.4);
  for (std::uint64_t start = 0; start < size; ++start) {
    if (start % kProgressStep == 0 && start > 0)
      report(0.4 + 0.6 * static_cast<double>(start) / static_cast<double>(size));
    if (node[start].order != kNone)
      continue;
    discover(start);
    while (!calls.empty()) {
      auto& [v, next] = calls.back();
      if (next < first[v + 1]) {
        const std::uint64_t c = edges[next++];
        const Node& child = node[c];
        if (child.order == kNone) {
          discover(c);                          // invalidates v and next
        } else if (child.component == kNone) {  // on the stack
          node[v].low = std::min(node[v].low, child.order);
        }
        continue;
      }
      const std::uint64_t done = v;
      calls.pop_back();
      if (!calls.empty()) {
        Node& parent = node[calls.back().first];
        parent.low = std::min(parent.low, node[done].low);
      }
      if (node[done].low == node[done].order)
        close_component(done);
    }
  }
  report(1);
  return out;
}

ReachStart solve_reach_start(const Variant& variant, std::uint64_t max_positions) {
  const RuleSet rules = variant.rules.normalised();
  const Rules engine(rules);
  const int pits = engine.pits();
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
