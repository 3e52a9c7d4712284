// Experiment (issue 34): depth-first proof-number search (df-pn) against the start search's
// alpha-beta on the same null-window tests, counted in positions expanded.
//
//   sowdb_pn_experiment VARIANT TABLES_DIR [EPSILON]
//
// For the start position and every first move's position (and, after an extra turn, every
// continuation's), finds the exact value with alpha-beta, then proves its two halves ("at least
// v" true, "at least v + 1" false) twice from empty tables: alpha-beta's null-window test and
// df-pn. Prints one line per test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"
#include "start_searcher.h"
#include "table_values.h"
#include "transposition_table.h"

using namespace sowdb;
using namespace sowdb::gen;

namespace {

constexpr std::uint32_t kInf = 1u << 30;

std::uint32_t add(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(kInf, std::uint64_t{a} + b));
}

class PnSearch {
 public:
  PnSearch(const Rules& rules, const TableSet& tables, const TableValues& values, double eps)
      : rules_(rules), tables_(tables), values_(values), max_(tables.max_stones()), eps_(eps) {
    bounds_.reserve(1 << 22);
    numbers_.reserve(1 << 22);
  }

  bool prove(const Pits& pos, int n, int t) {
    for (;;) {
      std::uint32_t pn = 0, dn = 0;
      mid(pos, n, t, kInf - 1, kInf - 1, pn, dn);
      if (pn == 0)
        return true;
      if (dn == 0)
        return false;
    }
  }
  std::uint64_t nodes = 0;
  std::size_t entries() const { return numbers_.size() + bounds_.size(); }

 private:
  struct Bounds {
    std::int8_t lower, upper;
  };
  struct Numbers {
    std::uint32_t pn, dn;
  };
  std::uint64_t key_of(const Pits& pos, int n) const {
    return (std::uint64_t(n) << 40) |
           rank(std::span<const std::uint8_t>(pos.data(), static_cast<std::size_t>(rules_.pits())));
  }
  int table_value(const Pits& pos, int n) const {
    const int v = values_.layer(n)[rank(
        std::span<const std::uint8_t>(pos.data(), static_cast<std::size_t>(rules_.pits())))];
    if (v != kRecomputeValue)
      return v;
    int w = 0;
    tables_.value(pos, w);
    return w;
  }
  // Bounds known of a position without expanding it.
  void peek(const Pits& pos, int n, std::uint64_t key, int& lo, int& hi) const {
    if (n <= max_) {
      lo = hi = table_value(pos, n);
      return;
    }
    const int own = rules_.own_seeds(pos);
    if (own == 0 || rules_.opponent_seeds(pos) == 0) {
      MoveList ml;
      if (rules_.legal_moves(pos, ml) == 0) {
        lo = hi = rules_.final_value(pos);
        return;
      }
    }
    lo = -n;
    hi = n;
    if (auto it = bounds_.find(key); it != bounds_.end()) {
      lo = it->second.lower;
      hi = it->second.upper;
    }
    if (lo < 2 - n && gains_at_once(rules_, pos))
      lo = std::min(2 - n, hi);
  }
  // (pn, dn) of "value(pos) >= t".
  void numbers(const Pits& pos, int n, int t, std::uint32_t& pn, std::uint32_t& dn) const {
    const std::uint64_t key = key_of(pos, n);
    int lo = 0, hi = 0;
    peek(pos, n, key, lo, hi);
    if (lo >= t) {
      pn = 0;
      dn = kInf;
      return;
    }
    if (hi < t) {
      pn = kInf;
      dn = 0;
      return;
    }
    if (auto it = numbers_.find(key * 256 + static_cast<std::uint64_t>(t + 128));
        it != numbers_.end()) {
      pn = it->second.pn;
      dn = it->second.dn;
      return;
    }
    // Unexpanded: a threshold far above an estimate of 0 is hard to prove, far below it hard
    // to disprove (df-pn+'s heuristic initial numbers).
    const int e = h_ ? hi_est(pos, n) : 0;
    pn = 1 + static_cast<std::uint32_t>(std::max(0, (t - e) * h_));
    dn = 1 + static_cast<std::uint32_t>(std::max(0, (e - t + 1) * h_));
  }
  int hi_est(const Pits& pos, int n) const {
    (void)pos;
    (void)n;
    return 0;
  }
  void settle(std::uint64_t key, int n, int t, bool proved) {
    auto [it, fresh] =
        bounds_.try_emplace(key, Bounds{static_cast<std::int8_t>(-n), static_cast<std::int8_t>(n)});
    if (proved)
      it->second.lower = static_cast<std::int8_t>(std::max<int>(it->second.lower, t));
    else
      it->second.upper = static_cast<std::int8_t>(std::min<int>(it->second.upper, t - 1));
    numbers_.erase(key * 256 + static_cast<std::uint64_t>(t + 128));
  }

