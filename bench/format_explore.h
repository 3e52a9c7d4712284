// The parts of sowdb_format_explore that its experiments share: where a layer's file is, and
// the --context experiment (format_context.cpp).
#pragma once

#include <zstd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "sowdb/format/index.h"

namespace sowdb::bench {

/// `dir`/layer-NNN.sdb.
inline std::filesystem::path layer_path(const std::filesystem::path& dir, int n) {
  char name[32];
  std::snprintf(name, sizeof name, "layer-%03d.sdb", n);
  return dir / name;
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

// A zstd dictionary of `dict_size` bytes trained on `blocks` (empty on failure, reported).
Dict train(const Blocks& blocks, std::size_t dict_size, int level);

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
                          bool time_decode = true);

/// compress_with's size without timing.
std::size_t compressed_size(const Blocks& blocks, int level, const Dict* dict = nullptr);

/// --context: what block-local context models of `block`-entry blocks could save on the value
/// streams of `layers` as the generator ships them; prints one line per (layer, model).
int context_report(const std::filesystem::path& dir,
                   const std::vector<int>& layers,
                   std::size_t block);

}  // namespace sowdb::bench
