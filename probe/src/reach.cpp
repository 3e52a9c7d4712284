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

// A co-operative line being built into `out` (TableSet::cooperative_line): where it stands, who
// moves, and what the mover there must reach.
class LineBuilder {
 public:
  LineBuilder(const TableSet::Impl& impl, PrincipalLine& out, int max_plies)
      : impl_(impl), rules_(*impl.engine), out_(out), max_plies_(max_plies) {}

  // Starts the line afresh at `position` (n seeds), whose mover must reach `target`.
  void start(const Pits& position, int n, int target) {
    out_.steps.clear();
    out_.end = LineEnd::kGameOver;
    out_.net_gain = 0;
    at_ = position;
    mover_ = 0;
    need_ = target;
    n_ = n;
  }

  // Short lines first: an exit (a move that gains seeds) whenever one keeps the target, else
  // the fewest moves that gain nothing to the next one, and endless play when only it keeps
  // the target from where the line stands.
  ProbeStatus extend() {
    while (!full()) {
      MoveList moves;
      if (rules_.legal_moves(at_, moves) == 0) {
        out_.end = LineEnd::kGameOver;
        break;
      }
      const Move* exit = nullptr;
      ProbeStatus s = find_exit(moves, exit);
      if (s != ProbeStatus::kOk)
        return s;
      if (exit) {
        play(*exit);
        continue;
      }
      std::vector<int> pits;
      bool found = false;
      s = path_to_exit(pits, found);
      if (s != ProbeStatus::kOk)
        return s;
      if (found) {
        play_pits(pits);
        continue;
      }
      s = play_endless();
      if (s != ProbeStatus::kOk)
        return s;
      if (out_.end == LineEnd::kRepetition)
        break;
    }
    return ProbeStatus::kOk;
  }

  // Plays the moves of `pits` in turn, up to max_plies.
  void play_pits(const std::vector<int>& pits) {
    for (const int pit : pits) {
      if (full())
        break;
      MoveList here;
      rules_.legal_moves(at_, here);
      play(
          *std::find_if(here.begin(), here.end(), [pit](const Move& mv) { return mv.pit == pit; }));
    }
  }

  // Closes the line: kMaxPlies when it stopped at max_plies with moves left; where it ends.
  void finish() {
    if (full() && out_.end == LineEnd::kGameOver) {
      MoveList rest;
      if (rules_.legal_moves(at_, rest) != 0)
        out_.end = LineEnd::kMaxPlies;
    }
    out_.last = at_;
    out_.last_mover = mover_;
  }

 private:
  bool full() const { return static_cast<int>(out_.steps.size()) >= max_plies_; }

  // Plays `m` from where the line stands, the line's bookkeeping included.
  void play(const Move& m) {
    LineStep step;
    step.mover = mover_;
    step.pit = m.pit;
    step.gain = m.gain();
    step.extra_turn = m.extra_turn;
    step.before = at_;
    out_.steps.push_back(step);
    out_.net_gain += mover_ == 0 ? m.gain() : -m.gain();
    need_ = child_target(m, need_);
    if (!m.extra_turn)
      mover_ = 1 - mover_;
    at_ = m.child;
    n_ -= m.gain();
  }

  // A move of `moves` (those of the current position) that gains seeds and keeps the target:
  // progress at once. `exit` stays null when there is none.
  ProbeStatus find_exit(const MoveList& moves, const Move*& exit) const {
    for (const Move& m : moves) {
      if (m.gain() == 0)
        continue;
      ReachSet child;
      const ProbeStatus s = lookup_set(impl_, m.child, n_ - m.gain(), child);
      if (s != ProbeStatus::kOk)
        return s;
      if (child.contains(child_target(m, need_))) {
        exit = &m;
        return ProbeStatus::kOk;
      }
    }
    return ProbeStatus::kOk;
  }