  void mid(const Pits& pos,
           int n,
           int t,
           std::uint32_t thpn,
           std::uint32_t thdn,
           std::uint32_t& pn,
           std::uint32_t& dn) {
    ++nodes;
    const std::uint64_t key = key_of(pos, n);
    MoveList ml;
    rules_.legal_moves(pos, ml);  // the caller peeked: the game goes on here
    // The alpha-beta search's order: extra turns, then gains, then the pit nearer the store;
    // df-pn's ties go to the first.
    std::stable_sort(
        ml.moves.begin(), ml.moves.begin() + ml.size, [](const Move& a, const Move& b) {
          const int sa = (a.extra_turn ? 1 << 12 : 0) + (a.gain() << 4) - a.pit;
          const int sb = (b.extra_turn ? 1 << 12 : 0) + (b.gain() << 4) - b.pit;
          return sa > sb;
        });
    struct C {
      int nn, tc;
      bool flip;
    };
    std::array<C, kMaxPitsPerSide> c{};
    for (int i = 0; i < ml.size; ++i) {
      const Move& m = ml.moves[i];
      const int g = m.gain();
      c[i].nn = n - g;
      c[i].flip = !m.extra_turn;
      c[i].tc = m.extra_turn ? t - g : g - t + 1;
    }
    for (;;) {
      std::uint32_t best_p = kInf, second_p = kInf, sum_d = 0, best_d = 0;
      int best = -1;
      for (int i = 0; i < ml.size; ++i) {
        std::uint32_t cp = 0, cd = 0;
        numbers(ml.moves[i].child, c[i].nn, c[i].tc, cp, cd);
        const std::uint32_t p = c[i].flip ? cd : cp;
        const std::uint32_t d = c[i].flip ? cp : cd;
        if (p < best_p) {
          second_p = best_p;
          best_p = p;
          best = i;
          best_d = d;
        } else if (p < second_p) {
          second_p = p;
        }
        sum_d = add(sum_d, d);
      }
      pn = best_p;
      dn = sum_d;
      if (pn == 0 || dn == 0) {
        settle(key, n, t, pn == 0);
        return;
      }
      if (pn >= thpn || dn >= thdn) {
        numbers_[key * 256 + static_cast<std::uint64_t>(t + 128)] = {pn, dn};
        return;
      }
      const std::uint32_t grown =
          second_p >= kInf ? kInf
                           : static_cast<std::uint32_t>(std::max<double>(
                                 second_p + 1, static_cast<double>(second_p) * (1 + eps_)));
      const std::uint32_t thp = std::min(thpn, grown);
      const std::uint32_t thd = thdn >= kInf - 1 ? kInf - 1 : thdn - dn + best_d;
      std::uint32_t cp = 0, cd = 0;
      const Move& m = ml.moves[best];
      if (c[best].flip)
        mid(m.child, c[best].nn, c[best].tc, thd, thp, cp, cd);
      else
        mid(m.child, c[best].nn, c[best].tc, thp, thd, cp, cd);
    }
  }

