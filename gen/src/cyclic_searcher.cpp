#include "cyclic_searcher.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"

namespace sowdb::gen {
namespace {

// The bit width of the positions a search expanded: how much an entry cost.
std::uint8_t effort(std::uint64_t work) {
  return static_cast<std::uint8_t>(std::bit_width(work));
}

}  // namespace

CyclicTable::CyclicTable(int bits) {
  bits = std::clamp(bits, 2, 40);
  entries_ = std::size_t{1} << bits;
  shift_ = 64 - (bits - 2);
  // Fresh pages read as zero, an empty slot (key1 0): only the pages a search touches cost
  // anything (a table written slot by slot cost a 2^23-entry table 0.4 s a call). Huge pages
  // up to 512 MiB, as TranspositionTable.
  pages_ = std::make_unique<PageMapping>(bytes(), bytes() <= (std::size_t{512} << 20), false);
  slots_ = static_cast<Slot*>(pages_->data());
}

CyclicEntry CyclicTable::find(std::uint64_t key) const {
  const Slot* b = &slots_[bucket(key)];
  for (int i = 0; i < 4; ++i) {
    if (b[i].key1 == key + 1) {
      const Slot& s = b[i];
      return {true,
              s.lower,
              s.upper,
              s.best,
              s.unknown_beta,
              s.unknown_depth,
              s.estimate,
              s.unknown_horizon != 0};
    }
  }
  return {};
}

CyclicTable::Slot& CyclicTable::slot_for(std::uint64_t key, std::uint64_t work) {
  Slot* b = &slots_[bucket(key)];
  Slot* victim = nullptr;
  for (int i = 0; i < 4; ++i) {
    if (b[i].key1 == key + 1)
      return b[i];
    if (b[i].key1 == 0) {
      victim = &b[i];
      break;
    }
    if (!victim || b[i].work < victim->work)
      victim = &b[i];
  }
  // A new key: the entry that cost the least gives way. Its bounds are lost, never mixed.
  *victim = Slot{};
  victim->key1 = key + 1;
  victim->work = effort(work);
  return *victim;
}

void CyclicTable::prove(std::uint64_t key, int lower, int upper, int best, std::uint64_t work) {
  Slot& s = slot_for(key, work);
  s.lower = static_cast<std::int8_t>(std::max<int>(s.lower, std::max(lower, -128)));
  s.upper = static_cast<std::int8_t>(std::min<int>(s.upper, std::min(upper, 127)));
  s.best = static_cast<std::int8_t>(best);
  s.work = std::max(s.work, effort(work));
}

void CyclicTable::unknown(std::uint64_t key,
                          int beta,
                          int depth,
                          bool horizon,
                          int estimate,
                          int best,
                          std::uint64_t work) {
  Slot& s = slot_for(key, work);
  s.unknown_horizon = horizon ? 1 : 0;
  s.unknown_beta = static_cast<std::int8_t>(beta);
  s.unknown_depth = static_cast<std::uint8_t>(depth);
  s.estimate = static_cast<std::int8_t>(estimate);
  s.best = static_cast<std::int8_t>(best);
  s.work = std::max(s.work, effort(work));
}

CyclicSearcher::CyclicSearcher(const Rules& rules,
                               const TableSet* tables,
                               const TableValues* values,
                               CyclicTable& table,
                               bool endless)
    : rules_(rules),
      tables_(tables),
      values_(tables ? values : nullptr),
      table_(table),
      endless_(endless),
      tables_max_(tables ? tables->max_stones() : -1),
      keys_(rules.board_pits()) {}

std::uint64_t CyclicSearcher::key_of(const Pits& pos, int n) const {
  // Exact while the keys fit 64 bits, which cyclic_search.cpp checks before it searches.
  return keys_.key(pos, n);
}

int CyclicSearcher::probe(const Pits& pos, int n) const {
  // A layer not read yet (values read beside the searches: PreloadedValues::read_beside) is
  // probed through the tables.
  if (const std::int8_t* layer = values_ ? values_->layer(n) : nullptr) {
    const int v = layer[index_of(pos)];
    if (v != kRecomputeValue)
      return v;
    const int r = recompute(pos, n);
    if (r != kRecomputeValue)
      return r;
  }
  int v = 0;
  const ProbeStatus s = tables_->value(pos, v);
  if (s != ProbeStatus::kOk)
    throw std::runtime_error(tables_->explain(s, pos));
  return v;
}

int CyclicSearcher::recompute(const Pits& pos, int n) const {
  // A recompute entry's value is the best worth of its moves (true values obey that, cycles or
  // not); a child that is itself a recompute entry, or of a layer not read yet, sends the lookup
  // to the tables' own probe.
  MoveList moves;
  if (rules_.legal_moves(pos, moves) == 0)
    return rules_.final_value(pos);
  int best = -kMaxBoardStones - 1;
  for (const Move& m : moves) {
    const std::int8_t* layer = values_->layer(n - m.gain());
    const int v = layer ? layer[index_of(m.child)] : kRecomputeValue;
    if (v == kRecomputeValue)
      return kRecomputeValue;
    best = std::max(best, Rules::worth(m, v));
  }
  return best;
}

void CyclicSearcher::bounds(const Pits& pos, int n, int& lower, int& upper) const {
  lower = -n;
  upper = n;
  if (const CyclicEntry e = table_.find(key_of(pos, n)); e.found) {
    lower = std::max(lower, e.lower);
    upper = std::min(upper, e.upper);
  }
}

TestResult CyclicSearcher::test(const Pits& pos, int n, int beta, int depth, int& value) {
  if (provisional_.empty())
    provisional_.resize(std::size_t{1} << kProvisionalBits);
  const Result r = search(pos, n, key_of(pos, n), beta, std::min(depth, kMaxDepth), 0);
  value = r.value;
  return r.result;
}

int CyclicSearcher::repeated(std::uint64_t key, int n, int ply) const {
  // Seeds never come back to the board, so a repetition lies within the run of the path that
  // has this position's seed count.
  for (int j = ply - 2; j >= 0 && path_n_[static_cast<std::size_t>(j)] == n; j -= 2) {
    if (path_key_[static_cast<std::size_t>(j)] == key)
      return j;
  }
  return -1;
}

// One node of a test: its steps share a dozen locals that a split would pass around.
// NOLINTNEXTLINE(readability-function-size)
CyclicSearcher::Result CyclicSearcher::search(
    const Pits& pos, int n, std::uint64_t key, int beta, int depth, int ply) {
  const std::uint64_t nodes_before = nodes_;
  if ((++nodes_ & 0xFF) == 0 && tick_)
    tick_();
  MoveList moves;
  if (rules_.legal_moves(pos, moves) == 0) {
    const int v = rules_.final_value(pos);
    return {v, v >= beta ? TestResult::kHigh : TestResult::kLow, kNoLow, -1};
  }
  int lower = -n;
  int upper = n;
  const CyclicEntry e = table_.find(key);
  if (e.found) {
    lower = std::max(lower, e.lower);
    upper = std::min(upper, e.upper);
  }
  if (lower >= beta)
    return {lower, TestResult::kHigh, kNoLow, -1};
  if (upper < beta)
    return {upper, TestResult::kLow, kNoLow, -1};
  if (const int a = repeated(key, n, ply); a >= 0) {
    // The play can go round for ever from the ancestor: endless play, 0, for this path only.
    if (!endless_)
      return {std::clamp(0, lower, upper), TestResult::kUnknown, kNoLow, -1};
    return {0, 0 >= beta ? TestResult::kHigh : TestResult::kLow, a, a};
  }
  if (reuse_) {
    const Provisional& p = provisional(key, ply);
    if (p.key1 == key + 1 && p.parity == (ply & 1) && p.beta == beta && p.high < ply &&
        path_frame_[static_cast<std::size_t>(p.high)] == p.frame)
      return {p.value, p.result, p.low, p.high};
  }
  if (depth == 0) {
    horizon_hit_ = true;
    return {std::clamp(0, lower, upper), TestResult::kUnknown, kNoLow, -1};
  }
  if (cache_unknown_ && e.found && e.unknown_depth >= depth && e.unknown_beta == beta) {
    // The same test, as deep or deeper, was not decided: not on this path either (or, at
    // worst, a proof that a repetition on this path would have given is missed).
    horizon_hit_ = horizon_hit_ || e.unknown_horizon;
    return {e.estimate, TestResult::kUnknown, kNoLow, -1};
  }
  path_key_[static_cast<std::size_t>(ply)] = key;
  path_n_[static_cast<std::size_t>(ply)] = n;
  path_frame_[static_cast<std::size_t>(ply)] = ++frames_;

  struct Child {
    std::uint64_t key = 0;
    int score = 0;
  };
  std::array<Child, kMaxPitsPerSide> child{};
  std::array<int, kMaxPitsPerSide> order{};
  int open = 0;
  int ceiling = -kMaxBoardStones - 1;  // the largest upper bound of the moves refuted so far
  int ceiling_pit = -1;
  // Settles what the tables, the end of the game and the table know of each move first.
  for (int i = 0; i < moves.size; ++i) {
    const Move& m = moves.moves[i];
    const int g = m.gain();
    const int nn = n - g;
    int lo = -nn;
    int hi = nn;
    if (nn <= tables_max_) {
      lo = hi = probe(m.child, nn);
    } else if (rules_.own_seeds(m.child) == 0) {
      lo = hi = rules_.final_value(m.child);
    } else {
      child[static_cast<std::size_t>(i)].key = key_of(m.child, nn);
      if (const CyclicEntry c = table_.find(child[static_cast<std::size_t>(i)].key); c.found) {
        lo = std::max(lo, c.lower);
        hi = std::min(hi, c.upper);
      }
    }
    const int worth_lo = g - hi;
    const int worth_hi = g - lo;
    if (worth_lo >= beta) {
      table_.prove(key, worth_lo, n, m.pit, nodes_ - nodes_before);
      return {worth_lo, TestResult::kHigh, kNoLow, -1};
    }
    if (worth_hi < beta) {
      if (worth_hi > ceiling) {
        ceiling = worth_hi;
        ceiling_pit = m.pit;
      }
      continue;
    }
    child[static_cast<std::size_t>(i)].score =
        (m.pit == e.best ? 1 << 20 : 0) + (g << 10) + worth_lo + worth_hi + 512;
    order[static_cast<std::size_t>(open++)] = i;
  }
  for (int i = 1; i < open; ++i) {
    for (int j = i; j > 0 && child[order[j]].score > child[order[j - 1]].score; --j)
      std::swap(order[j], order[j - 1]);
  }
  const bool horizon_before = horizon_hit_;
  horizon_hit_ = false;
  int low = kNoLow;
  int high = -1;
  bool unknown = false;
  int estimate = -kMaxBoardStones - 1;
  int estimate_pit = -1;
  for (int k = 0; k < open; ++k) {
    const int i = order[static_cast<std::size_t>(k)];
    const Move& m = moves.moves[i];
    const int g = m.gain();
    const Result r = search(
        m.child, n - g, child[static_cast<std::size_t>(i)].key, g - beta + 1, depth - 1, ply + 1);
    const int w = g - r.value;
    if (r.result == TestResult::kLow) {
      horizon_hit_ = horizon_before || horizon_hit_;
      // The child is worth at most r.value to its mover: this move is worth at least w >= beta.
      if (r.low >= ply) {
        table_.prove(key, w, n, m.pit, nodes_ - nodes_before);
        return {w, TestResult::kHigh, kNoLow, -1};
      }
      return keep(key, ply, beta, {w, TestResult::kHigh, r.low, r.high});
    }
    if (r.result == TestResult::kHigh) {
      low = std::min(low, r.low);
      high = std::max(high, r.high);
      if (w > ceiling) {
        ceiling = w;
        ceiling_pit = m.pit;
      }
    } else {
      unknown = true;
      if (w > estimate) {
        estimate = w;
        estimate_pit = m.pit;
      }
    }
  }
  const bool horizon = horizon_hit_;
  horizon_hit_ = horizon_before || horizon;
  if (unknown) {
    const int v = std::max(estimate, ceiling);
    table_.unknown(key,
                   beta,
                   depth,
                   horizon,
                   v,
                   estimate >= ceiling ? estimate_pit : ceiling_pit,
                   nodes_ - nodes_before);
    return {v, TestResult::kUnknown, kNoLow, -1};
  }
  if (low >= ply) {
    table_.prove(key, -n, ceiling, ceiling_pit, nodes_ - nodes_before);
    return {ceiling, TestResult::kLow, kNoLow, -1};
  }
  return keep(key, ply, beta, {ceiling, TestResult::kLow, low, high});
}

CyclicSearcher::Result CyclicSearcher::keep(std::uint64_t key, int ply, int beta, Result r) {
  // The repetitions of this position itself are settled here; the deepest one left is above it
  // (at most ply - 1: a bound on the deepest is enough to know when the proof lapses).
  r.high = std::min(r.high, ply - 1);
  if (reuse_) {
    Provisional& p = provisional(key, ply);
    p = {key + 1,
         path_frame_[static_cast<std::size_t>(r.high)],
         static_cast<std::int16_t>(r.value),
         static_cast<std::int16_t>(beta),
         static_cast<std::int16_t>(r.low),
         static_cast<std::int16_t>(r.high),
         static_cast<std::uint8_t>(ply & 1),
         r.result};
  }
  return r;
}

}  // namespace sowdb::gen
