// `sowdb solve`'s words on the terminal: the reports as text, and the progress of the cache build
// and of the search on standard error.
#pragma once

#include <chrono>
#include <cstdint>

#include "sowdb/analysis/start_solve.h"

namespace sowdb::cli {

/// Prints `report` as text on standard output; `interrupted` is the signal that stopped the
/// search (0: none).
void print_solve_text(const StartSolveReport& report, int interrupted);

/// Prints the co-operative report as text on standard output.
void print_cooperative_text(const CooperativeStartReport& report);

/// One line on standard error saying that the cache is being built (or repaired): how many
/// layers, how many positions, where.
void print_build_notice(const CacheBuild& build);

/// The progress of a cache build on one terminal line: the layer, its phase, the rate and the
/// time left for the whole build (from the positions of the layers still to solve). Not thread
/// safe: one call at a time (generate calls from one thread).
class BuildProgress {
 public:
  void start(const CacheBuild& build, int pits);
  /// A layer is done (solved or reused).
  void layer_done(int stones, bool reused);
  void show(int stones, const char* phase, double fraction);

 private:
  int pits_ = 0;
  int want_ = -1;
  std::uint64_t total_ = 0;  // positions to solve
  std::uint64_t done_ = 0;   // of which solved
  std::chrono::steady_clock::time_point start_, drawn_;
};

/// The progress of the search on one terminal line: the bounds proved, the searches done, the
/// positions and their rate since the search started. Thread safe as SolveStartOptions::progress
/// calls it (one call at a time).
class SearchProgress {
 public:
  void start();
  void show(const gen::SolveProgress& p);

 private:
  std::chrono::steady_clock::time_point start_, drawn_;
};

/// The terminal's side of solve_start_position (`solve`, and `book` building its tables):
/// notices and progress lines on standard error (none with `json`; lines only on a terminal), and
/// the switch from the build's handling of a signal (gen's: temporaries removed, exit) to the
/// search's (stop_on_interrupts: stop, then the bounds). `pits`: 2P of the board.
StartSolveEvents solve_terminal_events(bool json, int pits);

/// One line on standard error: the search starts from the bounds the proof store held.
void print_resume(const StartCheckpoint& checkpoint);

/// One line on standard error: a checkpoint of the search, of bounds `proved`, was kept.
void print_checkpoint(const StartCheckpoint& checkpoint, const gen::StartSolution& proved);

/// Clears the progress line (before other output on the terminal).
void clear_progress_line();

}  // namespace sowdb::cli
