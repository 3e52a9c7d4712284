// POST /api/v1/batch: many positions of one variant in one request, each answered as
// GET /api/v1/position would answer it.
#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api_impl.h"
#include "sowdb/server/status.h"

namespace sowdb::server {
namespace {

// Nesting in a batch body: the format needs 3 levels.
constexpr int kMaxNesting = 8;

// The deepest nesting of arrays and objects in `body` (strings skipped), to refuse a body
// built to exhaust the parser's stack before it is parsed.
int nesting(std::string_view body) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// A JSON array of whole numbers 0..max_value as numbers, or false with a reason.
bool json_counts(const nlohmann::json& j,
                 const char* what,
                 int max_value,
                 std::vector<int>& out,
                 std::string& error) {
  out.clear();
  if (!j.is_array()) {
    error = std::string(what) + " must be an array of whole numbers";
    return false;
  }
  if (j.size() > kMaxBoardItems) {
    error = std::string(what) + " has " + std::to_string(j.size()) + " numbers";
    return false;
  }
  for (const auto& v : j) {
    if (!v.is_number_integer()) {
      error = std::string(what) + ": item " + std::to_string(out.size()) + " is not a whole number";
      return false;
    }
    const auto n = v.get<long long>();
    if (n < 0 || n > max_value) {
      error = std::string(what) + ": item " + std::to_string(out.size()) + " is " +
              (n < 0 ? "negative" : "more than " + std::to_string(max_value));
      return false;
    }
    out.push_back(static_cast<int>(n));
  }
  return true;
}

// The first key of the object `j` that is not one of `allowed`, or nullopt: a misspelt key
// must be refused, not read as an absent one.
std::optional<std::string> unknown_key(const nlohmann::json& j,
                                       std::initializer_list<std::string_view> allowed) {
  for (const auto& item : j.items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end())
      return item.key();
  }
  return std::nullopt;
}

// `body` parsed, with the first key repeated within one object in `repeated` (nlohmann keeps
// the last silently). Throws nlohmann::json::exception on malformed JSON. The nesting bound
// checked before bounds the stack of key sets.
nlohmann::json parse_body(std::string_view body, std::string& repeated) {
  using Event = nlohmann::json::parse_event_t;
  std::vector<std::set<std::string>> keys;  // one set per open object
  const nlohmann::json::parser_callback_t note_keys = [&](int, Event event, nlohmann::json& j) {
    if (event == Event::object_start) {
      keys.emplace_back();
    } else if (event == Event::object_end) {
      keys.pop_back();
    } else if (event == Event::key && !keys.empty()) {
      const auto& key = j.get_ref<const std::string&>();
      if (!keys.back().insert(key).second && repeated.empty())
        repeated = key;
    }
    return true;
  };
  return nlohmann::json::parse(body, note_keys);
}

// What a batch body asks of every position besides the position.
struct BatchAsk {
  ReportOptions how;
  FieldMask fields = 0;
};

Response batch_error(int status, const std::string& message) {
  Response r = Api::error(status, message);
  r.endpoint = Endpoint::kBatch;
  return r;
}

template <typename Why>
Response batch_fail(Why why, const std::string& message) {
  return batch_error(http_status(why), message);
}

// The body's `fields`: comma-separated names as in a query, or an array of names.
bool json_fields(const nlohmann::json& j, FieldMask& out, std::string& error) {
  if (j.is_string())
    return parse_fields(j.get_ref<const std::string&>(), out, error);
  if (!j.is_array() || j.empty()) {
    error = "want key names: \"value,best\" or [\"value\", \"best\"]";
    return false;
  }
  out = 0;
  for (const auto& name : j) {
    FieldMask one = 0;
    if (!name.is_string() || !parse_fields(name.get_ref<const std::string&>(), one, error)) {
      if (!name.is_string())
        error = "every item must be a key name (a string)";
      return false;
    }
    out |= one;
  }
  return true;
}

// The optional keys of a batch body (objective, max_plies, fields) into `ask`, or a refusal.
std::optional<Response> read_options(const nlohmann::json& j,
                                     int plies_cap,
                                     BatchAsk& ask,
                                     std::string& objective) {
  if (j.contains("objective")) {
    if (!j["objective"].is_string())
      return batch_fail(HttpRefusal::kMalformed,
                        "objective must be a string: competitive or cooperative");
    objective = j["objective"].get<std::string>();
  }
  if (j.contains("max_plies")) {
    const auto& m = j["max_plies"];
    if (!m.is_number_integer() || m.get<long long>() < 0)
      return batch_fail(HttpRefusal::kMalformed,
                        "max_plies: want a whole number of plies (0: no principal line), at most " +
                            std::to_string(plies_cap) + " are played");
    ask.how.max_plies = static_cast<int>(std::min<long long>(m.get<long long>(), plies_cap));
  }
  std::string error;
  if (j.contains("fields") && !json_fields(j["fields"], ask.fields, error))
    return batch_fail(HttpRefusal::kMalformed, "fields: " + error);
  return std::nullopt;
}

}  // namespace

