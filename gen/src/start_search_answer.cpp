// What a start-position search proved, as an answer: the bounds of every move and of the
// value, the best move, the proved line; and the bounds known before the search.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "start_search_state.h"

namespace sowdb::gen::start_detail {

void StartSearch::know_tasks() {
  for (const KnownWorth& k : options_.known_worths) {
    for (Task& t : tasks_) {
      if (t.first_pit != k.pit)
        continue;
      if (k.continuation < 0) {
        // A move's bound holds for its own search; after an extra turn its upper bound holds
        // for each continuation (the move is worth the best of them), its lower for none.
        if (t.then_stones < 0)
          raise_to(t.lower, k.lower);
        lower_to(t.upper, k.upper);
      } else if (t.then_stones >= 0 && t.move->pit == k.continuation) {
        raise_to(t.lower, k.lower);
        lower_to(t.upper, k.upper);
      }
      if (t.lower > t.upper)
        throw InvalidRequest("the known bounds on the worth of pit " + std::to_string(k.pit) +
                             " are empty");
    }
  }
}

bool StartSearch::all_known() const {
  return std::all_of(
      tasks_.begin(), tasks_.end(), [](const Task& t) { return t.lower == t.upper; });
}

StartMove& StartSearch::slot(StartSolution& s, const Task& task) const {
  if (&s == &out_)
    return *task.move;
  for (std::size_t i = 0; i < out_.moves.size(); ++i) {
    const StartMove& m = out_.moves[i];
    if (task.move == &m)
      return s.moves[i];
    if (!m.continuations.empty() && task.move >= &m.continuations.front() &&
        task.move <= &m.continuations.back()) {
      return s.moves[i].continuations[static_cast<std::size_t>(task.move - &m.continuations[0])];
    }
  }
  throw std::logic_error("a task of no move");
}

void StartSearch::fill(StartSolution& s) const {
  for (const Task& t : tasks_) {
    StartMove& m = slot(s, t);
    m.lower = t.lower.load();
    // No move is worth more than the start's value: what the search of the start proved of it
    // bounds every move (value only).
    m.upper = std::min(t.upper.load(), std::max(root_upper_.load(), m.lower));
    m.worth = m.lower == m.upper ? m.lower : 0;  // 0: not known
  }
  for (StartMove& m : s.moves) {
    // A move with an extra turn is worth its best continuation; without one (the game ended)
    // its own search's value.
    if (!m.continuations.empty()) {
      m.lower = m.upper = -kMaxBoardStones - 1;
      for (const StartMove& c : m.continuations) {
        m.lower = std::max(m.lower, c.lower);
        m.upper = std::max(m.upper, c.upper);
      }
    }
    // What was known of the move before the search (its continuations may say less).
    for (const KnownWorth& k : options_.known_worths) {
      if (k.pit == m.pit && k.continuation < 0 &&
          std::max(m.lower, k.lower) <= std::min(m.upper, k.upper)) {
        m.lower = std::max(m.lower, k.lower);
        m.upper = std::min(m.upper, k.upper);
      }
    }
    m.worth = m.lower == m.upper ? m.lower : 0;
  }
  if (s.moves.empty()) {
    s.value = s.lower = s.upper = engine_.final_value(s.start);
    return;
  }
  s.lower = s.upper = -kMaxBoardStones - 1;
  for (const StartMove& m : s.moves) {
    s.lower = std::max(s.lower, m.lower);
    s.upper = std::max(s.upper, m.upper);
  }
  s.lower = std::max(s.lower, std::min(root_lower_.load(), s.upper));
  // The best move is known when one move is proved at least as good as every other can be.
  for (const StartMove& m : s.moves) {
    bool best = true;
    for (const StartMove& o : s.moves)
      best = best && (&o == &m || m.lower >= o.upper);
    if (best) {
      s.best = m.pit;
      break;
    }
  }
  if (s.lower == s.upper)
    s.value = s.lower;
}

void StartSearch::checkpoint() {
  if (!options_.checkpoint || !(options_.checkpoint_seconds > 0))
    return;
  if (Clock::now().time_since_epoch().count() < next_checkpoint_.load())
    return;
  // One at a time; a thread that finds another at it goes on searching.
  std::unique_lock lock(checkpoint_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || Clock::now().time_since_epoch().count() < next_checkpoint_.load())
    return;
  StartSolution s = out_;
  fill(s);
  s.nodes = nodes_.load();
  s.complete = false;
  // Gathering the table's positions reads the whole table (about a second at 2 GiB): at most a
  // tenth of the search's time goes to it, and the checkpoints between carry none.
  if (options_.keep_positions > 0 && Clock::now() >= next_gather_) {
    const Clock::time_point begin = Clock::now();
    s.proved = kept_positions();
    const Clock::time_point end = Clock::now();
    next_gather_ = end + 9 * (end - begin);
  }
  options_.checkpoint(s);
  // Counted from the end of this one, so that a slow writer never writes back to back.
  next_checkpoint_ = (Clock::now() + checkpoint_interval()).time_since_epoch().count();
}

StartSolution StartSearch::summary() {
  report(true);
  fill(out_);
  out_.nodes = nodes_.load();
  out_.complete = done_.load() == static_cast<int>(tasks_.size()) && !stopped_;
  // A finished search's answer is kept whole; its table's positions would cost writes that no
  // later search of it needs (a value-only solve of Kalah(6,4): 9% of its time).
  if (!out_.complete)
    out_.proved = kept_positions();
  if (out_.moves.empty())
    return out_;
  if (out_.complete) {
    // The lowest pit among equals.
    for (const StartMove& m : out_.moves) {
      if (m.lower == m.upper && m.worth == out_.value) {
        out_.best = m.pit;
        break;
      }
    }
  }
  if (out_.lower == out_.upper && options_.line_plies > 0)
    proved_line();
  return out_;
}

bool StartSearch::exact_value(const Searcher& searcher, const Pits& pos, int n, int& v) const {
  MoveList moves;
  if (engine_.legal_moves(pos, moves) == 0) {
    v = engine_.final_value(pos);
    return true;
  }
  if (n <= out_.tables_max) {
    int depth = 0;
    return tables_->value(pos, v, depth) == ProbeStatus::kOk;
  }
  const TableEntry e = searcher.entry(pos, n);
  if (!e.found || e.depth != kExact || e.lower != e.upper)
    return false;
  v = e.lower;
  return true;
}

void StartSearch::proved_line() {
  // A move is a best move when its worth, proved, equals the position's value, proved: no move
  // can be worth more than the value. Each step is checked so; nothing is searched.
  Searcher searcher(engine_, tables_, *table_, shared_values_);
  Pits pos = out_.start;
  int n = out_.stones;
  int v = out_.value;
  while (static_cast<int>(out_.line.size()) < options_.line_plies && n > out_.tables_max) {
    MoveList moves;
    if (engine_.legal_moves(pos, moves) == 0)
      return;
    const Move* chosen = nullptr;
    int chosen_value = 0;
    for (const Move& m : moves) {
      if (out_.line.empty()) {
        // The first move is the solution's best, whose worth (the value) the search proved.
        if (m.pit != out_.best)
          continue;
        chosen = &m;
        chosen_value = m.extra_turn ? v - m.gain() : m.gain() - v;
        break;
      }
      int cv = 0;
      if (exact_value(searcher, m.child, n - m.gain(), cv) && Rules::worth(m, cv) == v) {
        chosen = &m;
        chosen_value = cv;
        break;
      }
    }
    if (!chosen)
      return;
    out_.line.push_back(chosen->pit);
    pos = chosen->child;
    n -= chosen->gain();
    v = chosen_value;
  }
}

}  // namespace sowdb::gen::start_detail
