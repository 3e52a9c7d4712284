// Offline compression experiments on generated tables: bytes/position of the value and depth
// streams under alternative encodings (block size, zstd level and minimum match length with
// the decode time of a frame, trained dictionaries, depth only where the value is non-zero, and
// Syzygy-style "don't care" entries that a one-ply probe into smaller layers recomputes). Reads
// the tables through the format library, so it measures the content, not the file it came from.
//
//   sowdb_format_explore TABLE_DIR LAYER... [--quick]   (TABLE_DIR without recompute entries:
//                                                      sowdb gen --no-recompute)
//   sowdb_format_explore --context [--block N] TABLE_DIR LAYER...
//                                                    (the value streams as the generator ships
//                                                    them, recompute entries included: what
//                                                    block-local context models of N-entry
//                                                    blocks, default 4096, could save, with
//                                                    contexts of neighbouring entries and of
//                                                    the captures at hand, and what computing
//                                                    those captures costs a decoder)
//
// Prints one line per (layer, experiment): stream sizes in bytes and bytes/position.
#include "format_explore.h"

#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/rules.h"

namespace {

using sowdb::LayerReader;
using sowdb::bench::Blocks;
using sowdb::bench::compress_with;
using sowdb::bench::compressed_size;
using sowdb::bench::context_report;
using sowdb::bench::Dict;
using sowdb::bench::layer_path;
using sowdb::bench::neighbours;
using sowdb::bench::ParamResult;
using sowdb::bench::train;

struct Loaded {
  std::vector<std::int8_t> values;
  std::vector<std::uint16_t> depths;
};

// Reads a whole layer. The experiments need every value: tables without recompute entries
// (format version 1 or 2, `sowdb gen --no-recompute`).
Loaded load(const std::filesystem::path& dir, int n, bool depths) {
  const auto r = LayerReader::open(layer_path(dir, n));
  if (r->info().recompute) {
    throw std::runtime_error(layer_path(dir, n).string() +
                             " has recompute entries; generate with --no-recompute");
  }
  Loaded l;
  l.values.resize(r->info().entries);
  if (depths)
    l.depths.resize(r->info().entries);
  r->read_all(l.values, l.depths);
  return l;
}

double entropy_bits(const std::vector<std::uint64_t>& freq) {
  std::uint64_t total = 0;
  for (auto f : freq)
    total += f;
  double h = 0;
  for (auto f : freq) {
    if (f)
      h -= static_cast<double>(f) * std::log2(static_cast<double>(f) / static_cast<double>(total));
  }
  return h;
}

// The symbol of each value: falling frequency, ties by rising value (FORMAT.md).
std::array<std::uint8_t, 256> symbols_of(const std::vector<std::int8_t>& v) {
  std::array<std::uint64_t, 256> freq{};
  for (auto x : v)
    ++freq[static_cast<std::uint8_t>(x)];
  std::vector<int> vals;
  for (int x = -128; x < 128; ++x)
    if (freq[static_cast<std::uint8_t>(x)])
      vals.push_back(x);
  std::stable_sort(vals.begin(), vals.end(), [&](int a, int b) {
    return freq[static_cast<std::uint8_t>(a)] > freq[static_cast<std::uint8_t>(b)];
  });
  std::array<std::uint8_t, 256> sym{};
  for (std::size_t i = 0; i < vals.size(); ++i)
    sym[static_cast<std::uint8_t>(vals[i])] = static_cast<std::uint8_t>(i);
  return sym;
}

Blocks value_blocks(const std::vector<std::int8_t>& v, std::size_t block) {
  const auto sym = symbols_of(v);
  Blocks out;
  for (std::size_t first = 0; first < v.size(); first += block) {
    const std::size_t n = std::min(block, v.size() - first);
    auto& b = out.emplace_back(n);
    for (std::size_t i = 0; i < n; ++i)
      b[i] = sym[static_cast<std::uint8_t>(v[first + i])];
  }
  return out;
}

// Depth byte planes of each block; `keep(i)` selects the entries stored.
template <typename Keep>
Blocks depth_blocks(const std::vector<std::uint16_t>& d, std::size_t block, Keep keep) {
  Blocks out;
  std::vector<std::uint16_t> kept;
  for (std::size_t first = 0; first < d.size(); first += block) {
    const std::size_t n = std::min(block, d.size() - first);
    kept.clear();
    for (std::size_t i = first; i < first + n; ++i)
      if (keep(i))
        kept.push_back(d[i]);
    auto& b = out.emplace_back(2 * kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) {
      b[i] = static_cast<std::uint8_t>(kept[i] & 0xFF);
      b[kept.size() + i] = static_cast<std::uint8_t>(kept[i] >> 8);
    }
  }
  return out;
}

struct Reporter {
  std::string table;
  int layer;
  std::uint64_t entries;
  void line(const char* what, std::size_t vbytes, std::size_t dbytes) const {
    const double e = static_cast<double>(entries);
    std::printf("%-8s %3d %12llu  %-44s %11zu %11zu  %.4f %.4f %.4f\n",
                table.c_str(),
                layer,
                static_cast<unsigned long long>(entries),
                what,
                vbytes,
                dbytes,
                static_cast<double>(vbytes) / e,
                static_cast<double>(dbytes) / e,
                static_cast<double>(vbytes + dbytes) / e);
    std::fflush(stdout);
  }
};

// `sowdb_format_explore --context [--block N] TABLE_DIR LAYER...`: argv[1] is "--context".
int context_main(int argc, char** argv) {
  int first = 2;
  std::size_t block = 4096;
  if (std::strcmp(argv[2], "--block") == 0 && argc >= 6) {
    block = std::strtoull(argv[3], nullptr, 10);
    first = 4;
  }
  if (block == 0) {
    std::fprintf(stderr, "--block: a positive number of entries\n");
    return 2;
  }
  std::vector<int> layers;
  for (int i = first + 1; i < argc; ++i)
    layers.push_back(std::atoi(argv[i]));
  return context_report(argv[first], layers, block);
}

constexpr std::size_t kBlock = 65536;

// Order-0 entropy of the streams, for reference, and the layer's shape.
void entropy_lines(const Loaded& l, const sowdb::LayerInfo& info, const Reporter& rep) {
  const std::size_t size = l.values.size();
  const int n = rep.layer;
  std::vector<std::uint64_t> vf(256), df(65536), dnz(65536);
  for (std::size_t i = 0; i < size; ++i) {
    ++vf[static_cast<std::uint8_t>(l.values[i])];
    ++df[l.depths[i]];
    if (l.values[i] != 0)
      ++dnz[l.depths[i]];
  }
  rep.line("order-0 entropy (values; depths; nz depths)",
           static_cast<std::size_t>(entropy_bits(vf) / 8),
           static_cast<std::size_t>(entropy_bits(df) / 8));
  rep.line("order-0 entropy of depths where value != 0",
           0,
           static_cast<std::size_t>(entropy_bits(dnz) / 8));
  std::uint64_t zeros = 0;
  std::uint16_t max_depth = 0;
  for (std::size_t i = 0; i < size; ++i) {
    zeros += l.values[i] == 0;
    max_depth = std::max(max_depth, l.depths[i]);
  }
  std::printf("# layer %d: %.1f%% value 0, max depth %u, %zu distinct values\n",
              n,
              100.0 * static_cast<double>(zeros) / static_cast<double>(size),
              max_depth,
              info.value_table.size());
}

// The encodings: zstd levels, block sizes, minimum match lengths and trained dictionaries.
void encoding_lines(const Loaded& l, const Reporter& rep, bool quick) {
  const std::size_t size = l.values.size();
  const auto all = [](std::size_t) { return true; };
  const auto nonzero = [&](std::size_t i) { return l.values[i] != 0; };
  const Blocks v64 = value_blocks(l.values, kBlock);
  const Blocks d64 = depth_blocks(l.depths, kBlock, all);
  const Blocks dnz64 = depth_blocks(l.depths, kBlock, nonzero);
  const std::size_t base_v = compressed_size(v64, 9);
  rep.line("v1: block 64Ki, level 9, all depths", base_v, compressed_size(d64, 9));
  const std::size_t nz_d = compressed_size(dnz64, 9);
  rep.line("block 64Ki, level 9, depths where value!=0", base_v, nz_d);

  for (const int level : {3, 6, 12, 19}) {
    if (quick && level != 3 && level != 19)
      continue;
    if (size > (std::size_t{30} << 20) && level == 19)
      continue;
    char what[64];
    std::snprintf(what, sizeof what, "block 64Ki, level %d, depths value!=0", level);
    rep.line(what, compressed_size(v64, level), compressed_size(dnz64, level));
  }
  // zstd parameters at the writer's block size (8Ki entries): level and minimum match
  // length, with the decode time of one frame (what a cold probe pays).
  {
    const Blocks v8 = value_blocks(l.values, 8192);
    const Blocks d8 = depth_blocks(l.depths, 8192, nonzero);
    for (const auto& [level, min_match] :
         {std::pair{9, 0}, std::pair{9, 5}, std::pair{13, 5}, std::pair{15, 5}, std::pair{19, 0}}) {
      const ParamResult pv = compress_with(v8, level, min_match);
      const ParamResult pd = compress_with(d8, level, min_match);
      char what[80];
      std::snprintf(what,
                    sizeof what,
                    "block 8Ki, level %d, minMatch %d, dec %.1f+%.1f us",
                    level,
                    min_match,
                    pv.decode_us,
                    pd.decode_us);
      rep.line(what, pv.bytes, pd.bytes);
    }
  }
  for (const std::size_t block :
       {std::size_t{4096}, std::size_t{16384}, std::size_t{262144}, std::size_t{1} << 20}) {
    char what[64];
    std::snprintf(what, sizeof what, "block %zuKi, level 9, depths value!=0", block / 1024);
    rep.line(what,
             compressed_size(value_blocks(l.values, block), 9),
             compressed_size(depth_blocks(l.depths, block, nonzero), 9));
  }
  // Trained dictionaries (one for values, one for depths), counted in the size.
  for (const std::size_t block : {std::size_t{4096}, std::size_t{16384}, kBlock}) {
    for (const std::size_t dict_size : {std::size_t{16} << 10, std::size_t{64} << 10}) {
      if (quick && dict_size != (std::size_t{16} << 10))
        continue;
      const Blocks vb = block == kBlock ? v64 : value_blocks(l.values, block);
      const Blocks db = block == kBlock ? dnz64 : depth_blocks(l.depths, block, nonzero);
      const auto t0 = std::chrono::steady_clock::now();
      const Dict vd = train(vb, dict_size, 9);
      const Dict dd = train(db, dict_size, 9);
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      char what[80];
      std::snprintf(what,
                    sizeof what,
                    "block %zuKi, dict %zuKi (train %.0fs), dep v!=0",
                    block / 1024,
                    dict_size / 1024,
                    secs);
      rep.line(what, compressed_size(vb, 9, &vd), compressed_size(db, 9, &dd));
    }
  }
}

// max_out[i] for each entry of layer n: the best worth over moves that leave the layer (or the
// final value when the game is over); kNoExit when there is no such move.
constexpr int kNoExit = -1000;

std::vector<std::int16_t> best_exits(const std::filesystem::path& dir,
                                     int n,
                                     const sowdb::LayerInfo& info,
                                     std::size_t size) {
  std::vector<Loaded> smaller(static_cast<std::size_t>(n));
  for (int m = 0; m < n; ++m)
    smaller[static_cast<std::size_t>(m)] = load(dir, m, false);
  const sowdb::Rules rules(info.rules);
  const int pits = rules.board_pits();
  std::vector<std::int16_t> max_out(size, kNoExit);
  std::vector<std::uint8_t> board(static_cast<std::size_t>(pits));
  sowdb::unrank(0, n, board);
  for (std::size_t i = 0; i < size; ++i) {
    sowdb::Pits b{};
    std::copy(board.begin(), board.end(), b.begin());
    sowdb::MoveList moves;
    const int count = rules.legal_moves(b, moves);
    if (count == 0) {
      max_out[i] = static_cast<std::int16_t>(rules.final_value(b));
    } else {
      int best = kNoExit;
      for (const sowdb::Move& m : moves) {
        if (m.gain() == 0)
          continue;
        const int child_stones = n - m.gain();
        const std::uint64_t ci =
            sowdb::rank(std::span(m.child.data(), static_cast<std::size_t>(pits)));
        const std::int8_t cv = smaller[static_cast<std::size_t>(child_stones)].values[ci];
        best = std::max(best, sowdb::Rules::worth(m, cv));
      }
      max_out[i] = static_cast<std::int16_t>(best);
    }
    sowdb::next_position(board);
  }
  return max_out;
}

// What a context model could reach (see below), for the value stream and the "marked" one.
void context_lines(const Loaded& l, int n, int pits, const std::vector<std::int16_t>& max_out) {
  const std::size_t size = l.values.size();
  const auto is_dc = [&](std::size_t i) { return max_out[i] == l.values[i]; };
  // What a context model could reach, in bytes/position: the conditional entropy of the
  // values given the previous one or two entries (what a block decoder knows), and given the
  // best exit (which a decoder only knows after P probes into smaller layers per entry);
  // "marked" is the value stream with every recomputable entry of value >= 0 replaced by one
  // symbol (the recompute entries without the one-ply rule).
  {
    std::vector<std::int8_t> marked = l.values;
    for (std::size_t i = 0; i < size; ++i)
      if (is_dc(i) && l.values[i] >= 0)
        marked[i] = 127;
    const auto byte = [](std::int8_t v) { return static_cast<std::uint64_t>(v) & 0xFF; };
    const auto h = [&](const std::vector<std::int8_t>& v, auto context) {
      std::map<std::uint64_t, std::map<int, std::uint64_t>> counts;
      for (std::size_t i = 0; i < size; ++i)
        ++counts[context(i)][v[i]];
      double bits = 0;
      for (const auto& [c, dist] : counts) {
        std::uint64_t total = 0;
        for (const auto& [x, f] : dist)
          total += f;
        for (const auto& [x, f] : dist)
          bits -= static_cast<double>(f) *
                  std::log2(static_cast<double>(f) / static_cast<double>(total));
      }
      return bits / 8 / static_cast<double>(size);
    };
    const auto prev1 = [&](const std::vector<std::int8_t>& v) {
      return [&v, &byte](std::size_t i) { return i ? byte(v[i - 1]) : 0; };
    };
    const auto prev2 = [&](const std::vector<std::int8_t>& v) {
      return [&v, &byte](std::size_t i) {
        return (i ? byte(v[i - 1]) : 0) << 8 | (i > 1 ? byte(v[i - 2]) : 0);
      };
    };
    std::printf(
        "# layer %d conditional entropy, B/position: values %.4f, given the previous entry "
        "%.4f, the previous two %.4f, the best exit %.4f; marked %.4f, %.4f, %.4f\n",
        n,
        h(l.values, [](std::size_t) { return 0; }),
        h(l.values, prev1(l.values)),
        h(l.values, prev2(l.values)),
        h(l.values, [&](std::size_t i) { return static_cast<std::uint64_t>(max_out[i] + 2000); }),
        h(marked, [](std::size_t) { return 0; }),
        h(marked, prev1(marked)),
        h(marked, prev2(marked)));
    // Richer contexts a block decoder can afford: the entries of the positions with one seed
    // moved from pit j to pit j + 1 (a smaller index, so decoded earlier when in the same
    // 4096-entry block; "none" otherwise). The cost is that of an adaptive model over the
    // whole layer (counts + 1/2), so it includes the price of learning the model.
    {
      const auto near = neighbours(marked, n, pits, 4096);
      const auto adaptive = [&](int used) {
        std::map<std::uint32_t, std::map<int, std::uint32_t>> counts;
        const double alphabet = 2.0 * n + 2;  // values -n..n and the mark
        double bits = 0;
        for (std::size_t i = 0; i < size; ++i) {
          std::uint32_t c = 0;
          for (int j = 0; j < used; ++j)
            c = c << 8 | near[i][static_cast<std::size_t>(j)];
          auto& dist = counts[c];
          std::uint32_t total = 0;
          for (const auto& [x, f] : dist)
            total += f;
          std::uint32_t& f = dist[marked[i]];
          bits -= std::log2((f + 0.5) / (total + 0.5 * alphabet));
          ++f;
        }
        return bits / 8 / static_cast<double>(size);
      };
      std::printf(
          "# layer %d marked values, adaptive model, B/position: neighbours of pits 0..1 %.4f, "
          "0..2 %.4f, 0..3 %.4f\n",
          n,
          adaptive(2),
          adaptive(3),
          adaptive(4));
    }
  }
}

// Don't-care entries in the value stream, three ways, with the depth stream they leave.
void dont_care_lines(const Loaded& l,
                     int n,
                     const Reporter& rep,
                     const std::vector<std::int16_t>& max_out) {
  const std::size_t size = l.values.size();
  const auto is_dc = [&](std::size_t i) { return max_out[i] == l.values[i]; };
  // Depth stream: where value != 0, except value > 0 don't-care entries (depth 1 by rule).
  const auto keep_depth = [&](std::size_t i) {
    return l.values[i] != 0 && !(l.values[i] > 0 && is_dc(i));
  };
  const Blocks ddc = depth_blocks(l.depths, kBlock, keep_depth);
  const std::size_t ddc_size = compressed_size(ddc, 9);
  // (a) a "recompute" symbol: the reader probes only those entries.
  {
    std::vector<std::int8_t> v = l.values;
    for (std::size_t i = 0; i < size; ++i)
      if (is_dc(i))
        v[i] = 127;  // a value no layer holds: its own symbol
    rep.line("dc (a) recompute symbol, dep v!=0 & !dc+",
             compressed_size(value_blocks(v, kBlock), 9),
             ddc_size);
  }
  // (b) reader always probes, value = max(stored, max_out): a don't-care entry stores the
  // previous stored value when that is <= its value (extends runs), else its value.
  {
    std::vector<std::int8_t> v = l.values;
    for (std::size_t i = 1; i < size; ++i)
      if (is_dc(i) && v[i - 1] <= l.values[i])
        v[i] = v[i - 1];
    rep.line("dc (b) always probe, runs extended",
             compressed_size(value_blocks(v, kBlock), 9),
             ddc_size);
  }
  // (c) reader always probes: a don't-care entry stores the most frequent value when <= its
  // value (or the smallest value -n: always allowed).
  {
    std::array<std::uint64_t, 256> freq{};
    for (auto x : l.values)
      ++freq[static_cast<std::uint8_t>(x)];
    int common = 0;
    for (int x = -n; x <= n; ++x)
      if (freq[static_cast<std::uint8_t>(x)] > freq[static_cast<std::uint8_t>(common)])
        common = x;
    std::vector<std::int8_t> v = l.values;
    for (std::size_t i = 0; i < size; ++i)
      if (is_dc(i))
        v[i] = static_cast<std::int8_t>(common <= l.values[i] ? common : -n);
    rep.line("dc (c) always probe, most frequent or -n",
             compressed_size(value_blocks(v, kBlock), 9),
             ddc_size);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::strcmp(argv[1], "--context") == 0)
    return context_main(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TABLE_DIR LAYER... [--quick]\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  bool quick = false;
  std::vector<int> layers;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else
      layers.push_back(std::atoi(argv[i]));
  }
  std::printf("%-8s %3s %12s  %-44s %11s %11s  %6s %6s %6s\n",
              "table",
              "n",
              "positions",
              "experiment",
              "val-bytes",
              "dep-bytes",
              "val/p",
              "dep/p",
              "tot/p");
  for (const int n : layers) {
    const auto info = sowdb::read_info(layer_path(dir, n));
    const Loaded l = load(dir, n, true);
    const std::size_t size = l.values.size();
    Reporter rep{dir.filename().string(), n, size};
    entropy_lines(l, info, rep);
    encoding_lines(l, rep, quick);
    // "Don't care": entries whose value a one-ply probe into smaller layers recomputes.
    if (n == 0)
      continue;
    const std::vector<std::int16_t> max_out = best_exits(dir, n, info, size);
    std::size_t dc = 0, dc_pos = 0, wrong = 0;
    for (std::size_t i = 0; i < size; ++i) {
      if (max_out[i] > l.values[i])
        ++wrong;
      if (max_out[i] == l.values[i]) {
        ++dc;
        dc_pos += l.values[i] > 0;
      }
    }
    std::printf("# layer %d: don't care %.1f%% (%.1f%% with value > 0)%s\n",
                n,
                100.0 * static_cast<double>(dc) / static_cast<double>(size),
                100.0 * static_cast<double>(dc_pos) / static_cast<double>(size),
                wrong ? "  INCONSISTENT: an out-of-layer move beats the value" : "");
    context_lines(l, n, sowdb::Rules(info.rules).board_pits(), max_out);
    dont_care_lines(l, n, rep, max_out);
  }
  return 0;
}
