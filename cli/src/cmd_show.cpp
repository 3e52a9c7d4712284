// `sowdb variants` and `sowdb show`: the rules, without tables.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "board_text.h"
#include "commands.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"

namespace sowdb::cli {
namespace {

nlohmann::json rules_json(const RuleSet& r) {
  nlohmann::json j;
  j["family"] = std::string(to_string(r.family));
  j["pits_per_side"] = r.pits_per_side;
  j["skip_origin"] = r.skip_origin;
  if (r.family == Family::kOware)
    j["grand_slam"] = std::string(to_string(r.grand_slam));
  if (r.family == Family::kKalah) {
    j["capture_empty_opposite"] = r.capture_empty_opposite;
    j["end"] = std::string(to_string(r.end));
  }
  return j;
}

std::string options_text(const RuleSet& r) {
  std::string s = "skip_origin=" + std::string(r.skip_origin ? "on" : "off");
  if (r.family == Family::kOware)
    s += " grand_slam=" + std::string(to_string(r.grand_slam));
  if (r.family == Family::kKalah) {
    s += " capture_empty_opposite=" + std::string(r.capture_empty_opposite ? "on" : "off");
    s += " end=" + std::string(to_string(r.end));
  }
  return s;
}

}  // namespace

void add_variants(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("variants", "List every preset, its options and its source");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "One JSON object per preset, one per line");
  cmd->callback([&run, json] {
    run = [json] {
      for (const Preset& p : presets()) {
        if (*json) {
          nlohmann::json j;
          j["name"] = std::string(p.name);
          j["variant"] = Variant{std::string(p.name), p.rules, 4}.to_string();
          j["rules"] = rules_json(p.rules);
          j["source"] = std::string(p.source);
          j["description"] = std::string(p.description);
          std::printf("%s\n", j.dump().c_str());
        } else {
          std::printf("%-17s %-8s %s\n",
                      std::string(p.name).c_str(),
                      std::string(to_string(p.rules.family)).c_str(),
                      options_text(p.rules).c_str());
          std::printf("%-17s source: %s\n", "", std::string(p.source).c_str());
          std::printf("%-17s %s\n", "", std::string(p.description).c_str());
        }
      }
      if (!*json) {
        std::printf(
            "\nA variant is written PRESET[/PxS[/OPTION=VALUE,...]], e.g. oware/6x4 or "
            "abapa/4x3/grand_slam=capture.\n");
      }
      return 0;
    };
  });
}

namespace {

struct ShowArgs {
  std::string variant = "oware";
  int pits = 0;
  bool json = false;
  std::vector<std::string> board;
};

// `sowdb show --json`: the position and what each legal move does, as one object.
void print_show_json(const Variant& v,
                     const Rules& rules,
                     const Pits& board,
                     const MoveList& moves) {
  nlohmann::json j;
  j["variant"] = v.to_string();
  j["rules"] = rules_json(v.rules);
  j["pits"] = std::vector<int>(board.begin(), board.begin() + rules.board_pits());
  j["stones"] = rules.own_seeds(board) + rules.opponent_seeds(board);
  j["game_over"] = moves.size == 0;
  if (moves.size == 0)
    j["final_value"] = rules.final_value(board);
  nlohmann::json list = nlohmann::json::array();
  for (const Move& m : moves) {
    nlohmann::json jm;
    jm["pit"] = m.pit;
    jm["seeds"] = board[m.pit];
    jm["captured"] = m.captured;
    jm["stored"] = m.stored;
    jm["gain"] = m.gain();
    jm["extra_turn"] = m.extra_turn;
    if (v.rules.family == Family::kOware)
      jm["grand_slam"] = m.grand_slam;
    if (v.rules.family == Family::kWariUs)
      jm["sowings"] = m.sowings;
    jm["next_mover"] = m.extra_turn ? "same" : "opponent";
    jm["result"] = std::vector<int>(m.child.begin(), m.child.begin() + rules.board_pits());
    list.push_back(jm);
  }
  j["moves"] = list;
  std::printf("%s\n", j.dump().c_str());
}

// What a move does, in words: "captures 3, extra turn".
std::string move_text(const Move& m) {
  std::string what;
  if (m.captured)
    what += "captures " + std::to_string(m.captured);
  if (m.stored)
    what += std::string(what.empty() ? "" : ", ") + "stores " + std::to_string(m.stored);
  if (what.empty())
    what = "no gain";
  if (m.grand_slam)
    what += ", grand slam";
  if (m.sowings > 1)
    what += ", " + std::to_string(m.sowings) + " sowings";
  if (m.extra_turn)
    what += ", extra turn";
  return what;
}

void print_show_text(const Variant& v,
                     const Rules& rules,
                     const Pits& board,
                     const MoveList& moves) {
  const int stones = rules.own_seeds(board) + rules.opponent_seeds(board);
  std::printf("variant %s, %s on the board\n\n%s\n",
              v.to_string().c_str(),
              count_text(stones, "seed", "seeds").c_str(),
              board_diagram(rules, board).c_str());
  if (moves.size == 0) {
    std::printf("No legal move: the game is over. Final split: mover %d, opponent %d.\n",
                rules.own_seeds(board),
                rules.opponent_seeds(board));
    return;
  }
  std::printf("legal moves (result shown from the next mover's side):\n");
  for (const Move& m : moves) {
    // "(1 seed): " keeps the columns of "(2 seeds): ".
    std::printf("  pit %d (%d %s %-32s -> %s\n",
                m.pit,
                board[m.pit],
                board[m.pit] == 1 ? "seed): " : "seeds):",
                move_text(m).c_str(),
                pits_text(rules, m.child).c_str());
  }
}

int run_show(const ShowArgs& args) {
  Variant v;
  std::string error;
  if (!resolve_variant(args.variant, args.pits, v, error))
    throw UsageError(error);
  Rules rules(v.rules);
  Pits board{};
  if (!parse_pits(rules, args.board, board, error))
    throw UsageError(error);
  MoveList moves;
  rules.legal_moves(board, moves);
  if (args.json)
    print_show_json(v, rules, board, moves);
  else
    print_show_text(v, rules, board, moves);
  return 0;
}

}  // namespace

void add_show(CLI::App& app, Runner& run) {
  auto args = std::make_shared<ShowArgs>();
  auto* cmd = app.add_subcommand("show", "Show a position's legal moves and what each does");
  cmd->add_option("--variant", args->variant, "Rule system, e.g. oware or kalah/4x3")->required();
  cmd->add_option("--pits", args->pits, "Pits per side (overrides the variant's board)")
      ->transform(whole_number())
      ->check(CLI::Range(1, 8));
  cmd->add_flag("--json", args->json, "Print one JSON object");
  // No positionals_at_end(): flags may follow the pit counts, and CLI11 takes "-1" for a
  // positional anyway (no option is named -1), so parse_pits reports it as negative.
  cmd->add_option("PITS", args->board, "Seeds per pit, mover first, counter-clockwise")
      ->required()
      ->allow_extra_args();
  cmd->callback([&run, args] { run = [args] { return run_show(*args); }; });
}

}  // namespace sowdb::cli
