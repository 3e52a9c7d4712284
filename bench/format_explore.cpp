// Offline compression experiments on generated tables: bytes/position of the value and depth
// streams under alternative encodings (block size, zstd level and minimum match length with
// the decode time of a frame, trained dictionaries, depth only where the value is non-zero, and
// Syzygy-style "don't care" entries that a one-ply probe into smaller layers recomputes). Reads
// the tables through the format library, so it measures the content, not the file it came from.
//
//   sowdb_format_explore TABLE_DIR LAYER... [--quick]   (TABLE_DIR without recompute entries:
//                                                      sowdb gen --no-recompute)
//   sowdb_format_explore --rewrite SRC_DIR DST_DIR   (rewrite every layer with the default
//                                                    WriteOptions, e.g. to the newest version)
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
#include "sowdb/probe/internal/solver_hooks.h"
#include "sowdb/probe/rules.h"

namespace {

using sowdb::LayerReader;

std::filesystem::path layer_path(const std::filesystem::path& dir, int n) {
  char name[32];
  std::snprintf(name, sizeof name, "layer-%03d.sdb", n);
  return dir / name;
}

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

// A stream cut into blocks: the raw bytes of each block.
using Blocks = std::vector<std::vector<std::uint8_t>>;

// For every entry i of `stream` (a layer of n seeds on `pits` pits), the byte of its
// neighbours j = 0..3: the entry of the position with one seed moved from pit j to pit j + 1,
// whose index is i - C(S_j + j - 1, j) (S_j the seeds of pits 0..j), so a block decoder has it
// before i when it lies in the same block of `block` entries; kNoNeighbour otherwise.
constexpr int kNeighbours = 4;
constexpr std::uint8_t kNoNeighbour = 255;
template <typename T>
std::vector<std::array<std::uint8_t, kNeighbours>> neighbours(const std::vector<T>& stream,
                                                              int n,
                                                              int pits,
                                                              std::size_t block) {
  std::vector<std::array<std::uint8_t, kNeighbours>> near(stream.size());
  std::vector<std::uint8_t> board(static_cast<std::size_t>(pits));
  sowdb::unrank(0, n, board);
  for (std::size_t i = 0; i < stream.size(); ++i) {
    int seeds = 0;
    for (int j = 0; j < kNeighbours; ++j) {
      const auto pj = static_cast<std::size_t>(j);
      seeds += j < pits ? board[pj] : 0;
      std::uint8_t s = kNoNeighbour;
      if (j + 1 < pits && board[pj] > 0) {
        const std::uint64_t delta = sowdb::binomial(seeds + j - 1, j);
        if (delta <= i && (i - delta) / block == i / block)
          s = static_cast<std::uint8_t>(stream[i - delta]);
      }
      near[i][pj] = s;
    }
    sowdb::next_position(board);
  }
  return near;
}

struct Dict {
  std::unique_ptr<ZSTD_CDict, decltype(&ZSTD_freeCDict)> cdict{nullptr, ZSTD_freeCDict};
  std::size_t size = 0;
};

Dict train(const Blocks& blocks, std::size_t dict_size, int level) {
  std::vector<std::uint8_t> samples;
  std::vector<std::size_t> sizes;
  // Samples: every block, cut into 4 KiB pieces (ZDICT wants many samples), up to 16 MiB.
  for (const auto& b : blocks) {
    for (std::size_t off = 0; off < b.size() && samples.size() < (std::size_t{16} << 20);
         off += 4096) {
      const std::size_t len = std::min<std::size_t>(4096, b.size() - off);
      samples.insert(samples.end(), b.begin() + off, b.begin() + off + len);
      sizes.push_back(len);
    }
  }
  std::vector<std::uint8_t> dict(dict_size);
  const std::size_t got = ZDICT_trainFromBuffer(
      dict.data(), dict.size(), samples.data(), sizes.data(), static_cast<unsigned>(sizes.size()));
  Dict d;
  if (ZDICT_isError(got)) {
    std::fprintf(stderr, "dictionary training failed: %s\n", ZDICT_getErrorName(got));
    return d;
  }
  d.size = got;
  d.cdict.reset(ZSTD_createCDict(dict.data(), got, level));
  return d;
}

// Compressed size of `blocks` at `level` with zstd's minimum match `min_match` (0: the level's
// own) and an optional dictionary (counted in the size); with `time_decode`, also the fastest
// of 20 decodes of every 16th block, summed over those blocks and divided by their count:
// microseconds per block (the fastest run resists noise from other processes).
struct ParamResult {
  std::size_t bytes = 0;
  double decode_us = 0;
};
ParamResult compress_with(const Blocks& blocks,
                          int level,
                          int min_match,
                          const Dict* dict = nullptr,
                          bool time_decode = true) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0);
  if (min_match != 0)
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_minMatch, min_match);
  if (dict && dict->cdict)
    ZSTD_CCtx_refCDict(cctx, dict->cdict.get());
  ParamResult r;
  r.bytes = dict ? dict->size : 0;
  std::vector<std::uint8_t> out;
  std::vector<std::uint8_t> back;
  int timed = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].empty())
      continue;
    out.resize(ZSTD_compressBound(blocks[b].size()));
    const std::size_t n =
        ZSTD_compress2(cctx, out.data(), out.size(), blocks[b].data(), blocks[b].size());
    if (ZSTD_isError(n)) {
      std::fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(n));
      std::exit(1);
    }
    r.bytes += n;
    if (!time_decode || b % 16 != 0)
      continue;
    back.resize(blocks[b].size());
    double best = 1e30;
    for (int rep = 0; rep < 20; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      ZSTD_decompressDCtx(dctx, back.data(), back.size(), out.data(), n);
      best = std::min(
          best,
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    r.decode_us += best;
    ++timed;
  }
  if (timed)
    r.decode_us /= timed;
  ZSTD_freeCCtx(cctx);
  ZSTD_freeDCtx(dctx);
  return r;
}

