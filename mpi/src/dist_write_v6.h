// The per-rank writer of format version 6 (FORMAT.md, "Version 6"): write_parts for
// WriteOptions::format_version 6. Not installed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>

#include "dist_write.h"
#include "exchange.h"
#include "sowdb/format/layer_parts.h"
#include "sowdb/format/rule_set.h"
#include "sowdb/format/table_file.h"

namespace sowdb::mpi {

/// What write_parts hands the version 6 writer: its arguments, this rank's part as the encoder
/// reads it, and the value counts and marks summed over the ranks.
struct V6Job {
  const Comm& comm;
  const std::filesystem::path& path;
  const RuleSet& rules;
  int stones;
  const Partition& partition;  ///< In units of kV6PartBlocks blocks.
  const LayerSource& source;   ///< This rank's part, from partition.begin(comm.rank).
  const ValueCounts& counts;   ///< The whole layer's.
  bool marks;                  ///< Any rank's part has recompute marks.
  const WriteOptions& options;
  const Executor& executor;
  WriteMode mode;
  Traffic& traffic;
  const std::function<void(double)>& progress;
};

/// write_parts for options.format_version 6 (collective): the token counts of every rank's
/// blocks summed (MPI_Allreduce), the codes built on every rank from the sum, every rank codes
/// its blocks, the streams' offsets from an MPI_Exscan of their sizes and the index widths
/// from an MPI_Allreduce; then every section of the file is assembled from the ranks' pieces
/// in rank order (job.mode). The bytes are write_layer's for the whole layer.
WriteResult write_parts_v6(const V6Job& job);

}  // namespace sowdb::mpi
