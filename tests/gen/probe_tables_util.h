// Helpers of the probe tests on generated tables (probe_tables_test.cpp, probe_errors_test.cpp):
// positions to sample, damage to do, and read_layer checked entry by entry against the probes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/probe/tables.h"

namespace sowdb::test {

// Positions of layer n: all of them when the layer is small, else every `stride`-th.
inline std::vector<Pits> sample(int pits, int n, std::uint64_t limit = 4000) {
  const std::uint64_t size = layer_size(pits, n);
  const std::uint64_t stride = size <= limit ? 1 : size / limit + 1;
  std::vector<Pits> out;
  for (std::uint64_t i = 0; i < size; i += stride) {
    Pits p{};
    unrank(i, n, std::span<std::uint8_t>(p.data(), static_cast<std::size_t>(pits)));
    out.push_back(p);
  }
  return out;
}

// The index of `p` in its layer.
inline std::uint64_t index_of(const Pits& p, int pits) {
  return rank(std::span<const std::uint8_t>(p.data(), static_cast<std::size_t>(pits)));
}

// A position of `stones` seeds on `pits` pits (seed s in pit 5s mod pits).
inline Pits some_position(int stones, int pits) {
  Pits p{};
  for (int s = 0; s < stones; ++s)
    p[(s * 5) % pits]++;
  return p;
}

// Flips four bits of the byte at `offset` of `file`, in place.
inline void flip_byte(const std::filesystem::path& file, std::uint64_t offset) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x5a));
}

// Reads layers 0..max of `set` with read_layer, each with the layers below as `below` (or none
// when `with_below` is false, so recompute entries probe the smaller layers), the tasks run in
// reverse order, and checks every entry against value(p, v, d) and value(p, v): the same value
// and depth, and kUnreadableValue / kUnreadableDepth exactly where those fail. Returns the
// entries whose value did not read in `unreadable`.
inline void expect_read_layer_answers_as_value(const TableSet& set,
                                               int max,
                                               bool with_below,
                                               std::uint64_t& unreadable) {
  const int k = set.rules().pits();
  std::vector<std::vector<std::int8_t>> values(static_cast<std::size_t>(max) + 1);
  std::vector<std::vector<std::uint64_t>> masks(values.size());
  unreadable = 0;
  for (int n = 0; n <= max; ++n) {
    SCOPED_TRACE("layer " + std::to_string(n));
    std::vector<LayerValues> below;
    for (int m = 0; with_below && m < n; ++m)
      below.push_back({values[m], masks[m]});
    const std::uint64_t size = layer_size(k, n);
    values[n].assign(size, 99);
    std::vector<std::uint16_t> depths(size, 7777);
    std::vector<int> calls(size, 0);
    std::uint64_t last_done = 0;
    ReadLayerOptions options;
    options.executor = [](std::size_t tasks, const std::function<void(std::size_t)>& task) {
      for (std::size_t t = tasks; t-- > 0;)
        task(t);
    };
    options.depths = [&](std::uint64_t first, std::span<const std::uint16_t> block) {
      for (std::size_t j = 0; j < block.size(); ++j) {
        depths[first + j] = block[j];
        ++calls[first + j];
      }
    };
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
      EXPECT_EQ(total, 3 * size);
      last_done = done;
    };
    const ProbeStatus status = set.read_layer(n, below, values[n], &masks[n], options);
    EXPECT_EQ(last_done, 3 * size);
    std::uint64_t failed = 0;
    Pits p{};
    const std::span<std::uint8_t> span(p.data(), static_cast<std::size_t>(k));
    unrank(0, n, span);
    for (std::uint64_t i = 0; i < size; ++i, next_position(span)) {
      ASSERT_EQ(calls[i], 1) << "index " << i;
      int v = 0;
      int d = 0;
      if (set.value(p, v) == ProbeStatus::kOk) {
        ASSERT_EQ(values[n][i], v) << "index " << i;
      } else {
        ASSERT_EQ(values[n][i], kUnreadableValue) << "index " << i;
        ++unreadable;
      }
      if (set.value(p, v, d) == ProbeStatus::kOk) {
        ASSERT_EQ(depths[i], d) << "index " << i;
      } else {
        ASSERT_EQ(depths[i], kUnreadableDepth) << "index " << i;
        ++failed;
      }
    }
    EXPECT_EQ(status == ProbeStatus::kOk, failed == 0) << to_string(status);
  }
}

}  // namespace sowdb::test