  // The fewest moves that gain nothing, keeping the target, from the current position to one
  // that has such a move or ends the game; the target flips sign with each of them. `found`
  // false when there is none.
  ProbeStatus path_to_exit(std::vector<int>& pits, bool& found) const {
    std::vector<State> states{State{at_, need_}};
    std::vector<std::pair<std::size_t, int>> parent{{0, -1}};  // (state, pit played)
    std::unordered_map<std::uint64_t, std::size_t> seen;       // index * 2 + (target < 0)
    const auto key = [&](const State& st) {
      return impl_.index_of(st.position) * 2 + (st.target < 0 ? 1 : 0);
    };
    seen.emplace(key(states[0]), 0);
    constexpr std::size_t kNoGoal = ~std::size_t{0};
    std::size_t goal = kNoGoal;
    for (std::size_t head = 0; head < states.size() && goal == kNoGoal; ++head) {
      const State st = states[head];
      MoveList here;
      if (rules_.legal_moves(st.position, here) == 0) {
        goal = head;
        break;
      }
      for (const Move& m : here) {
        ReachSet child;
        const ProbeStatus s = lookup_set(impl_, m.child, n_ - m.gain(), child);
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
    found = goal != kNoGoal;
    pits.clear();
    if (!found)
      return ProbeStatus::kOk;
    for (std::size_t x = goal; x != 0; x = parent[x].first)
      pits.push_back(parent[x].second);
    std::reverse(pits.begin(), pits.end());
    return ProbeStatus::kOk;
  }

  // No finite ending keeps the target: it is 0, and only endless play reaches it. Walks on
  // through positions that keep it until one repeats (kRepetition) or the line is full.
  ProbeStatus play_endless() {
    if (need_ != 0) {
      impl_.note_error(n_,
                       impl_.slots[static_cast<std::size_t>(n_)]->path.string() +
                           ": a set holds a difference other than 0 that no line ending the "
                           "game reaches");
      return ProbeStatus::kCorruptTable;
    }
    std::vector<std::uint64_t> visited;
    while (!full()) {
      const std::uint64_t k = impl_.index_of(at_) * 2 + static_cast<std::uint64_t>(mover_);
      if (std::find(visited.begin(), visited.end(), k) != visited.end()) {
        out_.end = LineEnd::kRepetition;
        break;
      }
      visited.push_back(k);
      MoveList here;
      rules_.legal_moves(at_, here);
      const Move* keep = nullptr;
      for (const Move& m : here) {
        ReachSet child;
        const ProbeStatus s = lookup_set(impl_, m.child, n_ - m.gain(), child);
        if (s != ProbeStatus::kOk)
          return s;
        if (m.gain() == 0 && child.contains(child_target(m, need_))) {
          keep = &m;
          break;
        }
      }
      if (!keep) {
        impl_.note_error(n_,
                         impl_.slots[static_cast<std::size_t>(n_)]->path.string() +
                             ": a reachable set that no move or endless play realises");
        return ProbeStatus::kCorruptTable;
      }
      play(*keep);
    }
    return ProbeStatus::kOk;
  }

  const TableSet::Impl& impl_;
  const Rules& rules_;
  PrincipalLine& out_;
  const int max_plies_;
  Pits at_{};
  int mover_ = 0;
  int need_ = 0;  // what the player to move at `at_` must reach from here
  int n_ = 0;     // the seeds at `at_`
};

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
    LineBuilder line(*impl_, out, max_plies);
    line.start(position, n, target);
    s = line.extend();
    if (s != ProbeStatus::kOk)
      return s;
    if (out.end == LineEnd::kRepetition) {
      // Those exits may have led where only endless play is left, while another line ends the
      // game: endless play only where nothing else will do.
      std::vector<int> finite;
      Finite found = Finite::kNone;
      s = find_finite_line(*impl_, position, n, target, finite, found);
      if (s != ProbeStatus::kOk)
        return s;
      if (found == Finite::kFound) {
        line.start(position, n, target);
        line.play_pits(finite);
      }
    }
    line.finish();
    return ProbeStatus::kOk;
  } catch (...) {
    return ProbeStatus::kCorruptTable;
  }
}

}  // namespace sowdb
