// Reading a request target: the path, the query parameters (percent-decoded) and the
// comma-separated numbers of a board or of stores. Plain C++ with no dependency, so that the
// fuzzer (server/fuzz) builds it on its own.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sowdb::server {

/// A request target split into its decoded path and query parameters.
struct Target {
  std::string path;  ///< Percent-decoded, e.g. "/api/v1/position".
  /// name=value pairs in the order given, both percent-decoded ('+' is a space).
  std::vector<std::pair<std::string, std::string>> params;
};

/// Query parameters read at most; a target with more is refused.
inline constexpr std::size_t kMaxParams = 32;

/// Splits `target` ("/path?a=1&b=2") into `out`. Returns false and a one-line reason in `error`
/// for a target that does not start with '/', a bad percent escape (not two hex digits), a
/// decoded NUL byte, or more than kMaxParams parameters. Thread safe.
bool parse_target(std::string_view target, Target& out, std::string& error);

/// The value of the parameter `name` in `t`, or nullptr when absent.
const std::string* find_param(const Target& t, std::string_view name);

/// Parses comma-separated whole numbers ("4,4,0,12") into `out`: each 0..`max_value`, at most
/// `max_count` of them, spaces around a number allowed. Returns false and a one-line reason in
/// `error` (naming the item, 0-based, and quoting at most 40 bytes of it) otherwise. Thread safe.
bool parse_counts(std::string_view text,
                  std::size_t max_count,
                  int max_value,
                  std::vector<int>& out,
                  std::string& error);

/// `text` cut to `limit` bytes with "..." and its length appended when longer, and every byte
/// outside printable ASCII replaced by '?': safe to quote in a message.
std::string printable(std::string_view text, std::size_t limit = 40);

}  // namespace sowdb::server