std::size_t compressed_size(const Blocks& blocks, int level, const Dict* dict = nullptr) {
  return compress_with(blocks, level, 0, dict, false).bytes;
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
int context_report(const std::filesystem::path& dir,
                   const std::vector<int>& layers,
                   std::size_t block) {
  for (const int n : layers) {
    const auto r = LayerReader::open(layer_path(dir, n));
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
        std::stable_sort(by.begin(), by.end(), [&](int a, int b) {
          return f[static_cast<std::size_t>(a)] > f[static_cast<std::size_t>(b)];
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

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--rewrite") == 0) {
    const std::filesystem::path src = argv[2], dst = argv[3];
    std::filesystem::create_directories(dst);
    for (int n = 0; std::filesystem::exists(layer_path(src, n)); ++n) {
      const auto info = sowdb::read_info(layer_path(src, n));
      const Loaded l = load(src, n, true);
      sowdb::write_layer(layer_path(dst, n), info.rules, n, l.values, l.depths);
      std::printf("layer %d: %llu -> %llu bytes\n",
                  n,
                  static_cast<unsigned long long>(info.file_size),
                  static_cast<unsigned long long>(std::filesystem::file_size(layer_path(dst, n))));
    }
    return 0;
  }
  if (argc >= 4 && std::strcmp(argv[1], "--context") == 0) {
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
    constexpr std::size_t kBlock = 65536;

    // Order-0 entropy of the streams, for reference.
    {
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
      for (const auto& [level, min_match] : {std::pair{9, 0},
                                             std::pair{9, 5},
                                             std::pair{13, 5},
                                             std::pair{15, 5},
                                             std::pair{19, 0}}) {
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

    // "Don't care": entries whose value a one-ply probe into smaller layers recomputes.
    if (n == 0)
      continue;
    std::vector<Loaded> smaller(static_cast<std::size_t>(n));
    for (int m = 0; m < n; ++m)
      smaller[static_cast<std::size_t>(m)] = load(dir, m, false);
    const sowdb::Rules rules(info.rules);
    const int pits = rules.pits();
    // max_out[i]: best worth over moves that leave the layer (or the final value when the game
    // is over); kNone when there is no such move.
    constexpr int kNone = -1000;
    std::vector<std::int16_t> max_out(size, kNone);
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
        int best = kNone;
        for (const sowdb::Move& m : moves) {
          if (m.gain() == 0)
            continue;
          const int child_stones = n - m.gain();
          const std::uint64_t ci =
              sowdb::rank(std::span(m.child.data(), static_cast<std::size_t>(pits)));
          const int cv = smaller[static_cast<std::size_t>(child_stones)].values[ci];
          best = std::max(best, sowdb::Rules::worth(m, cv));
        }
        max_out[i] = static_cast<std::int16_t>(best);
      }
      sowdb::next_position(board);
    }
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
  return 0;
}
