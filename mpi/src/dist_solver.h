// The distributed layer solver: each rank solves its part of a layer, with the values of the
// smaller layers spread over the ranks the same way. Not installed. Decision record 0010.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "exchange.h"
#include "sowdb/format/rule_set.h"

namespace sowdb::mpi {

/// This rank's part of every layer solved or read so far: for layer m, the value bytes of the
/// indices Partition(layer_size, ranks) gives this rank, as the single-process generator keeps
/// them (gen::marked_byte for m <= gen::kMaxMarkedStones, plain values above).
struct Slices {
  std::vector<Partition> partition;             ///< [m]
  std::vector<std::vector<std::int8_t>> bytes;  ///< [m][index - partition[m].begin(rank)]
};

/// This rank's part of a solved layer.
struct LayerPart {
  std::uint64_t first = 0;         ///< Index of the first entry.
  std::vector<std::int8_t> value;  ///< As gen::Layer::value, from `first` on.
  /// As gen::Layer::depth: depths below `deep_byte` in a byte; `deep_byte` for those in `deep`.
  std::vector<std::uint8_t> depth;
  std::uint8_t deep_byte = kDeep;  ///< PartOptions::deep_byte.
  /// (offset from `first`, depth) of the depths of 255 and more, by offset.
  std::vector<std::pair<std::uint64_t, std::uint16_t>> deep;
  /// The recompute entries, bit `i % 64` of word `i / 64` for offset i (empty: none marked).
  std::vector<std::uint64_t> mark;

  /// The byte of `depth` that sends an entry to `deep`, unless PartOptions says otherwise.
  static constexpr std::uint8_t kDeep = 255;
  /// Whether the entry at offset i is a recompute entry.
  bool marked(std::uint64_t i) const {
    return !mark.empty() && ((mark[i / 64] >> (i % 64)) & 1) != 0;
  }
};

/// Options of solve_part.
struct PartOptions {
  bool mark = false;  ///< As gen::SolveOptions::mark (the smaller layers are always marked_bytes).
  /// Depths from this one up (1..255) go to LayerPart::deep. The tests lower it to run that
  /// path, which Oware reaches only in layers far larger than a test solves.
  std::uint8_t deep_byte = LayerPart::kDeep;
  /// Called on rank 0 with the fraction of the layer done.
  std::function<void(double)> progress;
};

/// Solves layer `stones` of `rules` over all ranks (collective): the same values, depths and
/// recompute marks as gen::solve_layer gives for every rule family, by the retrograde analysis
/// of decision record 0007 with thresholds and levels, run over the whole layer in every family
/// (the acyclic families are a special case of it). `smaller` holds this rank's parts of layers
/// 0..stones-1. Adds this rank's traffic to `traffic`. Throws std::runtime_error when a depth
/// exceeds 65535.
LayerPart solve_part(const Comm& comm,
                     const RuleSet& rules,
                     int stones,
                     const Slices& smaller,
                     const PartOptions& options,
                     Traffic& traffic);

/// Answers the requests `in[s]` of every rank s for smaller-layer bytes (m << 48 | index, index
/// owned here) from `slices`, and exchanges the answers back: returns, per destination d, the
/// bytes answering the requests `out[d]` this rank sent, in order. Collective.
std::vector<std::vector<std::int8_t>> request_bytes(
    const Comm& comm,
    const Slices& slices,
    const std::vector<std::vector<std::uint64_t>>& out,
    Traffic& traffic);

/// A request for byte `index` of layer m, as request_bytes takes it.
inline std::uint64_t byte_request(int m, std::uint64_t index) {
  return static_cast<std::uint64_t>(m) << 48 | index;
}

}  // namespace sowdb::mpi
