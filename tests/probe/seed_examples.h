// Helpers of the seed rule documents' worked examples (seed_examples_*_test.cpp): rules by
// variant text, legal pits, the move from a pit, a board as numbers.
//
// Positions are written mover first: pits 0..P-1 are the mover's, left to right as the mover sees
// them, pits P..2P-1 the opponent's, counter-clockwise. Player A's cup #k is pit k-1; the
// opponent's cup #k is pit P+k-1 (the first opposing cup a sowing from A's last cup reaches).
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"

namespace sowdb::test {

// The first `pits` pits of `p`, as numbers.
inline std::vector<int> as_vector(const Pits& p, int pits) {
  return std::vector<int>(p.begin(), p.begin() + pits);
}

// The rules engine of `variant` (a test failure when the text does not parse).
inline Rules rules_of(std::string_view variant) {
  std::string error;
  std::optional<Variant> v = parse_variant(variant, &error);
  EXPECT_TRUE(v.has_value()) << variant << ": " << error;
  return Rules(v ? v->rules : RuleSet{});
}

// The pits of the legal moves of `board`, in order.
inline std::vector<int> legal_pits(const Rules& rules, const Pits& board) {
  MoveList list;
  const int n = rules.legal_moves(board, list);
  EXPECT_EQ(n, list.size);
  std::vector<int> pits;
  for (const Move& m : list)
    pits.push_back(m.pit);
  return pits;
}

// The legal move from `pit`, or nullopt (with a test failure) when it is not legal.
inline std::optional<Move> move_from(const Rules& rules, const Pits& board, int pit) {
  MoveList list;
  rules.legal_moves(board, list);
  for (const Move& m : list) {
    if (m.pit == pit)
      return m;
  }
  ADD_FAILURE() << "pit " << pit << " is not a legal move";
  return std::nullopt;
}

// The seeds on the first `pits` pits of `p`.
inline int stones(const Pits& p, int pits) {
  int s = 0;
  for (int i = 0; i < pits; ++i)
    s += p[i];
  return s;
}

}  // namespace sowdb::test
