#include "sowdb/verify/verify_reach.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/probe/internal/board_text.h"
#include "sowdb/probe/internal/layer_walk.h"

namespace sowdb {
namespace {

// `to` |= { gain + sign * d : d in `from` }, `from` over [-from_n, from_n] and `to` over [-n, n].
void add_mapped(
    std::uint64_t* to, int n, const std::uint64_t* from, int from_n, int sign, int gain) {
  const int words = reach_set_words(from_n);
  for (int w = 0; w < words; ++w) {
    for (std::uint64_t x = from[w]; x != 0; x &= x - 1) {
      const int d = w * 64 + __builtin_ctzll(x) - from_n;
      const int bit = n + gain + sign * d;
      to[bit / 64] |= std::uint64_t{1} << (bit % 64);
    }
  }
}

std::string set_text(const std::uint64_t* set, int n) {
  std::string out = "{";
  for (int d = -n; d <= n; ++d) {
    if ((set[(n + d) / 64] >> ((n + d) % 64)) & 1)
      out += (out.size() > 1 ? ", " : "") + std::to_string(d);
  }
  return out + "}";
}

// The moves of a layer as the check needs them: each position's base set (its end, or what its
// moves into smaller layers give; `words` per position), and its moves that stay in the layer,
// as edges from each position (edges[first[i]] .. edges[first[i + 1] - 1]) and their count.
struct LayerMoves {
  std::vector<std::uint64_t> grown;
  std::vector<std::uint32_t> out_degree;
  std::vector<std::uint64_t> first;
  std::vector<std::uint64_t> edges;
};

// The LayerMoves of layer n, from the smaller layers' sets: counted, then listed, each pass in
// parallel ranges.
LayerMoves layer_moves(const Rules& rules,
                       int n,
                       const Executor& run,
                       const std::vector<std::vector<std::uint64_t>>& sets) {
  const int pits = rules.board_pits();
  const std::uint64_t size = layer_size(pits, n);
  const auto words = static_cast<std::size_t>(reach_set_words(n));
  LayerMoves lm;
  lm.grown.assign(size * words, 0);
  lm.out_degree.assign(size, 0);
  const auto visit_moves = [&](bool list) {
    internal::for_each_range(
        rules,
        n,
        run,
        [&](std::uint64_t lo, std::uint64_t hi, Pits& board, std::span<std::uint8_t> span) {
          MoveList moves;
          for (std::uint64_t i = lo; i < hi; ++i, next_position(span)) {
            std::uint64_t at = list ? lm.first[i] : 0;
            if (rules.legal_moves(board, moves) == 0) {
              if (!list) {
                const int bit = n + rules.final_value(board);
                lm.grown[i * words + static_cast<std::size_t>(bit / 64)] |= std::uint64_t{1}
                                                                            << (bit % 64);
              }
              continue;
            }
            for (const Move& m : moves) {
              const std::uint64_t child = rank(
                  std::span<const std::uint8_t>(m.child.data(), static_cast<std::size_t>(pits)));
              if (m.gain() == 0) {
                if (list)
                  lm.edges[at++] = child;
                else
                  ++lm.out_degree[i];
                continue;
              }
              if (list)
                continue;
              const int cn = n - m.gain();
              const auto cw = static_cast<std::size_t>(reach_set_words(cn));
              add_mapped(lm.grown.data() + i * words,
                         n,
                         sets[static_cast<std::size_t>(cn)].data() + child * cw,
                         cn,
                         m.extra_turn ? 1 : -1,
                         m.gain());
            }
          }
        });
  };
  visit_moves(false);
  lm.first.assign(size + 1, 0);
  for (std::uint64_t i = 0; i < size; ++i)
    lm.first[i + 1] = lm.first[i] + lm.out_degree[i];
  lm.edges.resize(lm.first[size]);
  visit_moves(true);
  return lm;
}

// The predecessors along the in-layer moves, for the work lists: preds[pred_first[c]] ..
// preds[pred_first[c + 1] - 1] move to c.
struct Predecessors {
  std::vector<std::uint64_t> pred_first;
  std::vector<std::uint64_t> preds;
};

Predecessors predecessors(const LayerMoves& lm, std::uint64_t size) {
  Predecessors p;
  p.pred_first.assign(size + 1, 0);
  for (const std::uint64_t c : lm.edges)
    ++p.pred_first[c + 1];
  for (std::uint64_t i = 0; i < size; ++i)
    p.pred_first[i + 1] += p.pred_first[i];
  p.preds.resize(lm.edges.size());
  std::vector<std::uint64_t> fill(p.pred_first.begin(), p.pred_first.end() - 1);
  for (std::uint64_t x = 0; x < size; ++x) {
    for (std::uint64_t j = lm.first[x]; j < lm.first[x + 1]; ++j)
      p.preds[fill[lm.edges[j]]++] = x;
  }
  return p;
}

// Play can go on forever from the positions left after peeling off those whose moves that gain
// nothing all lead to peeled positions (those without such moves first): adds d = 0 to their
// grown sets. Consumes lm.out_degree.
void mark_endless(LayerMoves& lm, const Predecessors& p, int n, std::uint64_t size) {
  const auto words = static_cast<std::size_t>(reach_set_words(n));
  std::vector<std::uint64_t> queue;
  for (std::uint64_t x = 0; x < size; ++x) {
    if (lm.out_degree[x] == 0)
      queue.push_back(x);
  }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint64_t c = queue[head];
    for (std::uint64_t j = p.pred_first[c]; j < p.pred_first[c + 1]; ++j) {
      if (--lm.out_degree[p.preds[j]] == 0)
        queue.push_back(p.preds[j]);
    }
  }
  for (std::uint64_t x = 0; x < size; ++x) {
    if (lm.out_degree[x] != 0)
      lm.grown[x * words + static_cast<std::size_t>(n / 64)] |= std::uint64_t{1} << (n % 64);
  }
}

// Grows the sets along the moves that gain nothing (a child's d gives -d) until nothing changes.
void grow_sets(LayerMoves& lm, const Predecessors& p, int n, std::uint64_t size) {
  const auto words = static_cast<std::size_t>(reach_set_words(n));
  std::deque<std::uint64_t> work;
  std::vector<char> queued(size, 1);
  for (std::uint64_t x = 0; x < size; ++x)
    work.push_back(x);
  std::vector<std::uint64_t> next(words);
  while (!work.empty()) {
    const std::uint64_t x = work.front();
    work.pop_front();
    queued[x] = 0;
    std::uint64_t* set = lm.grown.data() + x * words;
    std::copy(set, set + words, next.begin());
    for (std::uint64_t j = lm.first[x]; j < lm.first[x + 1]; ++j)
      add_mapped(next.data(), n, lm.grown.data() + lm.edges[j] * words, n, -1, 0);
    if (std::equal(next.begin(), next.end(), set))
      continue;
    std::copy(next.begin(), next.end(), set);
    for (std::uint64_t j = p.pred_first[x]; j < p.pred_first[x + 1]; ++j) {
      if (!queued[p.preds[j]]) {
        queued[p.preds[j]] = 1;
        work.push_back(p.preds[j]);
      }
    }
  }
}

}  // namespace

