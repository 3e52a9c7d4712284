// The JSON of the start-position reports: each produced from its struct here and nowhere else
// (the contract of `sowdb solve --json`, checked against tests/data/json/solve*.json).
#include "sowdb/analysis/start_solve.h"
#include "sowdb/probe/manifest.h"

namespace sowdb {
namespace {

nlohmann::json move_json(const gen::StartMove& m) {
  nlohmann::json j;
  j["pit"] = m.pit;
  // A search stopped early may leave a worth unknown: null, with the bounds proved.
  j["worth"] = m.lower == m.upper ? nlohmann::json(m.worth) : nlohmann::json(nullptr);
  j["lower"] = m.lower;
  j["upper"] = m.upper;
  j["gain"] = m.gain;
  j["extra_turn"] = m.extra_turn;
  if (!m.continuations.empty()) {
    nlohmann::json next = nlohmann::json::array();
    for (const gen::StartMove& c : m.continuations)
      next.push_back(move_json(c));
    j["continuations"] = next;
  }
  return j;
}

// A final score: a whole number of seeds as an integer (probe's JSON writes it so), half a seed
// (endless play splitting an odd count) as a number.
nlohmann::json seeds_json(double seeds) {
  const auto whole = static_cast<long long>(seeds);
  return static_cast<double>(whole) == seeds ? nlohmann::json(whole) : nlohmann::json(seeds);
}

}  // namespace

nlohmann::json to_json(const StartSolveReport& r) {
  const gen::StartSolution& s = r.solution;
  nlohmann::json j;
  j["variant"] = r.variant.to_string();
  j["rules"] = describe(r.variant.rules.normalised());
  j["seeds_per_pit"] = r.variant.seeds_per_pit;
  if (r.position) {
    nlohmann::json pits = nlohmann::json::array();
    int stones = 0;
    for (int i = 0; i < r.variant.rules.pits(); ++i) {
      pits.push_back((*r.position)[static_cast<std::size_t>(i)]);
      stones += (*r.position)[static_cast<std::size_t>(i)];
    }
    j["stones"] = stones;
    j["position"] = pits;
  } else {
    j["stones"] = r.variant.total_stones();
    j["position"] = nullptr;
  }
  j["stores"] = nlohmann::json::array({r.store_mover, r.store_opponent});
  j["result"] = r.outcome ? nlohmann::json(to_string(r.outcome->result)) : nlohmann::json(nullptr);
  j["final"] =
      r.outcome && s.lower == s.upper
          ? nlohmann::json::array({seeds_json(r.outcome->mover), seeds_json(r.outcome->opponent)})
          : nlohmann::json(nullptr);
  j["decided"] = r.outcome && r.outcome->decided;
  j["value"] = s.lower == s.upper ? nlohmann::json(s.value) : nlohmann::json(nullptr);
  j["complete"] = s.complete;
  j["lower"] = s.lower;
  j["upper"] = s.upper;
  j["best"] = s.best >= 0 ? nlohmann::json(s.best) : nlohmann::json(nullptr);
  nlohmann::json moves = nlohmann::json::array();
  for (const gen::StartMove& m : s.moves)
    moves.push_back(move_json(m));
  j["moves"] = moves;
  j["nodes"] = s.nodes;
  j["seconds"] = r.seconds;
  j["build_seconds"] = r.build_seconds;
  j["search_seconds"] = r.search_seconds;
  j["method"] = s.by_tables ? "tables" : "search";
  j["tables"] = r.tables.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.tables);
  j["tables_source"] = to_string(r.source);
  j["tables_cache"] = r.source == TablesSource::kCache;
  j["tables_max_stones"] = s.tables_max;
  j["tables_missing_layer"] =
      r.missing_layer >= 0 ? nlohmann::json(r.missing_layer) : nlohmann::json(nullptr);
  j["tables_built"] = r.tables_built;
  j["layers_built"] = r.layers_built;
  j["repaired_layers"] = r.repaired_layers;
  j["hash_mb"] = s.table_bytes >> 20;
  j["tables_preloaded_bytes"] = s.preloaded_bytes;
  j["preload_seconds"] = s.preload_seconds;
  j["time_limit"] = r.time_limit > 0 ? nlohmann::json(r.time_limit) : nlohmann::json(nullptr);
  j["stopped_by"] = r.stopped_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.stopped_by);
  j["notes"] = r.notes;
  j["checkpoint"] = nullptr;
  if (const auto& c = r.checkpoint) {
    // The store's file is in the text output only: it names a directory, as `tables` does.
    const auto bound = [&](int v) { return c->resumed ? nlohmann::json(v) : nlohmann::json(); };
    j["checkpoint"] = {{"seconds", c->seconds},
                       {"resumed", c->resumed},
                       {"lower", bound(c->lower)},
                       {"upper", bound(c->upper)},
                       {"known", c->known},
                       {"exact", c->exact},
                       {"total", c->total},
                       {"writes", c->writes},
                       {"positions", c->positions},
                       {"kept", c->kept}};
  }
  return j;
}

nlohmann::json to_json(const CooperativeStartReport& r) {
  nlohmann::json j;
  j["variant"] = r.variant.to_string();
  j["rules"] = describe(r.variant.rules.normalised());
  j["objective"] = "cooperative";
  j["stones"] = r.variant.total_stones();
  j["reachable"] = r.reach.reachable;
  j["balanced"] = r.reach.balanced;
  nlohmann::json balancing = nlohmann::json::array();
  nlohmann::json moves = nlohmann::json::array();
  for (const auto& m : r.reach.moves) {
    if (m.balancing)
      balancing.push_back(m.pit);
    moves.push_back({{"pit", m.pit},
                     {"gain", m.gain},
                     {"extra_turn", m.extra_turn},
                     {"reachable", m.reachable},
                     {"balancing", m.balancing}});
  }
  j["balancing_moves"] = balancing;
  j["moves"] = moves;
  j["positions"] = r.reach.positions;
  j["seconds"] = r.seconds;
  j["method"] = r.tables.empty() ? "memory" : "tables";
  if (!r.tables.empty())
    j["tables"] = r.tables;
  return j;
}

}  // namespace sowdb
