// The opening book (`sowdb book`): every position within K plies of a game's start in which one
// side plays the proved best moves and the other plays anything, proved ahead of time into the
// proof store, so that a player (the page's opponent, `probe`) finds the opening answered at once.
// As Rawlings published Kalah's openings: every first move and, after an extra turn, every
// continuation; here for both sides, since a program may play either.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sowdb/analysis/proof_store.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"

namespace sowdb {

/// What build_book is asked.
struct BookRequest {
  Variant variant;  ///< The game whose start the book begins at (S seeds in each pit).
  /// Plies from the start: a position is in the book when it is reached within this many moves
  /// (an extra turn's move counts as a ply). 0: the start alone.
  int plies = 0;
  /// Every move's exact worth at the book side's positions (false: the value and a proved best
  /// move, a fraction of the work; a later question for every worth searches again).
  bool worths = false;
  /// Wall seconds one position's search may take; 0: no limit. A position not proved within it
  /// is counted (BookReport::unproved) and its line is not followed.
  double seconds_per_position = 0;
  int threads = 0;  ///< Threads of each search (gen::run_with_threads); 0: all cores.
  /// Asked between positions and during searches (possibly from the searches' threads); true
  /// stops the build, what it proved so far kept. May be empty.
  std::function<bool()> stop;
};

/// Where a build stands, after each position it settles.
struct BookProgress {
  int ply = 0;                  ///< The ply of the position just settled.
  std::uint64_t done = 0;       ///< Positions of the book side settled (searched or found stored).
  std::uint64_t queued = 0;     ///< Positions of the book side known and not settled yet.
  std::uint64_t positions = 0;  ///< Positions the searches expanded so far.
  double seconds = 0;           ///< Since the build started.
};

/// One ply of the book, for the report.
struct BookPly {
  int ply = 0;
  std::uint64_t proved = 0;     ///< Book side's positions proved now.
  std::uint64_t stored = 0;     ///< ...found proved in the store already.
  std::uint64_t unproved = 0;   ///< ...whose search ran out of its time.
  std::uint64_t opponent = 0;   ///< The other side's positions (every move followed).
  std::uint64_t by_tables = 0;  ///< Positions the tables hold (the book stops there).
  std::uint64_t ended = 0;      ///< Positions with no legal move.
  std::uint64_t positions = 0;  ///< Positions the searches of this ply expanded.
  double seconds = 0;           ///< The searches' wall seconds at this ply.
};

/// What a build did.
struct BookReport {
  std::vector<BookPly> plies;  ///< Ply 0..request.plies, as far as the build went.
  std::uint64_t proved = 0;    ///< Sums over the plies.
  std::uint64_t stored = 0;
  std::uint64_t unproved = 0;
  std::uint64_t positions = 0;
  double seconds = 0;    ///< The whole build.
  bool stopped = false;  ///< BookRequest::stop ended it before the last ply.
  int tables_max = -1;   ///< The largest layer of the tables searched over.
  /// Bytes of the tables' values read whole once for every search (0: they went through the
  /// table set's caches, too large to read).
  std::uint64_t preloaded_bytes = 0;
  ProofStoreStats stats;  ///< The store's counts during the build.
};

/// Proves the book of `request` over the competitive tables `set` (of the variant's rules) into
/// `store` (the rule set's proof store): breadth first from the start, for each side in turn as
/// the book side. At a position of the book side it searches (search_position, answered at once
/// by the store when proved before, so that a build stopped part way resumes) and follows the
/// proved best move; at the other side's it follows every legal move; a position the tables hold
/// or that ends the game ends its branch. Each position is settled once.
/// ERRORS throws Refused: kBadRequest (negative plies, threads or seconds, a variant of other
/// rules than the tables'), kWrongObjective (co-operative tables), kTooManySeeds (a start of more
/// than 127 seeds), kIoFailure (the store is unusable: a book it cannot keep is no book), the
/// refusal of a probe that fails on a damaged layer; std::bad_alloc.
/// THREAD SAFETY one build per store at a time in a process is sensible; any number of readers.
BookReport build_book(const TableSet& set,
                      ProofStore& store,
                      const BookRequest& request,
                      const std::function<void(const BookProgress&)>& progress = {});

}  // namespace sowdb
