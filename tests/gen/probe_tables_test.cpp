// The probe library (TableSet and the C ABI) against tables written by the generator: values
// agree with an in-memory solve, move worths and depths are consistent, best moves progress,
// principal lines end, and every kind of damage comes back as a status, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/solver.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/sowdb.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb::test {
namespace {
namespace fs = std::filesystem;

TempDir& temp_root() {
  static TempDir dir;
  return dir;
}

// Tables of `variant` up to `max_stones`, generated once per process (fast zstd level).
struct Generated {
  Variant variant;
  int max_stones = 0;
  fs::path dir;
  std::vector<std::vector<std::int8_t>> values;     // in-memory solve, by layer
  std::vector<decltype(gen::Layer::depth)> depths;  // whatever the solver's depth column is
};

Generated& tables(const std::string& variant_text, int max_stones) {
  static std::map<std::string, std::unique_ptr<Generated>> cache;
  const std::string key = variant_text + "@" + std::to_string(max_stones);
  auto& slot = cache[key];
  if (slot)
    return *slot;
  auto g = std::make_unique<Generated>();
  std::string error;
  auto v = parse_variant(variant_text, &error);
  if (!v)
    throw std::runtime_error(error);
  g->variant = *v;
  g->max_stones = max_stones;
  std::string dirname = key;
  for (char& c : dirname) {
    if (c == '/' || c == '@')
      c = '_';
  }
  g->dir = temp_root().path() / dirname;
  gen::GenerateOptions options;
  options.variant = *v;
  options.max_stones = max_stones;
  options.out = g->dir;
  options.write.zstd_level = 1;
  options.write.block_entries = 4096;  // several blocks per layer
  gen::generate(options);
  slot = std::move(g);
  return *slot;
}

// Solves `g`'s layers in memory with solve_layer (once), for comparison with the files.
void solve_in_memory(Generated& g) {
  if (!g.values.empty())
    return;
  const RuleSet rules = g.variant.rules.normalised();
  for (int n = 0; n <= g.max_stones; ++n) {
    gen::Layer layer = gen::solve_layer(rules, n, [&](int m) { return g.values[m].data(); });
    g.values.push_back(std::move(layer.value));
    g.depths.push_back(std::move(layer.depth));
  }
}

// Positions of layer n: all of them when the layer is small, else every `stride`-th.
std::vector<Pits> sample(int pits, int n, std::uint64_t limit = 4000) {
  const std::uint64_t size = layer_size(pits, n);
  const std::uint64_t stride = size <= limit ? 1 : size / limit + 1;
  std::vector<Pits> out;
  for (std::uint64_t i = 0; i < size; i += stride) {
    Pits p{};
    unrank(i, n, std::span<std::uint8_t>(p.data(), static_cast<std::size_t>(pits)));
    out.push_back(p);
  }
  return out;
}

std::uint64_t index_of(const Pits& p, int pits) {
  return rank(std::span<const std::uint8_t>(p.data(), static_cast<std::size_t>(pits)));
}

struct Case {
  const char* variant;
  int max_stones;
};

class ProbeTables : public ::testing::TestWithParam<Case> {};

INSTANTIATE_TEST_SUITE_P(Variants,
                         ProbeTables,
                         ::testing::Values(Case{"oware/6x4", 12},
                                           Case{"kalah/4x3", 20},
                                           Case{"kalah-irving/4x3", 14},
                                           Case{"wari-us/4x3", 12},
                                           Case{"abapa/3x4", 14},
                                           Case{"ayo/3x4", 12}),
                         [](const auto& param_info) {
                           std::string s = param_info.param.variant;
                           for (char& c : s) {
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           }
                           return s;
                         });

TEST_P(ProbeTables, OpensWithVariantAndMaxStones) {
  const Generated& g = tables(GetParam().variant, GetParam().max_stones);
  auto set = TableSet::open(g.dir);
  EXPECT_EQ(set->variant().to_string(), g.variant.to_string());
  EXPECT_EQ(set->rules(), g.variant.rules.normalised());
  EXPECT_EQ(set->max_stones(), g.max_stones);
  EXPECT_EQ(set->directory(), g.dir);
}

TEST_P(ProbeTables, ValuesAndDepthsMatchInMemorySolve) {
  Generated& g = tables(GetParam().variant, GetParam().max_stones);
  solve_in_memory(g);
  auto set = TableSet::open(g.dir);
  const int k = set->rules().pits();
  for (int n = 0; n <= g.max_stones; ++n) {
    for (const Pits& p : sample(k, n)) {
      int value = 99;
      int depth = -1;
      ASSERT_EQ(set->value(p, value, depth), ProbeStatus::kOk);
      const std::uint64_t i = index_of(p, k);
      ASSERT_EQ(value, g.values[n][i]) << "n=" << n << " index " << i;
      ASSERT_EQ(depth, g.depths[n][i]) << "n=" << n << " index " << i;
    }
  }
}

TEST_P(ProbeTables, MoveWorthsAreConsistentWithValueAndDepth) {
  const Generated& g = tables(GetParam().variant, GetParam().max_stones);
  auto set = TableSet::open(g.dir);
  const Rules& rules = set->engine();
  const int k = rules.pits();
  for (int n = 0; n <= g.max_stones; ++n) {
    for (const Pits& p : sample(k, n, 1500)) {
      int value = 0;
      int depth = 0;
      ASSERT_EQ(set->value(p, value, depth), ProbeStatus::kOk);
      MoveWorths moves;
      ASSERT_EQ(set->moves(p, moves), ProbeStatus::kOk);
      MoveList legal;
      ASSERT_EQ(moves.size, rules.legal_moves(p, legal));
      if (moves.size == 0) {
        EXPECT_EQ(value, rules.final_value(p));
        EXPECT_EQ(depth, 0);
        MoveWorth best;
        EXPECT_EQ(set->best_move(p, best), ProbeStatus::kGameOver);
        continue;
      }
      int max_worth = -1000;
      int min_depth = 1 << 20;
      int max_depth = -1;
      for (const MoveWorth& m : moves)
        max_worth = std::max(max_worth, m.worth);
      for (const MoveWorth& m : moves) {
        if (m.move.gain() > 0) {
          EXPECT_EQ(m.depth, 0);
        }
        if (m.worth != max_worth)
          continue;
        min_depth = std::min(min_depth, m.depth);
        max_depth = std::max(max_depth, m.depth);
      }
      ASSERT_EQ(max_worth, value) << "n=" << n;
      // gen/solver.h: the depth definition.
      if (value > 0) {
        EXPECT_EQ(depth, 1 + min_depth);
      }
      if (value < 0) {
        EXPECT_EQ(depth, 1 + max_depth);
      }
      if (value == 0) {
        EXPECT_EQ(depth, 0);
      }
      MoveWorth best;
      ASSERT_EQ(set->best_move(p, best), ProbeStatus::kOk);
      EXPECT_EQ(best.worth, value);
      if (value > 0) {
        EXPECT_EQ(best.depth, min_depth);
      }
      if (value < 0) {
        EXPECT_EQ(best.depth, max_depth);
      }
    }
  }
}

// TableSet::best_move's documented tie-breaks (tables.h), checked move by move on real tables:
// among the moves worth v, v > 0 the smallest depth, v < 0 the largest, v = 0 a move that gains
// seeds before any that does not, then the smallest depth; remaining ties to the lowest pit.
TEST_P(ProbeTables, BestMoveFollowsTheDocumentedTieBreaks) {
  const Generated& g = tables(GetParam().variant, GetParam().max_stones);
  auto set = TableSet::open(g.dir);
  const int k = set->rules().pits();
  long zero_with_gaining_tie = 0;
  for (int n = 0; n <= g.max_stones; ++n) {
    for (const Pits& p : sample(k, n, 1500)) {
      MoveWorths moves;
      ASSERT_EQ(set->moves(p, moves), ProbeStatus::kOk);
      if (moves.size == 0)
        continue;
      int v = -1000;
      for (const MoveWorth& m : moves)
        v = std::max(v, m.worth);
      const MoveWorth* want = nullptr;
      bool gaining = false, quiet = false;
      for (const MoveWorth& m : moves) {
        if (m.worth != v)
          continue;
        (m.move.gain() > 0 ? gaining : quiet) = true;
        if (!want) {
          want = &m;
          continue;
        }
        bool better = false;
        if (v > 0)
          better = m.depth < want->depth;
        else if (v < 0)
          better = m.depth > want->depth;
        else if ((m.move.gain() > 0) != (want->move.gain() > 0))
          better = m.move.gain() > 0;
        else
          better = m.depth < want->depth;
        if (better)
          want = &m;
      }
      zero_with_gaining_tie += v == 0 && gaining && quiet;
      MoveWorth best;
      ASSERT_EQ(set->best_move(p, best), ProbeStatus::kOk);
      ASSERT_EQ(best.move.pit, want->move.pit) << "n=" << n << " value " << v;
    }
  }
  RecordProperty("zero_with_gaining_tie", std::to_string(zero_with_gaining_tie));
  if (std::string(GetParam().variant) == "oware/6x4") {
    EXPECT_GT(zero_with_gaining_tie, 0) << "the v = 0 gaining-move rule was never decided";
  }
}

// Following best moves from a won (or lost) position, the depth falls by one each ply until
// seeds are gained: the value is realised, play never stalls.
TEST_P(ProbeTables, BestMovesRealiseTheValue) {
  const Generated& g = tables(GetParam().variant, GetParam().max_stones);
  auto set = TableSet::open(g.dir);
  const int k = set->rules().pits();
  int followed = 0;
  for (int n = 1; n <= g.max_stones; ++n) {
    for (const Pits& start : sample(k, n, 300)) {
      Pits p = start;
      int value = 0;
      int depth = 0;
      ASSERT_EQ(set->value(p, value, depth), ProbeStatus::kOk);
      if (value == 0)
        continue;
      ++followed;
      for (int ply = 0;; ++ply) {
        ASSERT_LE(ply, 70000) << "no progress";
        MoveWorth best;
        const ProbeStatus s = set->best_move(p, best);
        if (s == ProbeStatus::kGameOver) {
          EXPECT_EQ(depth, 0);
          break;
        }
        ASSERT_EQ(s, ProbeStatus::kOk);
        ASSERT_EQ(best.worth, value);
        ASSERT_EQ(best.depth, depth - 1);
        if (best.move.gain() > 0)
          break;  // realised (in part): a new layer
        int child_value = 0;
        int child_depth = 0;
        ASSERT_EQ(set->value(best.move.child, child_value, child_depth), ProbeStatus::kOk);
        ASSERT_EQ(child_value, -value);
        ASSERT_EQ(child_depth, depth - 1);
        p = best.move.child;
        value = child_value;
        depth = child_depth;
      }
    }
  }
  EXPECT_GT(followed, 0);
}

// A principal line ends (game over or endless play), and its gains plus the value where it stops
// add up to the root's value.
TEST_P(ProbeTables, PrincipalLinesEndAndAddUp) {
  const Generated& g = tables(GetParam().variant, GetParam().max_stones);
  auto set = TableSet::open(g.dir);
  const Rules& rules = set->engine();
  const int k = rules.pits();
  for (int n = 0; n <= g.max_stones; ++n) {
    for (const Pits& p : sample(k, n, 150)) {
      int value = 0;
      int depth = 0;
      ASSERT_EQ(set->value(p, value, depth), ProbeStatus::kOk);
      PrincipalLine line;
      ASSERT_EQ(set->principal_line(p, line), ProbeStatus::kOk);
      ASSERT_NE(line.end, LineEnd::kMaxPlies);
      int rest = 0;
      if (line.end == LineEnd::kGameOver) {
        MoveList none;
        EXPECT_EQ(rules.legal_moves(line.last, none), 0);
        rest = rules.final_value(line.last);
      } else {
        int d = 0;
        ASSERT_EQ(set->value(line.last, rest, d), ProbeStatus::kOk);
        EXPECT_EQ(rest, 0) << "endless play is worth 0";
      }
      EXPECT_EQ(value, line.net_gain + (line.last_mover == 0 ? rest : -rest));
      // The steps replay: each position before a move follows from the previous one.
      Pits at = p;
      int mover = 0;
      for (const LineStep& s : line.steps) {
        ASSERT_EQ(s.before, at);
        ASSERT_EQ(s.mover, mover);
        Move m;
        ASSERT_TRUE(rules.play(at, s.pit, m));
        ASSERT_EQ(m.gain(), s.gain);
        ASSERT_EQ(m.extra_turn, s.extra_turn);
        at = m.child;
        if (!m.extra_turn)
          mover ^= 1;
      }
      EXPECT_EQ(at, line.last);
      EXPECT_EQ(mover, line.last_mover);
    }
  }
}

// Reads layers 0..max of `set` with read_layer, each with the layers below as `below` (or none
// when `with_below` is false, so recompute entries probe the smaller layers), the tasks run in
// reverse order, and checks every entry against value(p, v, d) and value(p, v): the same value
// and depth, and kUnreadableValue / kUnreadableDepth exactly where those fail. Returns the
// entries whose value did not read in `unreadable`.
void expect_read_layer_answers_as_value(const TableSet& set,
                                        int max,
                                        bool with_below,
                                        std::uint64_t& unreadable) {
  const int k = set.rules().pits();
  std::vector<std::vector<std::int8_t>> values(static_cast<std::size_t>(max) + 1);
  std::vector<std::vector<std::uint64_t>> masks(values.size());
  unreadable = 0;
  for (int n = 0; n <= max; ++n) {
    SCOPED_TRACE("layer " + std::to_string(n));
    std::vector<LayerValues> below;
    for (int m = 0; with_below && m < n; ++m)
      below.push_back({values[m], masks[m]});
    const std::uint64_t size = layer_size(k, n);
    values[n].assign(size, 99);
    std::vector<std::uint16_t> depths(size, 7777);
    std::vector<int> calls(size, 0);
    std::uint64_t last_done = 0;
    ReadLayerOptions options;
    options.executor = [](std::size_t tasks, const std::function<void(std::size_t)>& task) {
      for (std::size_t t = tasks; t-- > 0;)
        task(t);
    };
    options.depths = [&](std::uint64_t first, std::span<const std::uint16_t> block) {
      for (std::size_t j = 0; j < block.size(); ++j) {
        depths[first + j] = block[j];
        ++calls[first + j];
      }
    };
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
      EXPECT_EQ(total, 3 * size);
      last_done = done;
    };
    const ProbeStatus status = set.read_layer(n, below, values[n], &masks[n], options);
    EXPECT_EQ(last_done, 3 * size);
    std::uint64_t failed = 0;
    Pits p{};
    const std::span<std::uint8_t> span(p.data(), static_cast<std::size_t>(k));
    unrank(0, n, span);
    for (std::uint64_t i = 0; i < size; ++i, next_position(span)) {
      ASSERT_EQ(calls[i], 1) << "index " << i;
      int v = 0;
      int d = 0;
      if (set.value(p, v) == ProbeStatus::kOk) {
        ASSERT_EQ(values[n][i], v) << "index " << i;
      } else {
        ASSERT_EQ(values[n][i], kUnreadableValue) << "index " << i;
        ++unreadable;
      }
      if (set.value(p, v, d) == ProbeStatus::kOk) {
        ASSERT_EQ(depths[i], d) << "index " << i;
      } else {
        ASSERT_EQ(depths[i], kUnreadableDepth) << "index " << i;
        ++failed;
      }
    }
    EXPECT_EQ(status == ProbeStatus::kOk, failed == 0) << to_string(status);
  }
}

