// Counts in the probe library's messages: "1 seed", "2 seeds".
#pragma once

#include <string>

namespace sowdb::probe_detail {

/// `n` followed by `one` when n is 1, else by `many`: "1 seed", "0 seeds", "3 entries".
/// Thread safe.
template <typename Count>
std::string count_text(Count n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace sowdb::probe_detail
