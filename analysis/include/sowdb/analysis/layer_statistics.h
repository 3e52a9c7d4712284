// Per-layer statistics of a table directory (`sowdb stats`): for competitive tables the value
// and depth histograms, wins, draws, losses and endless draws; for co-operative tables how often
// a balanced end stays reachable.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sowdb/probe/tables.h"

namespace sowdb {

/// The largest layer whose draws layer_statistics sorts into endless and realised ones: 500
/// million positions, a few GB for the graph of its draws.
inline constexpr std::uint64_t kMaxEndlessLayer = 500000000;

/// One layer of competitive tables, every value and depth as the probe library answers them.
struct LayerStatistics {
  int n = 0;                            ///< Seeds on the board.
  std::uint64_t positions = 0;          ///< Entries of the layer.
  std::uint64_t wins = 0;               ///< Positions of value > 0 (for the mover).
  std::uint64_t draws = 0;              ///< Positions of value 0.
  std::uint64_t losses = 0;             ///< Positions of value < 0.
  double mean_value = 0;                ///< Over every position.
  double mean_depth_decided = 0;        ///< Over the positions of value != 0 (0 when none).
  int max_depth = 0;                    ///< The largest depth of the layer.
  Pits max_depth_position{};            ///< The first position (lowest index) of that depth.
  std::map<int, std::uint64_t> values;  ///< Positions per value, values that occur only.
  std::vector<std::uint64_t> depths;    ///< Positions of value != 0 per depth (index).
  std::uint64_t unreadable = 0;         ///< Always 0 in a report (a damaged layer throws).
  /// Draws decided by endless play; nullopt on layers above kMaxEndlessLayer positions.
  std::optional<std::uint64_t> endless_draws;

  /// `count` as a share of the layer's positions, 0..1.
  double share(std::uint64_t count) const {
    return static_cast<double>(count) / static_cast<double>(positions);
  }
  /// `count` as a percentage of the layer's positions, 0..100.
  double percent(std::uint64_t count) const {
    return 100.0 * static_cast<double>(count) / static_cast<double>(positions);
  }
};

/// One layer of co-operative tables.
struct CooperativeLayerStatistics {
  int n = 0;
  std::uint64_t positions = 0;
  /// Positions from which a balanced end is reachable with empty stores (0 in the set).
  std::uint64_t balanced = 0;
  double balanced_share = 0;        ///< balanced / positions.
  double mean_reachable = 0;        ///< Mean number of reachable differences.
  std::uint32_t distinct_sets = 0;  ///< Sets the layer's file lists.
  std::uint64_t bytes_on_disk = 0;  ///< The layer file's size.
};

/// Reads layers 0..`last` of competitive `tables` whole and calls `on_layer` with each layer's
/// statistics as soon as it is done, lowest layer first (a caller prints as they come), on
/// `threads` threads of this call's own (gen::run_with_threads; 0: all cores).
/// ERRORS throws Refused (kCorruptTable, Refusal::layer set) naming the layer (and
/// TableSet::layer_error) when entries of a layer do not read; `on_layer` has then been called
/// for the layers below it. std::invalid_argument for a negative `threads`.
/// THREAD SAFETY any number of calls at once, each with its own thread count.
void layer_statistics(const TableSet& tables,
                      int last,
                      const std::function<void(const LayerStatistics&)>& on_layer,
                      int threads = 0);

/// The same for co-operative `tables`: `on_layer` per layer 0..`last`, on the calling thread.
/// ERRORS throws Refused (kCorruptTable, Refusal::layer set) naming the layer when its file
/// does not read.
void cooperative_layer_statistics(
    const TableSet& tables,
    int last,
    const std::function<void(const CooperativeLayerStatistics&)>& on_layer);

}  // namespace sowdb
