// Table file benchmarks (Google Benchmark): bytes/position of each layer of a table directory
// (against 1 byte/position raw), and probe speed on one layer: cached (a hot block) and cold
// (random positions across the layer with a one-block cache, so nearly every probe decodes a
// block; the file itself is in the OS page cache). For a table directory it also measures
// TableSet::value on random positions of the layer, the value alone and value and depth
// (recompute entries resolved with one-ply lookups into the smaller layers): cached (a fixed
// set of 32, or 65536, positions whose blocks all stay decoded) and cold (a one-block cache per
// layer). The size lines also give the share of recompute entries (FORMAT.md, "Recompute
// entries").
//
//   SOWDB_BENCH_TABLES=DIR [SOWDB_BENCH_LAYER=N] sowdb_format_bench [benchmark flags]
//
// Without SOWDB_BENCH_TABLES it writes a synthetic layer (Oware board, 12 seeds, values and
// depths with realistic runs) to a temporary directory and measures that. scripts/bench_format.sh
// runs it and prints a table.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/tables.h"

namespace {

namespace fs = std::filesystem;
using sowdb::LayerReader;

// Compressed bytes of the value and the depth frames, from the seek table (FORMAT.md, "Seek
// table": 24-byte entries before the 16-byte footer).
struct StreamBytes {
  std::uint64_t values = 0;
  std::uint64_t depths = 0;
};

StreamBytes stream_bytes(const fs::path& path, const sowdb::LayerInfo& info) {
  std::ifstream in(path, std::ios::binary);
  const std::uint64_t seek_bytes = std::uint64_t{info.block_count} * 24;
  in.seekg(static_cast<std::streamoff>(info.file_size - 16 - seek_bytes));
  std::vector<unsigned char> raw(seek_bytes);
  in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
  const auto le32 = [&](std::size_t at) {
    return std::uint32_t{raw[at]} | std::uint32_t{raw[at + 1]} << 8 |
           std::uint32_t{raw[at + 2]} << 16 | std::uint32_t{raw[at + 3]} << 24;
  };
  StreamBytes s;
  for (std::uint32_t b = 0; b < info.block_count; ++b) {
    s.values += le32(std::size_t{b} * 24 + 8);
    s.depths += le32(std::size_t{b} * 24 + 12);
  }
  return s;
}

// A synthetic layer: values in runs around a slowly drifting mean, depth 0 at value 0.
fs::path write_synthetic(const fs::path& dir) {
  const sowdb::RuleSet rules{sowdb::Family::kOware,
                             6,
                             true,
                             sowdb::GrandSlam::kForbidden,
                             false,
                             sowdb::KalahEnd::kNoMove};
  const int n = 12;
  const std::uint64_t size = sowdb::layer_size(rules.pits(), n);
  std::vector<std::int8_t> values(size);
  std::vector<std::uint16_t> depths(size);
  std::mt19937_64 rng(12345);
  int v = 0;
  for (std::uint64_t i = 0; i < size; ++i) {
    if (rng() % 4 == 0)
      v = std::clamp(v + static_cast<int>(rng() % 5) - 2, -n, n);
    values[i] = static_cast<std::int8_t>(v);
    depths[i] = v == 0 ? 0 : static_cast<std::uint16_t>(1 + rng() % 3 + (rng() % 8 == 0 ? 20 : 0));
  }
  fs::create_directories(dir);
  const fs::path path = dir / "layer-012.sdb";
  sowdb::write_layer(path, rules, n, values, depths);
  return path;
}

std::map<int, fs::path> layers_in(const fs::path& dir) {
  std::map<int, fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("layer-", 0) == 0 && e.path().extension() == ".sdb")
      out[std::atoi(name.c_str() + 6)] = e.path();
  }
  return out;
}

