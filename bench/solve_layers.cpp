#include <chrono>
#include <cstdio>
#include <tbb/global_control.h>
#include "sowdb/gen/solver.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"
using namespace sowdb;
int main(int argc, char** argv) {
  auto v = parse_variant(argv[1]);
  int maxn = atoi(argv[2]);
  int threads = argc > 3 ? atoi(argv[3]) : 2;
  tbb::global_control gc(tbb::global_control::max_allowed_parallelism, threads);
  std::vector<gen::Layer> layers;
  double total = 0; std::uint64_t pos = 0;
  for (int n = 0; n <= maxn; ++n) {
    auto t0 = std::chrono::steady_clock::now();
    layers.push_back(gen::solve_layer(v->rules, n, [&](int m) { return layers[m].value.data(); }));
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    total += s; pos += layers[n].value.size();
    int maxd = 0; for (auto d : layers[n].depth) maxd = std::max<int>(maxd, d);
    std::printf("n=%d size=%zu %.3fs %.1fM/s maxdepth=%d\n", n, layers[n].value.size(), s, layers[n].value.size()/s/1e6, maxd);
  }
  std::printf("total %.2fs %.2fM pos/s\n", total, pos/total/1e6);
  Rules rules(v->rules);
  int k = rules.pits();
  if (argc > 4) {
    Pits b{}; int n = 0;
    for (int i = 0; i < k; ++i) { b[i] = atoi(argv[4 + i]); n += b[i]; }
    auto idx = rank(std::span<const std::uint8_t>(b.data(), k));
    std::printf("value %d depth %d\n", layers[n].value[idx], layers[n].depth[idx]);
    MoveList ml; rules.legal_moves(b, ml);
    for (auto& m : ml) {
      int cn = n - m.gain();
      auto ci = rank(std::span<const std::uint8_t>(m.child.data(), k));
      std::printf(" pit %d worth %d (depth %d)\n", m.pit, Rules::worth(m, layers[cn].value[ci]), layers[cn].depth[ci]);
    }
  }
}
