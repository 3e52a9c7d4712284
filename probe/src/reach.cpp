// The co-operative probes of a TableSet (FORMAT.md, "Co-operative tables"): a position's reachable
// set, its moves' sets, and a joint line of play to a chosen final difference.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sowdb/probe/tables.h"
#include "table_set_impl.h"

namespace sowdb {

namespace {

// The set of `position` (checked, `n` seeds) as layer n's file holds it.
ProbeStatus lookup_set(const TableSet::Impl& impl,
                       const Pits& position,
                       int n,
                       ReachSet& out) noexcept {
  const LayerReader* r = nullptr;
  const ProbeStatus s = impl.reader(n, r);
  if (s != ProbeStatus::kOk)
    return s;
  const std::uint64_t index = impl.index_of(position);
  const auto symbol = r->set_symbol(index);
  const auto words = symbol ? r->set(*symbol) : std::span<const std::uint64_t>();
  if (words.empty() || words.size() > out.bits.size()) {
    impl.note_read_error(n, index, "the set");
    return ProbeStatus::kCorruptTable;
  }
  out = ReachSet{};
  out.stones = n;
  std::copy(words.begin(), words.end(), out.bits.begin());
  return ProbeStatus::kOk;
}

// The moves of `position` (checked, `n` seeds), each with its child's set mapped to the mover's
// side at the position.
ProbeStatus lookup_moves(const TableSet::Impl& impl,
                         const Pits& position,
                         int n,
                         MoveReaches& out) noexcept {
  MoveList list;
  impl.engine->legal_moves(position, list);
  out.size = 0;
  for (const Move& m : list) {
    MoveReach& mr = out.moves[static_cast<std::size_t>(out.size)];
    mr.move = m;
    ReachSet child;
    const ProbeStatus s = lookup_set(impl, m.child, n - m.gain(), child);
    if (s != ProbeStatus::kOk)
      return s;
    mr.reachable = ReachSet{};
    mr.reachable.stones = n;
    for (const int d : child.differences()) {
      const int bit = n + Rules::worth(m, d);
      mr.reachable.bits[static_cast<std::size_t>(bit / 64)] |= std::uint64_t{1} << (bit % 64);
    }
    ++out.size;
  }
  return ProbeStatus::kOk;
}

// The difference a move's child must reach for the move to reach `target` (Rules::worth
// inverted): gain + d after an extra turn, else gain - d.
int child_target(const Move& m, int target) {
  return m.extra_turn ? target - m.gain() : m.gain() - target;
}

// One state of the search within a layer: a position and the difference it must reach.
struct State {
  Pits position{};
  int target = 0;
};

// States a search for a finite line may visit before cooperative_line gives up on it.
constexpr std::size_t kMaxFiniteSearch = std::size_t{1} << 21;

// What find_finite_line found.
enum class Finite { kFound, kNone, kTooLarge };

// Searches, depth first with the moves that gain seeds tried first, for a line from `root` (n
// seeds, the mover to reach `target`) to the end of the game in which every move keeps the
// target reachable; never visits a (position, target) twice, so it finds one whenever one
// exists, within kMaxFiniteSearch states. On kFound, `pits` holds the moves.
ProbeStatus find_finite_line(const TableSet::Impl& impl,
                             const Pits& root,
                             int n,
                             int target,
                             std::vector<int>& pits,
                             Finite& result) {
  struct Frame {
    Pits position;
    int stones;
    int target;
    MoveList moves;  // ordered: exits first
    int next = 0;
  };
  const Rules& rules = *impl.engine;
  std::unordered_map<std::uint64_t, char> seen;
  const auto key = [&](const Pits& p, int stones, int t) {
    return (impl.index_of(p) << 16) | (static_cast<std::uint64_t>(stones) << 8) |
           static_cast<std::uint64_t>(t + 127);
  };
  const auto frame = [&](const Pits& p, int stones, int t) {
    Frame f{p, stones, t, {}, 0};
    rules.legal_moves(p, f.moves);
    std::stable_partition(f.moves.moves.begin(),
                          f.moves.moves.begin() + f.moves.size,
                          [](const Move& m) { return m.gain() != 0; });
    return f;
  };
  std::vector<Frame> stack{frame(root, n, target)};
  seen.emplace(key(root, n, target), 1);
  pits.clear();
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.moves.size == 0) {
      // A finished game: its set is its final split, which the target is in.
      for (std::size_t i = 0; i + 1 < stack.size(); ++i)
        pits.push_back(stack[i].moves.moves[static_cast<std::size_t>(stack[i].next - 1)].pit);
      result = Finite::kFound;
      return ProbeStatus::kOk;
    }
    if (f.next == f.moves.size) {
      stack.pop_back();
      continue;
    }
    const Move m = f.moves.moves[static_cast<std::size_t>(f.next++)];
    const int child_stones = f.stones - m.gain();
    const int t = child_target(m, f.target);
    ReachSet child;
    const ProbeStatus s = lookup_set(impl, m.child, child_stones, child);
    if (s != ProbeStatus::kOk)
      return s;
    if (!child.contains(t) || !seen.emplace(key(m.child, child_stones, t), 1).second)
      continue;
    if (seen.size() > kMaxFiniteSearch) {
      result = Finite::kTooLarge;
      return ProbeStatus::kOk;
    }
    stack.push_back(frame(m.child, child_stones, t));
  }
  result = Finite::kNone;
  return ProbeStatus::kOk;
}

}  // namespace

