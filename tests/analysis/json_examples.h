// The reports behind the committed JSON examples (tests/data/json/): which tables, which
// position, so that the library test and the command-line test (json_examples_cli_test.sh)
// show the same thing.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

namespace sowdb::test {

/// Whether `j` is a scalar or an array of scalars (one line in readable_json).
inline bool flat_json(const nlohmann::json& j) {
  if (j.is_object())
    return false;
  return !j.is_array() || std::none_of(j.begin(), j.end(), [](const nlohmann::json& e) {
    return e.is_object() || e.is_array();
  });
}

/// A JSON value as the example files hold it: objects one key a line, indented by two; arrays
/// of scalars on one line, and in an array each object of such values on one line (a move, a
/// step of a line), so that a report reads from top to bottom.
inline std::string readable_json(const nlohmann::json& j, int indent = 0) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  const std::string inner(static_cast<std::size_t>(indent + 2), ' ');
  if (j.is_object()) {
    if (j.empty())
      return "{}";
    std::string out = "{\n";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      out += (first ? "" : ",\n") + inner + nlohmann::json(it.key()).dump() + ": " +
             readable_json(it.value(), indent + 2);
      first = false;
    }
    return out + "\n" + pad + "}";
  }
  if (j.is_array()) {
    if (flat_json(j))
      return j.dump();
    std::string out = "[\n";
    for (std::size_t i = 0; i < j.size(); ++i) {
      const nlohmann::json& e = j[i];
      const bool one_line = e.is_object() && std::all_of(e.begin(), e.end(), flat_json);
      out += (i ? ",\n" : "") + inner;
      if (!one_line) {
        out += readable_json(e, indent + 2);
        continue;
      }
      std::string fields;
      for (auto it = e.begin(); it != e.end(); ++it)
        fields += (fields.empty() ? "" : ", ") + nlohmann::json(it.key()).dump() + ": " +
                  it.value().dump();
      out += "{" + fields + "}";
    }
    return out + "\n" + pad + "]";
  }
  return j.dump();
}

}  // namespace sowdb::test
