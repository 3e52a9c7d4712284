// Every value of a table set's layers, read whole into memory for the start-position search.
// Internal to sowdb_gen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "page_mapping.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/tables.h"

namespace sowdb::gen {

/// The values of layers 0..max_stones() of a table set, one byte a position in index order as
/// the files store them: a lookup is one load at a known address, which a search can prefetch
/// without a dependent load (a probe through the block cache reads the frame's address first,
/// then decodes the block on first use). A recompute entry reads kRecomputeValue: its value is
/// the best worth of its moves, whose children the file stores (FORMAT.md, "Recompute
/// entries"). Read once, over the threads of the calling arena, before the search.
///
/// THREAD SAFETY immutable once built: any number of threads may read it.
class TableValues {
 public:
  /// Bytes the values of layers 0..`max_stones` of a board of `pits` pits take.
  static std::uint64_t bytes_for(int pits, int max_stones);

  /// Reads every layer of `tables`.
  /// ERRORS std::runtime_error naming the layer file and what failed when a layer does not read
  /// (as a probe of it would); std::bad_alloc when the memory cannot be had.
  explicit TableValues(const TableSet& tables);
  ~TableValues();
  TableValues(const TableValues&) = delete;
  TableValues& operator=(const TableValues&) = delete;

  /// The stored bytes of layer `n` (0..max_stones), by index.
  const std::int8_t* layer(int n) const { return layers_[static_cast<std::size_t>(n)]; }

  /// Bytes held.
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::vector<const std::int8_t*> layers_;
  std::unique_ptr<PageMapping> arena_;
  std::uint64_t bytes_ = 0;
};

/// The values of `tables` (a board of `pits` pits; may be null) read whole when they take at
/// most `limit` bytes (SolveStartOptions::preload_limit: -1 for kPreloadBytes or a quarter of the
/// machine's memory, whichever is less; 0: never); null otherwise. `seconds` is set to the time
/// the reading took. ERRORS as TableValues' constructor.
std::unique_ptr<TableValues> preload_values(const TableSet* tables,
                                            int pits,
                                            std::int64_t limit,
                                            double& seconds);

/// The values a search with `options` over `tables` uses: SolveStartOptions::preloaded's when
/// set and of as many layers as `tables`, else its own read as preload_values reads them (held
/// in `owned`, the time in `seconds`); null: the search probes the tables. ERRORS as
/// preload_values.
const TableValues* search_values(const SolveStartOptions& options,
                                 const TableSet* tables,
                                 int pits,
                                 std::unique_ptr<TableValues>& owned,
                                 double& seconds);

}  // namespace sowdb::gen
