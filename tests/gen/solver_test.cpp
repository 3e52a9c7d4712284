// The generator against an independent brute-force solver (brute_force.h), plus sanity checks of
// the brute force itself: hand-solved boards and the facts of docs/RULES.md it must reproduce.
#include "sowdb/gen/solver.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <tbb/cache_aligned_allocator.h>
#include <tbb/global_control.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "brute_force.h"
#include "sowdb/format/index.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb::test {
namespace {

// The rules of `variant` (a preset name, or parse_variant's PRESET/PxS/OPTION=VALUE form) on a
// board of `pits_per_side` pits a side.
RuleSet preset_rules(std::string_view variant, int pits_per_side) {
  std::string error;
  const std::optional<Variant> v = parse_variant(variant, &error);
  if (!v)
    throw std::invalid_argument(error);
  RuleSet r = v->rules;
  r.pits_per_side = static_cast<std::uint8_t>(pits_per_side);
  return r.normalised();
}

std::uint64_t gen_index(const Pits& board, int pits) {
  return rank(std::span<const std::uint8_t>(board.data(), pits));
}

// ---------------------------------------------------------------------------------------------
// The brute force itself.

std::uint64_t choose(int n, int k) {
  std::uint64_t r = 1;
  for (int i = 1; i <= k; ++i)
    r = r * static_cast<std::uint64_t>(n - k + i) / i;
  return r;
}

TEST(BruteForce, EnumeratesEveryBoardOnce) {
  for (int pits = 1; pits <= 8; ++pits) {
    for (int n = 0; n <= 7; ++n) {
      const std::vector<Pits> boards = enumerate_boards(pits, n);
      EXPECT_EQ(boards.size(), choose(n + pits - 1, pits - 1)) << pits << " pits, " << n;
      for (const Pits& b : boards)
        ASSERT_EQ(stones_on(b), n);
    }
  }
}

// Oware family, one pit a side, board [a | b]. Sowing a seeds from pit 0 skips the origin, so
// all of them land in pit 1: the child, from the opponent's side, is [a + b | 0].
//   [0 | b]: finished, -b.  [1 | 0]: [1 | 0] again forever: 0.
//   a + b = 2 or 3, a >= 1: the last seed makes 2 or 3 in pit 1, a grand slam. `forbidden`
//     (forced, as it is the only move) and `capture` take a + b; `no_capture` takes nothing and
//     moves to [a + b | 0], which repeats forever: 0.
//   a + b >= 4, a >= 1: no capture, then [a + b | 0] forever: 0.
TEST(BruteForce, OwareOnePitByHand) {
  for (std::string_view preset : {"oware", "ayo", "abapa"}) {
    SCOPED_TRACE(std::string(preset));
    BruteForce bf(preset_rules(preset, 1));
    bf.solve_through(7);
    const bool slam_captures = preset != "abapa";
    for (int n = 0; n <= 7; ++n) {
      for (int a = 0; a <= n; ++a) {
        const int b = n - a;
        int value = 0;
        int depth = 0;
        if (a == 0) {
          value = -b;
        } else if ((n == 2 || n == 3) && slam_captures) {
          value = n;
          depth = 1;
        }
        const BruteEntry e = bf.at(board_of({a, b}));
        EXPECT_EQ(e.value, value) << "[" << a << " | " << b << "]";
        EXPECT_EQ(e.depth, depth) << "[" << a << " | " << b << "]";
      }
    }
  }
}

// Kalah, one pit a side: sowing from pit 0 goes store, pit 1, pit 0, store, ... (the origin is
// not skipped). docs/RULES.md, Kalah rule 1: the store lies between pit P-1 and pit P, so the first
// seed sown from pit P-1 goes to the store.
//   kalah (end = no_move):
//     [0 | b]: the mover has no seeds: the opponent takes b: -b.
//     [1 | b]: 1 seed into the store, extra turn on [0 | b]: 1 - b. Depth 1 unless 1 - b = 0.
//     [2 | 0]: store, pit 1; the opponent moves on [1 | 0] (worth 1): 1 - 1 = 0.
//     [3 | 0]: store, pit 1, pit 0; the last seed lands in the emptied origin, opposite 1 seed:
//              capture 2, plus 1 stored: 3, the board is empty. Depth 1.
//   kalah-tournament (end = empty_side): a board with an empty side is finished: a - b.
//     [1 | 1]: 1 into the store, extra turn on [0 | 1], finished at -1: 1 - 1 = 0.
//     [2 | 1]: store, pit 1: the opponent's [2 | 0] is finished at 2 for them: 1 - 2 = -1, depth 1.
//     [3 | 1]: store, pit 1, pit 0: [1 | 2], the last seed in the emptied origin captures 1 + 2,
//              plus 1 stored: 4. Depth 1.
TEST(BruteForce, KalahOnePitByHand) {
  {
    SCOPED_TRACE("kalah");
    BruteForce bf(preset_rules("kalah", 1));
    bf.solve_through(4);
    for (int b = 0; b <= 3; ++b) {
      EXPECT_EQ(bf.at(board_of({0, b})).value, -b) << b;
      EXPECT_EQ(bf.at(board_of({0, b})).depth, 0) << b;
      EXPECT_EQ(bf.at(board_of({1, b})).value, 1 - b) << b;
      EXPECT_EQ(bf.at(board_of({1, b})).depth, b == 1 ? 0 : 1) << b;
    }
    EXPECT_EQ(bf.at(board_of({2, 0})).value, 0);
    EXPECT_EQ(bf.at(board_of({3, 0})).value, 3);
    EXPECT_EQ(bf.at(board_of({3, 0})).depth, 1);
  }
  {
    SCOPED_TRACE("kalah-tournament");
    BruteForce bf(preset_rules("kalah-tournament", 1));
    bf.solve_through(4);
    for (int n = 0; n <= 4; ++n) {
      EXPECT_EQ(bf.at(board_of({n, 0})).value, n) << n;
      EXPECT_EQ(bf.at(board_of({0, n})).value, -n) << n;
      EXPECT_EQ(bf.at(board_of({n, 0})).depth, 0) << n;
    }
    EXPECT_EQ(bf.at(board_of({1, 1})).value, 0);
    EXPECT_EQ(bf.at(board_of({2, 1})).value, -1);
    EXPECT_EQ(bf.at(board_of({2, 1})).depth, 1);
    EXPECT_EQ(bf.at(board_of({3, 1})).value, 4);
    EXPECT_EQ(bf.at(board_of({3, 1})).depth, 1);
  }
}

// Two pits a side, where depth counts more than one ply.
//   oware [1 0 | 0 2]: the only move sows pit 0 into pit 1; the opponent gets [0 2 | 0 1] and
//     sows pit 1 into pits 2, 3 (1 and 2 seeds): 2 captured, not a grand slam. Then [1 0 | 0 0]
//     cannot feed: finished at 1 for its mover. So [0 2 | 0 1] is worth 2 - 1 = 1 (depth 1) and
//     [1 0 | 0 2] is worth -1 at depth 2.
//   kalah [1 0 | 0 2]: pit 0 into pit 1 (empty before, but pit 2 opposite is empty: no capture),
//     giving [0 2 | 0 1] to the opponent; its only move sows store, pit 2: gain 1, then
//     [1 1 | 0 0]. There pit 1 into the store, extra turn on [1 0 | 0 0] (worth 1: pit 0 into
//     pit 1, then the opponent has no seeds and loses 1), gives 2; pit 0 into pit 1 also gives 2
//     (the opponent has no seeds and we keep our 2): value 2, depth 1. So [0 2 | 0 1] is worth
//     1 - 2 = -1 (depth 1) and [1 0 | 0 2] is worth 1 at depth 2.
TEST(BruteForce, TwoPitsByHand) {
  BruteForce oware(preset_rules("oware", 2));
  oware.solve_through(3);
  EXPECT_EQ(oware.at(board_of({1, 0, 0, 0})).value, 1);
  EXPECT_EQ(oware.at(board_of({0, 2, 0, 1})).value, 1);
  EXPECT_EQ(oware.at(board_of({0, 2, 0, 1})).depth, 1);
  EXPECT_EQ(oware.at(board_of({1, 0, 0, 2})).value, -1);
  EXPECT_EQ(oware.at(board_of({1, 0, 0, 2})).depth, 2);

  BruteForce kalah(preset_rules("kalah", 2));
  kalah.solve_through(3);
  EXPECT_EQ(kalah.at(board_of({1, 0, 0, 0})).value, 1);
  EXPECT_EQ(kalah.at(board_of({1, 1, 0, 0})).value, 2);
  EXPECT_EQ(kalah.at(board_of({1, 1, 0, 0})).depth, 1);
  EXPECT_EQ(kalah.at(board_of({0, 2, 0, 1})).value, -1);
  EXPECT_EQ(kalah.at(board_of({0, 2, 0, 1})).depth, 1);
  EXPECT_EQ(kalah.at(board_of({1, 0, 0, 2})).value, 1);
  EXPECT_EQ(kalah.at(board_of({1, 0, 0, 2})).depth, 2);
}

// The cycle finder finds Oware's obvious cycle: [1 | 0] sows into [1 | 0] for the other side.
TEST(BruteForce, FindsOwareCycle) {
  const Rules rules(preset_rules("oware", 1));
  const std::vector<Pits> cycle = find_in_layer_cycle(rules, 1);
  ASSERT_EQ(cycle.size(), 2u);
  EXPECT_EQ(cycle[0], board_of({1, 0}));
  EXPECT_EQ(cycle[1], board_of({1, 0}));
}

// docs/RULES.md, the Kalah family: positions never repeat: a move that gains nothing keeps its
// seeds on the mover's side and moves them toward the store.
TEST(BruteForce, KalahInLayerMovesNeverCycle) {
  for (std::string_view preset : {"kalah", "kalah-tournament", "kalah-irving"}) {
    for (int p = 1; p <= 4; ++p) {
      const Rules rules(preset_rules(preset, p));
      const int max_stones = p <= 2 ? 12 : (p == 3 ? 9 : 7);
      for (int n = 1; n <= max_stones; ++n) {
        const std::vector<Pits> cycle = find_in_layer_cycle(rules, n);
        if (cycle.empty())
          continue;
        std::string text;
        for (const Pits& b : cycle)
          text.append(" ").append(board_text(b, p));
        ADD_FAILURE() << preset << " P=" << p << " n=" << n << ": in-layer cycle" << text;
        break;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The generator against the brute force.

struct Case {
  std::string preset;  ///< A preset, or a variant with options (see preset_rules).
  int pits_per_side = 1;
  int max_stones = 0;
};

// The parameter as a failure list shows it ("oware 6 pits, 13 seeds"), not as bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.preset << " " << c.pits_per_side << " pits, " << c.max_stones << " seeds";
}

std::vector<Case> all_cases() {
  // Largest layer per board size P, chosen to keep the whole executable within its time budget.
  // A preset with the same rules as an earlier one (docs/RULES.md: warri = abapa, ...) gives the
  // same game, so it only runs the smaller sizes.
  constexpr int kMaxStones[] = {0, 120, 50, 22, 14};
  constexpr int kMaxStonesRepeat[] = {0, 40, 20, 12, 8};
  std::vector<Case> cases;
  const std::span<const Preset> all = presets();
  for (std::size_t i = 0; i < all.size(); ++i) {
    bool repeat = false;
    for (std::size_t j = 0; j < i; ++j)
      repeat = repeat || all[j].rules == all[i].rules;
    for (int pits = 1; pits <= 4; ++pits) {
      cases.push_back(
          {std::string(all[i].name), pits, (repeat ? kMaxStonesRepeat : kMaxStones)[pits]});
    }
    // Larger boards, small layers: code paths that depend on the pit count (the solvers' vector
    // and 128-bit board operations) up to the largest board, P = 8 (16 pits).
    constexpr int kMaxStonesLarge[] = {0, 0, 0, 0, 0, 10, 9, 8, 7};
    for (int pits = 5; pits <= 8 && !repeat; ++pits)
      cases.push_back({std::string(all[i].name), pits, kMaxStonesLarge[pits]});
  }
  // Options no preset uses (docs/RULES.md: every such choice is an option a user can switch).
  for (std::string_view variant : {"oware/6x4/skip_origin=off",
                                   "abapa/6x4/skip_origin=off",
                                   "kalah/6x4/capture_empty_opposite=on",
                                   "kalah-tournament/6x4/skip_origin=on",
                                   "wari-us/6x4/skip_origin=on"}) {
    for (int pits = 1; pits <= 4; ++pits) {
      cases.push_back({std::string(variant), pits, kMaxStonesRepeat[pits]});
    }
  }
  return cases;
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  std::string name = info.param.preset + "_P" + std::to_string(info.param.pits_per_side);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  }
  return name;
}

class GeneratorVsBruteForce : public testing::TestWithParam<Case> {};

// Everything known about one position, for a mismatch report.
std::string explain(const BruteForce& bf,
                    const std::vector<gen::Layer>& gen_layers,
                    const gen::Layer& layer,
                    const Pits& board) {
  const Rules& rules = bf.rules();
  const int pits = rules.board_pits();
  const int p = rules.pits_per_side();
  std::ostringstream os;
  os << "board " << board_text(board, p) << ", " << stones_on(board) << " stones\n";
  MoveList moves;
  if (rules.legal_moves(board, moves) == 0) {
    os << "  no legal move; final_value " << rules.final_value(board) << "\n";
  }
  for (const Move& m : moves) {
    const int n = stones_on(m.child);
    const BruteEntry child = bf.at(m.child);
    const gen::Layer& gl = n == layer.stones ? layer : gen_layers.at(n);
    const std::uint64_t gi = gen_index(m.child, pits);
    os << "  pit " << int{m.pit} << ": stored " << int{m.stored} << ", captured " << int{m.captured}
       << (m.extra_turn ? ", extra turn" : "") << (m.grand_slam ? ", grand slam" : "") << " -> "
       << board_text(m.child, p) << "; brute: child value " << child.value << " depth "
       << child.depth << " worth " << Rules::worth(m, child.value) << "; generator: child value "
       << int{gl.value.at(gi)} << " depth " << gl.depth.at(gi) << " worth "
       << Rules::worth(m, gl.value.at(gi)) << "\n";
  }
  return os.str();
}

// Solves layers 0..c.max_stones with the generator and with the brute force and compares every
// entry; depths from `depth_overflow` up go through the solvers' overflow map.
void expect_every_entry_matches(const Case& c, int depth_overflow) {
  const RuleSet rules = preset_rules(c.preset, c.pits_per_side);
  const int pits = rules.pits();
  BruteForce bf(rules);
  std::vector<gen::Layer> gen_layers;
  for (int n = 0; n <= c.max_stones; ++n) {
    bf.solve_through(n);
    gen::SolveOptions options;
    options.depth_overflow = depth_overflow;
    gen::Layer layer = gen::solve_layer(
        rules,
        n,
        [&](int m) -> const std::int8_t* { return gen_layers.at(m).value.data(); },
        options);
    const BruteLayer& bl = bf.layer(n);
    ASSERT_EQ(layer.stones, n);
    ASSERT_EQ(layer_size(pits, n), bl.boards.size()) << "n=" << n;
    ASSERT_EQ(layer.value.size(), bl.boards.size()) << "n=" << n;
    ASSERT_EQ(layer.depth.size(), bl.boards.size()) << "n=" << n;
    std::vector<bool> seen(bl.boards.size());
    Pits board{};
    for (std::uint64_t i = 0; i < layer.value.size(); ++i) {
      ASSERT_TRUE(unrank(i, n, std::span<std::uint8_t>(board.data(), pits)));
      const std::size_t j = bl.index.at(board);
      ASSERT_FALSE(seen[j]) << "unrank repeats " << board_text(board, c.pits_per_side);
      seen[j] = true;
      const int bv = bl.value[j];
      const int bd = bl.depth[j];
      const std::int8_t gen_value = layer.value[i];  // a value, not a character
      const int gv = gen_value;
      const int gd = layer.depth[i];
      if (gv != bv || gd != bd) {
        FAIL() << "first mismatch, n=" << n << " index " << i << ": generator value " << gv
               << " depth " << gd << ", brute force value " << bv << " depth " << bd << "\n"
               << explain(bf, gen_layers, layer, board);
      }
    }
    gen_layers.push_back(std::move(layer));
  }
}

TEST_P(GeneratorVsBruteForce, EveryEntryMatches) {
  expect_every_entry_matches(GetParam(), gen::DepthTable::kDefaultOverflow);
}

// Every depth of 3 or more through the overflow map, which real boards need only from depth
// 255, far beyond what the brute force can solve: the path has to give the same depths.
TEST_P(GeneratorVsBruteForce, EveryEntryMatchesThroughTheOverflowMap) {
  expect_every_entry_matches(GetParam(), 3);
}

INSTANTIATE_TEST_SUITE_P(Presets, GeneratorVsBruteForce, testing::ValuesIn(all_cases()), case_name);

// ---------------------------------------------------------------------------------------------
// The solvers write every byte they read: the tables do not depend on what the memory they are
// given held before, as in a long-running process (a server, the Python module) whose heap is
// full of old data. The acyclic solver once read the pits past the board from per-thread
// scratch it never cleared: wrong ranks, wrong values, or a segfault, wherever that memory was
// not fresh from the kernel (always in the std::thread build, by luck never under oneTBB).

// Makes the memory that later allocations get non-zero, as far as the allocator lets a test:
// glibc's M_PERTURB fills every block malloc hands out; the sanitizers' allocators (ASan, TSan)
// hand out again the blocks of each size class freed here, full of 0xa5; so does tbbmalloc
// (oneTBB's per-thread storage, through cache_aligned_allocator) where it caches them. The
// std::thread backend's per-thread scratch comes from operator new and so is always dirty here;
// oneTBB's may still be fresh from the kernel (zero), where a bug of this kind hides.
class DirtyHeap {
 public:
  DirtyHeap() {
    mallopt(M_PERTURB, 0x5a);
    fill_and_free([](std::size_t size) { return static_cast<std::uint8_t*>(::operator new(size)); },
                  [](std::uint8_t* p, std::size_t) { ::operator delete(p); });
    tbb::cache_aligned_allocator<std::uint8_t> tbb;
    fill_and_free([&](std::size_t size) { return tbb.allocate(size); },
                  [&](std::uint8_t* p, std::size_t size) { tbb.deallocate(p, size); });
  }
  ~DirtyHeap() { mallopt(M_PERTURB, 0); }
  DirtyHeap(const DirtyHeap&) = delete;
  DirtyHeap& operator=(const DirtyHeap&) = delete;

 private:
  // Blocks of 64 bytes to 1 MiB in steps of an eighth (no size class left out), all live at
  // once so that none is handed out twice, then freed.
  template <typename Allocate, typename Free>
  static void fill_and_free(Allocate allocate, Free free) {
    std::vector<std::pair<std::uint8_t*, std::size_t>> blocks;
    for (std::size_t size = 64; size <= (std::size_t{1} << 20); size += size / 8) {
      for (int copy = 0; copy < 4; ++copy) {
        std::uint8_t* p = allocate(size);
        std::memset(p, 0xa5, size);
        blocks.emplace_back(p, size);
      }
    }
    for (const auto& [p, size] : blocks)
      free(p, size);
  }
};

class SolverOnDirtyHeap : public testing::TestWithParam<Case> {};

TEST_P(SolverOnDirtyHeap, EveryEntryMatches) {
  const DirtyHeap dirty;
  expect_every_entry_matches(GetParam(), gen::DepthTable::kDefaultOverflow);
}

// The acyclic families (the Kalah tiles and the general move generator's tiles), and Oware for
// the cyclic solver.
INSTANTIATE_TEST_SUITE_P(Presets,
                         SolverOnDirtyHeap,
                         testing::Values(Case{"kalah", 6, 8},
                                         Case{"kalah-tournament", 4, 10},
                                         Case{"wari-us", 6, 8},
                                         Case{"oware", 4, 10}),
                         case_name);

// ---------------------------------------------------------------------------------------------
// The generator's result does not depend on the thread count (gen/solver.h).

std::vector<gen::Layer> solve_with_threads(const RuleSet& rules, int max_stones, int threads) {
  tbb::global_control control(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
  std::vector<gen::Layer> layers;
  for (int n = 0; n <= max_stones; ++n) {
    layers.push_back(gen::solve_layer(
        rules, n, [&](int m) -> const std::int8_t* { return layers.at(m).value.data(); }));
  }
  return layers;
}

class GeneratorThreads : public testing::TestWithParam<Case> {};

TEST_P(GeneratorThreads, OneAndTwoThreadsAgree) {
  const Case& c = GetParam();
  const RuleSet rules = preset_rules(c.preset, c.pits_per_side);
  const std::vector<gen::Layer> one = solve_with_threads(rules, c.max_stones, 1);
  const std::vector<gen::Layer> two = solve_with_threads(rules, c.max_stones, 2);
  for (int n = 0; n <= c.max_stones; ++n) {
    SCOPED_TRACE(testing::Message() << "n=" << n);
    ASSERT_EQ(one[n].value.size(), layer_size(rules.pits(), n));
    EXPECT_TRUE(one[n].value == two[n].value);
    EXPECT_TRUE(one[n].depth == two[n].depth);
  }
}

INSTANTIATE_TEST_SUITE_P(Large,
                         GeneratorThreads,
                         testing::Values(Case{"oware", 6, 13},
                                         Case{"kalah-tournament", 6, 12},
                                         Case{"wari-us", 6, 12}),
                         case_name);

}  // namespace
}  // namespace sowdb::test
