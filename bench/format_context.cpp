// sowdb_format_explore --context: the value streams of shipped layers against block-local
// context models (see format_explore.cpp for the program's other experiments).
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <span>
#include <vector>

#include "format_explore.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/internal/solver_hooks.h"
#include "sowdb/probe/rules.h"

namespace sowdb::bench {
namespace {

// For every position of layer n (`size` entries) of `rules`, a class a decoder can compute
// from the position alone: the largest capture the mover can make now and the largest the
// opponent could make were it to move, each clipped to 0..6, as 7 * mover + opponent.
std::vector<std::uint8_t> capture_classes(const sowdb::RuleSet& rules, int n, std::size_t size) {
  const sowdb::Rules engine(rules);
  const int pits = rules.pits();
  std::vector<std::uint8_t> out(size);
  sowdb::Pits board{};
  const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(pits));
  sowdb::unrank(0, n, span);
  sowdb::MoveList moves;
  // Only a move that gains seeds captures: in the Oware family oware_exits builds just those,
  // as a decoder would.
  const bool oware = rules.family == sowdb::Family::kOware;
  const auto largest = [&](const sowdb::Pits& b) {
    int quiet = 0;
    if (oware)
      sowdb::internal::SolverHooks::oware_exits(engine, b, moves, quiet);
    else
      engine.legal_moves(b, moves);
    int g = 0;
    for (const sowdb::Move& m : moves)
      g = std::max(g, static_cast<int>(m.captured));
    return std::min(g, 6);
  };
  for (std::size_t i = 0; i < size; ++i) {
    out[i] = static_cast<std::uint8_t>(7 * largest(board) + largest(engine.rotate(board)));
    sowdb::next_position(span);
  }
  return out;
}

// --context: the value stream of a shipped layer (recompute entries as one more symbol) against
// models a block decoder could run. Symbol k is the k-th most frequent byte, as in the writer's
// value table. A neighbour of entry i is the entry of the position with one seed moved from pit
// j to pit j + 1: its index is i - C(S_j + j - 1, j) (S_j the seeds of pits 0..j), so it was
// decoded before i when it lies in the same `block`-entry block; "none" otherwise.
}  // namespace

