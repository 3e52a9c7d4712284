// The per-rank writer of the distributed generator: each rank compresses the blocks of its own
// part of a layer, and the file is assembled from them (decision record 0010). Not installed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "dist_solver.h"
#include "exchange.h"
#include "sowdb/format/rule_set.h"
#include "sowdb/format/table_file.h"

namespace sowdb::mpi {

/// How the compressed blocks reach the file.
enum class WriteMode {
  /// Every rank sends its compressed blocks to rank 0, which writes them in order (with the
  /// header, seek table and footer) through format's LayerFileWriter. Format version 6: every
  /// rank sends its piece of each section (block index, group hashes, streams) in turn, and
  /// rank 0 writes them in file order through V6FileWriter.
  kGather,
  /// Every rank writes its compressed blocks itself, with MPI-IO (MPI_File_write_at_all), at an
  /// offset from an MPI_Exscan of the ranks' byte counts; rank 0 writes the header, reads the
  /// blocks back for the file checksum and writes the seek table and footer. Format version 6:
  /// every rank writes its piece of each section, rank 0 the head and the paddings, then reads
  /// the file back for the footer.
  kMpiIo,
};

/// What write_parts did, the same on every rank.
struct WriteResult {
  /// Empty when the file is in place; else the failure (rank 0's message, or naming the rank
  /// that failed); the temporary is then removed and `path` untouched.
  std::string error;
  bool recompute = false;  ///< The file has recompute entries.
};

/// Writes layer `stones`'s file at `path` from every rank's `part` (collective): the bytes
/// `write_layer` writes for the whole layer with `options` (recompute marks stored under the
/// all-moves rule, as gen stores them). `partition` splits the layer in whole blocks of
/// options.block_entries entries (format version 6: of kV6PartBlocks blocks, v6_parts.h), so
/// every block (and every index group of a version 6 file) is one rank's. The value symbols are
/// planned from counts summed over the ranks (MPI_Allreduce), and so are version 6's codes. The
/// file is written under a temporary name that rank 0 renames onto `path` once every rank's blocks
/// are in it. `progress(f)` is called on rank 0. Adds this rank's traffic to `traffic`. The depths
/// of `part` are freed; its values and marks are kept.
WriteResult write_parts(const Comm& comm,
                        const std::filesystem::path& path,
                        const RuleSet& rules,
                        int stones,
                        const Partition& partition,
                        LayerPart& part,
                        const WriteOptions& options,
                        WriteMode mode,
                        Traffic& traffic,
                        const std::function<void(double)>& progress);

}  // namespace sowdb::mpi
