#include "sowdb/analysis/bulk_probe.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sowdb/format/index.h"
#include "sowdb/gen/parallel.h"

namespace sowdb {
namespace {

// Calls work(begin, end) over [0, rows) in ranges of kBulkMinRowsPerThread rows, spread over
// `threads` threads (0: all cores) of an arena of the call's own, through the generator's
// parallel loops (oneTBB, or std::thread in the ThreadSanitizer build). A batch of one range
// runs on the calling thread without an arena.
template <typename Work>
void split_rows(std::size_t rows, int threads, const Work& work) {
  const std::size_t ranges = (rows + kBulkMinRowsPerThread - 1) / kBulkMinRowsPerThread;
  const auto range = [&](std::size_t r) {
    const std::size_t begin = r * kBulkMinRowsPerThread;
    work(begin, std::min(rows, begin + kBulkMinRowsPerThread));
  };
  if (ranges <= 1) {
    (void)gen::thread_count(threads);  // the same refusal of a negative count either way
    if (ranges == 1)
      range(0);
    return;
  }
  gen::run_with_threads(threads, [&] { gen::tbb_executor()(ranges, range); });
}

void check_size(std::span<const std::uint8_t> rows, int pits, const char* what) {
  if (pits < 2 || pits > kMaxPits)
    throw std::invalid_argument(std::string(what) + ": a board has 2..16 pits, not " +
                                std::to_string(pits));
  if (rows.size() % static_cast<std::size_t>(pits) != 0)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(rows.size()) +
                                " bytes are not whole rows of " + std::to_string(pits) + " pits");
}

template <typename T>
void check_output(std::span<T> out, std::size_t rows, const char* name) {
  if (!out.empty() && out.size() != rows)
    throw std::invalid_argument(std::string("probe_bulk: ") + name + " has " +
                                std::to_string(out.size()) + " entries for " +
                                std::to_string(rows) + " boards");
}

// One board: the answers BulkOutput asks for.
void probe_one(const TableSet& set, const Pits& board, const BulkOutput& out, std::size_t i) {
  int value = 0;
  int depth = 0;
  ProbeStatus status =
      out.depths.empty() ? set.value(board, value) : set.value(board, value, depth);
  int best = -1;
  if (status == ProbeStatus::kOk && !out.best.empty()) {
    MoveWorth move;
    const ProbeStatus s = set.best_move(board, move);
    if (s == ProbeStatus::kOk)
      best = move.move.pit;
    else if (s != ProbeStatus::kGameOver)
      status = s;
  }
  const bool ok = status == ProbeStatus::kOk;
  if (!out.values.empty())
    out.values[i] = ok ? static_cast<std::int8_t>(value) : kUnreadableValue;
  if (!out.depths.empty())
    out.depths[i] = ok ? static_cast<std::uint16_t>(depth) : kUnreadableDepth;
  if (!out.best.empty())
    out.best[i] = ok ? static_cast<std::int8_t>(best) : std::int8_t{-1};
  out.status[i] = static_cast<std::uint8_t>(status);
}

}  // namespace

void probe_bulk(const TableSet& set,
                std::span<const std::uint8_t> boards,
                const BulkOutput& out,
                int threads) {
  const int pits = set.engine().board_pits();
  check_size(boards, pits, "probe_bulk");
  const std::size_t rows = boards.size() / static_cast<std::size_t>(pits);
  if (out.status.size() != rows)
    throw std::invalid_argument("probe_bulk: status has " + std::to_string(out.status.size()) +
                                " entries for " + std::to_string(rows) + " boards");
  check_output(out.values, rows, "values");
  check_output(out.depths, rows, "depths");
  check_output(out.best, rows, "best");
  split_rows(rows, threads, [&](std::size_t begin, std::size_t end) {
    Pits board{};
    for (std::size_t i = begin; i < end; ++i) {
      std::memcpy(board.data(),
                  boards.data() + i * static_cast<std::size_t>(pits),
                  static_cast<std::size_t>(pits));
      probe_one(set, board, out, i);
    }
  });
}

void layer_positions(int pits, int stones, std::uint64_t first, std::span<std::uint8_t> rows) {
  check_size(rows, pits, "layer_positions");
  if (stones < 0 || stones > kMaxIndexedStones)
    throw std::invalid_argument("layer_positions: a layer has 0.." +
                                std::to_string(kMaxIndexedStones) + " seeds, not " +
                                std::to_string(stones));
  const std::uint64_t count = rows.size() / static_cast<std::size_t>(pits);
  const std::uint64_t size = layer_size(pits, stones);
  if (count == 0)
    return;
  if (first >= size || count > size - first)
    throw std::invalid_argument("layer_positions: indices " + std::to_string(first) + ".." +
                                std::to_string(first + count - 1) + " run past layer " +
                                std::to_string(stones) + " (" + std::to_string(size) +
                                " positions)");
  // One position stepped along the layer, copied into each row.
  Pits position{};
  const std::span<std::uint8_t> current(position.data(), static_cast<std::size_t>(pits));
  unrank(first, stones, current);
  for (std::uint64_t i = 0; i < count; ++i) {
    if (i > 0)
      next_position(current);
    std::copy(current.begin(),
              current.end(),
              rows.begin() + static_cast<std::ptrdiff_t>(i * current.size()));
  }
}

void positions_of_indices(int pits,
                          int stones,
                          std::span<const std::uint64_t> indices,
                          std::span<std::uint8_t> rows,
                          int threads) {
  check_size(rows, pits, "positions_of_indices");
  if (stones < 0 || stones > kMaxIndexedStones)
    throw std::invalid_argument("positions_of_indices: a layer has 0.." +
                                std::to_string(kMaxIndexedStones) + " seeds, not " +
                                std::to_string(stones));
  const auto p = static_cast<std::size_t>(pits);
  if (rows.size() / p != indices.size())
    throw std::invalid_argument("positions_of_indices: " + std::to_string(indices.size()) +
                                " indices for " + std::to_string(rows.size() / p) + " rows");
  const std::uint64_t size = layer_size(pits, stones);
  // The first bad index (by position in `indices`), found by any thread.
  std::atomic<std::size_t> bad{indices.size()};
  split_rows(indices.size(), threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      if (!unrank(indices[i], stones, rows.subspan(i * p, p))) {
        std::size_t seen = bad.load();
        while (i < seen && !bad.compare_exchange_weak(seen, i)) {
        }
        return;
      }
    }
  });
  if (const std::size_t i = bad.load(); i < indices.size())
    throw std::invalid_argument("index " + std::to_string(indices[i]) + " (entry " +
                                std::to_string(i) + ") is not below the " + std::to_string(size) +
                                " positions of layer " + std::to_string(stones));
}

}  // namespace sowdb
