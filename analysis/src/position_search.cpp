// A position above the tables, answered by gen::solve_position within a budget, reported in the
// same struct as the tables' answer.
#include "sowdb/analysis/position_search.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "elapsed.h"
#include "sowdb/analysis/refusal.h"
#include "sowdb/analysis/start_solve.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/outcome.h"

namespace sowdb {
namespace {

using analysis_internal::Clock;
using analysis_internal::since;

// The game's outcome with the stores for a value in [lower, upper]: set when the bounds agree
// on the result (and then the final score of `lower`, which is exact when they meet).
bool outcome_of(const PositionReport& r, int lower, int upper, GameOutcome& out) {
  bool decided = false;
  std::string why;
  if (bounded_outcome(
          r.variant, lower, upper, r.store_mover, r.store_opponent, r.stones, out, decided, &why) !=
      OutcomeStatus::kOk)
    throw Refused(RefusalKind::kBadStores, why);
  return decided;
}

// The moves of `r.board` with the bounds the search proved, best first: a proved best move
// first, then by lower bound, upper bound and pit.
void put_moves(PositionReport& r, const Rules& engine, const gen::StartSolution& s) {
  MoveList legal;
  engine.legal_moves(r.board, legal);
  for (const Move& m : legal) {
    ReportedMove rm;
    rm.pit = m.pit;
    rm.gain = m.gain();
    rm.stored = m.stored;
    rm.captured = m.captured;
    rm.extra_turn = m.extra_turn;
    rm.after = m.child;
    rm.lower = -r.stones;
    rm.upper = r.stones;
    for (const gen::StartMove& sm : s.moves) {
      if (sm.pit == m.pit) {
        rm.lower = std::max(rm.lower, sm.lower);
        rm.upper = std::min(rm.upper, sm.upper);
      }
    }
    rm.worth = rm.exact() ? rm.lower : 0;
    GameOutcome o;
    rm.category_known = outcome_of(r, rm.lower, rm.upper, o);
    rm.category = o.result;
    r.moves.push_back(rm);
  }
  std::sort(r.moves.begin(), r.moves.end(), [&](const ReportedMove& a, const ReportedMove& b) {
    if ((a.pit == s.best) != (b.pit == s.best))
      return a.pit == s.best;
    if (a.lower != b.lower)
      return a.lower > b.lower;
    if (a.upper != b.upper)
      return a.upper > b.upper;
    return a.pit < b.pit;
  });
  r.best_proved = s.best >= 0 && !r.moves.empty() && r.moves.front().pit == s.best;
}

// The moves of `pits` played one after the other from `board` (each from the side of whoever
// moves then). ERRORS throws Refused (kInternal) for an illegal one: a line the search proved
// is legal.
std::vector<Move> replay(const Rules& engine, const Pits& board, const std::vector<int>& pits) {
  std::vector<Move> moves;
  Pits at = board;
  for (const int pit : pits) {
    Move m;
    if (!engine.play(at, pit, m))
      throw Refused(RefusalKind::kInternal, "the search's line plays an illegal move");
    moves.push_back(m);
    at = m.child;
  }
  return moves;
}

// The proved best moves the search found (gen's line), then the tables' line from the position
// they lead to when the tables hold it.
void put_line(PositionReport& r, const TableSet& set, const gen::StartSolution& s, int max_plies) {
  const Rules& engine = set.engine();
  r.line = PrincipalLine{};
  r.line.last = r.board;
  if (r.moves.empty()) {
    r.line.end = LineEnd::kGameOver;
    return;
  }
  r.line.end = LineEnd::kMaxPlies;
  int mover = 0;
  int seeds = r.stones;
  std::vector<int> pits = s.line;
  if (pits.empty() && r.best_proved && max_plies > 0)
    pits.push_back(r.moves.front().pit);  // a search that gives no line proved its first move
  for (const Move& m : replay(engine, r.board, pits)) {
    LineStep step;
    step.mover = mover;
    step.pit = m.pit;
    step.gain = m.gain();
    step.extra_turn = m.extra_turn;
    step.before = r.line.last;
    r.line.steps.push_back(step);
    r.line.net_gain += mover == 0 ? m.gain() : -m.gain();
    r.line.last = m.child;
    if (!m.extra_turn)
      mover ^= 1;
    seeds -= m.gain();
  }
  r.line.last_mover = mover;
  const int plies = static_cast<int>(r.line.steps.size());
  MoveList left;
  if (engine.legal_moves(r.line.last, left) == 0) {
    r.line.end = LineEnd::kGameOver;
    return;
  }
  r.line_proved = plies >= max_plies;
  if (plies >= max_plies || seeds > set.max_stones() || !r.exact())
    return;
  PrincipalLine rest;
  const ProbeStatus st = set.principal_line(r.line.last, rest, max_plies - plies);
  if (st != ProbeStatus::kOk)
    throw Refused(refusal_of(st, set, r.line.last));
  for (LineStep step : rest.steps) {
    step.mover ^= mover;
    r.line.steps.push_back(step);
  }
  r.line.end = rest.end;
  r.line.last = rest.last;
  r.line.last_mover = rest.last_mover ^ mover;
  r.line.net_gain += mover ? -rest.net_gain : rest.net_gain;
  r.line_proved = true;
}

// Appends to `line` the best moves the proof store proves from `pos` (n seeds) on, up to
// `plies` pits in all, while the position is above the tables' top layer `tables_max`: each
// step is a position whose value is exact and whose best move is proved in the store.
void store_line(ProofStore& store,
                const Rules& engine,
                Pits pos,
                int n,
                int tables_max,
                int plies,
                std::vector<int>& line) {
  while (static_cast<int>(line.size()) < plies && n > tables_max) {
    const std::optional<ProofRecord> rec = store.lookup(pos);
    if (!rec || !rec->value.exact() || rec->best_pit < 0)
      return;
    Move m;
    if (!engine.play(pos, rec->best_pit, m))
      return;
    line.push_back(m.pit);
    pos = m.child;
    n -= m.gain();
  }
}

// The answer the proof store holds for `board`, when it is as complete as the search would
// make it: the value exact and, with `worths`, every move's worth.
std::optional<gen::StartSolution> from_store(const std::optional<ProofRecord>& rec,
                                             const Rules& engine,
                                             const Pits& board,
                                             int stones,
                                             bool worths) {
  if (!rec || !rec->value.exact())
    return std::nullopt;
  gen::StartSolution s;
  s.start = board;
  s.stones = stones;
  s.lower = s.upper = s.value = rec->value.lower;
  s.best = rec->best_pit;
  MoveList legal;
  engine.legal_moves(board, legal);
  for (const Move& m : legal) {
    gen::StartMove sm;
    sm.pit = m.pit;
    sm.gain = m.gain();
    sm.extra_turn = m.extra_turn;
    sm.lower = -stones;
    sm.upper = stones;
    if (const auto& b = rec->moves[static_cast<std::size_t>(m.pit)]) {
      sm.lower = std::max<int>(sm.lower, b->lower);
      sm.upper = std::min<int>(sm.upper, b->upper);
    }
    if (sm.lower == sm.upper)
      sm.worth = sm.lower;
    else if (worths)
      return std::nullopt;
    s.moves.push_back(sm);
  }
  if (legal.size > 0 && s.best < 0)
    return std::nullopt;
  s.complete = true;
  return s;
}

// Adds to what the search proved of its position what the store's record `rec` proved before
// (a book's value and best move, bounds of an earlier search stopped early): both are proofs, so
// each bound is the tighter of the two. A record that contradicts the search is left out.
void add_known(const ProofRecord& rec, gen::StartSolution& s) {
  const int lower = std::max(s.lower, static_cast<int>(rec.value.lower));
  const int upper = std::min(s.upper, static_cast<int>(rec.value.upper));
  if (lower > upper)
    return;
  for (const gen::StartMove& m : s.moves) {
    const auto& b = rec.moves[static_cast<std::size_t>(m.pit)];
    if (b && (std::max<int>(m.lower, b->lower) > std::min<int>(m.upper, b->upper)))
      return;
  }
  s.lower = lower;
  s.upper = upper;
  if (lower == upper) {
    s.value = lower;
    if (s.best < 0)
      s.best = rec.best_pit;
  }
  for (gen::StartMove& m : s.moves) {
    if (const auto& b = rec.moves[static_cast<std::size_t>(m.pit)]) {
      m.lower = std::max<int>(m.lower, b->lower);
      m.upper = std::min<int>(m.upper, b->upper);
      if (m.lower == m.upper)
        m.worth = m.lower;
    }
  }
}

// Keeps what the search proved of `board` in the store (nothing when it proved nothing), and
// each position of its proved line above the tables (`tables_max`) with its value and best move,
// so that the line can be read again from the store.
void keep(ProofStore& store,
          const Rules& engine,
          const Pits& board,
          int stones,
          int tables_max,
          const gen::StartSolution& s) {
  if (s.lower <= -stones && s.upper >= stones)
    return;
  ProofRecord rec;
  rec.position = board;
  rec.value = ProofBounds::of(std::max(s.lower, -stones), std::min(s.upper, stones));
  rec.best_pit = s.best;
  for (const gen::StartMove& m : s.moves)
    rec.moves[static_cast<std::size_t>(m.pit)] = ProofBounds::of(m.lower, m.upper);
  rec.work = s.nodes;
  store.store(rec);
  if (s.lower != s.upper)
    return;
  const std::vector<Move> line = replay(engine, board, s.line);
  int n = stones;
  int v = s.value;
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    const Move& m = line[i];
    // The value of the position the move leads to, for its mover.
    v = m.extra_turn ? v - m.gain() : m.gain() - v;
    n -= m.gain();
    if (n <= tables_max)
      return;
    ProofRecord step;
    step.position = m.child;
    step.value = ProofBounds::of(v, v);
    step.best_pit = line[i + 1].pit;
    step.moves[static_cast<std::size_t>(step.best_pit)] = ProofBounds::of(v, v);
    step.work = s.nodes;
    store.store(step);
  }
}

// The report of `board` before any search, once the request is checked: the objective, the
// budget, the seeds a search can take, stores that go with the board.
PositionReport checked_report(const TableSet& set,
                              const Pits& board,
                              int store_mover,
                              int store_opponent,
                              const SearchBudget& budget) {
  if (set.objective() != Objective::kCompetitive)
    throw Refused(refusal_of(ProbeStatus::kWrongObjective, set, board));
  if (budget.threads < 0 || budget.hash_mib < 0 || !(budget.seconds >= 0) ||
      !std::isfinite(budget.seconds)) {
    throw Refused(RefusalKind::kBadRequest,
                  "a search budget needs 0 or more seconds, threads and MiB");
  }
  PositionReport r;
  r.variant = set.variant();
  r.board = board;
  r.store_mover = store_mover;
  r.store_opponent = store_opponent;
  r.method = AnswerMethod::kSearch;
  const Rules& engine = set.engine();
  for (int i = 0; i < engine.board_pits(); ++i)
    r.stones += board[static_cast<std::size_t>(i)];
  if (r.stones > 127) {
    Refusal refusal{RefusalKind::kTooManySeeds,
                    "a search keeps values of -128..127 only, and the position has " +
                        std::to_string(r.stones) + " seeds on the board"};
    refusal.seeds = r.stones;
    refusal.max_seeds = set.max_stones();
    throw Refused(refusal);
  }
  // Stores that cannot go with this board are refused before any search.
  GameOutcome check;
  outcome_of(r, 0, 0, check);
  return r;
}

// The search of `board` (`stones` seeds) with `options`, from what the store's record `known`
// proved before (reset when it is of no use): the search starts from its bounds, and they join
// the answer. Refusals as search_position's.
gen::StartSolution search_from(const Rules& engine,
                               const Pits& board,
                               int stones,
                               int threads,
                               gen::SolveStartOptions& options,
                               std::optional<ProofRecord>& known) {
  if (known) {
    options.known_lower = std::max<int>(known->value.lower, -stones);
    options.known_upper = std::min<int>(known->value.upper, stones);
    if (options.known_lower > options.known_upper)
      known.reset();
  }
  if (!known) {
    options.known_lower = -stones;
    options.known_upper = stones;
  }
  gen::StartSolution s;
  try {
    s = gen::run_with_threads(
        threads, [&] { return gen::solve_position(engine.rule_set(), board, options); });
  } catch (const gen::InvalidRequest& e) {
    throw Refused(RefusalKind::kBadRequest, e.what());
  } catch (const Refused&) {
    throw;
  } catch (...) {
    throw Refused(refusal_of(std::current_exception()));
  }
  if (known)
    add_known(*known, s);
  return s;
}

}  // namespace

