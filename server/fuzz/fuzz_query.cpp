// libFuzzer target: the server's request-target and number-list parser (server/src/query.cpp)
// on any bytes. Checks what the parser promises: no crash, a decoded path that starts with '/'
// and holds no NUL, at most kMaxParams parameters, and numbers within the bounds asked for.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "sowdb/server/query.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  sowdb::server::Target target;
  std::string error;
  if (sowdb::server::parse_target(text, target, error)) {
    if (target.path.empty() || target.path.front() != '/' ||
        target.path.find('\0') != std::string::npos ||
        target.params.size() > sowdb::server::kMaxParams) {
      std::abort();
    }
    for (const auto& [name, value] : target.params) {
      std::vector<int> counts;
      if (sowdb::server::parse_counts(value, 16, 255, counts, error)) {
        if (counts.empty() || counts.size() > 16)
          std::abort();
        for (const int c : counts) {
          if (c < 0 || c > 255)
            std::abort();
        }
      } else if (error.empty()) {
        std::abort();
      }
      (void)name;
    }
  } else if (error.empty()) {
    std::abort();
  }
  // The number lists on their own, as a batch's text would be.
  std::vector<int> counts;
  (void)sowdb::server::parse_counts(text, 64, 1000000, counts, error);
  return 0;
}
