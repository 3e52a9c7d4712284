// Canonical Huffman codes (huffman_code.h; FORMAT.md, "Code tables").
#include "sowdb/format/huffman_code.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <stdexcept>
#include <utility>

namespace sowdb::huffman {
namespace {

// Huffman code lengths of `freq` (tokens of frequency 0 get 0). Ties are broken by node number
// (the heap orders equal weights by index), so the lengths are a pure function of `freq`.
std::vector<std::uint8_t> huffman_lengths(std::span<const std::uint64_t> freq) {
  const std::size_t n = freq.size();
  std::vector<std::uint8_t> len(n, 0);
  std::vector<std::size_t> parent(2 * n, 0);
  using Item = std::pair<std::uint64_t, std::size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  for (std::size_t t = 0; t < n; ++t) {
    if (freq[t] > 0)
      heap.emplace(freq[t], t);
  }
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
  // Internal nodes are numbered after their children, so walking down from the root sees each
  // parent's depth before its children's.
  const std::size_t root = next - 1;
  std::vector<std::uint8_t> depth(2 * n, 0);
  for (std::size_t v = root; v-- > n;)
    depth[v] = static_cast<std::uint8_t>(std::min<int>(255, depth[parent[v]] + 1));
  for (std::size_t t = 0; t < n; ++t) {
    if (freq[t] > 0)
      len[t] = static_cast<std::uint8_t>(std::min<int>(255, depth[parent[t]] + 1));
  }
  return len;
}

}  // namespace

Code build_code(std::span<const std::uint64_t> freq) {
  if (freq.size() > kMaxTokens)
    throw std::invalid_argument("build_code: more than 4096 tokens");
  std::vector<std::uint64_t> f(freq.begin(), freq.end());
  std::vector<std::uint8_t> len;
  for (;;) {
    len = huffman_lengths(f);
    if (len.empty() || *std::max_element(len.begin(), len.end()) <= kCodeBits)
      break;
    for (auto& x : f)
      x = x == 0 ? 0 : (x >> 1) | 1;
  }
  return code_from_lengths(len);
}

bool valid_lengths(std::span<const std::uint8_t> len) {
  std::size_t coded = 0;
  std::uint64_t kraft = 0;  // in units of 2^-kCodeBits
  for (const std::uint8_t l : len) {
    if (l > kCodeBits)
      return false;
    if (l == 0)
      continue;
    ++coded;
    kraft += std::uint64_t{1} << (kCodeBits - l);
  }
  if (coded == 0)
    return true;
  if (coded == 1)
    return kraft == std::uint64_t{1} << (kCodeBits - 1);
  return kraft == std::uint64_t{1} << kCodeBits;
}

Code code_from_lengths(std::span<const std::uint8_t> len) {
  Code c;
  c.len.assign(len.begin(), len.end());
  c.word.assign(len.size(), 0);
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < len.size(); ++t) {
    if (len[t] > 0)
      order.push_back(t);
  }
  std::stable_sort(
      order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return len[a] < len[b]; });
  std::uint32_t word = 0;
  int prev = order.empty() ? 0 : len[order[0]];
  for (const std::size_t t : order) {
    word <<= (len[t] - prev);
    prev = len[t];
    c.word[t] = word;
    ++word;
  }
  return c;
}

DecodeTable decode_table(const Code& code) {
  DecodeTable table(std::size_t{1} << kCodeBits, 0);
  for (std::size_t t = 0; t < code.len.size() && t < kMaxTokens; ++t) {
    const int l = code.len[t];
    if (l == 0)
      continue;
    const int shift = kCodeBits - l;
    const auto entry = static_cast<std::uint16_t>((t << 4) | static_cast<std::size_t>(l));
    const std::uint32_t first = code.word[t] << shift;
    const std::uint32_t last = (code.word[t] + 1) << shift;
    for (std::uint32_t x = first; x < last && x < table.size(); ++x)
      table[x] = entry;
  }
  return table;
}

}  // namespace sowdb::huffman
