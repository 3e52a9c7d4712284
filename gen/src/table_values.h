// Every value of a table set's layers, read whole into memory for the start-position search.
// Internal to sowdb_gen.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
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
/// THREAD SAFETY immutable once built: any number of threads may read it. Built `deferred`,
/// one thread may read layers into it (read_layers) while any number read layer().
class TableValues {
 public:
  /// Bytes the values of layers 0..`max_stones` of a board of `pits` pits take.
  static std::uint64_t bytes_for(int pits, int max_stones);

  /// Reads every layer of `tables`, over the threads of the calling arena.
  /// ERRORS std::runtime_error naming the layer file and what failed when a layer does not read
  /// (as a probe of it would); std::bad_alloc when the memory cannot be had.
  explicit TableValues(const TableSet& tables);
  /// `deferred` true: room for every layer of `tables` (untouched pages cost no memory) and no
  /// layer read yet: layer() is null until read_layers reads it. ERRORS std::bad_alloc.
  TableValues(const TableSet& tables, bool deferred);
  ~TableValues();
  TableValues(const TableValues&) = delete;
  TableValues& operator=(const TableValues&) = delete;

  /// The stored bytes of layer `n` (0..max_stones), by index; null for a layer not read (only
  /// ever when built deferred).
  const std::int8_t* layer(int n) const {
    return layers_[static_cast<std::size_t>(n)].load(std::memory_order_acquire);
  }

  /// (Built deferred) Reads the layers of `tables`, the top one first, on the calling thread,
  /// each published (layer() set) once read whole, until every one down to `lowest` is read or
  /// `cancel` is set (checked at every block). A layer that does not read stays unpublished: its
  /// lookups go to the tables, which report the failure as they would without this. Never throws:
  /// memory that cannot be had ends the reading.
  void read_layers(const TableSet& tables, const std::atomic<bool>& cancel, int lowest = 0);

  /// Bytes held: every layer's, or (built deferred) those of the layers read so far.
  std::uint64_t bytes() const { return read_bytes_.load(std::memory_order_relaxed); }

 private:
  std::unique_ptr<std::atomic<const std::int8_t*>[]> layers_;
  std::vector<std::int8_t*> room_;  // where each layer goes in arena_
  std::unique_ptr<PageMapping> arena_;
  std::atomic<std::uint64_t> read_bytes_{0};
};

/// The values of a table set read in a thread of its own while a search goes on through the
/// tables' block caches (SolveStartOptions::preload_delay): the reading starts once `delay`
/// seconds have passed, so that a search that ends sooner never pays for it, and each layer
/// serves the search as soon as it is read.
///
/// THREAD SAFETY values() may be read from any thread; finish() and the destructor from the
/// owner's only.
class BackgroundValues {
 public:
  /// Starts the thread. `tables` must outlive this object. ERRORS std::bad_alloc;
  /// std::system_error when no thread can be started.
  BackgroundValues(const TableSet& tables, double delay);
  /// finish().
  ~BackgroundValues();
  BackgroundValues(const BackgroundValues&) = delete;
  BackgroundValues& operator=(const BackgroundValues&) = delete;

  /// The values, layers appearing as they are read.
  const TableValues* values() const { return values_.get(); }

  /// Stops the reading (a layer half read is left unpublished) and waits for the thread; the
  /// layers read stay. Returns the seconds spent reading. Idempotent.
  double finish();

 private:
  void run(const TableSet& tables, double delay);

  std::unique_ptr<TableValues> values_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<bool> cancel_{false};
  double seconds_ = 0;  // written by the thread, read after it is joined
  std::thread thread_;
};

/// Whether the values of `tables` (a board of `pits` pits; may be null) take at most `limit`
/// bytes, as preload_values decides.
bool preload_fits(const TableSet* tables, int pits, std::int64_t limit);

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
