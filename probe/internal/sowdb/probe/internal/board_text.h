// A board as text, for the project's messages and outputs (the CLI, verify). Internal to the
// project (not installed).
#pragma once

#include <string>

#include "sowdb/probe/rules.h"

namespace sowdb::internal {

/// The pits as space-separated numbers, mover first: "1 1 1 1 1 2 4 2 3 0 0 0".
std::string pits_text(const Rules& rules, const Pits& board);

/// A two-row board diagram: the opponent's pits on top (right to left, as seen across the
/// board), the mover's pits below, pit numbers outside.
std::string board_diagram(const Rules& rules, const Pits& board);

}  // namespace sowdb::internal