ReachVerifier::ReachVerifier(const TableSet& tables, Executor run)
    : tables_(tables), run_(std::move(run)) {}

void ReachVerifier::read_up_to(int n) {
  for (int m = static_cast<int>(sets_.size()); m <= n; ++m) {
    if (progress_)
      progress_(n, "read", 0);
    std::vector<std::uint64_t> sets;
    std::string error;
    try {
      if (m > 0 && !errors_[static_cast<std::size_t>(m - 1)].empty())
        throw std::runtime_error("a smaller layer does not read (" + layer_file_name(m - 1) + ")");
      OpenOptions open;
      open.expected_rules = tables_.rules();
      open.expected_stones = m;
      const auto reader = LayerReader::open(tables_.directory() / layer_file_name(m), open);
      if (reader->info().objective != Objective::kCooperative)
        throw std::runtime_error(layer_file_name(m) + " holds competitive values");
      sets.resize(reader->info().entries * static_cast<std::size_t>(reach_set_words(m)));
      reader->read_all_sets(sets);
    } catch (const std::exception& e) {
      error = e.what();
      sets.clear();
    }
    sets_.push_back(std::move(sets));
    errors_.push_back(std::move(error));
    if (progress_)
      progress_(n, "read", 1);
  }
}

VerifyReport ReachVerifier::verify(int n) {
  const Rules& rules = tables_.engine();
  const int pits = rules.board_pits();
  VerifyReport report;
  report.stones = n;
  const std::uint64_t size = layer_size(pits, n);
  report.positions = size;
  const auto words = static_cast<std::size_t>(reach_set_words(n));
  const auto progress = [&](const char* phase, double f) {
    if (progress_)
      progress_(n, phase, f);
  };

  // Read the layers up to n (the smaller ones once, for every later layer).
  read_up_to(n);
  if (!errors_[static_cast<std::size_t>(n)].empty()) {
    report.unreadable = size;
    report.examples.push_back(errors_[static_cast<std::size_t>(n)]);
    // The layer that failed first (this one, or the smaller one it depends on) names the file.
    for (const std::string& error : errors_) {
      if (!error.empty()) {
        report.read_error = error;
        break;
      }
    }
    return report;
  }
  const std::vector<std::uint64_t>& stored = sets_[static_cast<std::size_t>(n)];

  progress("check", 0);
  LayerMoves lm = layer_moves(rules, n, run_, sets_);
  progress("check", 0.3);
  const Predecessors preds = predecessors(lm, size);
  mark_endless(lm, preds, n, size);
  progress("check", 0.5);
  grow_sets(lm, preds, n, size);
  progress("check", 0.9);
  const std::vector<std::uint64_t>& grown = lm.grown;
  Pits board{};
  const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
  for (std::uint64_t i = 0; i < size; ++i) {
    if (!std::equal(grown.begin() + static_cast<std::ptrdiff_t>(i * words),
                    grown.begin() + static_cast<std::ptrdiff_t>(i * words + words),
                    stored.begin() + static_cast<std::ptrdiff_t>(i * words))) {
      ++report.bad_values;
      if (report.examples.size() < 5) {
        unrank(i, n, span);
        report.examples.push_back("index " + std::to_string(i) + " (" +
                                  internal::pits_text(rules, board) + "): the file has " +
                                  set_text(stored.data() + i * words, n) + ", the moves give " +
                                  set_text(grown.data() + i * words, n));
      }
    }
  }
  progress("check", 1);
  return report;
}

}  // namespace sowdb
