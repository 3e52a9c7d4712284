// The JSON of every report, in one place: a key spelt here is the key every front end prints.
// nlohmann::json orders an object's keys alphabetically, so the order of the assignments below
// does not show in the output.
#include "sowdb/analysis/report_json.h"

#include <algorithm>
#include <string>

namespace sowdb {
namespace {

std::vector<int> pits_of(int pits, const Pits& p) {
  return std::vector<int>(p.begin(), p.begin() + pits);
}

// A whole number of seeds as an integer, a half (endless play) as a float.
nlohmann::json seeds_json(double s) {
  if (s == static_cast<int>(s))
    return static_cast<int>(s);
  return s;
}

void put_line(nlohmann::json& j, int pits, const PrincipalLine& line) {
  nlohmann::json played = nlohmann::json::array();
  nlohmann::json steps = nlohmann::json::array();
  for (const LineStep& s : line.steps) {
    played.push_back(s.pit);
    steps.push_back({{"mover", s.mover},
                     {"pit", s.pit},
                     {"gain", s.gain},
                     {"extra_turn", s.extra_turn},
                     {"before", pits_of(pits, s.before)}});
  }
  j["line"] = played;
  j["line_steps"] = steps;
  j["line_end"] = line_end_text(line.end);
}

nlohmann::json move_json(int pits, const ReportedMove& m) {
  return {{"pit", m.pit},
          {"worth", m.worth},
          {"depth", m.depth},
          {"gain", m.gain},
          {"stored", m.stored},
          {"captured", m.captured},
          {"extra_turn", m.extra_turn},
          {"category", to_string(m.category)},
          {"after", pits_of(pits, m.after)}};
}

}  // namespace

std::vector<int> pits_vector(const Rules& rules, const Pits& p) {
  return pits_of(rules.pits(), p);
}

const char* line_end_text(LineEnd e) {
  switch (e) {
    case LineEnd::kGameOver:
      return "game_over";
    case LineEnd::kRepetition:
      return "endless";
    case LineEnd::kMaxPlies:
      return "max_plies";
  }
  return "?";
}

void put_line(nlohmann::json& j, const Rules& rules, const PrincipalLine& line) {
  put_line(j, rules.pits(), line);
}

nlohmann::json to_json(const PositionReport& r) {
  const int pits = r.variant.rules.pits();
  const GameOutcome& o = r.outcome;
  nlohmann::json j;
  j["variant"] = r.variant.to_string();
  j["pits"] = pits_of(pits, r.board);
  j["stones"] = r.stones;
  j["value"] = r.value;
  j["depth"] = r.depth;
  j["stores"] = {r.store_mover, r.store_opponent};
  j["result"] = to_string(o.result);
  j["final"] = {seeds_json(o.mover), seeds_json(o.opponent)};
  j["decided"] = o.decided;
  j["game_over"] = r.moves.empty();
  // "moves" has listed the moves in pit order since before the ranking: it stays so, and
  // "moves_best_first" gives the ranking.
  std::vector<const ReportedMove*> by_pit;
  nlohmann::json ranked = nlohmann::json::array();
  for (const ReportedMove& m : r.moves) {
    by_pit.push_back(&m);
    ranked.push_back(m.pit);
  }
  std::sort(by_pit.begin(), by_pit.end(), [](const ReportedMove* a, const ReportedMove* b) {
    return a->pit < b->pit;
  });
  nlohmann::json moves = nlohmann::json::array();
  for (const ReportedMove* m : by_pit)
    moves.push_back(move_json(pits, *m));
  j["moves"] = moves;
  j["moves_best_first"] = ranked;
  j["best"] = r.best() ? nlohmann::json(*r.best()) : nlohmann::json(nullptr);
  put_line(j, pits, r.line);
  return j;
}

nlohmann::json to_json(const CooperativeReport& r) {
  const int pits = r.variant.rules.pits();
  nlohmann::json j;
  j["variant"] = r.variant.to_string();
  j["objective"] = "cooperative";
  j["pits"] = pits_of(pits, r.board);
  j["stones"] = r.stones;
  j["stores"] = {r.store_mover, r.store_opponent};
  j["target"] = r.target;
  j["balanced"] = r.balanced;
  j["reachable"] = r.reachable.differences();
  j["game_over"] = r.moves.size == 0;
  nlohmann::json moves = nlohmann::json::array();
  nlohmann::json balancing = nlohmann::json::array();
  for (const MoveReach& m : r.moves) {
    const bool b = r.balancing(m);
    if (b)
      balancing.push_back(m.move.pit);
    moves.push_back({{"pit", m.move.pit},
                     {"gain", m.move.gain()},
                     {"stored", m.move.stored},
                     {"captured", m.move.captured},
                     {"extra_turn", m.move.extra_turn},
                     {"after", pits_of(pits, m.move.child)},
                     {"reachable", m.reachable.differences()},
                     {"balancing", b}});
  }
  j["moves"] = moves;
  j["balancing_moves"] = balancing;
  put_line(j, pits, r.line);
  // Where the line ends, from the side of the player to move there (0: the root's mover).
  j["line_last"] = pits_of(pits, r.line.last);
  j["line_last_mover"] = r.line.last_mover;
  if (!r.balanced)
    j["line_end"] = nullptr;
  return j;
}

nlohmann::json to_json(const LayerStatistics& s, const Rules& rules) {
  nlohmann::json j;
  j["n"] = s.n;
  j["positions"] = s.positions;
  j["wins"] = s.wins;
  j["draws"] = s.draws;
  j["losses"] = s.losses;
  j["mean_value"] = s.mean_value;
  j["mean_depth_decided"] = s.mean_depth_decided;
  j["max_depth"] = s.max_depth;
  std::string deepest;
  for (int i = 0; i < rules.pits(); ++i) {
    if (i)
      deepest += ' ';
    deepest += std::to_string(s.max_depth_position[i]);
  }
  j["max_depth_position"] = deepest;
  nlohmann::json values = nlohmann::json::object();
  for (const auto& [v, count] : s.values)
    values[std::to_string(v)] = count;
  j["values"] = values;
  nlohmann::json depths = nlohmann::json::object();
  for (std::size_t d = 0; d < s.depths.size(); ++d) {
    if (s.depths[d])
      depths[std::to_string(d)] = s.depths[d];
  }
  j["depths"] = depths;
  j["unreadable"] = s.unreadable;
  j["endless_draws"] = s.endless_draws ? nlohmann::json(*s.endless_draws) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json to_json(const CooperativeLayerStatistics& s) {
  nlohmann::json j;
  j["n"] = s.n;
  j["positions"] = s.positions;
  j["objective"] = "cooperative";
  j["balanced"] = s.balanced;
  j["balanced_share"] = s.balanced_share;
  j["mean_reachable"] = s.mean_reachable;
  j["distinct_sets"] = s.distinct_sets;
  j["bytes_on_disk"] = s.bytes_on_disk;
  return j;
}

}  // namespace sowdb
