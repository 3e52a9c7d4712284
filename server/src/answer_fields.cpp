#include "answer_fields.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>

#include "sowdb/server/query.h"

namespace sowdb::server {
namespace {

// Sorted, so that a name is found by binary search and the list reads in order. A key added to
// a report must be added here: tests/server ask for every key an answer has.
constexpr std::array<std::string_view, 28> kKnown = {
    "api",
    "balanced",
    "balancing_moves",
    "best",
    "decided",
    "depth",
    "final",
    "game_over",
    "line",
    "line_end",
    "line_last",
    "line_last_mover",
    "line_steps",
    "lower",
    "method",
    "moves",
    "moves_best_first",
    "objective",
    "pits",
    "reachable",
    "result",
    "search",
    "stones",
    "stores",
    "target",
    "upper",
    "value",
    "variant",
};
static_assert(kKnown.size() <= 64, "a FieldMask has 64 bits");

constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The index just past the JSON string starting at `i` (a '"'), or npos when it does not end.
std::size_t skip_string(std::string_view t, std::size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\')
      ++i;
    else if (t[i] == '"')
      return i + 1;
  }
  return std::string_view::npos;
}

// The index just past the JSON value starting at `i`, or npos when it does not end.
std::size_t skip_value(std::string_view t, std::size_t i) {
  if (i >= t.size())
    return std::string_view::npos;
  if (t[i] == '"')
    return skip_string(t, i);
  if (t[i] == '{' || t[i] == '[') {
    int depth = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (c == '"') {
        i = skip_string(t, i);
        if (i == std::string_view::npos)
          return i;
        continue;
      }
      if (c == '{' || c == '[')
        ++depth;
      else if ((c == '}' || c == ']') && --depth == 0)
        return i + 1;
      ++i;
    }
    return std::string_view::npos;
  }
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && !is_space(t[i]))
    ++i;
  return i;
}

std::size_t skip_space(std::string_view t, std::size_t i) {
  while (i < t.size() && is_space(t[i]))
    ++i;
  return i;
}

// The object's members cut down, or nullopt when `t` is not an object of the expected form.
std::optional<std::string> filtered(std::string_view t, FieldMask keep) {
  std::string out = "{";
  std::size_t i = skip_space(t, 0);
  if (i >= t.size() || t[i] != '{')
    return std::nullopt;
  i = skip_space(t, i + 1);
  if (i < t.size() && t[i] == '}')
    return out + "}";
  while (i < t.size()) {
    const std::size_t key_start = i;
    if (t[i] != '"')
      return std::nullopt;
    const std::size_t key_end = skip_string(t, i);
    if (key_end == std::string_view::npos)
      return std::nullopt;
    i = skip_space(t, key_end);
    if (i >= t.size() || t[i] != ':')
      return std::nullopt;
    const std::size_t value_end = skip_value(t, skip_space(t, i + 1));
    if (value_end == std::string_view::npos)
      return std::nullopt;
    const std::string_view key = t.substr(key_start + 1, key_end - key_start - 2);
    if (key == "api" || (field_bit(key) & keep) != 0) {
      if (out.size() > 1)
        out += ',';
      out += t.substr(key_start, value_end - key_start);
    }
    i = skip_space(t, value_end);
    if (i < t.size() && t[i] == '}')
      return out + "}";
    if (i >= t.size() || t[i] != ',')
      return std::nullopt;
    i = skip_space(t, i + 1);
  }
  return std::nullopt;
}

}  // namespace

std::string known_fields_text() {
  std::string out;
  for (const std::string_view name : kKnown) {
    if (!out.empty())
      out += ", ";
    out += name;
  }
  return out;
}

FieldMask field_bit(std::string_view name) noexcept {
  const auto it = std::lower_bound(kKnown.begin(), kKnown.end(), name);
  if (it == kKnown.end() || *it != name)
    return 0;
  return FieldMask{1} << static_cast<unsigned>(it - kKnown.begin());
}

bool parse_fields(std::string_view text, FieldMask& out, std::string& error) {
  out = 0;
  std::size_t start = 0;
  for (std::size_t item = 0;; ++item) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view name = text.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ')
      name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ')
      name.remove_suffix(1);
    if (name.empty()) {
      error = "item " + std::to_string(item) + " is empty (want key names, e.g. value,best)";
      return false;
    }
    const FieldMask bit = field_bit(name);
    if (bit == 0) {
      error = "unknown field '" + printable(name) + "' (fields: " + known_fields_text() + ")";
      return false;
    }
    out |= bit;
    if (comma == text.size())
      return true;
    start = comma + 1;
  }
}

std::string keep_fields(std::string_view object, FieldMask keep) {
  if (keep == 0)
    return std::string(object);
  std::optional<std::string> out = filtered(object, keep);
  return out ? std::move(*out) : std::string(object);
}

}  // namespace sowdb::server
