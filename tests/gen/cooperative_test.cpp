// The co-operative objective (gen::solve_reach_layer) against a brute force written here from
// the definition: every board enumerated, the lines of play followed move by move, the sets
// grown by plain iteration until nothing changes.
#include "sowdb/gen/cooperative.h"

#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "brute_force.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"

namespace sowdb::test {
namespace {

struct ReachCase {
  std::string variant;
  int pits_per_side;
  int max_stones;
};

// The parameter as a failure list shows it ("oware 3 pits, 8 seeds"), not as bytes.
void PrintTo(const ReachCase& c, std::ostream* os) {
  *os << c.variant << " " << c.pits_per_side << " pits, " << c.max_stones << " seeds";
}

class ReachVsBruteForce : public testing::TestWithParam<ReachCase> {};

TEST_P(ReachVsBruteForce, EverySetMatches) {
  const ReachCase& c = GetParam();
  Variant v = *parse_variant(c.variant);
  v.rules.pits_per_side = static_cast<std::uint8_t>(c.pits_per_side);
  const RuleSet rules = v.rules.normalised();
  const Rules engine(rules);
  const Reach want = brute_reach(engine, c.max_stones);
  std::vector<gen::ReachLayer> layers;
  std::uint64_t compared = 0;
  for (int n = 0; n <= c.max_stones; ++n) {
    layers.push_back(gen::solve_reach_layer(
        rules, n, [&](int m) -> const gen::ReachLayer& { return layers.at(m); }));
    const gen::ReachLayer& got = layers.back();
    Pits board{};
    const std::span<std::uint8_t> span(board.data(), static_cast<std::size_t>(rules.pits()));
    for (std::uint64_t i = 0; i < layer_size(rules.pits(), n); ++i) {
      unrank(i, n, span);
      const std::set<int>& w = want.at(board);
      for (int d = -n; d <= n; ++d) {
        ASSERT_EQ(got.contains(i, d), w.count(d) == 1)
            << c.variant << " P=" << c.pits_per_side << " n=" << n << " board "
            << board_text(board, c.pits_per_side) << " d=" << d;
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 0u);
}

// The start position's answer: the brute force's set of the start, and per first move the
// differences its child's set gives.
TEST(ReachStart, AgreesWithTheBruteForce) {
  for (const char* text : {"oware/2x3", "abapa/2x2", "ayo/2x3", "kalah/3x2", "wari-us/2x3"}) {
    SCOPED_TRACE(text);
    const Variant v = *parse_variant(text);
    const Rules engine(v.rules.normalised());
    const Reach want = brute_reach(engine, v.total_stones());
    const gen::ReachStart got = gen::solve_reach_start(v);
    Pits start{};
    for (int i = 0; i < engine.board_pits(); ++i)
      start[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v.seeds_per_pit);
    const std::set<int>& r = want.at(start);
    EXPECT_EQ(std::set<int>(got.reachable.begin(), got.reachable.end()), r);
    EXPECT_EQ(got.balanced, r.count(0) == 1);
    MoveList moves;
    ASSERT_EQ(static_cast<int>(got.moves.size()), engine.legal_moves(start, moves));
    for (int k = 0; k < moves.size; ++k) {
      const Move& m = moves.moves[static_cast<std::size_t>(k)];
      std::set<int> child;
      for (const int d : want.at(m.child))
        child.insert(m.gain() + (m.extra_turn ? d : -d));
      EXPECT_EQ(std::set<int>(got.moves[static_cast<std::size_t>(k)].reachable.begin(),
                              got.moves[static_cast<std::size_t>(k)].reachable.end()),
                child);
      EXPECT_EQ(got.moves[static_cast<std::size_t>(k)].balancing, child.count(0) == 1);
      EXPECT_EQ(got.moves[static_cast<std::size_t>(k)].pit, m.pit);
    }
  }
  EXPECT_THROW(gen::solve_reach_start(*parse_variant("oware"), 1000), gen::TooLarge);
}

std::vector<ReachCase> cases() {
  std::vector<ReachCase> out;
  for (const Preset& p : presets()) {
    for (int pits = 1; pits <= 3; ++pits)
      out.push_back({std::string(p.name), pits, pits == 1 ? 14 : (pits == 2 ? 12 : 10)});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Presets,
                         ReachVsBruteForce,
                         testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<ReachCase>& param) {
                           return param_name(param.param.variant, param.param.pits_per_side);
                         });

}  // namespace
}  // namespace sowdb::test
