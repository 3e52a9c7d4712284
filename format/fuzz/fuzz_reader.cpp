// libFuzzer target: arbitrary bytes as a table file. The reader must throw TableError or work;
// it must never crash, read out of bounds (AddressSanitizer) or hit undefined behaviour (UBSan).
// Co-operative files (version 5) go through the set paths; version 6 files (seeded by
// tests/data/golden_v6_*.sdb) through the same value, depth and block calls as the others.
// Checksums are tried both on and off: off, mutated blocks reach the zstd and symbol checks
// (FORMAT.md checks 18..20) that a checksum would otherwise stop first.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sowdb/format/table_file.h"

namespace {

void exercise(const std::uint8_t* data, std::size_t size, bool verify) {
  // The block cache's paths: none, a single frame, a few, and sharded (32 frames and more);
  // each also with a depth cache of its own (OpenOptions::depth_cache_blocks) of 0 or 3 frames.
  static constexpr std::size_t kCacheBlocks[] = {0, 1, 2, 64};
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i)
    bytes[i] = static_cast<std::byte>(data[i]);
  sowdb::OpenOptions options;
  options.verify_checksums = verify;
  options.cache_blocks = kCacheBlocks[size % 4];
  if (size / 4 % 3 != 0)
    options.depth_cache_blocks = size / 4 % 3 == 1 ? 0 : 3;
  std::unique_ptr<sowdb::LayerReader> reader;
  try {
    reader = sowdb::LayerReader::open_memory(std::move(bytes), options);
  } catch (const sowdb::TableError&) {
    return;
  }
  const sowdb::LayerInfo& info = reader->info();
  const int n = info.stones;
  if (info.objective == sowdb::Objective::kCooperative) {
    // A co-operative file: every symbol names a set of the table, and no entry has a value.
    const std::uint64_t step = info.entries / 64 + 1;
    for (std::uint64_t i = 0; i < info.entries; i += step) {
      const auto s = reader->set_symbol(i);
      if ((s && reader->set(*s).size() != static_cast<std::size_t>(sowdb::reach_set_words(n))) ||
          reader->value(i) || reader->depth(i))
        __builtin_trap();
    }
    if (reader->set_symbol(info.entries))
      __builtin_trap();
    if (info.entries <= (std::uint64_t{1} << 20)) {
      std::vector<std::uint32_t> symbols(info.entries);
      try {
        reader->read_all_symbols(symbols);
        for (std::uint32_t s : symbols) {
          if (s >= info.set_count)
            __builtin_trap();
        }
      } catch (const sowdb::TableError&) {
      }
    }
    return;
  }
  // A value in [-n, n], or kRecomputeValue in a file with recompute entries.
  const auto valid = [&](int v) {
    return (v >= -n && v <= n) || (info.recompute && v == sowdb::kRecomputeValue);
  };
  // Probe the first, last and a spread of indices, and past the end.
  const std::uint64_t step = info.entries / 64 + 1;
  for (std::uint64_t i = 0; i < info.entries; i += step) {
    const auto v = reader->value(i);
    if (v && !valid(*v))
      __builtin_trap();
    const auto d = reader->depth(i);
    // In a file with recompute entries only a recompute entry reads as kRecomputeDepth; with
    // depth codec 1 a value-0 entry has depth 0.
    if (v && d &&
        ((info.recompute && *d == sowdb::kRecomputeDepth && *v != sowdb::kRecomputeValue) ||
         (*v == 0 && *d != 0 && info.depth_codec != sowdb::DepthCodec::kAll)))
      __builtin_trap();
    // Both from one lookup: what the two calls give (the bytes are in memory and unchanged).
    const auto both = reader->value_and_depth(i);
    if (both.has_value() != (v && d) || (both && (both->value != *v || both->depth != *d)))
      __builtin_trap();
  }
  (void)reader->value(info.entries - 1);
  (void)reader->depth(info.entries - 1);
  if (reader->value(info.entries) || reader->depth(info.entries) ||
      reader->value_and_depth(info.entries))
    __builtin_trap();
  if (info.entries <= (std::uint64_t{1} << 20)) {
    std::vector<std::int8_t> values(info.entries);
    std::vector<std::uint16_t> depths(info.entries);
    try {
      reader->read_all(values, depths);
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (!valid(values[i]))
          __builtin_trap();
        if (info.recompute && depths[i] == sowdb::kRecomputeDepth &&
            values[i] != sowdb::kRecomputeValue)
          __builtin_trap();
      }
    } catch (const sowdb::TableError&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  exercise(data, size, true);
  exercise(data, size, false);
  return 0;
}
