// Solver benchmark: solves every layer of a variant in memory (no files) and reports positions
// per second and the working memory per position of the largest layer.
//
//   sowdb_solve_bench VARIANT MAX_STONES [THREADS] [PITS...]
//
// With PITS (a position of at most MAX_STONES seeds) it also prints that position's value and
// the worth of each move, as a quick check against published values.
#include <tbb/global_control.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/solver.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"

using namespace sowdb;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s VARIANT MAX_STONES [THREADS] [PITS...]\n", argv[0]);
    return 2;
  }
  std::string error;
  auto v = parse_variant(argv[1], &error);
  if (!v) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  const int max_stones = std::atoi(argv[2]);
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  tbb::global_control gc(tbb::global_control::max_allowed_parallelism,
                         static_cast<std::size_t>(threads));
  std::vector<gen::Layer> layers;
  double total_seconds = 0;
  std::uint64_t total_positions = 0;
  std::uint64_t largest_rss_growth = 0;
  for (int n = 0; n <= max_stones; ++n) {
    const std::uint64_t rss_before = gen::peak_rss_bytes();
    const auto t0 = std::chrono::steady_clock::now();
    layers.push_back(gen::solve_layer(v->rules, n, [&](int m) { return layers[m].value.data(); }));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::uint64_t size = layers[n].value.size();
    const std::uint64_t rss_after = gen::peak_rss_bytes();
    largest_rss_growth = rss_after > rss_before ? rss_after - rss_before : 0;
    total_seconds += s;
    total_positions += size;
    std::printf(
        "{\"variant\":\"%s\",\"threads\":%d,\"n\":%d,\"positions\":%llu,\"seconds\":%.4f,"
        "\"positions_per_s\":%.0f,\"peak_rss_growth_bytes_per_position\":%.3f}\n",
        v->to_string().c_str(),
        threads,
        n,
        static_cast<unsigned long long>(size),
        s,
        s > 0 ? static_cast<double>(size) / s : 0.0,
        static_cast<double>(largest_rss_growth) / static_cast<double>(size));
  }
  const std::uint64_t largest = layers.back().value.size();
  std::printf(
      "{\"variant\":\"%s\",\"threads\":%d,\"summary\":true,\"max_stones\":%d,\"positions\":%llu,"
      "\"seconds\":%.3f,\"positions_per_s\":%.0f,\"largest_layer_positions\":%llu,"
      "\"largest_layer_peak_rss_growth_bytes_per_position\":%.3f,\"peak_rss_bytes\":%llu}\n",
      v->to_string().c_str(),
      threads,
      max_stones,
      static_cast<unsigned long long>(total_positions),
      total_seconds,
      static_cast<double>(total_positions) / total_seconds,
      static_cast<unsigned long long>(largest),
      static_cast<double>(largest_rss_growth) / static_cast<double>(largest),
      static_cast<unsigned long long>(gen::peak_rss_bytes()));
  if (argc > 4) {
    Rules rules(v->rules);
    const int k = rules.board_pits();
    if (argc - 4 != k) {
      std::fprintf(stderr, "expected %d pit counts\n", k);
      return 2;
    }
    Pits b{};
    int n = 0;
    for (int i = 0; i < k; ++i) {
      b[i] = static_cast<std::uint8_t>(std::atoi(argv[4 + i]));
      n += b[i];
    }
    if (n > max_stones) {
      std::fprintf(stderr, "the position has %d seeds\n", n);
      return 2;
    }
    const auto idx = rank(std::span<const std::uint8_t>(b.data(), k));
    std::printf("value %d depth %d\n", layers[n].value[idx], layers[n].depth[idx]);
    MoveList ml;
    rules.legal_moves(b, ml);
    for (const Move& m : ml) {
      const int cn = n - m.gain();
      const auto ci = rank(std::span<const std::uint8_t>(m.child.data(), k));
      std::printf("  pit %d worth %d (child depth %d)\n",
                  m.pit,
                  Rules::worth(m, layers[cn].value[ci]),
                  layers[cn].depth[ci]);
    }
  }
  return 0;
}
