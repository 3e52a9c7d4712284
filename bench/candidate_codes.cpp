#include "candidate_codes.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <stdexcept>
#include <utility>

namespace sowdb::bench {
namespace {

// Huffman code lengths of `freq` (tokens of frequency 0 get 0).
std::vector<std::uint8_t> huffman_lengths(const std::vector<std::uint64_t>& freq) {
  const std::size_t n = freq.size();
  std::vector<std::uint8_t> len(n, 0);
  // Nodes 0..n-1 are tokens; internal nodes follow. parent[] gives the tree.
  std::vector<std::size_t> parent(2 * n, 0);
  using Item = std::pair<std::uint64_t, std::size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  for (std::size_t t = 0; t < n; ++t)
    if (freq[t] > 0)
      heap.emplace(freq[t], t);
  if (heap.empty())
    return len;
  if (heap.size() == 1) {
    len[heap.top().second] = 1;
    return len;
  }
  std::size_t next = n;
  while (heap.size() > 1) {
    const Item a = heap.top();
    heap.pop();
    const Item b = heap.top();
    heap.pop();
    parent[a.second] = next;
    parent[b.second] = next;
    heap.emplace(a.first + b.first, next);
    ++next;
  }
  const std::size_t root = next - 1;
  std::vector<std::uint8_t> depth(2 * n, 0);
  for (std::size_t v = root; v-- > n;)
    depth[v] = static_cast<std::uint8_t>(depth[parent[v]] + 1);
  for (std::size_t t = 0; t < n; ++t)
    if (freq[t] > 0)
      len[t] = static_cast<std::uint8_t>(std::min<int>(255, depth[parent[t]] + 1));
  return len;
}

}  // namespace

Code build_code(const std::vector<std::uint64_t>& freq) {
  if (freq.size() > 4096)
    throw std::invalid_argument("build_code: more than 4096 tokens");
  std::vector<std::uint64_t> f = freq;
  Code c;
  for (;;) {
    c.len = huffman_lengths(f);
    if (*std::max_element(c.len.begin(), c.len.end()) <= kCodeBits)
      break;
    for (auto& x : f)
      x = x == 0 ? 0 : (x >> 1) | 1;
  }
  // Canonical words: by length, then token.
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < c.len.size(); ++t)
    if (c.len[t] > 0)
      order.push_back(t);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return c.len[a] < c.len[b];
  });
  c.word.assign(c.len.size(), 0);
  c.table.assign(std::size_t{1} << kCodeBits, 0);
  std::uint32_t word = 0;
  int prev = order.empty() ? 0 : c.len[order[0]];
  for (std::size_t t : order) {
    word <<= (c.len[t] - prev);
    prev = c.len[t];
    c.word[t] = word;
    const int shift = kCodeBits - c.len[t];
    const auto entry = static_cast<std::uint16_t>((t << 4) | c.len[t]);
    for (std::uint32_t x = word << shift; x < (word + 1) << shift; ++x)
      c.table[x] = entry;
    ++word;
  }
  return c;
}

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
