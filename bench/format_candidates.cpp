// Measures candidate encodings for format version 6 (issue #43) on one real layer:
//
//   sowdb_format_candidates TABLE_DIR LAYER [--samples N] [--seed S] [--only SPEC,...]
//
// Reads the layer's file (any version 2..4: the recompute entries are kept as the file marks
// them), re-encodes its value symbols and its stored depths in memory in each candidate (SPEC:
// `file` the file as written; `huff:E:C[:fill][:dN][:o2]` Huffman over E-entry blocks, depth
// context C (0 previous depth, 1 value symbol, 2 both, 3 both and runs), `fill` the recompute marks
// dropped (a bound on filling don't-care entries), `dN` depth blocks of N entries, `o2` a
// value context of the previous symbol and a class of the one before; `zstd:E:D:L`
// zstd frames of E-entry blocks, a D KiB dictionary per layer and stream (0: none), level L),
// checks every sampled entry against the layer, then times single-entry decodes without any cache:
// N random entries (default 1 M, the same for every candidate), each timed alone. Prints per
// candidate the bytes/position of each stream, the p50/p99 of a value decode, of a value and depth
// decode, and of a value resolved (a recompute entry pays one decode per legal move: its child's
// block when the child is in this layer, else a random block of this layer standing in for the
// smaller layer's), and the encode throughput of each stream on one thread; for the Huffman
// candidates, what an XXH64 over each sampled entry's group of 16 value blocks costs (a checksum
// granularity a reader would check at every decode).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "candidates.h"
#include "sowdb/format/index.h"
#include "sowdb/format/xxhash64.h"
#include "sowdb/probe/rules.h"

