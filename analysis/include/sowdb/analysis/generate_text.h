// The text of a `gen` run as the programs show it (`sowdb gen`, `sowdb-mpi gen`): a line per
// layer, the `done:` summary, the line of a layer solved again, and the progress line. Written
// here only, so that every program that builds tables says the same; the programs print it.
#pragma once

#include <chrono>
#include <string>

#include "sowdb/analysis/table_jobs.h"
#include "sowdb/gen/generate.h"

namespace sowdb {

/// Bytes in binary units with one decimal: "1.5 MiB", "512.0 B". Thread safe.
std::string human_bytes(double bytes);

/// The line of one layer, without its newline: "layer   9:       24310 positions,     0.01 s
/// (solve 0.01, write 0.00), ..., 1.2 KiB on disk (0.051 bytes/position), peak RSS 9.8 MiB", or
/// for a reused layer "layer   9:       24310 positions, reused (1.2 KiB on disk)".
std::string layer_text(const gen::LayerReport& layer);

/// The summary of a finished run, without its newline: "done: VARIANT[ (co-operative)], layers
/// 0..N, P positions, S s solving and writing (solve S1, write S2), B on disk, T threads".
std::string summary_text(const GenerateSummary& summary);

/// The line of a layer whose file failed a check (GenerateEvents::on_rebuild), without its
/// newline: "layer   N: WHY; solving it again".
std::string rebuild_text(int stones, const std::string& why);

/// The progress of a long job over layers (gen, migrate, verify): which layer, the phase, the
/// part of it done, its rate (the layer's positions per second) and the time it has left. It
/// decides when the line is worth redrawing; the program draws it (on one terminal line,
/// after a carriage return). Not thread safe: one call at a time.
class ProgressText {
 public:
  using Clock = std::chrono::steady_clock;

  /// For layers of a board of `pits` pits.
  explicit ProgressText(int pits) : pits_(pits) {}

  /// `fraction` of `phase` of layer `stones` is done at `now`. Returns the line to draw, or an
  /// empty string when the one drawn stands: a new layer or phase starts its clock; the line
  /// is redrawn at most every 200 ms and at the end of a phase, never with a smaller fraction
  /// than it shows. The line has no carriage return and no newline, and ends in blanks that
  /// cover a longer line drawn before it.
  std::string update(int stones, const char* phase, double fraction, Clock::time_point now);

 private:
  int pits_;
  int stones_ = -1;
  std::string phase_;
  double fraction_ = 0;
  Clock::time_point start_, drawn_;
};

}  // namespace sowdb
