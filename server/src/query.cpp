#include "sowdb/server/query.h"

#include <charconv>
#include <system_error>

namespace sowdb::server {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// Decodes %XX escapes (and '+' as a space when `plus_is_space`, the form encoding of a query).
bool decode(std::string_view in, bool plus_is_space, std::string& out, std::string& error) {
  out.clear();
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size() || hex_digit(in[i + 1]) < 0 || hex_digit(in[i + 2]) < 0) {
        error = "bad percent escape in '" + printable(in) + "' (want % and two hex digits)";
        return false;
      }
      c = static_cast<char>(hex_digit(in[i + 1]) * 16 + hex_digit(in[i + 2]));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      c = ' ';
    }
    if (c == '\0') {
      error = "a NUL byte in '" + printable(in) + "'";
      return false;
    }
    out.push_back(c);
  }
  return true;
}

}  // namespace

std::string printable(std::string_view text, std::size_t limit) {
  std::string out;
  const std::size_t n = text.size() < limit ? text.size() : limit;
  out.reserve(n + 24);
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  }
  if (text.size() > limit)
    out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

bool parse_target(std::string_view target, Target& out, std::string& error) {
  out = Target{};
  if (target.empty() || target.front() != '/') {
    error = "the request target must start with '/'";
    return false;
  }
  const std::size_t q = target.find('?');
  if (!decode(target.substr(0, q), false, out.path, error))
    return false;
  if (q == std::string_view::npos)
    return true;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const std::size_t amp = rest.find('&');
    const std::string_view item = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (item.empty())
      continue;
    if (out.params.size() == kMaxParams) {
      error = "more than " + std::to_string(kMaxParams) + " query parameters";
      return false;
    }
    const std::size_t eq = item.find('=');
    std::pair<std::string, std::string> p;
    if (!decode(item.substr(0, eq), true, p.first, error))
      return false;
    if (eq != std::string_view::npos && !decode(item.substr(eq + 1), true, p.second, error))
      return false;
    out.params.push_back(std::move(p));
  }
  return true;
}

const std::string* find_param(const Target& t, std::string_view name) {
  for (const auto& p : t.params) {
    if (p.first == name)
      return &p.second;
  }
  return nullptr;
}

bool parse_counts(std::string_view text,
                  std::size_t max_count,
                  int max_value,
                  std::vector<int>& out,
                  std::string& error) {
  out.clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string_view item =
        text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    const std::string which = "item " + std::to_string(out.size());
    if (out.size() == max_count) {
      error = "more than " + std::to_string(max_count) + " numbers";
      return false;
    }
    long long v = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    const bool whole = !item.empty() && ptr == item.data() + item.size();
    if (!whole || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      error = which + ": '" + printable(item) + "' is not a whole number";
      return false;
    }
    if (item.front() == '-') {
      error = which + ": " + printable(item) + " is negative";
      return false;
    }
    if (ec == std::errc::result_out_of_range || v > max_value) {
      error = which + ": " + printable(item) + " is more than " + std::to_string(max_value);
      return false;
    }
    out.push_back(static_cast<int>(v));
    if (comma == std::string_view::npos)
      return true;
    start = comma + 1;
  }
}

}  // namespace sowdb::server