int context_report(const std::filesystem::path& dir,
                   const std::vector<int>& layers,
                   std::size_t block) {
  for (const int n : layers) {
    const auto r = sowdb::LayerReader::open(layer_path(dir, n));
    const std::size_t size = r->info().entries;
    const int pits = r->info().rules.pits();
    std::vector<std::int8_t> values(size);
    r->read_all(values, {});
    std::array<std::uint64_t, 256> freq{};
    for (const std::int8_t v : values)
      ++freq[static_cast<std::uint8_t>(v)];
    std::array<int, 256> order{};
    for (int b = 0; b < 256; ++b)
      order[static_cast<std::size_t>(b)] = b;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return freq[static_cast<std::size_t>(a)] > freq[static_cast<std::size_t>(b)];
    });
    std::array<std::uint8_t, 256> symbol_of{};
    for (int k = 0; k < 256; ++k)
      symbol_of[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] =
          static_cast<std::uint8_t>(k);
    std::vector<std::uint8_t> sym(size);
    for (std::size_t i = 0; i < size; ++i)
      sym[i] = symbol_of[static_cast<std::uint8_t>(values[i])];
    const auto near = neighbours(sym, n, pits, block);
    const auto start = std::chrono::steady_clock::now();
    const auto gains = capture_classes(r->info().rules, n, size);
    // What the capture classes alone would cost a decoder, which needs them for every entry of
    // a block before the one it looks up.
    const double class_ns =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e9 /
        static_cast<double>(size);
    std::printf("# layer %d: capture classes %.1f ns/position, %.0f us per %zu-entry block\n",
                n,
                class_ns,
                class_ns * static_cast<double>(block) / 1e3,
                block);
    // A context: neighbours 0..used-1, each symbol clipped to `classes` - 1 (or none).
    // With `with_gains`, the class of capture_classes() as well.
    const auto context = [&](std::size_t i, int used, int classes, bool with_gains) {
      std::uint32_t c = with_gains ? gains[i] : 0;
      for (int j = 0; j < used; ++j) {
        const std::uint8_t s = near[i][static_cast<std::size_t>(j)];
        c = c * static_cast<std::uint32_t>(classes + 1) +
            (s == kNoNeighbour
                 ? static_cast<std::uint32_t>(classes)
                 : std::min<std::uint32_t>(s, static_cast<std::uint32_t>(classes - 1)));
      }
      return c;
    };
    // zstd per block at the writer's default settings.
    const auto zstd_size = [&](const std::vector<std::uint8_t>& stream) {
      Blocks blocks;
      for (std::size_t b = 0; b < size; b += block)
        blocks.emplace_back(
            stream.begin() + static_cast<std::ptrdiff_t>(b),
            stream.begin() + static_cast<std::ptrdiff_t>(std::min(size, b + block)));
      return compress_with(blocks, 13, 5, nullptr, false).bytes;
    };
    const double per = 1.0 / static_cast<double>(size);
    std::printf("# layer %d (%zu positions): zstd of the symbols %.4f B/position\n",
                n,
                size,
                static_cast<double>(zstd_size(sym)) * per);
    struct Model {
      int used;
      int classes;
      bool with_gains;
    };
    for (const auto& [used, classes, with_gains] : {Model{2, 32, false},
                                                    Model{3, 32, false},
                                                    Model{4, 8, false},
                                                    Model{4, 16, false},
                                                    Model{3, 32, true}}) {
      std::map<std::uint32_t, std::array<std::uint64_t, 256>> counts;
      for (std::size_t i = 0; i < size; ++i)
        ++counts[context(i, used, classes, with_gains)][sym[i]];
      // Static model: the conditional entropy, plus 12 bits per (context, symbol) that occurs
      // for a table of its frequencies in the file.
      double bits = 0;
      std::size_t cells = 0;
      // Rank transform: each symbol replaced by its rank among its context's symbols by
      // frequency (a table the reader keeps per context), then zstd as the writer does.
      std::map<std::uint32_t, std::array<std::uint8_t, 256>> rank_of;
      for (const auto& [c, f] : counts) {
        std::uint64_t total = 0;
        for (const std::uint64_t x : f)
          total += x;
        std::array<int, 256> by{};
        for (int k = 0; k < 256; ++k) {
          by[static_cast<std::size_t>(k)] = k;
          const std::uint64_t x = f[static_cast<std::size_t>(k)];
          if (x == 0)
            continue;
          ++cells;
          bits -= static_cast<double>(x) *
                  std::log2(static_cast<double>(x) / static_cast<double>(total));
        }
        // A reference of its own: clang 14 cannot capture a structured binding.
        const auto& context_counts = f;
        std::stable_sort(by.begin(), by.end(), [&](int a, int b) {
          return context_counts[static_cast<std::size_t>(a)] >
                 context_counts[static_cast<std::size_t>(b)];
        });
        auto& ranks = rank_of[c];
        for (int k = 0; k < 256; ++k)
          ranks[static_cast<std::size_t>(by[static_cast<std::size_t>(k)])] =
              static_cast<std::uint8_t>(k);
      }
      std::vector<std::uint8_t> ranked(size);
      for (std::size_t i = 0; i < size; ++i)
        ranked[i] = rank_of[context(i, used, classes, with_gains)][sym[i]];
      const double model = static_cast<double>(cells) * 12 / 8;
      std::printf(
          "# layer %d, neighbours of pits 0..%d (symbols clipped at %d)%s: static model "
          "%.4f + table %.4f = %.4f B/position; ranked by context, then zstd %.4f + "
          "table %.4f\n",
          n,
          used - 1,
          classes - 1,
          with_gains ? " and the capture classes" : "",
          bits / 8 * per,
          model * per,
          (bits / 8 + model) * per,
          static_cast<double>(zstd_size(ranked)) * per,
          static_cast<double>(cells) * per);
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace sowdb::bench
