// gen::count_endless_draws against a plain search written here: a draw is decided by endless
// play when some line of value-keeping moves from it reaches a position that returns to itself.
#include "sowdb/gen/endless.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "brute_force.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/parallel.h"
#include "sowdb/probe/variant.h"

namespace sowdb::test {
namespace {

// The children of `b` a value-keeping move that gains nothing reaches, in a layer solved by `bf`.
std::vector<Pits> keeping_children(const BruteForce& bf, const Pits& b) {
  std::vector<Pits> out;
  MoveList moves;
  bf.rules().legal_moves(b, moves);
  for (const Move& m : moves) {
    if (m.gain() == 0 && bf.at(m.child).value == 0)
      out.push_back(m.child);
  }
  return out;
}

// Every board reachable from `b` by one or more value-keeping moves.
std::set<Pits> reachable(const BruteForce& bf, const Pits& b) {
  std::set<Pits> seen;
  std::vector<Pits> todo = keeping_children(bf, b);
  while (!todo.empty()) {
    const Pits x = todo.back();
    todo.pop_back();
    if (!seen.insert(x).second)
      continue;
    for (const Pits& c : keeping_children(bf, x))
      todo.push_back(c);
  }
  return seen;
}

class EndlessDraws : public testing::TestWithParam<std::string> {};

TEST_P(EndlessDraws, MatchAPlainSearch) {
  const RuleSet rules = parse_variant(GetParam())->rules.normalised();
  BruteForce bf(rules);
  const int max_stones = rules.pits_per_side <= 2 ? 14 : 9;
  std::uint64_t total = 0;
  for (int n = 0; n <= max_stones; ++n) {
    bf.solve_through(n);
    const BruteLayer& layer = bf.layer(n);
    // The plain count: draws that reach a board on a cycle of value-keeping moves.
    std::set<Pits> on_cycle;
    for (const Pits& b : layer.boards) {
      if (bf.at(b).value == 0 && reachable(bf, b).count(b))
        on_cycle.insert(b);
    }
    std::uint64_t want = 0;
    for (const Pits& b : layer.boards) {
      if (bf.at(b).value != 0)
        continue;
      const std::set<Pits> r = reachable(bf, b);
      bool endless = on_cycle.count(b) > 0;
      for (const Pits& x : r)
        endless = endless || on_cycle.count(x) > 0;
      want += endless;
    }
    // The values in index order, as the tables hold them.
    std::vector<std::int8_t> values(layer_size(rules.pits(), n));
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(rules.pits()));
    for (std::uint64_t i = 0; i < values.size(); ++i) {
      unrank(i, n, span);
      values[i] = static_cast<std::int8_t>(bf.at(board).value);
    }
    EXPECT_EQ(gen::count_endless_draws(bf.rules(), n, values), want) << GetParam() << " n=" << n;
    EXPECT_EQ(gen::count_endless_draws(bf.rules(), n, values, gen::tbb_executor()), want);
    total += want;
  }
  if (rules.family == Family::kOware)
    EXPECT_GT(total, 0u) << "no endless draw at all: the test would not see a wrong count";
  else
    EXPECT_EQ(total, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Presets,
    EndlessDraws,
    testing::Values(
        "oware/2x4", "oware/3x4", "abapa/3x4", "ayo/3x4", "oware/4x4", "kalah/3x4", "wari-us/3x4"),
    [](const testing::TestParamInfo<std::string>& param) {
      std::string name = param.param;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch)))
          ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace sowdb::test
