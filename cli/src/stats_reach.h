// `sowdb stats` on co-operative tables (`sowdb gen --objective cooperative`): the rendering of
// sowdb::cooperative_layer_statistics (sowdb/analysis/layer_statistics.h).
#pragma once

#include <string>

#include "sowdb/probe/tables.h"

namespace sowdb::cli {

/// How `stats` prints: one JSON object per layer, CSV, Markdown or aligned text.
enum class StatsFormat { kText, kJson, kCsv, kMarkdown };

/// Prints, per layer 0..last of co-operative `tables` (in directory `dir`), the share of
/// positions from which a balanced end is reachable with empty stores (0 in the set), the mean
/// number of reachable differences, and the distinct sets the layer's file lists. Throws
/// std::runtime_error naming the layer when a file does not read.
void print_reach_stats(const TableSet& tables,
                       int last,
                       const std::string& dir,
                       StatsFormat format);

}  // namespace sowdb::cli