namespace {

using sowdb::bench::Candidate;
using sowdb::bench::Cursor;
using sowdb::bench::Layer;
using Clock = std::chrono::steady_clock;

std::unique_ptr<Candidate> make(const std::string& spec) {
  std::vector<std::string> f;
  std::stringstream ss(spec);
  for (std::string part; std::getline(ss, part, ':');)
    f.push_back(part);
  if (f.size() == 1 && f[0] == "file")
    return sowdb::bench::make_file_candidate();
  if (f.size() >= 3 && f[0] == "huff") {
    bool fill = false, order2 = false;
    std::uint32_t depth_entries = 0;
    for (std::size_t k = 3; k < f.size(); ++k) {
      if (f[k] == "fill")
        fill = true;
      else if (f[k] == "o2")
        order2 = true;
      else if (f[k].size() > 1 && f[k][0] == 'd')
        depth_entries = static_cast<std::uint32_t>(std::stoul(f[k].substr(1)));
      else
        throw std::invalid_argument("unknown option " + f[k] + " in " + spec);
    }
    return sowdb::bench::make_huffman_candidate(
        static_cast<std::uint32_t>(std::stoul(f[1])), std::stoi(f[2]), fill, depth_entries, order2);
  }
  if (f.size() == 4 && f[0] == "zstd")
    return sowdb::bench::make_zstd_candidate(
        static_cast<std::uint32_t>(std::stoul(f[1])), 1024 * std::stoul(f[2]), std::stoi(f[3]));
  throw std::invalid_argument("unknown candidate " + spec);
}

double pct(std::vector<double>& v, double q) {
  if (v.empty())
    return 0;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

// Every sampled entry decodes to the layer's symbol and depth, or the run stops.
void verify(Candidate& c, const Layer& l, std::span<const std::uint64_t> sample) {
  for (std::uint64_t i : sample) {
    Cursor cur;
    const std::uint8_t s = c.value(i, cur);
    if (!c.exact())
      continue;
    if (s != l.symbol[i])
      throw std::runtime_error(c.name() + ": wrong symbol at " + std::to_string(i));
    if (l.stores[s] && c.depth(i, cur) != l.depth[i])
      throw std::runtime_error(c.name() + ": wrong depth at " + std::to_string(i));
  }
}

struct Times {
  std::vector<double> value, value_depth, resolved, hash;
};

// What checking a checksum over the group of kGroupBlocks value blocks of each sampled entry
// costs (XXH64, as the files' checksums), for the candidates that have such groups.
constexpr std::uint32_t kGroupBlocks = 16;
void time_hashes(const Candidate& c, std::span<const std::uint64_t> sample, Times& t) {
  volatile std::uint64_t sink = 0;
  for (std::uint64_t i : sample) {
    const auto g = c.value_group(i, kGroupBlocks);
    if (g.empty())
      return;
    const auto t0 = Clock::now();
    sink = sink + sowdb::xxh64(std::as_bytes(g));
    t.hash.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
  }
}

Times time_lookups(Candidate& c, const Layer& l, std::span<const std::uint64_t> sample) {
  const sowdb::Rules rules(l.info.rules);
  const int pits = rules.board_pits();
  std::mt19937_64 rng(99);
  Times t;
  t.value.reserve(sample.size());
  t.value_depth.reserve(sample.size());
  t.resolved.reserve(sample.size());
  volatile std::uint32_t sink = 0;
  for (std::uint64_t i : sample) {
    Cursor cur;
    const auto t0 = Clock::now();
    const std::uint8_t s = c.value(i, cur);
    const auto t1 = Clock::now();
    if (l.stores[s])
      sink = sink + c.depth(i, cur);
    const auto t2 = Clock::now();
    double extra = 0;
    if (l.mark[s]) {
      sowdb::Pits board{};
      sowdb::unrank(i, l.info.stones, std::span<std::uint8_t>(board.data(), pits));
      sowdb::MoveList moves;
      rules.legal_moves(board, moves);
      for (const auto& m : moves) {
        const std::uint64_t child =
            m.gain() == 0 ? sowdb::rank(std::span<const std::uint8_t>(m.child.data(), pits))
                          : rng() % l.symbol.size();
        const auto u0 = Clock::now();
        Cursor cc;
        sink = sink + c.value(child, cc);
        extra += std::chrono::duration<double, std::nano>(Clock::now() - u0).count();
      }
    }
    const double v = std::chrono::duration<double, std::nano>(t1 - t0).count();
    t.value.push_back(v);
    t.value_depth.push_back(std::chrono::duration<double, std::nano>(t2 - t0).count());
    t.resolved.push_back(v + extra);
  }
  return t;
}

int run(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: sowdb_format_candidates TABLE_DIR LAYER [--samples N] [--seed S] "
                 "[--only SPEC,...]\n");
    return 2;
  }
  std::size_t samples = 1000000;
  std::uint64_t seed = 1;
  std::string only =
      "file,huff:256:3,huff:512:3,huff:1024:3,huff:256:3:fill,zstd:256:0:1,zstd:256:8:3,"
      "zstd:1024:8:3";
  for (int a = 3; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--samples")
      samples = std::stoul(argv[a + 1]);
    else if (k == "--seed")
      seed = std::stoull(argv[a + 1]);
    else if (k == "--only")
      only = argv[a + 1];
  }
  const auto t0 = Clock::now();
  const Layer l = sowdb::bench::load_layer(argv[1], std::atoi(argv[2]));
  const double n = static_cast<double>(l.symbol.size());
  std::size_t marked = 0;
  for (auto s : l.symbol)
    marked += l.mark[s] ? 1 : 0;
  std::printf(
      "layer %d: %llu entries, %d symbols, %.1f%% recompute entries, file %.4f B/pos, "
      "loaded in %.1f s\n",
      l.info.stones,
      static_cast<unsigned long long>(l.symbol.size()),
      l.symbols,
      100.0 * static_cast<double>(marked) / n,
      static_cast<double>(l.info.file_size) / n,
      std::chrono::duration<double>(Clock::now() - t0).count());
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> sample(samples);
  for (auto& i : sample)
    i = rng() % l.symbol.size();
  std::printf(
      "| candidate | values B/pos | depths B/pos | total B/pos | value p50/p99 us | "
      "value+depth p50/p99 us | resolved value p50/p99 us | encode M entries/s "
      "(values, depths) |\n|---|---|---|---|---|---|---|---|\n");
  std::stringstream ss(only);
  for (std::string spec; std::getline(ss, spec, ',');) {
    auto c = make(spec);
    const auto enc = c->encode(l);
    verify(*c, l, std::span(sample).first(std::min<std::size_t>(samples, 100000)));
    Times t = time_lookups(*c, l, sample);
    time_hashes(*c, sample, t);
    const double vb = static_cast<double>(c->value_bytes()) / n;
    const double db = static_cast<double>(c->depth_bytes()) / n;
    std::printf(
        "| %s | %.4f | %.4f | %.4f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.0f, %.0f |\n",
        c->name().c_str(),
        vb,
        db,
        vb + db,
        pct(t.value, 0.5) / 1000,
        pct(t.value, 0.99) / 1000,
        pct(t.value_depth, 0.5) / 1000,
        pct(t.value_depth, 0.99) / 1000,
        pct(t.resolved, 0.5) / 1000,
        pct(t.resolved, 0.99) / 1000,
        n / enc[0] / 1e6,
        n / enc[1] / 1e6);
    if (!t.hash.empty())
      std::printf("  %s: XXH64 of the %u value blocks around an entry: p50 %.2f us, p99 %.2f us\n",
                  c->name().c_str(),
                  kGroupBlocks,
                  pct(t.hash, 0.5) / 1000,
                  pct(t.hash, 0.99) / 1000);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sowdb_format_candidates: %s\n", e.what());
    return 1;
  }
}