Response Api::Impl::batch(std::string_view body) const {
  if (body.size() > options.max_body_bytes) {
    return batch_fail(HttpRefusal::kTooLarge,
                      "body of " + std::to_string(body.size()) + " bytes; at most " +
                          std::to_string(options.max_body_bytes));
  }
  if (nesting(body) > kMaxNesting)
    return batch_fail(HttpRefusal::kMalformed,
                      "body nests deeper than " + std::to_string(kMaxNesting) + " levels");
  nlohmann::json j;
  std::string repeated;
  try {
    j = parse_body(body, repeated);
  } catch (const nlohmann::json::parse_error& e) {
    // Its what() is the JSON library's ("[json.exception.parse_error.101] ..."): say where.
    return batch_fail(HttpRefusal::kMalformed,
                      "body is not JSON: a syntax error at byte " + std::to_string(e.byte));
  }
  if (!repeated.empty())
    return batch_fail(HttpRefusal::kMalformed, "key '" + printable(repeated) + "' given twice");
  if (j.is_object()) {
    if (const auto key =
            unknown_key(j, {"variant", "objective", "positions", "max_plies", "fields"}))
      return batch_fail(HttpRefusal::kMalformed,
                        "unknown key '" + printable(*key) +
                            "' (keys: variant, objective, positions, max_plies, fields)");
  }
  if (!j.is_object() || !j.contains("variant") || !j["variant"].is_string() ||
      !j.contains("positions") || !j["positions"].is_array()) {
    return batch_fail(HttpRefusal::kMalformed,
                      "body must be {\"variant\": \"...\", \"positions\": [{\"board\": [...], "
                      "\"stores\": [a, b]}, ...]}");
  }
  const auto& positions = j["positions"];
  if (positions.size() > options.max_batch) {
    return batch_fail(HttpRefusal::kTooLarge,
                      "batch of " + std::to_string(positions.size()) + " positions; at most " +
                          std::to_string(options.max_batch));
  }
  BatchAsk ask;
  std::string objective;
  if (std::optional<Response> refusal = read_options(j, options.max_plies, ask, objective))
    return std::move(*refusal);
  Refusal refusal;
  const Served* s = find(j["variant"].get<std::string>(), objective, refusal);
  if (s == nullptr)
    return refusal_response(refusal, Endpoint::kBatch);
  Response r;
  std::size_t faults = 0;  // positions refused by the server's fault
  std::string first_fault;
  std::string out = "{\"api\":" + std::to_string(kApiVersion) + ",\"results\":[";
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (i > 0)
      out += ',';
    const auto& item = positions[i];
    std::vector<int> board;
    std::vector<int> stores = {0, 0};
    Answered a;
    std::optional<std::string> key;
    std::string error;
    if (item.is_object() && (key = unknown_key(item, {"board", "stores"}))) {
      a = refused({RefusalKind::kBadRequest,
                   "unknown key '" + printable(*key) + "' (a position has board, stores)"});
    } else if (!item.is_object() || !item.contains("board")) {
      a = refused(
          {RefusalKind::kBadRequest, "a position is {\"board\": [...], \"stores\": [a, b]}"});
    } else if (!json_counts(item["board"], "board", kMaxBoardStones, board, error)) {
      a = refused({RefusalKind::kBadPosition, error});
    } else if (item.contains("stores") &&
               !json_counts(item["stores"], "stores", kMaxStoreValue, stores, error)) {
      a = refused({RefusalKind::kBadRequest, error});
    } else {
      a = report(*s, board, stores, true, ask.how);
    }
    if (a.body) {
      if (ask.fields != 0)
        out += keep_fields(*a.body, ask.fields);
      else
        out += *a.body;
    } else {
      const std::string result = nlohmann::json{{"status", a.status}, {"error", a.error}}.dump(
          -1, ' ', false, nlohmann::json::error_handler_t::replace);
      out += result;
      // The server's fault behind a success: the log must say so, as for a GET's, once for
      // the request however many positions it hit.
      if (is_server_fault(a.status) && faults++ == 0) {
        first_fault = "error " + std::to_string(a.status) + ": " + result + " (batch position " +
                      std::to_string(i);
      }
    }
    // Stop building an answer that is to be refused: its memory is the bound's point.
    if (out.size() > options.max_answer_bytes) {
      return batch_error(http_status(HttpRefusal::kTooLarge),
                         too_large_message(options.max_answer_bytes) + " (" +
                             std::to_string(i + 1) + " of " + std::to_string(positions.size()) +
                             " positions answered when it passed the bound)");
    }
  }
  out += "]}";
  if (faults > 0) {
    r.faults.push_back(first_fault +
                       (faults > 1 ? "; " + std::to_string(faults) + " of " +
                                         std::to_string(positions.size()) + " positions failed"
                                   : std::string()) +
                       ")");
  }
  r.endpoint = Endpoint::kBatch;
  r.body = std::move(out);
  r.cache_control = "no-store";
  return r;
}

}  // namespace sowdb::server