TEST_P(ProbeTables, ReadLayerAnswersAsValue) {
  const Generated& g = tables(GetParam().variant, GetParam().max_stones);
  auto set = TableSet::open(g.dir);
  std::uint64_t unreadable = 1;
  expect_read_layer_answers_as_value(*set, g.max_stones, true, unreadable);
  EXPECT_EQ(unreadable, 0u);
  // The layers' recompute bits come back, and the top layer of a recompute file has some.
  std::vector<std::int8_t> top(layer_size(set->rules().pits(), g.max_stones));
  std::vector<std::uint64_t> mask{1, 2, 3};
  ASSERT_EQ(set->read_layer(g.max_stones, {}, top, &mask), ProbeStatus::kOk);
  EXPECT_EQ(mask.empty(),
            !LayerReader::open(g.dir / layer_file_name(g.max_stones))->info().recompute);
  // Wrong sizes are the caller's error; a layer past the tables a status.
  std::vector<std::int8_t> short_values(top.size() - 1);
  EXPECT_THROW(set->read_layer(g.max_stones, {}, short_values, nullptr), std::invalid_argument);
  const std::vector<LayerValues> wrong{{top, {}}};
  EXPECT_THROW(set->read_layer(g.max_stones, wrong, top, nullptr), std::invalid_argument);
  EXPECT_EQ(set->read_layer(g.max_stones + 1, {}, top, nullptr), ProbeStatus::kTooManyStones);
}

