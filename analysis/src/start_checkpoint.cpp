// A solve's checkpoint in the proof store: records written from what the search proved, and
// read back as the bounds it starts from.
#include "start_checkpoint.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace sowdb {
namespace {

// The bounds `b` (a record's, for a position of `n` seeds) as integers, open ends replaced by
// the seeds on the board (values and worths never pass them).
std::pair<int, int> closed(const ProofBounds& b, int n) {
  return {b.lower == -128 ? -n : std::max<int>(b.lower, -n),
          b.upper == 127 ? n : std::min<int>(b.upper, n)};
}

// The record of bounds [lower, upper] on a position of `n` seeds.
ProofBounds bounds(int lower, int upper, int n) {
  return ProofBounds::of(std::max(lower, -n), std::min(upper, n));
}

bool proves_something(const ProofRecord& r, int n) {
  const ProofBounds open = bounds(-n, n, n);
  if (!(r.value == open))
    return true;
  return std::any_of(r.moves.begin(), r.moves.end(), [&](const std::optional<ProofBounds>& b) {
    return b && !(*b == open);
  });
}

// The pit of a move proved at least as good as every other can be; -1: none.
int proved_best(const std::vector<gen::StartMove>& moves) {
  for (const gen::StartMove& m : moves) {
    const bool best = std::all_of(moves.begin(), moves.end(), [&](const gen::StartMove& o) {
      return &o == &m || m.lower >= o.upper;
    });
    if (best)
      return m.pit;
  }
  return -1;
}

// The seeds on `board` (pits 2P and beyond are 0 on every board of the store).
int seeds_of(const Pits& board) {
  int n = 0;
  for (const std::uint8_t v : board)
    n += v;
  return n;
}

// One entry per position (a store read whole gives a position once per record of it), its
// bounds the intersection of the records'; a position whose records contradict each other (a
// bug of whoever wrote them) is left out, and the result is false.
bool merge_positions(std::vector<gen::ProvedPosition>& positions) {
  std::sort(positions.begin(),
            positions.end(),
            [](const gen::ProvedPosition& a, const gen::ProvedPosition& b) {
              return a.position < b.position;
            });
  bool sound = true;
  std::size_t out = 0;
  for (std::size_t i = 0; i < positions.size();) {
    gen::ProvedPosition p = positions[i];
    std::size_t j = i + 1;
    for (; j < positions.size() && positions[j].position == p.position; ++j) {
      p.lower = std::max(p.lower, positions[j].lower);
      p.upper = std::min(p.upper, positions[j].upper);
      p.work = std::max(p.work, positions[j].work);
    }
    if (p.lower <= p.upper)
      positions[out++] = p;
    else
      sound = false;
    i = j;
  }
  positions.resize(out);
  return sound;
}

}  // namespace

SolveCheckpoint::SolveCheckpoint(const std::filesystem::path& root,
                                 const RuleSet& rules,
                                 const Pits& position,
                                 int stones,
                                 double seconds,
                                 std::vector<std::string>& notes)
    : store_(proof_store_path(root, rules),
             rules,
             [&] {
               ProofStoreOptions o;
               o.on_event = [&](const ProofStoreEvent& e) {
                 if (e.kind == ProofStoreEvent::Kind::kSetAside) {
                   notes.push_back("the proof store " + e.path.string() + " failed a check (" +
                                   e.reason + "): set aside as " + e.set_aside_as.string() +
                                   ", a fresh one keeps the checkpoints");
                 } else if (e.kind == ProofStoreEvent::Kind::kReadOnly ||
                            e.kind == ProofStoreEvent::Kind::kUnusable) {
                   notes.push_back(e.reason + ": no checkpoint of the search is kept");
                 }
               };
               return o;
             }()),
      engine_(rules),
      position_(position),
      stones_(stones),
      seconds_(seconds) {}

bool SolveCheckpoint::read_worths(std::vector<gen::KnownWorth>& known) {
  bool sound = true;
  // Each (move, continuation) once, its bounds the intersection of what every record says.
  const auto add = [&](int pit, int continuation, int lower, int upper) {
    for (gen::KnownWorth& k : known) {
      if (k.pit == pit && k.continuation == continuation) {
        k.lower = std::max(k.lower, lower);
        k.upper = std::min(k.upper, upper);
        sound = sound && k.lower <= k.upper;
        return;
      }
    }
    known.push_back(gen::KnownWorth{pit, continuation, lower, upper});
  };
  MoveList first;
  engine_.legal_moves(position_, first);
  const std::optional<ProofRecord> root = store_.lookup(position_);
  for (const Move& m : first) {
    if (root) {
      if (const auto& b = root->moves[static_cast<std::size_t>(m.pit)]) {
        const auto [lo, hi] = closed(*b, stones_);
        add(m.pit, -1, lo, hi);
      }
    }
    MoveList then;
    if (!m.extra_turn || engine_.legal_moves(m.child, then) == 0)
      continue;
    // The position the extra turn leads to, for the same player: its value plus the move's
    // gain is the move's worth, each continuation's worth there plus the gain a continuation's.
    const std::optional<ProofRecord> rec = store_.lookup(m.child);
    if (!rec)
      continue;
    const int n = stones_ - m.gain();
    const auto [lo, hi] = closed(rec->value, n);
    add(m.pit, -1, m.gain() + lo, m.gain() + hi);
    for (const Move& c : then) {
      if (const auto& b = rec->moves[static_cast<std::size_t>(c.pit)]) {
        const auto [clo, chi] = closed(*b, n);
        add(m.pit, c.pit, m.gain() + clo, m.gain() + chi);
      }
    }
  }
  return sound;
}

