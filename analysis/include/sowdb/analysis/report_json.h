// The JSON of every report, each written in exactly one place (src/report_json.cpp), so that
// every front end (the sowdb program, a server, a Python module) prints the same keys. The
// contracts are the committed examples in tests/data/json/: keys are added, never renamed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sowdb/analysis/cooperative_report.h"
#include "sowdb/analysis/layer_statistics.h"
#include "sowdb/analysis/position_report.h"

namespace sowdb {

/// The board's 2P pit counts, mover first.
std::vector<int> pits_vector(const Rules& rules, const Pits& p);

/// "game_over", "endless" or "max_plies".
const char* line_end_text(LineEnd e);

/// Sets j["line"] (the pits played), j["line_steps"] ({mover, pit, gain, extra_turn, before}
/// each) and j["line_end"]: the principal line's part of both position reports.
void put_line(nlohmann::json& j, const Rules& rules, const PrincipalLine& line);

/// `sowdb probe --json` on competitive tables (tests/data/json/probe.json): variant, pits,
/// stones, stores, method ("table" or "search"), value (null while a search has not proved it),
/// lower, upper, depth (null after a search), result (null while the bounds do not decide it),
/// final (null unless the value is known), decided, game_over, moves (in pit order, each {pit,
/// worth (null while not proved), lower, upper, depth (null after a search), gain, stored,
/// captured, extra_turn, category (null while not decided), after}), moves_best_first (pits),
/// best (null while no move is proved best), line, line_steps, line_end ("unproved" where a
/// search's line stops short), search (null from the tables; else {positions, seconds,
/// complete, stopped_by, stored (from the proof store), tables_max, best_found}).
nlohmann::json to_json(const PositionReport& r);

/// The same as `to_json(r).dump()`, written straight into a string without building a document
/// (about a third of the CPU of a server answering random positions went into the document).
/// to_json parses this text, so the two never differ. Thread-safe.
std::string to_json_text(const PositionReport& r);

/// `sowdb probe --json` on co-operative tables (tests/data/json/probe_cooperative.json).
nlohmann::json to_json(const CooperativeReport& r);

/// One line of `sowdb stats --json` on competitive tables (tests/data/json/stats.json).
/// `rules` writes max_depth_position.
nlohmann::json to_json(const LayerStatistics& s, const Rules& rules);

/// One line of `sowdb stats --json` on co-operative tables
/// (tests/data/json/stats_cooperative.json).
nlohmann::json to_json(const CooperativeLayerStatistics& s);

}  // namespace sowdb