TEST_P(ProbeTables, CApiAgreesWithCpp) {
  const Generated& g = tables(GetParam().variant, GetParam().max_stones);
  auto set = TableSet::open(g.dir);
  const int k = set->rules().pits();
  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(g.dir.c_str(), &h), SOWDB_OK) << sowdb_last_error();
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(sowdb_pits(h), k);
  EXPECT_EQ(sowdb_max_stones(h), g.max_stones);
  EXPECT_EQ(std::string(sowdb_variant_name(h)), g.variant.to_string());
  EXPECT_EQ(sowdb_seeds_per_pit(h), g.variant.seeds_per_pit);
  for (int n = 0; n <= g.max_stones; ++n) {
    for (const Pits& p : sample(k, n, 200)) {
      int value = 0;
      int depth = 0;
      ASSERT_EQ(set->value(p, value, depth), ProbeStatus::kOk);
      std::int32_t cv = 0;
      std::int32_t cd = 0;
      ASSERT_EQ(sowdb_probe_value(h, p.data(), k, &cv, &cd), SOWDB_OK);
      EXPECT_EQ(cv, value);
      EXPECT_EQ(cd, depth);
      MoveWorths moves;
      ASSERT_EQ(set->moves(p, moves), ProbeStatus::kOk);
      sowdb_move_worth cm[8];
      std::int32_t count = -1;
      ASSERT_EQ(sowdb_probe_moves(h, p.data(), k, cm, 8, &count), SOWDB_OK);
      ASSERT_EQ(count, moves.size);
      for (int i = 0; i < count; ++i) {
        const MoveWorth& m = moves.moves[i];
        EXPECT_EQ(cm[i].pit, m.move.pit);
        EXPECT_EQ(cm[i].worth, m.worth);
        EXPECT_EQ(cm[i].depth, m.depth);
        EXPECT_EQ(cm[i].gain, m.move.gain());
        EXPECT_EQ(cm[i].extra_turn, m.move.extra_turn ? 1 : 0);
        for (int j = 0; j < SOWDB_MAX_PITS; ++j)
          EXPECT_EQ(cm[i].child[j], m.move.child[j]);
        std::uint8_t child[SOWDB_MAX_PITS] = {};
        std::int32_t gain = -1;
        std::int32_t extra = -1;
        ASSERT_EQ(sowdb_play(h, p.data(), k, cm[i].pit, child, &gain, &extra), SOWDB_OK);
        EXPECT_EQ(gain, cm[i].gain);
        EXPECT_EQ(extra, cm[i].extra_turn);
        for (int j = 0; j < k; ++j)
          EXPECT_EQ(child[j], cm[i].child[j]);
      }
      MoveWorth best;
      sowdb_move_worth cbest;
      const ProbeStatus s = set->best_move(p, best);
      if (s == ProbeStatus::kGameOver) {
        EXPECT_EQ(sowdb_best_move(h, p.data(), k, &cbest), SOWDB_ERR_GAME_OVER);
        std::uint8_t child[SOWDB_MAX_PITS];
        EXPECT_EQ(sowdb_play(h, p.data(), k, 0, child, nullptr, nullptr), SOWDB_ERR_GAME_OVER);
      } else {
        ASSERT_EQ(sowdb_best_move(h, p.data(), k, &cbest), SOWDB_OK);
        EXPECT_EQ(cbest.pit, best.move.pit);
        EXPECT_EQ(cbest.worth, best.worth);
      }
    }
  }
  // A too small buffer says how many moves there are; a buffer of exactly that size is enough.
  Pits start{};
  for (int i = 0; i < k; ++i)
    start[i] = 1;
  MoveWorths start_moves;
  ASSERT_EQ(set->moves(start, start_moves), ProbeStatus::kOk);
  ASSERT_GT(start_moves.size, 0);
  std::int32_t count = -1;
  sowdb_move_worth one;
  EXPECT_EQ(sowdb_probe_moves(h, start.data(), k, &one, 0, &count), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(count, start_moves.size);
  sowdb_move_worth exact[8];
  count = -1;
  EXPECT_EQ(sowdb_probe_moves(h, start.data(), k, exact, start_moves.size - 1, &count),
            SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(count, start_moves.size);
  count = -1;
  EXPECT_EQ(sowdb_probe_moves(h, start.data(), k, exact, start_moves.size, &count), SOWDB_OK);
  EXPECT_EQ(count, start_moves.size);
  sowdb_close(h);
}

// Romein & Bal's Awari databases: under `oware`, the board 1 1 1 1 1 2 4 2 3 0 0 0 has value 0
// and moves worth -1 -1 -2 -2 -2 0. It needs the tables of layers 0..16 (30 million positions),
// built here.
TEST(ProbeReference, OwarePublishedValues) {
  const Generated& g = tables("oware/6x4", 16);
  auto set = TableSet::open(g.dir);
  ASSERT_GE(set->max_stones(), 16);
  const Pits p = board_of({1, 1, 1, 1, 1, 2, 4, 2, 3, 0, 0, 0});
  int value = 99;
  int depth = -1;
  ASSERT_EQ(set->value(p, value, depth), ProbeStatus::kOk);
  EXPECT_EQ(value, 0);
  MoveWorths moves;
  ASSERT_EQ(set->moves(p, moves), ProbeStatus::kOk);
  std::vector<int> worths;
  for (const MoveWorth& m : moves)
    worths.push_back(m.worth);
  EXPECT_EQ(worths, (std::vector<int>{-1, -1, -2, -2, -2, 0}));
  PrincipalLine line;
  ASSERT_EQ(set->principal_line(p, line), ProbeStatus::kOk);
  EXPECT_NE(line.end, LineEnd::kMaxPlies);
}

// 12-seed Oware positions with known shapes: a capture that wins at once, and the all-ones board.
TEST(ProbeOware, TwelveSeedPositions) {
  const Generated& g = tables("oware/6x4", 12);
  auto set = TableSet::open(g.dir);
  const Pits p = board_of({0, 0, 0, 0, 1, 2, 2, 1, 0, 3, 2, 1});
  MoveWorth best;
  ASSERT_EQ(set->best_move(p, best), ProbeStatus::kOk);
  EXPECT_EQ(best.move.pit, 5);
  EXPECT_EQ(best.move.gain(), 5);  // the last seed lands in pit 7 (2) after filling pit 6 (3)
  int value = 0;
  int depth = 0;
  ASSERT_EQ(set->value(p, value, depth), ProbeStatus::kOk);
  EXPECT_EQ(value, best.worth);
  EXPECT_EQ(depth, 1);
  const Pits ones = board_of({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  PrincipalLine line;
  ASSERT_EQ(set->principal_line(ones, line), ProbeStatus::kOk);
  ASSERT_EQ(set->value(ones, value, depth), ProbeStatus::kOk);
  if (value == 0) {
    EXPECT_NE(line.end, LineEnd::kMaxPlies);
  }
  PrincipalLine shortline;
  ASSERT_EQ(set->principal_line(ones, shortline, 3), ProbeStatus::kOk);
  EXPECT_LE(shortline.steps.size(), 3u);
  if (line.steps.size() > 3) {
    EXPECT_EQ(shortline.end, LineEnd::kMaxPlies);
  }
}

// Copies a generated table directory so that a test can damage it.
fs::path copy_tables(const Generated& g, const std::string& name) {
  const fs::path dir = temp_root().path() / name;
  fs::remove_all(dir);
  fs::copy(g.dir, dir, fs::copy_options::recursive);
  return dir;
}

Pits some_position(int stones, int pits) {
  Pits p{};
  for (int s = 0; s < stones; ++s)
    p[(s * 5) % pits]++;
  return p;
}

TEST(ProbeErrors, TooManyStonesAndBadPositions) {
  const Generated& g = tables("oware/6x4", 12);
  auto set = TableSet::open(g.dir);
  Pits p = some_position(13, 12);
  int v = 0;
  int d = 0;
  EXPECT_EQ(set->value(p, v, d), ProbeStatus::kTooManyStones);
  MoveWorths moves;
  EXPECT_EQ(set->moves(p, moves), ProbeStatus::kTooManyStones);
  const std::string why = set->explain(ProbeStatus::kTooManyStones, p);
  EXPECT_NE(why.find("position has 13 seeds"), std::string::npos) << why;
  EXPECT_NE(why.find("hold up to 12"), std::string::npos) << why;
  // Seeds beyond the board's 12 pits.
  Pits beyond = some_position(4, 12);
  beyond[13] = 1;
  EXPECT_EQ(set->value(beyond, v, d), ProbeStatus::kBadPosition);
  PrincipalLine line;
  EXPECT_EQ(set->principal_line(beyond, line), ProbeStatus::kBadPosition);
  // More than 255 seeds.
  Pits huge{};
  for (int i = 0; i < 12; ++i)
    huge[i] = 250;
  EXPECT_EQ(set->value(huge, v, d), ProbeStatus::kBadPosition);

  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(g.dir.c_str(), &h), SOWDB_OK);
  std::int32_t cv = 0;
  EXPECT_EQ(sowdb_probe_value(h, p.data(), 12, &cv, nullptr), SOWDB_ERR_TOO_MANY_STONES);
  EXPECT_NE(std::string(sowdb_last_error()).find("13 seeds"), std::string::npos);
  EXPECT_EQ(sowdb_probe_value(h, p.data(), 8, &cv, nullptr), SOWDB_ERR_BAD_POSITION);
  EXPECT_EQ(sowdb_probe_value(h, p.data(), 16, &cv, nullptr), SOWDB_ERR_BAD_POSITION);
  EXPECT_EQ(sowdb_probe_value(h, huge.data(), 12, &cv, nullptr), SOWDB_ERR_BAD_POSITION);
  EXPECT_EQ(sowdb_probe_value(h, nullptr, 12, &cv, nullptr), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(sowdb_probe_value(h, p.data(), 12, nullptr, nullptr), SOWDB_ERR_ARGUMENT);
  EXPECT_EQ(sowdb_probe_value(nullptr, p.data(), 12, &cv, nullptr), SOWDB_ERR_ARGUMENT);
  const Pits ok = some_position(6, 12);
  std::uint8_t child[16];
  EXPECT_EQ(sowdb_play(h, ok.data(), 12, 6, child, nullptr, nullptr), SOWDB_ERR_ILLEGAL_MOVE);
  EXPECT_EQ(sowdb_play(h, ok.data(), 12, -1, child, nullptr, nullptr), SOWDB_ERR_ILLEGAL_MOVE);
  sowdb_close(h);
}

TEST(ProbeErrors, MissingLayerFile) {
  const Generated& g = tables("oware/6x4", 12);
  const fs::path dir = copy_tables(g, "missing");
  auto set = TableSet::open(dir);
  ASSERT_EQ(set->max_stones(), 12);
  sowdb_tables* before = nullptr;
  ASSERT_EQ(sowdb_open(dir.c_str(), &before), SOWDB_OK);
  fs::remove(dir / "layer-005.sdb");
  {
    // The C ABI names the status: a missing file, not a corrupt one.
    const Pits q = some_position(5, 12);
    std::int32_t cv = 0;
    EXPECT_EQ(sowdb_probe_value(before, q.data(), 12, &cv, nullptr), SOWDB_ERR_MISSING_TABLE);
    EXPECT_NE(std::string(sowdb_last_error()).find("layer-005.sdb"), std::string::npos);
    sowdb_close(before);
  }
  const Pits p5 = some_position(5, 12);
  int v = 0;
  int d = 0;
  EXPECT_EQ(set->value(p5, v, d), ProbeStatus::kMissingTable);
  EXPECT_EQ(set->value(p5, v, d), ProbeStatus::kMissingTable);  // latched
  EXPECT_NE(set->layer_error(5).find("layer-005.sdb"), std::string::npos);
  EXPECT_NE(set->explain(ProbeStatus::kMissingTable, p5).find("missing"), std::string::npos);
  // Other layers still work.
  const Pits p6 = some_position(6, 12);
  EXPECT_EQ(set->value(p6, v, d), ProbeStatus::kOk);
  // A gap found at open: the complete tables end below it, and a position above it names the
  // missing file (not "too many seeds"); one past every file is too many seeds.
  auto reopened = TableSet::open(dir);
  EXPECT_EQ(reopened->max_stones(), 4);
  const Pits p12 = some_position(12, 12);
  for (const Pits& p : {p5, p6, p12}) {
    EXPECT_EQ(reopened->value(p, v, d), ProbeStatus::kMissingTable);
    const std::string why = reopened->explain(ProbeStatus::kMissingTable, p);
    EXPECT_NE(why.find("layer-005.sdb is missing"), std::string::npos) << why;
  }
  EXPECT_EQ(reopened->value(some_position(13, 12), v, d), ProbeStatus::kTooManyStones);
  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(dir.c_str(), &h), SOWDB_OK);
  EXPECT_EQ(sowdb_max_stones(h), 4);
  std::int32_t cv = 0;
  EXPECT_EQ(sowdb_probe_value(h, p12.data(), 12, &cv, nullptr), SOWDB_ERR_MISSING_TABLE);
  EXPECT_NE(std::string(sowdb_last_error()).find("layer-005.sdb"), std::string::npos)
      << sowdb_last_error();
  sowdb_close(h);
  // Without layer 0 the directory is refused.
  fs::remove(dir / "layer-000.sdb");
  EXPECT_THROW(TableSet::open(dir), std::runtime_error);
  EXPECT_EQ(sowdb_open(dir.c_str(), &h), SOWDB_ERR_OPEN);
  EXPECT_EQ(h, nullptr);
  EXPECT_NE(std::string(sowdb_last_error()).find("layer-000.sdb"), std::string::npos);
}

void flip_byte(const fs::path& file, std::uint64_t offset) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x5a));
}

