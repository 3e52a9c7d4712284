#include "candidate_codes.h"

namespace sowdb::bench {

std::size_t model_bytes(const std::vector<Code>& codes) {
  std::size_t nibbles = 0;
  for (const auto& c : codes)
    nibbles += c.len.size();
  return (nibbles + 1) / 2;
}

std::size_t BlockStream::index_bytes() const {
  const std::size_t blocks = start.empty() ? 0 : start.size() - 1;
  bool narrow = true;
  for (std::size_t b = 0; b < blocks; ++b)
    narrow = narrow && start[b] - start[b - b % 64] < 65536;
  return 8 * ((blocks + 63) / 64) + (narrow ? 2 : 4) * blocks;
}

}  // namespace sowdb::bench
