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

}  // namespace

ReachVerifier::ReachVerifier(const TableSet& tables, Executor run)
    : tables_(tables), run_(std::move(run)) {}

VerifyReport ReachVerifier::verify(int n) {
  const Rules& rules = tables_.engine();
  const int pits = rules.pits();
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
  for (int m = static_cast<int>(sets_.size()); m <= n; ++m) {
    progress("read", 0);
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
    progress("read", 1);
  }
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

  // Each position's base set (its end, or what its moves into smaller layers give) and its
  // moves that stay in the layer: counted, then listed, each pass in parallel ranges.
  std::vector<std::uint64_t> grown(size * words, 0);
  std::vector<std::uint32_t> out_degree(size, 0);
  const auto visit_moves =
      [&](bool list, std::vector<std::uint64_t>* first, std::vector<std::uint64_t>* edges) {
        internal::for_each_range(
            rules,
            n,
            run_,
            [&](std::uint64_t lo, std::uint64_t hi, Pits& board, std::span<std::uint8_t> span) {
              MoveList moves;
              for (std::uint64_t i = lo; i < hi; ++i, next_position(span)) {
                std::uint64_t at = list ? (*first)[i] : 0;
                if (rules.legal_moves(board, moves) == 0) {
                  if (!list) {
                    const int bit = n + rules.final_value(board);
                    grown[i * words + static_cast<std::size_t>(bit / 64)] |= std::uint64_t{1}
                                                                             << (bit % 64);
                  }
                  continue;
                }
                for (const Move& m : moves) {
                  const std::uint64_t child = rank(std::span<const std::uint8_t>(
                      m.child.data(), static_cast<std::size_t>(pits)));
                  if (m.gain() == 0) {
                    if (list)
                      (*edges)[at++] = child;
                    else
                      ++out_degree[i];
                    continue;
                  }
                  if (list)
                    continue;
                  const int cn = n - m.gain();
                  const auto cw = static_cast<std::size_t>(reach_set_words(cn));
                  add_mapped(grown.data() + i * words,
                             n,
                             sets_[static_cast<std::size_t>(cn)].data() + child * cw,
                             cn,
                             m.extra_turn ? 1 : -1,
                             m.gain());
                }
              }
            });
      };
  progress("check", 0);
  visit_moves(false, nullptr, nullptr);
  std::vector<std::uint64_t> first(size + 1, 0);
  for (std::uint64_t i = 0; i < size; ++i)
    first[i + 1] = first[i] + out_degree[i];
  std::vector<std::uint64_t> edges(first[size]);
  visit_moves(true, &first, &edges);
  progress("check", 0.3);
  // Predecessors, for the work lists.
  std::vector<std::uint64_t> pred_first(size + 1, 0);
  for (const std::uint64_t c : edges)
    ++pred_first[c + 1];
  for (std::uint64_t i = 0; i < size; ++i)
    pred_first[i + 1] += pred_first[i];
  std::vector<std::uint64_t> preds(edges.size());
  {
    std::vector<std::uint64_t> fill(pred_first.begin(), pred_first.end() - 1);
    for (std::uint64_t p = 0; p < size; ++p) {
      for (std::uint64_t j = first[p]; j < first[p + 1]; ++j)
        preds[fill[edges[j]]++] = p;
    }
  }
  // Play can go on forever from the positions left after peeling off those whose moves that gain
  // nothing all lead to peeled positions (those without such moves first).
  {
    std::vector<std::uint64_t> queue;
    for (std::uint64_t p = 0; p < size; ++p) {
      if (out_degree[p] == 0)
        queue.push_back(p);
    }
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::uint64_t c = queue[head];
      for (std::uint64_t j = pred_first[c]; j < pred_first[c + 1]; ++j) {
        if (--out_degree[preds[j]] == 0)
          queue.push_back(preds[j]);
      }
    }
    for (std::uint64_t p = 0; p < size; ++p) {
      if (out_degree[p] != 0)
        grown[p * words + static_cast<std::size_t>(n / 64)] |= std::uint64_t{1} << (n % 64);
    }
  }
  progress("check", 0.5);
  // Grow the sets along the moves that gain nothing (a child's d gives -d) until nothing changes.
  {
    std::deque<std::uint64_t> work;
    std::vector<char> queued(size, 1);
    for (std::uint64_t p = 0; p < size; ++p)
      work.push_back(p);
    std::vector<std::uint64_t> next(words);
    while (!work.empty()) {
      const std::uint64_t p = work.front();
      work.pop_front();
      queued[p] = 0;
      std::uint64_t* set = grown.data() + p * words;
      std::copy(set, set + words, next.begin());
      for (std::uint64_t j = first[p]; j < first[p + 1]; ++j)
        add_mapped(next.data(), n, grown.data() + edges[j] * words, n, -1, 0);
      if (std::equal(next.begin(), next.end(), set))
        continue;
      std::copy(next.begin(), next.end(), set);
      for (std::uint64_t j = pred_first[p]; j < pred_first[p + 1]; ++j) {
        if (!queued[preds[j]]) {
          queued[preds[j]] = 1;
          work.push_back(preds[j]);
        }
      }
    }
  }
  progress("check", 0.9);
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