TEST(ProbeErrors, CorruptAndTruncatedLayerFiles) {
  const Generated& g = tables("oware/6x4", 12);
  const fs::path dir = copy_tables(g, "corrupt");
  const fs::path seven = dir / "layer-007.sdb";
  flip_byte(seven, fs::file_size(seven) / 2);
  fs::resize_file(dir / "layer-008.sdb", fs::file_size(dir / "layer-008.sdb") / 2);
  auto set = TableSet::open(dir);
  EXPECT_EQ(set->max_stones(), 12);
  int v = 0;
  int d = 0;
  const Pits p7 = some_position(7, 12);
  EXPECT_EQ(set->value(p7, v, d), ProbeStatus::kCorruptTable);
  EXPECT_EQ(set->value(p7, v, d), ProbeStatus::kCorruptTable);
  EXPECT_FALSE(set->layer_error(7).empty());
  const Pits p8 = some_position(8, 12);
  EXPECT_EQ(set->value(p8, v, d), ProbeStatus::kCorruptTable);
  EXPECT_FALSE(set->explain(ProbeStatus::kCorruptTable, p8).empty());
  // A position whose moves need layer 7 or 8 fails too; others do not. (A recompute entry of
  // layer 9 needs its moves' children in layers 7 and 8: take one whose value is stored.)
  Pits p9 = some_position(9, 12);
  {
    const auto nine = LayerReader::open(dir / "layer-009.sdb");
    std::uint64_t i = 0;
    while (nine->value(i) == kRecomputeValue)
      ++i;
    unrank(i, 9, std::span(p9.data(), 12));
  }
  EXPECT_EQ(set->value(p9, v, d), ProbeStatus::kOk);
  // The C ABI reports the same, with a message.
  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(dir.c_str(), &h), SOWDB_OK);
  std::int32_t cv = 0;
  EXPECT_EQ(sowdb_probe_value(h, p7.data(), 12, &cv, nullptr), SOWDB_ERR_CORRUPT_TABLE);
  EXPECT_NE(std::string(sowdb_last_error()).find("layer-007.sdb"), std::string::npos)
      << sowdb_last_error();
  sowdb_close(h);
  // Garbage in place of a header: open still succeeds (the layer fails when used).
  std::ofstream(dir / "layer-003.sdb", std::ios::trunc) << "not a table";
  auto set2 = TableSet::open(dir);
  const Pits p3 = some_position(3, 12);
  EXPECT_EQ(set2->value(p3, v, d), ProbeStatus::kCorruptTable);
  // A layer file that holds another stone count than its name says.
  fs::copy_file(dir / "layer-004.sdb", dir / "layer-003.sdb", fs::copy_options::overwrite_existing);
  auto set3 = TableSet::open(dir);
  EXPECT_EQ(set3->value(p3, v, d), ProbeStatus::kCorruptTable);
  EXPECT_NE(set3->layer_error(3).find("holds 4 seeds"), std::string::npos) << set3->layer_error(3);
}

