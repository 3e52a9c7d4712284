// The terminal line of a long command (gen, verify, migrate; sowdb-mpi gen): one line on
// standard error, redrawn. Its text is the analysis library's (ProgressText). Part of the
// sowdb_cli_common library.
#pragma once

#include "sowdb/analysis/generate_text.h"

namespace sowdb::cli {

/// Shows the layer being worked on, the phase, the part of it done, its rate (the layer's
/// positions per second) and the time it has left. Not thread safe: one call at a time.
class ProgressLine {
 public:
  /// For layers of a board of `pits` pits.
  explicit ProgressLine(int pits) : text_(pits) {}

  /// `fraction` of `phase` of layer `stones` is done. A new layer or phase starts its clock; the
  /// line is redrawn at most every 200 ms and at the end of a phase, never with a smaller
  /// fraction than it shows.
  void show(int stones, const char* phase, double fraction);

  /// Clears the line, before other output to the terminal.
  static void clear();

 private:
  ProgressText text_;
};

}  // namespace sowdb::cli
