// Answering a position above the tables by search: the second way of answering a position
// (position_answer.h holds the first, the tables). The search (gen::solve_position) probes the
// tables at every position they hold and proves bounds on the value and on every move's worth;
// they meet where it proved them exact. Every front end reaches this through answer_position.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "sowdb/analysis/position_report.h"
#include "sowdb/analysis/proof_store.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/tables.h"

namespace sowdb {

/// The budget a front end gives when none is asked: 10 seconds. WHY a new user waits this long
/// for an answer on the command line; most positions of a Kalah(6,4) game over tables 0..20 are
/// proved in well under a second (docs/BENCHMARKS.md), the others show their bounds by then.
inline constexpr double kDefaultSearchSeconds = 10;

/// Where a search stands, for progress reports.
struct SearchProgress {
  int lower = 0;                ///< The value is proved to be at least this...
  int upper = 0;                ///< ...and at most this.
  std::uint64_t positions = 0;  ///< Positions expanded so far.
  double seconds = 0;           ///< Since the search started.
};

/// What a search may spend, and how it reports.
struct SearchBudget {
  /// Wall seconds of the search; 0: no limit by time (then `positions` or `stop` should bound it).
  double seconds = kDefaultSearchSeconds;
  std::uint64_t positions = 0;  ///< Positions it may expand (checked every 65,536); 0: no limit.
  /// Asked now and then from the search's threads (possibly concurrently); true stops it, and
  /// the answer gives the bounds proved so far. May be empty.
  std::function<bool()> stop;
  /// Called from the search's threads, one call at a time, a few times a second at most. May
  /// be empty.
  std::function<void(const SearchProgress&)> progress;
  /// Every move's exact worth (false: the value and a best move, cheaper).
  bool worths = true;
  int hash_mib = 0;  ///< Transposition table in MiB; 0: start_hash_default_mib's choice.
  int threads = 1;   ///< Threads of this search (gen::run_with_threads); 0: all cores.
  /// The tables' values are read whole before the search when they take at most this many bytes
  /// (gen::SolveStartOptions::preload_limit): -1, gen's default (600 MB, or a quarter of the
  /// memory); 0: never, every probe goes through the table set's block caches. WHY the default:
  /// through a table set opened with its default caches, Kalah(6,4)'s start over 0..16 searched
  /// 60 K positions a second; read whole, the search runs at about 2 M a second.
  long long preload_limit = -1;
  /// 0: the values preload_limit allows are read before the search. More: the search starts at
  /// once through the block caches, and the values are read beside it after this many seconds
  /// (gen::SolveStartOptions::preload_delay), so that short searches never wait for them. The
  /// answer is the same either way. Added 2026-11-29 (issue 41).
  double preload_delay = 0;
  /// The tables' values read whole beforehand, shared by many searches (an opening book): when
  /// set, preload_limit is not used (gen::SolveStartOptions::preloaded). May be null.
  std::shared_ptr<const gen::PreloadedValues> preloaded;
  /// Positions proved before (by any process) answer from here at once, and what a search proves
  /// is kept here (docs/PROOF_STORE.md); null: neither. Must be the store of the tables' rules.
  ProofStore* proofs = nullptr;
};

/// The report of `board` (more seeds than the tables hold, or any other) from a search over the
/// competitive tables `set` within `budget`: PositionReport with method kSearch, its bounds and
/// each move's, `search` set, the value and worths exact where proved; depths are 0 (the tables
/// alone give them); `line` holds the proved best moves, continued by the tables' line once it
/// reaches a position they hold (line_proved false when it stops short of the end). The stores
/// decide the result where the bounds do.
/// ERRORS throws Refused: kBadStores (stores the game cannot hold), kBadRequest (a negative
/// thread count or budget), kWrongObjective (co-operative tables), kTooManySeeds (a position the
/// search cannot take: more than 127 seeds), the refusal_of a probe that fails on a damaged or
/// missing layer; std::bad_alloc.
/// THREAD SAFETY any number of searches at once over one TableSet, each with its own budget.
PositionReport search_position(const TableSet& set,
                               const Pits& board,
                               int store_mover,
                               int store_opponent,
                               int max_plies,
                               const SearchBudget& budget);

}  // namespace sowdb
