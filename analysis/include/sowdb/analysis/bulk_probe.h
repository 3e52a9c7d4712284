// Many positions at once: the values, depths and best moves of an array of boards spread over
// threads, and the positions of a layer by index, for front ends that label data sets (the
// Python module's numpy calls). A position the tables cannot answer gets a status; the batch
// goes on.
#pragma once

#include <cstdint>
#include <span>

#include "sowdb/probe/tables.h"

namespace sowdb {

/// What probe_bulk writes for each board. Every span is either empty (not asked) or holds one
/// entry per board; `status` is always required.
struct BulkOutput {
  /// The value (TableSet::value), or kUnreadableValue where the status is not kOk.
  std::span<std::int8_t> values;
  /// The depth, or kUnreadableDepth where the status is not kOk. Asking for depths reads the
  /// tables' depth frames too, which costs about twice the time of values alone.
  std::span<std::uint16_t> depths;
  /// The best move's pit (TableSet::best_move), 0..P-1; -1 where the game is over (the status
  /// is then kOk and the value is the final one) or the status is not kOk.
  std::span<std::int8_t> best;
  /// The ProbeStatus of each board, as its std::uint8_t: kOk, kBadPosition, kTooManyStones,
  /// kMissingTable, kCorruptTable or kWrongObjective.
  std::span<std::uint8_t> status;
};

/// Looks up `boards`, rows of set.engine().board_pits() pit counts each (mover first, as
/// TableSet::value takes them), one after the other.
/// PARAMETERS
///   set      competitive tables (co-operative ones answer kWrongObjective everywhere).
///   boards   rows * 2P bytes.
///   out      see BulkOutput; every non-empty span has rows entries.
///   threads  threads of this call (gen::run_with_threads: an arena of its own, the calling
///            thread one of them); 0: all cores. Work is handed out kBulkMinRowsPerThread rows
///            at a time, so a smaller batch runs on the calling thread alone.
/// ERRORS throws std::invalid_argument when boards.size() is not a multiple of 2P, a span of
///   `out` has the wrong size or `threads` is negative. Positions the tables cannot answer are
///   never errors: their status says why.
/// THREAD SAFETY as TableSet's probes: any number of calls may run at once on one table set.
void probe_bulk(const TableSet& set,
                std::span<const std::uint8_t> boards,
                const BulkOutput& out,
                int threads = 0);

/// The rows probe_bulk and positions_of_indices hand a thread at a time: fewer would cost more
/// in handing out than they save.
inline constexpr std::size_t kBulkMinRowsPerThread = 4096;

/// Writes the positions of layer `stones` of a board of `pits` pits (2P) whose indices (index.h
/// order, FORMAT.md "Index") are first, first + 1, ..., one row of `pits` bytes each, into
/// `rows` (its size a multiple of `pits`): a layer read in chunks, in the order of its table.
/// ERRORS throws std::invalid_argument when `pits` is not 2..kMaxPits, `stones` not
/// 0..kMaxIndexedStones, rows.size() not a multiple of pits, or the range runs past the layer.
/// THREAD SAFETY thread safe.
void layer_positions(int pits, int stones, std::uint64_t first, std::span<std::uint8_t> rows);

/// Writes the position of layer `stones` with index indices[i] into row i of `rows` (pits bytes
/// a row), over `threads` threads as probe_bulk (0: all cores).
/// ERRORS throws std::invalid_argument as layer_positions, when an index is not below
/// layer_size(pits, stones) (naming it), and when `threads` is negative.
/// THREAD SAFETY thread safe.
void positions_of_indices(int pits,
                          int stones,
                          std::span<const std::uint64_t> indices,
                          std::span<std::uint8_t> rows,
                          int threads = 0);

}  // namespace sowdb
