#include "sowdb/gen/endless.h"

#include <atomic>
#include <bit>
#include <stdexcept>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/probe/internal/layer_walk.h"

namespace sowdb::gen {

std::uint64_t count_endless_draws(const Rules& rules,
                                  int stones,
                                  std::span<const std::int8_t> values,
                                  const Executor& run) {
  const int pits = rules.board_pits();
  const std::uint64_t size = layer_size(pits, stones);
  if (values.size() != size)
    throw std::invalid_argument("count_endless_draws: values do not have the layer's size");
  if (size >= (std::uint64_t{1} << 32))
    throw std::invalid_argument("count_endless_draws: a layer of 2^32 positions or more");
  if (rules.rule_set().family != Family::kOware)
    return 0;
  // The draws get numbers 0..Z-1 in index order: a bit per position and, per 64 positions, the
  // draws before them.
  const std::uint64_t words = (size + 63) / 64;
  std::vector<std::uint64_t> draw_bits(words, 0);
  std::vector<std::uint32_t> before(words + 1, 0);
  for (std::uint64_t i = 0; i < size; ++i) {
    if (values[i] == 0)
      draw_bits[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  for (std::uint64_t w = 0; w < words; ++w)
    before[w + 1] = before[w] + static_cast<std::uint32_t>(std::popcount(draw_bits[w]));
  const std::uint32_t draws = before[words];
  const auto is_draw = [&](std::uint64_t i) { return ((draw_bits[i / 64] >> (i % 64)) & 1) != 0; };
  const auto number = [&](std::uint64_t i) {
    const std::uint64_t below = draw_bits[i / 64] & ((std::uint64_t{1} << (i % 64)) - 1);
    return before[i / 64] + static_cast<std::uint32_t>(std::popcount(below));
  };

  // The graph of the draws: an edge from each draw to each child of value 0 that a move gaining
  // nothing reaches. Pass 1 counts the edges out of and into each draw, pass 2 lists each draw's
  // predecessors. Generating the moves twice costs less than holding every edge as a pair
  // between the passes (8 bytes an edge more, on layers of hundreds of millions of draws).
  std::vector<std::uint8_t> out_degree(draws, 0);
  std::vector<std::uint64_t> first(static_cast<std::size_t>(draws) + 1, 0);
  const auto for_each_edge = [&](auto&& edge) {
    internal::for_each_range(
        rules, stones, run, [&](std::uint64_t begin, std::uint64_t end, const Pits& start, auto) {
          Pits board = start;
          const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
          MoveList moves;
          for (std::uint64_t i = begin; i < end; ++i, next_position(span)) {
            if (!is_draw(i))
              continue;
            rules.legal_moves(board, moves);
            for (const Move& m : moves) {
              if (m.gain() != 0)
                continue;
              const std::uint64_t c = rank(
                  std::span<const std::uint8_t>(m.child.data(), static_cast<std::size_t>(pits)));
              if (is_draw(c))
                edge(number(i), number(c));
            }
          }
        });
  };
  for_each_edge([&](std::uint32_t from, std::uint32_t to) {
    std::atomic_ref<std::uint8_t>(out_degree[from]).fetch_add(1, std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(first[to + 1]).fetch_add(1, std::memory_order_relaxed);
  });
  for (std::uint32_t d = 0; d < draws; ++d)
    first[d + 1] += first[d];
  std::vector<std::uint32_t> predecessors(first[draws]);
  std::vector<std::uint32_t> filled(draws, 0);
  for_each_edge([&](std::uint32_t from, std::uint32_t to) {
    const std::uint32_t k =
        std::atomic_ref<std::uint32_t>(filled[to]).fetch_add(1, std::memory_order_relaxed);
    predecessors[first[to] + k] = from;
  });
  std::vector<std::uint32_t>().swap(filled);

  // A draw every line of whose value-keeping moves ends is peeled off from the dead ends
  // backwards; what stays can keep the value forever.
  std::vector<std::uint32_t> queue;
  for (std::uint32_t d = 0; d < draws; ++d) {
    if (out_degree[d] == 0)
      queue.push_back(d);
  }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t d = queue[head];
    for (std::uint64_t j = first[d]; j < first[d + 1]; ++j) {
      if (--out_degree[predecessors[j]] == 0)
        queue.push_back(predecessors[j]);
    }
  }
  return draws - queue.size();
}

}  // namespace sowdb::gen