// With two damaged layers, the explanation names the one that failed the probe, not the
// largest damaged layer below the position (an Oware move gains 2 seeds or more, so a
// 12-seed position with a capture of 2 reads layer 10 and never layer 11).
TEST(ProbeErrors, ExplainNamesTheLayerThatFailed) {
  const Generated& g = tables("oware/6x4", 12);
  const fs::path dir = copy_tables(g, "explain");
  for (const char* name : {"layer-010.sdb", "layer-011.sdb"})
    fs::resize_file(dir / name, fs::file_size(dir / name) / 2);
  auto set = TableSet::open(dir);
  ASSERT_EQ(set->max_stones(), 12);
  ASSERT_FALSE(set->layer_error(11).empty());  // found at open: the footer is gone
  const Rules& rules = set->engine();
  Pits p{};
  const std::span<std::uint8_t> pits(p.data(), 12);
  unrank(0, 12, pits);
  bool found = false;
  do {
    MoveList moves;
    rules.legal_moves(p, moves);
    for (const Move& m : moves)
      found |= m.gain() == 2;
  } while (!found && next_position(pits));
  ASSERT_TRUE(found);
  MoveWorths worths;
  ASSERT_EQ(set->moves(p, worths), ProbeStatus::kCorruptTable);
  const std::string why = set->explain(ProbeStatus::kCorruptTable, p);
  EXPECT_NE(why.find("layer-010.sdb"), std::string::npos) << why;
  // The C ABI explains through the same path.
  sowdb_tables* h = nullptr;
  ASSERT_EQ(sowdb_open(dir.c_str(), &h), SOWDB_OK);
  sowdb_move_worth best{};
  EXPECT_EQ(sowdb_best_move(h, p.data(), 12, &best), SOWDB_ERR_CORRUPT_TABLE);
  EXPECT_NE(std::string(sowdb_last_error()).find("layer-010.sdb"), std::string::npos)
      << sowdb_last_error();
  sowdb_close(h);
}

