// `sowdb probe` above the tables: the search budget from the command line, its progress line,
// and the text of an answer found by search.
#pragma once

#include <CLI/CLI.hpp>

#include "sowdb/analysis/position_search.h"
#include "sowdb/probe/tables.h"

namespace sowdb::cli {

/// --search-time's check: 0 (no search: refuse above the tables) or a positive number of seconds
/// below a year.
CLI::Validator search_seconds();

/// The budget of one position's search: `seconds`, one thread, stopped by the first SIGINT,
/// SIGTERM or SIGHUP (stop_on_interrupts must be in place), with a progress line on standard
/// error when `progress_line` (bounds, positions, rate).
SearchBudget terminal_budget(double seconds, bool progress_line);

/// The text of a position answered by search: the board, the bounds (or the value) with the
/// search's work, the result where the bounds decide it, every move's bounds, the proved line.
void print_search_text(const TableSet& set, const PositionReport& r);

}  // namespace sowdb::cli
