// The JSON of every report, in one place: a key spelt here is the key every front end prints.
// nlohmann::json orders an object's keys alphabetically, so the order of the assignments below
// does not show in its output; the position report, written as text (to_json_text), lists its
// keys in that order itself.
#include "sowdb/analysis/report_json.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>

namespace sowdb {
namespace {

std::vector<int> pits_of(int pits, const Pits& p) {
  return std::vector<int>(p.begin(), p.begin() + pits);
}

// Appends JSON text in nlohmann::json's compact form (the separators, the escapes, the
// shortest round-trip form of a double) without building a document: a server answers
// thousands of position reports a second, and the document's allocations were most of the
// cost. The caller writes each object's keys sorted, as nlohmann orders them.
class JsonText {
 public:
  explicit JsonText(std::string& out) : out_(out) { out_ += '{'; }

  JsonText& key(std::string_view k) {
    separate();
    quoted(k);
    out_ += ':';
    first_ = true;  // the value follows the colon without a comma
    return *this;
  }
  JsonText& open(char bracket) {
    separate();
    out_ += bracket;
    first_ = true;
    return *this;
  }
  JsonText& close(char bracket) {
    out_ += bracket;
    first_ = false;
    return *this;
  }
  JsonText& number(long long v) {
    separate();
    char buf[24];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    out_.append(buf, end);
    return *this;
  }
  // A whole number of seeds as an integer, a half (endless play) as a double.
  JsonText& seeds(double s) {
    if (s == static_cast<int>(s))
      return number(static_cast<int>(s));
    separate();
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, s).ptr;
    out_.append(buf, end);
    return *this;
  }
  JsonText& boolean(bool b) {
    separate();
    out_ += b ? "true" : "false";
    return *this;
  }
  JsonText& null() {
    separate();
    out_ += "null";
    return *this;
  }
  JsonText& string(std::string_view s) {
    separate();
    quoted(s);
    return *this;
  }
  JsonText& pits(int count, const Pits& p) {
    open('[');
    for (int i = 0; i < count; ++i)
      number(p[static_cast<std::size_t>(i)]);
    return close(']');
  }
  void end() { out_ += '}'; }

 private:
  void separate() {
    if (!first_)
      out_ += ',';
    first_ = false;
  }

  // Runs of characters that need no escape are appended whole: a character at a time was about
  // 5% of a served answer's cost (perf, issue 43).
  void quoted(std::string_view s) {
    out_ += '"';
    std::size_t done = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && c != '"' && c != '\\')
        continue;
      out_.append(s.data() + done, i - done);
      done = i + 1;
      if (u >= 0x20) {
        out_ += '\\';
        out_ += c;
      } else if (u >= 0x08 && u <= 0x0d && u != 0x0b) {
        static constexpr char kShort[] = "btn?fr";  // \b \t \n, then \f \r (0x0b has none)
        out_ += '\\';
        out_ += kShort[u - 0x08];
      } else {
        static constexpr char kHex[] = "0123456789abcdef";
        out_ += "\\u00";
        out_ += kHex[u >> 4];
        out_ += kHex[u & 15];
      }
    }
    out_.append(s.data() + done, s.size() - done);
    out_ += '"';
  }

  std::string& out_;
  bool first_ = true;
};

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

}  // namespace

std::vector<int> pits_vector(const Rules& rules, const Pits& p) {
  return pits_of(rules.board_pits(), p);
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
  put_line(j, rules.board_pits(), line);
}