void bytes_per_position(benchmark::State& state, fs::path path) {
  const sowdb::LayerInfo info = sowdb::read_info(path);
  const StreamBytes s = stream_bytes(path, info);
  for (auto _ : state)
    benchmark::DoNotOptimize(s.values);
  const double e = static_cast<double>(info.entries);
  state.counters["positions"] = e;
  state.counters["file_bytes"] = static_cast<double>(info.file_size);
  state.counters["B/pos"] = static_cast<double>(info.file_size) / e;
  state.counters["value_B/pos"] = static_cast<double>(s.values) / e;
  state.counters["depth_B/pos"] = static_cast<double>(s.depths) / e;
  state.counters["vs_1B_raw"] = static_cast<double>(info.file_size) / e;
  state.counters["version"] = info.format_version;
  // Share of recompute entries (kRecomputeValue), from the values.
  double recompute = 0;
  if (info.recompute) {
    const auto reader = LayerReader::open(path);
    std::vector<std::int8_t> values(info.entries);
    reader->read_all(values, {});
    recompute =
        static_cast<double>(std::count(values.begin(), values.end(), sowdb::kRecomputeValue));
  }
  state.counters["recompute_share"] = recompute / e;
}

enum class Probe { kValue, kDepth, kBoth };

// Probes `kBatch` indices per iteration; counters give ns/probe.
void probe(benchmark::State& state, fs::path path, bool cold, Probe what) {
  sowdb::OpenOptions o;
  o.cache_blocks = cold ? 1 : 8;
  const auto reader = LayerReader::open(path, o);
  const sowdb::LayerInfo& info = reader->info();
  constexpr std::size_t kBatch = 1024;
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> idx(1 << 16);
  // Cached: indices inside one block (the middle one). Cold: anywhere in the layer.
  const std::uint64_t block = info.block_count / 2;
  const std::uint64_t first = cold ? 0 : block * info.block_entries;
  const std::uint64_t span =
      cold ? info.entries : std::min<std::uint64_t>(info.block_entries, info.entries - first);
  for (auto& i : idx)
    i = first + rng() % span;
  std::size_t k = 0;
  std::int64_t sum = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < kBatch; ++j) {
      const std::uint64_t i = idx[k++ & (idx.size() - 1)];
      if (what != Probe::kDepth)
        sum += reader->value(i).value_or(0);
      if (what != Probe::kValue)
        sum += reader->depth(i).value_or(0);
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kBatch);
  state.counters["ns/probe"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kBatch,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["positions"] = static_cast<double>(info.entries);
  state.counters["block_entries"] = info.block_entries;
}

