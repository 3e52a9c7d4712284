// Bounds and, where proved, exact values of Oware-family positions above the tables: an anytime
// search that stays sound although positions repeat. Internal to sowdb_gen (issue 41).
#pragma once

#include "sowdb/gen/start_search.h"
#include "sowdb/probe/rules.h"

namespace sowdb::gen {

/// Knobs of solve_cyclic that only measurements and tests change.
struct CyclicKnobs {
  /// Score a repetition on the search path as endless play (0), for that path only (true, the
  /// default), or leave it unknown, as a position whose value is only known to lie in [-n, n]
  /// (proves no value that rests on endless play).
  bool endless = true;
  /// After a test that the horizon left unknown, squeeze the bounds from both ends at the same
  /// depth before going deeper. Without it MTD(f) from the estimate stalls on tests the horizon
  /// cannot decide: oware 6x4 over tables 0..20, positions of 25 and 26 seeds, still [-n, n]
  /// after 10 s (35 M positions), against [-17, 21] and [3, 22] with it; it costs more where
  /// the estimate was right (a 23-seed position proved in 22.4 M positions against 7.4 M).
  bool both_sides = true;
  /// CyclicSearcher::set_reuse: results that hold on the search path only are reused while the
  /// path lasts (oware 3x2 without tables, six positions: 2-6% fewer positions, 31% on one).
  bool reuse = true;
  /// CyclicSearcher::set_cache_unknown (halves the positions of the 23-seed position above, but
  /// leaves positions of small boards unproved for ever).
  bool cache_unknown = false;
  /// Plies added a round of iterative deepening. Oware 6x4 over tables 0..20, positions of
  /// 23 seeds (value), 21 and 22 seeds (every worth): 22.4 M, 0.51 M and 4.3 M positions one
  /// ply a round, 16.5 M, 0.29 M and 4.3 M two, 6.1 M, 0.32 M and 4.5 M three; after 10 s at 24,
  /// 25 and 26 seeds two plies gave bounds as narrow or narrower than one (three: narrower at 25
  /// seeds, wider at 26); oware 3x2 without tables, six positions: two plies halve the positions.
  int step = 2;
};

/// Bounds (and, where proved, exact values) of `position` (the mover's pits first, as Rules
/// uses) and of every legal move, for an Oware-family rule set, over `options.tables` (may be
/// null; exact at every position of at most tables->max_stones() seeds).
///
/// Each move's child is searched on its own by null-window tests (CyclicSearcher) under
/// iterative deepening, CyclicKnobs::step plies deeper a round, until every bound asked for meets,
/// no test meets its horizon any more, or `options.stop` says stop; the position's bounds are the
/// best of its moves' (Bellman). Every bound returned holds whatever the budget: the true value
/// lies in [lower, upper], of the position and of each move.
///
/// The result: `start` = position, `stones` its seeds n, `lower`/`upper` the bounds on its
/// value, `value` = lower when they meet, else 0; `complete` when the value is exact and, with
/// options.worths, every move's worth. `moves`: every legal move in pit order, `gain` its
/// captures, `extra_turn` false, `lower`/`upper` bounds on its worth, `worth` = lower when they
/// meet, else 0. `best`: the move of the largest proved lower bound (the lowest pit among
/// equals), -1 without moves: proved best once lower == upper (its worth reaches the value),
/// the best found so far before that. `by_tables`: the tables (or the end of the game) gave
/// every answer, nothing was searched. `nodes`: positions the tests expanded; `tables_max`:
/// the tables' top layer (-1: none); `table_bytes`: the transposition table's bytes
/// (8 << options.table_bits as for solve_start; 0 when nothing was searched);
/// `preloaded_bytes`/`preload_seconds` as solve_start (options.preload_limit).
///
/// options.worths false: moves that cannot be better than another's proved lower bound are not
/// refined further (their upper bound shows it). options.progress: called with the bounds of the
/// position and the positions searched when they tighten, at most four times a second (and once
/// at the end); phase kWorths (worths) or kValue. options.stop: asked before every test and
/// every 256 positions; when true the bounds so far are returned. options.deepening and
/// options.value_first are ignored.
///
/// ERRORS InvalidRequest when the rules are not of the Oware family, the tables hold other
/// rules, the position is not a board of the rules (seeds beyond the 2P pits, more than 127
/// seeds); std::runtime_error with the tables' explanation when a probe fails; std::bad_alloc
/// when the table does not fit. THREAD SAFETY one thread; the tables are only read.
StartSolution solve_cyclic(const RuleSet& rules,
                           const Pits& position,
                           const SolveStartOptions& options);

/// The same with knobs for measurement.
StartSolution solve_cyclic(const RuleSet& rules,
                           const Pits& position,
                           const SolveStartOptions& options,
                           const CyclicKnobs& knobs);

}  // namespace sowdb::gen