std::string to_json_text(const PositionReport& r) {
  const int pits = r.variant.rules.pits();
  const GameOutcome& o = r.outcome;
  const bool exact = r.exact();
  const bool searched = r.method == AnswerMethod::kSearch;
  std::string t;
  t.reserve(640 + 120 * r.moves.size() + 80 * r.line.steps.size());
  JsonText j(t);
  // Keys in nlohmann's order (sorted), so that the text is its dump of the same object. After a
  // search, what the bounds do not decide is null (the value, the result, a worth); the depths
  // are the tables' alone.
  j.key("best");
  if (r.best())
    j.number(*r.best());
  else
    j.null();
  j.key("decided").boolean(o.decided);
  j.key("depth");
  if (searched)
    j.null();
  else
    j.number(r.depth);
  j.key("final");
  if (exact)
    j.open('[').seeds(o.mover).seeds(o.opponent).close(']');
  else
    j.null();
  j.key("game_over").boolean(r.moves.empty());
  j.key("line").open('[');
  for (const LineStep& s : r.line.steps)
    j.number(s.pit);
  j.close(']');
  j.key("line_end").string(r.line_proved ? line_end_text(r.line.end) : "unproved");
  j.key("line_steps").open('[');
  for (const LineStep& s : r.line.steps) {
    j.open('{');
    j.key("before").pits(pits, s.before);
    j.key("extra_turn").boolean(s.extra_turn);
    j.key("gain").number(s.gain);
    j.key("mover").number(s.mover);
    j.key("pit").number(s.pit);
    j.close('}');
  }
  j.close(']');
  j.key("lower").number(r.lower);
  j.key("method").string(to_string(r.method));
  // "moves" has listed the moves in pit order since before the ranking: it stays so, and
  // "moves_best_first" gives the ranking.
  std::vector<const ReportedMove*> by_pit;
  by_pit.reserve(r.moves.size());
  for (const ReportedMove& m : r.moves)
    by_pit.push_back(&m);
  std::sort(by_pit.begin(), by_pit.end(), [](const ReportedMove* a, const ReportedMove* b) {
    return a->pit < b->pit;
  });
  j.key("moves").open('[');
  for (const ReportedMove* m : by_pit) {
    j.open('{');
    j.key("after").pits(pits, m->after);
    j.key("captured").number(m->captured);
    j.key("category");
    if (m->category_known)
      j.string(to_string(m->category));
    else
      j.null();
    j.key("depth");
    if (searched)
      j.null();
    else
      j.number(m->depth);
    j.key("extra_turn").boolean(m->extra_turn);
    j.key("gain").number(m->gain);
    j.key("lower").number(m->lower);
    j.key("pit").number(m->pit);
    j.key("stored").number(m->stored);
    j.key("upper").number(m->upper);
    j.key("worth");
    if (m->exact())
      j.number(m->worth);
    else
      j.null();
    j.close('}');
  }
  j.close(']');
  j.key("moves_best_first").open('[');
  for (const ReportedMove& m : r.moves)
    j.number(m.pit);
  j.close(']');
  j.key("pits").pits(pits, r.board);
  j.key("result");
  if (r.outcome_known)
    j.string(to_string(o.result));
  else
    j.null();
  j.key("search");
  if (r.search) {
    const SearchFacts& f = *r.search;
    j.open('{');
    j.key("best_found");
    if (f.best_found >= 0)
      j.number(f.best_found);
    else
      j.null();
    j.key("best_seconds");
    if (f.best_seconds >= 0)
      j.seeds(static_cast<double>(static_cast<long long>(f.best_seconds * 1000)) / 1000);
    else
      j.null();
    j.key("complete").boolean(f.complete);
    j.key("positions").number(static_cast<long long>(f.positions));
    j.key("seconds").seeds(static_cast<double>(static_cast<long long>(f.seconds * 1000)) / 1000);
    j.key("stopped_by");
    if (f.stopped_by.empty())
      j.null();
    else
      j.string(f.stopped_by);
    j.key("stored").boolean(f.stored);
    j.key("tables_max").number(f.tables_max);
    j.key("value_seconds");
    if (f.value_seconds >= 0)
      j.seeds(static_cast<double>(static_cast<long long>(f.value_seconds * 1000)) / 1000);
    else
      j.null();
    j.close('}');
  } else {
    j.null();
  }
  j.key("stones").number(r.stones);
  j.key("stores").open('[').number(r.store_mover).number(r.store_opponent).close(']');
  j.key("upper").number(r.upper);
  j.key("value");
  if (exact)
    j.number(r.value);
  else
    j.null();
  j.key("variant").string(r.variant.to_string());
  j.end();
  return t;
}

nlohmann::json to_json(const PositionReport& r) {
  return nlohmann::json::parse(to_json_text(r));
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
  for (int i = 0; i < rules.board_pits(); ++i) {
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