// TableSet::value on random positions of layer `n` of the directory `dir`: value and depth
// (`value_only` false) or the value alone (TableSet::value(pos, v), which never reads a depth
// frame). Cached: `warm` positions, all probed once before timing with a cache of 2^20 blocks
// per layer, so every block they need stays decoded (32 positions: a few hot blocks; 65536: a
// cache of thousands of blocks, which a cache that is searched slot by slot pays for on every
// probe). Cold: 65536 random positions with a one-block cache per layer, so nearly every probe
// decodes its block(s) (the files themselves are in the OS page cache).
void tableset_probe(
    benchmark::State& state, fs::path dir, int n, bool cold, bool value_only, std::size_t warm) {
  sowdb::TableSetOptions o;
  o.cache_blocks = cold ? 1 : std::size_t{1} << 20;
  const auto set = sowdb::TableSet::open(dir, o);
  const int pits = set->rules().pits();
  const std::uint64_t size = sowdb::layer_size(pits, n);
  std::mt19937_64 rng(11);
  std::vector<sowdb::Pits> positions(cold ? std::size_t{1} << 16 : warm);
  for (sowdb::Pits& p : positions) {
    p = {};
    sowdb::unrank(rng() % size, n, std::span(p.data(), static_cast<std::size_t>(pits)));
  }
  const auto probe_one = [&](const sowdb::Pits& p, std::int64_t& sum) {
    int v = 0, d = 0;
    const sowdb::ProbeStatus s = value_only ? set->value(p, v) : set->value(p, v, d);
    sum += v + d;
    return s == sowdb::ProbeStatus::kOk;
  };
  std::int64_t sum = 0;
  if (!cold) {
    for (const sowdb::Pits& p : positions)  // warm the caches
      probe_one(p, sum);
  }
  constexpr std::size_t kBatch = 256;
  std::size_t k = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < kBatch; ++j) {
      if (!probe_one(positions[k++ & (positions.size() - 1)], sum)) {
        state.SkipWithError("probe failed");
        return;
      }
    }
  }
  benchmark::DoNotOptimize(sum);
  state.counters["ns/probe"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kBatch,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["positions"] = static_cast<double>(size);
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir;
  fs::path temp;
  if (const char* env = std::getenv("SOWDB_BENCH_TABLES"); env != nullptr && *env != '\0') {
    dir = env;
  } else {
    temp = fs::temp_directory_path() / ("sowdb_format_bench_" + std::to_string(::getpid()));
    write_synthetic(temp);
    dir = temp;
    std::fprintf(
        stderr, "SOWDB_BENCH_TABLES not set: measuring a synthetic layer in %s\n", temp.c_str());
  }
  const auto layers = layers_in(dir);
  if (layers.empty()) {
    std::fprintf(stderr, "no layer-NNN.sdb files in %s\n", dir.c_str());
    return 2;
  }
  int probe_layer = layers.rbegin()->first;
  if (const char* env = std::getenv("SOWDB_BENCH_LAYER"); env != nullptr && *env != '\0')
    probe_layer = std::atoi(env);
  if (!layers.count(probe_layer)) {
    std::fprintf(stderr, "no layer %d in %s\n", probe_layer, dir.c_str());
    return 2;
  }
  for (const auto& [n, path] : layers) {
    char name[48];
    std::snprintf(name, sizeof name, "size/layer:%03d", n);
    benchmark::RegisterBenchmark(name, bytes_per_position, path)->Iterations(1);
  }
  const fs::path p = layers.at(probe_layer);
  const std::string suffix = "/layer:" + std::to_string(probe_layer);
  benchmark::RegisterBenchmark(
      ("probe_cached/value" + suffix).c_str(), probe, p, false, Probe::kValue);
  benchmark::RegisterBenchmark(
      ("probe_cached/value+depth" + suffix).c_str(), probe, p, false, Probe::kBoth);
  benchmark::RegisterBenchmark(
      ("probe_cold/value" + suffix).c_str(), probe, p, true, Probe::kValue);
  benchmark::RegisterBenchmark(
      ("probe_cold/depth" + suffix).c_str(), probe, p, true, Probe::kDepth);
  // TableSet needs every layer 0..probe_layer (a generated directory, not the synthetic layer).
  bool complete = temp.empty();
  for (int n = 0; n <= probe_layer && complete; ++n)
    complete = layers.count(n) != 0;
  if (complete) {
    for (const bool value_only : {true, false}) {
      const std::string what = value_only ? "value" : "value+depth";
      benchmark::RegisterBenchmark(("probe_tableset_cached/" + what + suffix).c_str(),
                                   tableset_probe,
                                   dir,
                                   probe_layer,
                                   false,
                                   value_only,
                                   std::size_t{32});
      benchmark::RegisterBenchmark(("probe_tableset_cached_64k/" + what + suffix).c_str(),
                                   tableset_probe,
                                   dir,
                                   probe_layer,
                                   false,
                                   value_only,
                                   std::size_t{1} << 16);
      benchmark::RegisterBenchmark(("probe_tableset_cold/" + what + suffix).c_str(),
                                   tableset_probe,
                                   dir,
                                   probe_layer,
                                   true,
                                   value_only,
                                   std::size_t{0});
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!temp.empty())
    fs::remove_all(temp);
  return 0;
}
