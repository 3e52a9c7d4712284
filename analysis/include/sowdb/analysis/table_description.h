// Describing a table directory: what it holds (rules, objective, layers, gaps, positions, bytes)
// as one struct, for every front end that shows it (the server's /api/v1/variants, ...). The
// directory's layout itself is the probe library's (sowdb/probe/table_directory.h).
#pragma once

#include <cstdint>
#include <optional>

#include "sowdb/probe/table_directory.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb {

/// What an open table set holds.
struct TableDescription {
  Variant variant;                                ///< The tables' variant (canonical).
  Objective objective = Objective::kCompetitive;  ///< What the entries hold.
  int max_stones = -1;          ///< Every position of 0..max_stones seeds is answered.
  std::uint64_t positions = 0;  ///< Positions of the layers 0..max_stones.
  std::uint64_t bytes = 0;      ///< Bytes on disk of those layer files and the manifest.
  std::optional<LayerGap> gap;  ///< The first gap in the directory's layers, if any.
};

/// Describes `set` (reads the directory's listing and the layer headers; no entry).
/// ERRORS throws Refused (kIoFailure) when the directory can no longer be listed.
/// THREAD SAFETY thread safe.
TableDescription describe_tables(const TableSet& set);

}  // namespace sowdb