  const Rules& rules_;
  const TableSet& tables_;
  const TableValues& values_;
  int max_;
  double eps_;

 public:
  int h_ = 0;

 private:
  std::unordered_map<std::uint64_t, Bounds> bounds_;
  std::unordered_map<std::uint64_t, Numbers> numbers_;
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s VARIANT TABLES_DIR [EPSILON]\n", argv[0]);
    return 2;
  }
  std::string error;
  auto v = parse_variant(argv[1], &error);
  if (!v) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  const double eps = argc > 3 ? std::atof(argv[3]) : 0.0;
  const int h = argc > 4 ? std::atoi(argv[4]) : 0;
  auto tables = TableSet::open(argv[2]);
  TableValues values(*tables);
  const Rules rules(v->rules);
  const int p = rules.pits_per_side();
  Pits start{};
  for (int i = 0; i < 2 * p; ++i)
    start[i] = static_cast<std::uint8_t>(v->seeds_per_pit);
  const int stones = 2 * p * v->seeds_per_pit;
  const int key_bits =
      static_cast<int>(std::bit_width(binomial(stones + rules.pits(), rules.pits())));

  struct Task {
    std::string name;
    Pits pos;
    int n;
  };
  std::vector<Task> tasks{{"start", start, stones}};
  MoveList first;
  rules.legal_moves(start, first);
  for (const Move& m : first) {
    const int nn = stones - m.gain();
    tasks.push_back({"pit " + std::to_string(m.pit), m.child, nn});
    if (m.extra_turn) {
      MoveList next;
      rules.legal_moves(m.child, next);
      for (const Move& m2 : next)
        tasks.push_back({"pit " + std::to_string(m.pit) + " then " + std::to_string(m2.pit),
                         m2.child,
                         nn - m2.gain()});
    }
  }
  std::uint64_t ab_total = 0, pn_total = 0;
  double ab_sec = 0, pn_sec = 0;
  for (const Task& task : tasks) {
    int lo = 0, hi = 0;
    MoveList ml;
    if (task.n <= tables->max_stones() || rules.legal_moves(task.pos, ml) == 0)
      continue;
    if (argc > 5 && task.name != argv[5])
      continue;
    {
      TranspositionTable table(24, key_bits);
      Searcher s(rules, tables.get(), table, &values);
      std::tie(lo, hi) = s.value(task.pos, task.n, 0, [](int, int) { return false; });
    }
    const int value = lo;
    for (int beta : {value, value + 1}) {
      TranspositionTable table(24, key_bits);
      Searcher s(rules, tables.get(), table, &values);
      double t0 = now();
      const int r = s.test(task.pos, task.n, beta);
      const double ab = now() - t0;
      PnSearch pn(rules, *tables, values, eps);
      pn.h_ = h;
      t0 = now();
      const bool proved = pn.prove(task.pos, task.n, beta);
      const double pt = now() - t0;
      const bool ab_proved = r >= beta;
      std::printf(
          "%-14s value %+3d test >= %+3d: %s  alpha-beta %10llu (%.2f s)  df-pn %10llu (%.2f s, "
          "%zu entries)%s\n",
          task.name.c_str(),
          value,
          beta,
          ab_proved ? "yes" : "no ",
          static_cast<unsigned long long>(s.nodes()),
          ab,
          static_cast<unsigned long long>(pn.nodes),
          pt,
          pn.entries(),
          proved == ab_proved ? "" : "  DISAGREE");
      std::fflush(stdout);
      ab_total += s.nodes();
      pn_total += pn.nodes;
      ab_sec += ab;
      pn_sec += pt;
    }
  }
  std::printf(
      "total: alpha-beta %llu positions %.2f s, df-pn %llu positions %.2f s (%.3fx positions)\n",
      static_cast<unsigned long long>(ab_total),
      ab_sec,
      static_cast<unsigned long long>(pn_total),
      pn_sec,
      static_cast<double>(pn_total) / static_cast<double>(ab_total));
  return 0;
}
