#include "sowdb/gen/verify.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "sowdb/format/index.h"

namespace sowdb::gen {
namespace {

struct Tally {
  std::atomic<std::uint64_t> bad_values{0};
  std::atomic<std::uint64_t> bad_depths{0};
  std::atomic<std::uint64_t> unreadable{0};
  std::mutex mutex;
  std::vector<std::string> examples;

  void note(std::string text) {
    std::lock_guard lock(mutex);
    if (examples.size() < 5)
      examples.push_back(std::move(text));
  }
};

std::string board_text(const Rules& rules, const Pits& board) {
  std::string s;
  for (int i = 0; i < rules.pits(); ++i) {
    if (i)
      s.push_back(' ');
    s.append(std::to_string(board[i]));
  }
  return s;
}

void check_position(const TableSet& tables, const Pits& board, Tally& tally) {
  const Rules& rules = tables.engine();
  int value = 0;
  int depth = 0;
  MoveWorths moves;
  if (tables.value(board, value, depth) != ProbeStatus::kOk ||
      tables.moves(board, moves) != ProbeStatus::kOk) {
    tally.unreadable.fetch_add(1);
    tally.note("unreadable: " + board_text(rules, board));
    return;
  }
  int want_value = 0;
  int want_depth = 0;
  if (moves.size == 0) {
    want_value = rules.final_value(board);
  } else {
    want_value = -1000;
    for (const MoveWorth& m : moves)
      want_value = std::max(want_value, m.worth);
    if (want_value != 0) {
      int pick = want_value > 0 ? 1 << 30 : -1;
      for (const MoveWorth& m : moves) {
        if (m.worth != want_value)
          continue;
        pick = want_value > 0 ? std::min(pick, m.depth) : std::max(pick, m.depth);
      }
      want_depth = 1 + pick;
    }
  }
  if (value != want_value) {
    tally.bad_values.fetch_add(1);
    tally.note("value: " + board_text(rules, board) + " stores " + std::to_string(value) +
               ", its moves give " + std::to_string(want_value));
  } else if (depth != want_depth) {
    tally.bad_depths.fetch_add(1);
    tally.note("depth: " + board_text(rules, board) + " stores " + std::to_string(depth) +
               ", its moves give " + std::to_string(want_depth));
  }
}

}  // namespace

VerifyReport verify_layer(const TableSet& tables, int stones) {
  const int k = tables.rules().pits();
  VerifyReport report;
  report.stones = stones;
  report.positions = layer_size(k, stones);
  Tally tally;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, report.positions, 1 << 12),
                    [&](const auto& r) {
                      Pits board{};
                      unrank(r.begin(), stones, std::span(board.data(), k));
                      for (std::uint64_t i = r.begin(); i != r.end(); ++i) {
                        check_position(tables, board, tally);
                        next_position(std::span(board.data(), k));
                      }
                    });
  report.bad_values = tally.bad_values;
  report.bad_depths = tally.bad_depths;
  report.unreadable = tally.unreadable;
  report.examples = std::move(tally.examples);
  return report;
}

}  // namespace sowdb::gen