ProbeStatus TableSet::reach(const Pits& position, ReachSet& out) const noexcept {
  int n = 0;
  const ProbeStatus s = impl_->check(position, n, Objective::kCooperative);
  if (s != ProbeStatus::kOk)
    return s;
  return lookup_set(*impl_, position, n, out);
}

ProbeStatus TableSet::reach_moves(const Pits& position, MoveReaches& out) const noexcept {
  int n = 0;
  const ProbeStatus s = impl_->check(position, n, Objective::kCooperative);
  if (s != ProbeStatus::kOk)
    return s;
  return lookup_moves(*impl_, position, n, out);
}

ProbeStatus TableSet::cooperative_line(const Pits& position,
                                       int target,
                                       PrincipalLine& out,
                                       int max_plies) const noexcept {
  try {
    out.steps.clear();
    out.end = LineEnd::kGameOver;
    out.net_gain = 0;
    out.last = position;
    out.last_mover = 0;
    int n = 0;
    ProbeStatus s = impl_->check(position, n, Objective::kCooperative);
    if (s != ProbeStatus::kOk)
      return s;
    ReachSet root;
    s = lookup_set(*impl_, position, n, root);
    if (s != ProbeStatus::kOk)
      return s;
    if (!root.contains(target))
      return ProbeStatus::kUnreachable;
    const Rules& rules = *impl_->engine;
    Pits at = position;
    int mover = 0;
    int need = target;  // what the player to move at `at` must reach from here
    // Plays `m` from `at`, the line's bookkeeping included.
    const auto play = [&](const Move& m) {
      LineStep step;
      step.mover = mover;
      step.pit = m.pit;
      step.gain = m.gain();
      step.extra_turn = m.extra_turn;
      step.before = at;
      out.steps.push_back(step);
      out.net_gain += mover == 0 ? m.gain() : -m.gain();
      need = child_target(m, need);
      if (!m.extra_turn)
        mover = 1 - mover;
      at = m.child;
      n -= m.gain();
    };
    // Plays the moves of `pits` in turn, up to max_plies.
    const auto play_pits = [&](const std::vector<int>& pits) {
      for (const int pit : pits) {
        if (static_cast<int>(out.steps.size()) >= max_plies)
          break;
        MoveList here;
        rules.legal_moves(at, here);
        play(*std::find_if(
            here.begin(), here.end(), [pit](const Move& mv) { return mv.pit == pit; }));
      }
    };
    // Short lines first: an exit (a move that gains seeds) whenever one keeps the target, else
    // the fewest moves that gain nothing to the next one, and endless play when only it keeps
    // the target from where the line stands.
    const int root_stones = n;
    while (static_cast<int>(out.steps.size()) < max_plies) {
      MoveList moves;
      if (rules.legal_moves(at, moves) == 0) {
        out.end = LineEnd::kGameOver;
        break;
      }
      // A move that gains seeds and keeps the target: progress at once.
      const Move* exit = nullptr;
      for (const Move& m : moves) {
        if (m.gain() == 0)
          continue;
        ReachSet child;
        s = lookup_set(*impl_, m.child, n - m.gain(), child);
        if (s != ProbeStatus::kOk)
          return s;
        if (child.contains(child_target(m, need))) {
          exit = &m;
          break;
        }
      }
      if (exit) {
        play(*exit);
        continue;
      }
      // Else the fewest moves that gain nothing, keeping the target, to a position that has such
      // a move or ends the game; the target flips sign with each of them.
      std::vector<State> states{State{at, need}};
      std::vector<std::pair<std::size_t, int>> parent{{0, -1}};  // (state, pit played)
      std::unordered_map<std::uint64_t, std::size_t> seen;       // index * 2 + (target < 0)
      const auto key = [&](const State& st) {
        return impl_->index_of(st.position) * 2 + (st.target < 0 ? 1 : 0);
      };
      seen.emplace(key(states[0]), 0);
      constexpr std::size_t kNoGoal = ~std::size_t{0};
      std::size_t goal = kNoGoal;
      for (std::size_t head = 0; head < states.size() && goal == kNoGoal; ++head) {
        const State st = states[head];
        MoveList here;
        if (rules.legal_moves(st.position, here) == 0) {
          goal = head;
          break;
        }
        for (const Move& m : here) {
          ReachSet child;
          s = lookup_set(*impl_, m.child, n - m.gain(), child);
          if (s != ProbeStatus::kOk)
            return s;
          if (!child.contains(child_target(m, st.target)))
            continue;
          if (m.gain() != 0) {
            if (head != 0) {
              goal = head;
              break;
            }
            continue;
          }
          const State next{m.child, child_target(m, st.target)};
          if (seen.emplace(key(next), states.size()).second) {
            states.push_back(next);
            parent.emplace_back(head, m.pit);
          }
        }
      }
      if (goal == kNoGoal) {
        // No finite ending keeps the target: it is 0, and only endless play reaches it. Walk on
        // through positions that keep it until one repeats.
        if (need != 0) {
          impl_->note_error(n,
                            impl_->slots[static_cast<std::size_t>(n)]->path.string() +
                                ": a set holds a difference other than 0 that no line ending the "
                                "game reaches");
          return ProbeStatus::kCorruptTable;
        }
        std::vector<std::uint64_t> visited;
        while (static_cast<int>(out.steps.size()) < max_plies) {
          const std::uint64_t k = impl_->index_of(at) * 2 + static_cast<std::uint64_t>(mover);
          if (std::find(visited.begin(), visited.end(), k) != visited.end()) {
            out.end = LineEnd::kRepetition;
            break;
          }
          visited.push_back(k);
          MoveList here;
          rules.legal_moves(at, here);
          const Move* keep = nullptr;
          for (const Move& m : here) {
            ReachSet child;
            s = lookup_set(*impl_, m.child, n - m.gain(), child);
            if (s != ProbeStatus::kOk)
              return s;
            if (m.gain() == 0 && child.contains(child_target(m, need))) {
              keep = &m;
              break;
            }
          }
          if (!keep) {
            impl_->note_error(n,
                              impl_->slots[static_cast<std::size_t>(n)]->path.string() +
                                  ": a reachable set that no move or endless play realises");
            return ProbeStatus::kCorruptTable;
          }
          play(*keep);
        }
        if (out.end == LineEnd::kRepetition)
          break;
        continue;
      }
      // Replay the path to the goal from `at`.
      std::vector<int> pits;
      for (std::size_t x = goal; x != 0; x = parent[x].first)
        pits.push_back(parent[x].second);
      std::reverse(pits.begin(), pits.end());
      play_pits(pits);
    }
    if (out.end == LineEnd::kRepetition) {
      // Those exits may have led where only endless play is left, while another line ends the
      // game: endless play only where nothing else will do.
      std::vector<int> finite;
      Finite found = Finite::kNone;
      s = find_finite_line(*impl_, position, root_stones, target, finite, found);
      if (s != ProbeStatus::kOk)
        return s;
      if (found == Finite::kFound) {
        out.steps.clear();
        out.end = LineEnd::kGameOver;
        out.net_gain = 0;
        at = position;
        mover = 0;
        need = target;
        n = root_stones;
        play_pits(finite);
      }
    }
    if (static_cast<int>(out.steps.size()) >= max_plies && out.end == LineEnd::kGameOver) {
      MoveList rest;
      if (rules.legal_moves(at, rest) != 0)
        out.end = LineEnd::kMaxPlies;
    }
    out.last = at;
    out.last_mover = mover;
    return ProbeStatus::kOk;
  } catch (...) {
    return ProbeStatus::kCorruptTable;
  }
}

}  // namespace sowdb
