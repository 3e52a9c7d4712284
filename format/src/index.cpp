#include "sowdb/format/index.h"

#include <array>

namespace sowdb {
namespace {

constexpr int kMaxN = kMaxIndexedStones + kMaxPits + 1;

struct Tables {
  std::array<std::array<std::uint64_t, kMaxPits + 1>, kMaxN + 1> binom{};
  // rank_row[i][s] = C(s + i, i + 1)
  std::array<std::array<std::uint64_t, kMaxIndexedStones + 1>, kMaxPits> rank_row{};

  constexpr Tables() {
    for (int n = 0; n <= kMaxN; ++n) {
      binom[n][0] = 1;
      for (int k = 1; k <= kMaxPits; ++k) {
        binom[n][k] = n == 0 ? 0 : binom[n - 1][k - 1] + binom[n - 1][k];
      }
    }
    for (int i = 0; i < kMaxPits; ++i) {
      for (int s = 0; s <= kMaxIndexedStones; ++s)
        rank_row[i][s] = binom[s + i][i + 1];
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

std::uint64_t binomial(int n, int k) noexcept {
  if (n < 0 || k < 0 || k > kMaxPits || n > kMaxN)
    return 0;
  return tables().binom[n][k];
}

std::uint64_t layer_size(int pits, int stones) noexcept {
  return binomial(stones + pits - 1, pits - 1);
}

const std::uint64_t* rank_table_row(int pit) noexcept {
  return tables().rank_row[pit].data();
}

std::uint64_t rank(std::span<const std::uint8_t> pits) noexcept {
  const auto& t = tables();
  std::uint64_t r = 0;
  int s = 0;
  const int k = static_cast<int>(pits.size());
  for (int i = 0; i + 1 < k; ++i) {
    s += pits[i];
    r += t.rank_row[i][s];
  }
  return r;
}

bool unrank(std::uint64_t index, int stones, std::span<std::uint8_t> pits) noexcept {
  const int k = static_cast<int>(pits.size());
  if (k < 1 || stones < 0 || stones > kMaxIndexedStones)
    return false;
  if (index >= layer_size(k, stones))
    return false;
  const auto& t = tables();
  // Greedy colex unranking over the prefix sums s_{K-2} >= ... >= s_0.
  int upper = stones;  // s_{i+1}
  for (int i = k - 2; i >= 0; --i) {
    int s = upper;
    while (t.rank_row[i][s] > index)
      --s;
    index -= t.rank_row[i][s];
    pits[i + 1] = static_cast<std::uint8_t>(upper - s);
    upper = s;
  }
  pits[0] = static_cast<std::uint8_t>(upper);
  return true;
}

bool next_position(std::span<std::uint8_t> pits) noexcept {
  // Colex successor: find the first pit i whose right neighbour holds a seed; move one seed from
  // pit i+1 and every seed of pits 0..i into pit i.
  const int k = static_cast<int>(pits.size());
  int carried = 0;
  for (int i = 0; i + 1 < k; ++i) {
    carried += pits[i];
    if (pits[i + 1] > 0) {
      pits[i + 1] = static_cast<std::uint8_t>(pits[i + 1] - 1);
      for (int j = 0; j < i; ++j)
        pits[j] = 0;
      pits[i] = static_cast<std::uint8_t>(carried + 1);
      return true;
    }
  }
  return false;
}

}  // namespace sowdb
