// Table layers from a fixed seed, for the table file tests and the golden file tool
// (sowdb_regenerate_golden): the contents, the marks of recompute entries, the writer's options
// and the bytes of a file. Needs only sowdb::format (no GoogleTest).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/rule_set.h"
#include "sowdb/format/table_file.h"

namespace sowdb::test {

/// splitmix64: a fixed pseudo-random sequence, identical on every platform.
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
};

/// A layer's contents: values in [-n, n] (skewed towards small magnitudes, as real layers are)
/// and depths below 1000, from a fixed seed. With `zero_depth_at_value_0` (as the solver
/// guarantees, and depth codec 1 needs) an entry of value 0 has depth 0.
struct Layer {
  RuleSet rules;
  int stones = 0;
  std::vector<std::int8_t> values;
  std::vector<std::uint16_t> depths;
  /// Recompute marks (LayerSource::recompute); empty: none.
  std::vector<std::uint64_t> recompute;
  /// The marks follow the all-moves rule (LayerSource::all_moves, version 4): every marked
  /// entry keeps its depth.
  bool all_moves = false;

  bool marked(std::uint64_t i) const {
    return !recompute.empty() && ((recompute[i / 64] >> (i % 64)) & 1) != 0;
  }
  /// What a reader gives for entry i: kRecomputeValue for a marked entry.
  std::int8_t read_value(std::uint64_t i) const {
    return marked(i) && (values[i] >= 0 || stones <= 126) ? kRecomputeValue : values[i];
  }
  /// What a reader gives for entry i: kRecomputeDepth for a marked entry of value >= 0
  /// (version 3).
  std::uint16_t read_depth(std::uint64_t i) const {
    return marked(i) && values[i] >= 0 && !all_moves ? kRecomputeDepth : depths[i];
  }
  std::vector<std::int8_t> read_values() const {
    std::vector<std::int8_t> out(values.size());
    for (std::uint64_t i = 0; i < out.size(); ++i)
      out[i] = read_value(i);
    return out;
  }
  std::vector<std::uint16_t> read_depths() const {
    std::vector<std::uint16_t> out(values.size());
    for (std::uint64_t i = 0; i < out.size(); ++i)
      out[i] = read_depth(i);
    return out;
  }
  /// The writer's input.
  LayerSource source() const {
    LayerSource s;
    s.values = values;
    s.recompute = recompute;
    s.all_moves = all_moves;
    s.fill_depths = [this](std::uint64_t first, std::span<std::uint16_t> out) {
      std::copy_n(depths.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
    };
    return s;
  }
};

inline Layer make_layer(const RuleSet& rules,
                        int stones,
                        std::uint64_t seed,
                        bool zero_depth_at_value_0 = true) {
  Layer l;
  l.rules = rules;
  l.stones = stones;
  const std::uint64_t size = layer_size(rules.pits(), stones);
  SplitMix rng{seed};
  l.values.resize(size);
  l.depths.resize(size);
  for (std::uint64_t i = 0; i < size; ++i) {
    const std::uint64_t r = rng.next();
    int v = 0;
    if (stones > 0) {
      const int span = (r & 3) == 0 ? stones : std::max(1, stones / 4);
      v = static_cast<int>((r >> 8) % static_cast<std::uint64_t>(2 * span + 1)) - span;
    }
    l.values[i] = static_cast<std::int8_t>(v);
    l.depths[i] = v == 0 && zero_depth_at_value_0 ? std::uint16_t{0}
                                                  : static_cast<std::uint16_t>((r >> 32) % 1000);
  }
  return l;
}

/// Marks entry 0 and about `percent`% of the other entries of `l` as recompute entries (from a
/// fixed seed) and gives each marked entry of value > 0 the depth a reader derives, 0 or 1.
inline void mark_recompute(Layer& l, std::uint64_t seed, unsigned percent = 40) {
  SplitMix rng{seed};
  l.recompute.assign((l.values.size() + 63) / 64, 0);
  for (std::uint64_t i = 0; i < l.values.size(); ++i) {
    const std::uint64_t r = rng.next();
    if (i != 0 && r % 100 >= percent)
      continue;
    l.recompute[i / 64] |= std::uint64_t{1} << (i % 64);
    if (l.values[i] > 0)
      l.depths[i] = static_cast<std::uint16_t>((r >> 40) & 1);
  }
}

/// The entries [first, last) of `l` as a distributed writer's part holds them: its own recompute
/// bits (bit i for the part's entry i, so misaligned with the layer's words when `first` is not a
/// multiple of 64) and depths, indexed from the part's first entry.
struct Part {
  std::uint64_t first = 0;
  std::vector<std::int8_t> values;
  std::vector<std::uint16_t> depths;
  std::vector<std::uint64_t> marks;