TEST(ProbeErrors, DirectoriesThatAreRefused) {
  EXPECT_THROW(TableSet::open(temp_root().path() / "no-such-dir"), std::runtime_error);
  const fs::path empty = temp_root().path() / "empty";
  fs::create_directories(empty);
  try {
    TableSet::open(empty);
    ADD_FAILURE() << "an empty directory opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no table files"), std::string::npos) << e.what();
  }
  // Tables of two rule sets in one directory.
  const Generated& ow = tables("oware/6x4", 12);
  const Generated& ab = tables("abapa/3x4", 14);
  const fs::path mixed = copy_tables(ow, "mixed");
  fs::copy_file(ab.dir / "layer-013.sdb", mixed / "layer-013.sdb");
  try {
    TableSet::open(mixed);
    ADD_FAILURE() << "mixed rule sets opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("different rule sets"), std::string::npos) << e.what();
  }
  // A manifest naming another game.
  const fs::path wrong = copy_tables(ow, "wrong-manifest");
  std::ofstream(wrong / "sowdb.json", std::ios::trunc) << "{\"variant\": \"kalah/6x4\"}\n";
  EXPECT_THROW(TableSet::open(wrong), std::runtime_error);
  // No manifest: refused, with the repair.
  const fs::path bare = copy_tables(ab, "no-manifest");
  fs::remove(bare / "sowdb.json");
  try {
    TableSet::open(bare);
    ADD_FAILURE() << "opened without a manifest";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("sowdb.json is missing"), std::string::npos) << e.what();
  }
}