PositionReport search_position(const TableSet& set,
                               const Pits& board,
                               int store_mover,
                               int store_opponent,
                               int max_plies,
                               const SearchBudget& budget) {
  PositionReport r = checked_report(set, board, store_mover, store_opponent, budget);
  const Rules& engine = set.engine();
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(budget.seconds));
  std::atomic<std::uint64_t> positions{0};
  std::atomic<int> why{0};  // 1: time, 2: positions, 3: the caller
  // When the value and a best move were proved (-1: not yet); progress calls come one at a time.
  double value_seconds = -1;
  double best_seconds = -1;
  gen::SolveStartOptions options;
  options.tables = &set;
  options.worths = budget.worths;
  options.value_first = true;
  options.preload_limit = budget.preload_limit;
  options.preload_delay = budget.preload_delay;
  options.preloaded = budget.preloaded;
  options.line_plies = max_plies;
  options.table_bits = start_hash_bits(
      budget.hash_mib > 0 ? budget.hash_mib
                          : start_hash_default_mib(r.stones, set.max_stones(), budget.worths));
  options.progress = [&](const gen::SolveProgress& p) {
    positions = p.nodes;
    if (p.lower == p.upper && value_seconds < 0)
      value_seconds = since(start);
    // Past the moves' phase with the value proved, the move that reaches it is known.
    if (p.lower == p.upper && p.phase == gen::SolvePhase::kWorths && best_seconds < 0)
      best_seconds = since(start);
    if (budget.progress) {
      SearchProgress sp;
      sp.lower = std::max(p.lower, -r.stones);
      sp.upper = std::min(p.upper, r.stones);
      sp.positions = p.nodes;
      sp.seconds = since(start);
      budget.progress(sp);
    }
  };
  options.stop = [&] {
    if (budget.seconds > 0 && Clock::now() >= deadline)
      why = 1;
    else if (budget.positions > 0 && positions.load() >= budget.positions)
      why = 2;
    else if (budget.stop && budget.stop())
      why = 3;
    return why.load() != 0;
  };
  std::optional<ProofRecord> known;
  std::optional<gen::StartSolution> stored;
  if (budget.proofs && r.stones > set.max_stones()) {
    known = budget.proofs->lookup(board);
    stored = from_store(known, engine, board, r.stones, budget.worths);
  }
  gen::StartSolution s;
  if (stored) {
    s = std::move(*stored);
  } else {
    // What the store holds already (a book's value without the worths asked for) answers at
    // once; the search goes on from it.
    s = search_from(engine, board, r.stones, budget.threads, options, known);
    if (known) {
      if (known->value.exact() && s.lower == s.upper) {
        value_seconds = 0;
        if (known->best_pit >= 0 && known->best_pit == s.best)
          best_seconds = 0;
      }
    }
    // Above the tables only: a position they hold answers at once anyway. One whose every move
    // leads into them (by_tables) is kept too, so that a book holds every position it settled.
    if (budget.proofs && r.stones > set.max_stones())
      keep(*budget.proofs, engine, board, r.stones, set.max_stones(), s);
  }
  if (budget.proofs && s.lower == s.upper && static_cast<int>(s.line.size()) < max_plies) {
    // The line goes on through positions proved before, then the tables'.
    Pits pos = board;
    int n = r.stones;
    for (const Move& m : replay(engine, board, s.line)) {
      pos = m.child;
      n -= m.gain();
    }
    store_line(*budget.proofs, engine, pos, n, set.max_stones(), max_plies, s.line);
  }
  r.lower = std::max(s.lower, -r.stones);
  r.upper = std::min(s.upper, r.stones);
  r.value = r.exact() ? r.lower : 0;
  r.outcome_known = outcome_of(r, r.lower, r.upper, r.outcome);
  put_moves(r, engine, s);
  SearchFacts facts;
  facts.positions = s.nodes;
  facts.seconds = since(start);
  facts.complete = s.complete;
  static const char* const kWhy[] = {"", "time_limit", "positions", "stopped"};
  facts.stopped_by = s.complete ? "" : kWhy[why.load()];
  if (!s.complete && facts.stopped_by.empty())
    facts.stopped_by = "stopped";
  facts.tables_max = set.max_stones();
  facts.stored = stored.has_value();
  if (r.exact())
    facts.value_seconds = stored ? 0 : value_seconds >= 0 ? value_seconds : facts.seconds;
  if (r.best_proved)
    facts.best_seconds = stored ? 0 : best_seconds >= 0 ? best_seconds : facts.seconds;
  if (!r.best_proved && !r.moves.empty())
    facts.best_found = r.moves.front().pit;
  r.search = facts;
  put_line(r, set, s, max_plies);
  return r;
}

}  // namespace sowdb
