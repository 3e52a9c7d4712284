// Walks over the positions of a layer in ranges, run by an Executor: the one walk the generator,
// the verifier and the commands share. Internal to the project (not installed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/rules.h"

namespace sowdb::internal {

/// Runs `tasks` tasks through `run`, or one after the other on the calling thread when `run` is
/// empty.
inline void run_tasks(const Executor& run,
                      std::size_t tasks,
                      const std::function<void(std::size_t)>& task) {
  if (run) {
    run(tasks, task);
    return;
  }
  for (std::size_t t = 0; t < tasks; ++t)
    task(t);
}

/// Calls visit(first, last, board, pits) over the ranges [first, last) of layer n, each a task
/// of `run`; the ranges hold whole 64-entry words (so a visitor may update the bit words of its
/// range without sharing them). `board` holds the position of index `first`, `pits` is its span
/// over the board's pits, and the visitor steps it on. Thread safety: `visit` is called from the
/// executor's threads at once, on disjoint ranges.
template <typename Visit>
void for_each_range(const Rules& rules, int n, const Executor& run, Visit&& visit) {
  // 256 words (16,384 positions) a task: tasks long enough that scheduling costs nothing, short
  // enough that the threads of a small layer share it evenly.
  constexpr std::uint64_t kWordsPerTask = 256;
  const std::uint64_t size = layer_size(rules.board_pits(), n);
  const std::uint64_t words = (size + 63) / 64;
  const std::uint64_t tasks = (words + kWordsPerTask - 1) / kWordsPerTask;
  run_tasks(run, static_cast<std::size_t>(tasks), [&](std::size_t t) {
    const std::uint64_t first = t * kWordsPerTask * 64;
    const std::uint64_t last = std::min(size, (t + 1) * kWordsPerTask * 64);
    Pits board{};
    const std::span<std::uint8_t> pits(board.data(), static_cast<std::size_t>(rules.board_pits()));
    unrank(first, n, pits);
    visit(first, last, board, pits);
  });
}

}  // namespace sowdb::internal