StartCheckpoint SolveCheckpoint::resume(gen::SolveStartOptions& options,
                                        std::vector<std::string>& notes) {
  StartCheckpoint c;
  c.store = store_.path().string();
  c.seconds = seconds_;
  c.lower = -stones_;
  c.upper = stones_;
  std::vector<gen::KnownWorth> known;
  const std::optional<ProofRecord> root = store_.lookup(position_);
  if (root)
    std::tie(c.lower, c.upper) = closed(root->value, stones_);
  if (c.lower > c.upper || !read_worths(known)) {
    notes.push_back("the proof store " + c.store +
                    " holds records of this position that contradict each other: they are not "
                    "used");
    c.lower = -stones_;
    c.upper = stones_;
    return c;
  }
  // Count the searches the bounds reach: one per first move, or per continuation after an
  // extra turn.
  MoveList first;
  engine_.legal_moves(position_, first);
  for (const Move& m : first) {
    MoveList then;
    if (m.extra_turn)
      engine_.legal_moves(m.child, then);
    for (int j = 0; j < std::max(1, then.size); ++j) {
      const int continuation = then.size > 0 ? then.moves[j].pit : -1;
      ++c.total;
      for (const gen::KnownWorth& k : known) {
        if (k.pit == m.pit && k.continuation == continuation) {
          ++c.known;
          c.exact += k.lower == k.upper ? 1 : 0;
        }
      }
    }
  }
  // Every position of the board the store holds bounds on, for the search's table, when the
  // position was searched before (its record is there) and is not known whole: the proofs
  // inside the first moves' searches that a stopped search had finished, and any other
  // search's of the same rules (a book's). WHY not for every solve: it reads the whole file
  // (256 MiB by default). A store that cannot be read gives none.
  options.known_positions.clear();
  const bool whole = c.lower == c.upper && c.exact == c.total;
  if (root && !whole) {
    store_.for_each([&](const ProofRecord& r) {
      const int n = seeds_of(r.position);
      if (n > stones_ || (r.value.lower == -128 && r.value.upper == 127))
        return;
      const auto [lo, hi] = closed(r.value, n);
      options.known_positions.push_back(gen::ProvedPosition{r.position, lo, hi, r.work});
    });
    if (!merge_positions(options.known_positions)) {
      notes.push_back("the proof store " + c.store +
                      " holds records of a position that contradict each other: they are not "
                      "used");
    }
  }
  c.positions = options.known_positions.size();
  c.resumed = c.lower > -stones_ || c.upper < stones_ || !known.empty() || c.positions > 0;
  options.known_lower = c.lower;
  options.known_upper = c.upper;
  options.known_worths = std::move(known);
  return c;
}

void SolveCheckpoint::write(const gen::StartSolution& s) {
  if (!store_.writable())
    return;
  ++writes_;
  ProofRecord root;
  root.position = position_;
  root.value = bounds(s.lower, s.upper, stones_);
  root.best_pit = s.best;
  for (const gen::StartMove& m : s.moves)
    root.moves[static_cast<std::size_t>(m.pit)] = bounds(m.lower, m.upper, stones_);
  root.work = s.nodes;
  if (proves_something(root, stones_)) {
    store_.store(root);
  } else if (!s.proved.empty()) {
    // Nothing proved of the position itself yet, but of positions below it: its record, bounds
    // that say nothing, tells a later solve of it that the store holds them (resume).
    ProofRecord marker;
    marker.position = position_;
    marker.value = bounds(-stones_, stones_, stones_);
    marker.work = s.nodes;
    store_.store(marker);
  }
  // After an extra turn, the position it leads to: its value for the same player is the move's
  // worth less its gain, each of its moves' worth a continuation's less the gain.
  for (const gen::StartMove& m : s.moves) {
    Move played;
    if (m.continuations.empty() || !engine_.play(position_, m.pit, played))
      continue;
    const int n = stones_ - m.gain;
    ProofRecord then;
    then.position = played.child;
    then.value = bounds(m.lower - m.gain, m.upper - m.gain, n);
    std::vector<gen::StartMove> shifted = m.continuations;
    for (gen::StartMove& c : shifted) {
      c.lower -= m.gain;
      c.upper -= m.gain;
      then.moves[static_cast<std::size_t>(c.pit)] = bounds(c.lower, c.upper, n);
    }
    then.best_pit = proved_best(shifted);
    then.work = s.nodes;
    if (proves_something(then, n))
      store_.store(then);
  }
  // The search's costliest proofs inside the first moves, so that a search stopped in the
  // middle of one does not start it from nothing. Bounds only: the table's move is the
  // search's guess, not a move proved best.
  for (const gen::ProvedPosition& p : s.proved) {
    ProofRecord r;
    r.position = p.position;
    const int n = seeds_of(p.position);
    r.value = bounds(p.lower, p.upper, n);
    r.work = p.work;
    if (proves_something(r, n))
      store_.store(r);
  }
  if (!s.proved.empty())
    kept_ = s.proved.size();
}

}  // namespace sowdb
