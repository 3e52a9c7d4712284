#include "line_json.h"

namespace sowdb::cli {

std::vector<int> pits_vector(const Rules& rules, const Pits& p) {
  return std::vector<int>(p.begin(), p.begin() + rules.pits());
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
  nlohmann::json pits = nlohmann::json::array();
  nlohmann::json steps = nlohmann::json::array();
  for (const LineStep& s : line.steps) {
    pits.push_back(s.pit);
    steps.push_back({{"mover", s.mover},
                     {"pit", s.pit},
                     {"gain", s.gain},
                     {"extra_turn", s.extra_turn},
                     {"before", pits_vector(rules, s.before)}});
  }
  j["line"] = pits;
  j["line_steps"] = steps;
  j["line_end"] = line_end_text(line.end);
}

}  // namespace sowdb::cli
