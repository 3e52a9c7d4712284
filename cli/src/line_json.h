// The JSON of a line of play, shared by `probe`'s two reports (competitive and co-operative).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "sowdb/probe/tables.h"

namespace sowdb::cli {

/// The board's 2P pit counts, mover first.
std::vector<int> pits_vector(const Rules& rules, const Pits& p);

/// "game_over", "endless" or "max_plies".
const char* line_end_text(LineEnd e);

/// Sets j["line"] (the pits played), j["line_steps"] ({mover, pit, gain, extra_turn, before} each)
/// and j["line_end"].
void put_line(nlohmann::json& j, const Rules& rules, const PrincipalLine& line);

}  // namespace sowdb::cli