// read_layer over damaged tables (a flipped byte in one layer, another truncated, a third
// missing its recompute entries' children) answers entry by entry as the probes do, with or
// without the layers below at hand, and names the damage in layer_error.
TEST(ProbeErrors, ReadLayerAnswersAsValueOnDamagedTables) {
  const Generated& g = tables("oware/6x4", 12);
  const fs::path dir = copy_tables(g, "read-layer-damaged");
  const fs::path seven = dir / "layer-007.sdb";
  flip_byte(seven, fs::file_size(seven) / 2);
  fs::resize_file(dir / "layer-010.sdb", fs::file_size(dir / "layer-010.sdb") * 3 / 4);
  for (const bool with_below : {true, false}) {
    SCOPED_TRACE(with_below ? "with the layers below" : "probing the layers below");
    auto set = TableSet::open(dir);
    std::uint64_t unreadable = 0;
    expect_read_layer_answers_as_value(*set, 10, with_below, unreadable);
    EXPECT_GT(unreadable, 0u);
    EXPECT_NE(set->layer_error(7).find("layer-007.sdb"), std::string::npos) << set->layer_error(7);
  }
  // A layer that does not open: every entry unreadable, and the status says so.
  std::ofstream(dir / "layer-005.sdb", std::ios::trunc) << "not a table";
  auto set = TableSet::open(dir);
  std::vector<std::int8_t> five(layer_size(12, 5), 0);
  std::vector<std::uint16_t> depths;
  ReadLayerOptions options;
  options.depths = [&](std::uint64_t first, std::span<const std::uint16_t> block) {
    EXPECT_EQ(first, depths.size());
    depths.insert(depths.end(), block.begin(), block.end());
  };
  EXPECT_EQ(set->read_layer(5, {}, five, nullptr, options), ProbeStatus::kCorruptTable);
  EXPECT_EQ(std::count(five.begin(), five.end(), kUnreadableValue),
            static_cast<std::ptrdiff_t>(five.size()));
  EXPECT_EQ(depths, std::vector<std::uint16_t>(five.size(), kUnreadableDepth));
}

}  // namespace
}  // namespace sowdb::test