  LayerSource source(bool all_moves) const {
    LayerSource s;
    s.values = values;
    s.recompute = marks;
    s.all_moves = all_moves;
    s.fill_depths = [this](std::uint64_t at, std::span<std::uint16_t> out) {
      std::copy_n(depths.begin() + static_cast<std::ptrdiff_t>(at), out.size(), out.begin());
    };
    return s;
  }
};

inline Part cut(const Layer& l, std::uint64_t first, std::uint64_t last) {
  Part p;
  p.first = first;
  p.values.assign(l.values.begin() + static_cast<std::ptrdiff_t>(first),
                  l.values.begin() + static_cast<std::ptrdiff_t>(last));
  p.depths.assign(l.depths.begin() + static_cast<std::ptrdiff_t>(first),
                  l.depths.begin() + static_cast<std::ptrdiff_t>(last));
  if (!l.recompute.empty()) {
    p.marks.assign((last - first + 63) / 64, 0);
    for (std::uint64_t i = first; i < last; ++i) {
      if (l.marked(i))
        p.marks[(i - first) / 64] |= std::uint64_t{1} << ((i - first) % 64);
    }
  }
  return p;
}

/// Writer options with a block size and a zstd level, the level's own zstd parameters (as the
/// golden files were written before WriteOptions::zstd_min_match existed), the rest default.
inline WriteOptions write_options(std::uint32_t block_entries, int zstd_level) {
  WriteOptions o;
  o.block_entries = block_entries;
  o.zstd_level = zstd_level;
  o.zstd_min_match = 0;
  return o;
}

/// The bytes of the file at `p` (none when it cannot be read).
inline std::vector<std::byte> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  for (std::size_t i = 0; i < c.size(); ++i)
    b[i] = static_cast<std::byte>(c[i]);
  return b;
}

/// A co-operative layer's sets (write_reach_layer), reach_set_words(stones) words an entry, from
/// a fixed seed: each an interval of differences with holes, drawn from `distinct` patterns (so a
/// test can ask for more than 256 or 65536 distinct sets), every set non-empty.
inline std::vector<std::uint64_t> make_reach_sets(const RuleSet& rules,
                                                  int stones,
                                                  std::uint64_t seed,
                                                  std::uint64_t distinct) {
  const std::uint64_t entries = layer_size(rules.normalised().pits(), stones);
  const auto words = static_cast<std::size_t>(reach_set_words(stones));
  const int bits = 2 * stones + 1;
  std::vector<std::uint64_t> sets(entries * words, 0);
  SplitMix rng{seed};
  for (std::uint64_t i = 0; i < entries; ++i) {
    // Runs of equal sets, as in real layers; the pattern number picks the set.
    const std::uint64_t pattern = rng.next() % distinct;
    SplitMix shape{seed ^ (pattern * 0x9E3779B97F4A7C15ULL)};
    const int lo = static_cast<int>(shape.next() % static_cast<std::uint64_t>(bits));
    const int hi = lo + static_cast<int>(shape.next() % static_cast<std::uint64_t>(bits - lo));
    const std::uint64_t holes = shape.next();
    for (int b = lo; b <= hi; ++b) {
      if (b == lo || ((holes >> (b % 64)) & 1) == 0)
        sets[i * words + static_cast<std::size_t>(b / 64)] |= std::uint64_t{1} << (b % 64);
    }
  }
  return sets;
}

}  // namespace sowdb::test
