// Co-operative tables end to end: `gen::generate` with the co-operative objective writes them,
// the probe library (C++ and C) reads them back, and every answer agrees with the brute force
// written from the definition (brute_force.h): each set, each move's set, and joint lines that
// reach every reachable difference, ending the game whenever some line does.
#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "brute_force.h"
#include "sowdb/format/index.h"
#include "sowdb/gen/generate.h"
#include "sowdb/probe/sowdb.h"
#include "sowdb/probe/tables.h"
#include "sowdb/verify/verify_reach.h"
#include "test_support.h"

namespace sowdb::test {
namespace {

struct Case {
  std::string variant;
  int pits_per_side;
  int max_stones;   // tables and sets compared up to here
  int line_stones;  // lines checked for every target up to here
};

// The parameter as a failure list shows it ("wari-kc 3 pits, 8 seeds, lines to 6"), not as bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.variant << " " << c.pits_per_side << " pits, " << c.max_stones << " seeds, lines to "
      << c.line_stones;
}

Variant variant_of(const Case& c) {
  Variant v = *parse_variant(c.variant);
  v.rules.pits_per_side = static_cast<std::uint8_t>(c.pits_per_side);
  return v;
}

void generate_cooperative(const Variant& v, int max_stones, const std::filesystem::path& out) {
  gen::GenerateOptions o;
  o.variant = v;
  o.max_stones = max_stones;
  o.out = out;
  o.objective = Objective::kCooperative;
  o.write.block_entries = 64;  // several blocks per layer
  gen::generate(o);
}

std::set<int> as_set(const ReachSet& r) {
  const std::vector<int> d = r.differences();
  return std::set<int>(d.begin(), d.end());
}

// Checks `line` from `root` against the brute force: every step keeps the remaining target in
// the set of the position it reaches, and the line ends where the target is met: the game's end
// with the final split, or (target 0 only, and only when no line ends the game) endless play.
void check_line(const Rules& rules,
                const Reach& reach,
                const Reach& finite,
                const Pits& root,
                int target,
                const PrincipalLine& line) {
  Pits at = root;
  int need = target;
  for (const LineStep& s : line.steps) {
    ASSERT_EQ(s.before, at);
    MoveList moves;
    rules.legal_moves(at, moves);
    const Move* m = nullptr;
    for (const Move& mv : moves) {
      if (mv.pit == s.pit)
        m = &mv;
    }
    ASSERT_NE(m, nullptr) << "pit " << s.pit << " is not legal";
    need = m->extra_turn ? need - m->gain() : m->gain() - need;
    at = m->child;
    ASSERT_EQ(reach.at(at).count(need), 1u) << "a step loses the target";
  }
  ASSERT_EQ(line.last, at);
  if (line.end == LineEnd::kGameOver) {
    MoveList moves;
    ASSERT_EQ(rules.legal_moves(at, moves), 0);
    EXPECT_EQ(rules.final_value(at), need);
  } else {
    ASSERT_EQ(line.end, LineEnd::kRepetition);
    EXPECT_EQ(need, 0);
    EXPECT_EQ(finite.at(root).count(target), 0u)
        << "endless play although a line ends the game with " << target;
  }
}

class CooperativeTables : public testing::TestWithParam<Case> {};

TEST_P(CooperativeTables, AgreeWithTheBruteForce) {
  const Case& c = GetParam();
  const Variant v = variant_of(c);
  const Rules engine(v.rules.normalised());
  const Reach want = brute_reach(engine, c.max_stones);
  const Reach finite = brute_reach(engine, c.line_stones, false);
  TempDir dir("coop");
  generate_cooperative(v, c.max_stones, dir.path());
  const auto tables = TableSet::open(dir.path());
  ASSERT_EQ(tables->objective(), Objective::kCooperative);
  std::uint64_t lines = 0;
  std::uint64_t endless = 0;
  for (int n = 0; n <= c.max_stones; ++n) {
    for (const Pits& board : enumerate_boards(engine.board_pits(), n)) {
      ReachSet got;
      ASSERT_EQ(tables->reach(board, got), ProbeStatus::kOk);
      const std::set<int>& w = want.at(board);
      ASSERT_EQ(as_set(got), w) << c.variant << " " << board_text(board, c.pits_per_side);
      MoveReaches moves;
      ASSERT_EQ(tables->reach_moves(board, moves), ProbeStatus::kOk);
      for (const MoveReach& m : moves) {
        std::set<int> through;
        for (const int d : want.at(m.move.child))
          through.insert(Rules::worth(m.move, d));
        ASSERT_EQ(as_set(m.reachable), through);
      }
      if (n > c.line_stones)
        continue;
      for (int target = -n - 1; target <= n + 1; ++target) {
        PrincipalLine line;
        const ProbeStatus s = tables->cooperative_line(board, target, line);
        if (w.count(target) == 0) {
          ASSERT_EQ(s, ProbeStatus::kUnreachable) << target;
          continue;
        }
        ASSERT_EQ(s, ProbeStatus::kOk);
        check_line(engine, want, finite, board, target, line);
        ++lines;
        endless += line.end == LineEnd::kRepetition ? 1 : 0;
      }
    }
  }
  EXPECT_GT(lines, 0u);
  // The competitive probes refuse these tables.
  int value = 0;
  EXPECT_EQ(tables->value(Pits{}, value), ProbeStatus::kWrongObjective);
  MoveWorths worths;
  EXPECT_EQ(tables->moves(Pits{}, worths), ProbeStatus::kWrongObjective);
  RecordProperty("lines", static_cast<int>(lines));
  RecordProperty("endless", static_cast<int>(endless));
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Preset& p : presets()) {
    out.push_back({std::string(p.name), 1, 16, 16});
    out.push_back({std::string(p.name), 2, 12, 9});
    out.push_back({std::string(p.name), 3, 9, 6});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Presets,
                         CooperativeTables,
                         testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case>& param) {
                           return param_name(param.param.variant, param.param.pits_per_side);
                         });

// A run resumes layer by layer: a second run reuses the layers it finds and writes the same
// bytes as a run from scratch. A directory holds one objective.
TEST(CooperativeTables, ResumeAndOneObjectivePerDirectory) {
  const Variant v = *parse_variant("oware/3x2");
  TempDir a("coop-a");
  TempDir b("coop-b");
  generate_cooperative(v, 5, a.path());
  generate_cooperative(v, 8, a.path());
  generate_cooperative(v, 8, b.path());
  for (int n = 0; n <= 8; ++n) {
    EXPECT_EQ(file_bytes(a / layer_file_name(n)), file_bytes(b / layer_file_name(n))) << n;
  }
  gen::GenerateOptions competitive;
  competitive.variant = v;
  competitive.max_stones = 9;
  competitive.out = a.path();
  EXPECT_THROW(gen::generate(competitive), gen::InvalidRequest);
  TempDir c("coop-c");
  competitive.out = c.path();
  competitive.max_stones = 4;
  gen::generate(competitive);
  EXPECT_THROW(generate_cooperative(v, 4, c.path()), gen::InvalidRequest);
  const auto values = TableSet::open(c.path());
  ReachSet r;
  EXPECT_EQ(values->reach(Pits{1, 1}, r), ProbeStatus::kWrongObjective);
  PrincipalLine line;
  EXPECT_EQ(values->cooperative_line(Pits{1, 1}, 0, line), ProbeStatus::kWrongObjective);
  EXPECT_NE(values->explain(ProbeStatus::kWrongObjective, Pits{}).find("competitive"),
            std::string::npos);
  // A directory of both kinds does not open.
  std::filesystem::copy_file(a / layer_file_name(5), c / layer_file_name(5));
  EXPECT_THROW(TableSet::open(c.path()), std::runtime_error);
}

// The C interface over the same tables.
TEST(CooperativeTables, CInterface) {
  const Variant v = *parse_variant("wari-kc/2x2");
  const Rules engine(v.rules.normalised());
  const Reach want = brute_reach(engine, 8);
  TempDir dir("coop-c-api");
  generate_cooperative(v, 8, dir.path());
  sowdb_tables* t = nullptr;
  ASSERT_EQ(sowdb_open(dir.path().c_str(), nullptr, &t), SOWDB_OK);
  EXPECT_EQ(sowdb_objective(t), 1);
  const std::uint8_t pits[4] = {2, 1, 0, 3};
  std::uint64_t bits[4] = {};
  std::int32_t stones = 0;
  ASSERT_EQ(sowdb_reach(t, pits, 4, bits, &stones), SOWDB_OK);
  EXPECT_EQ(stones, 6);
  ReachSet r;
  r.stones = stones;
  std::copy(bits, bits + 4, r.bits.begin());
  const Pits board = board_of({2, 1, 0, 3});
  EXPECT_EQ(as_set(r), want.at(board));
  for (int a = 0; a <= 2; ++a) {
    std::int32_t balanced = -1;
    ASSERT_EQ(sowdb_balanced(t, pits, 4, a, 2, &balanced), SOWDB_OK);
    EXPECT_EQ(balanced, want.at(board).count(2 - a) ? 1 : 0) << a;
  }
  sowdb_reach_move moves[8];
  std::int32_t count = 0;
  ASSERT_EQ(sowdb_reach_moves(t, pits, 4, moves, 8, &count), SOWDB_OK);
  MoveList legal;
  EXPECT_EQ(count, engine.legal_moves(board, legal));
  std::int32_t line[64];
  std::int32_t end = -1;
  const int target = *want.at(board).begin();
  ASSERT_EQ(sowdb_cooperative_line(t, pits, 4, target, line, 64, &count, &end), SOWDB_OK);
  EXPECT_GT(count, 0);
  EXPECT_TRUE(end == 0 || end == 1);
  EXPECT_EQ(sowdb_cooperative_line(t, pits, 4, 7, line, 64, &count, &end), SOWDB_ERR_UNREACHABLE);
  std::int32_t value = 0;
  EXPECT_EQ(sowdb_probe_value_only(t, pits, 4, &value), SOWDB_ERR_WRONG_OBJECTIVE);
  EXPECT_NE(std::string(sowdb_last_error()).find("co-operative"), std::string::npos);
  sowdb_close(t);
}

// `sowdb verify` on co-operative tables: the sets the generator wrote agree with the work-list
// computation of ReachVerifier; a layer rewritten with a wrong set, or with a difference added
// everywhere (sets that still satisfy every move's equation within the layer, but are not the
// least ones), is caught.
TEST(CooperativeTables, VerifyFindsWrongSets) {
  for (const char* text : {"oware/4x2", "kalah/3x2", "wari-us/3x2"}) {
    SCOPED_TRACE(text);
    const Variant v = *parse_variant(text);
    TempDir dir("coop-verify");
    generate_cooperative(v, 8, dir.path());
    {
      const auto tables = TableSet::open(dir.path());
      ReachVerifier verifier(*tables);
      for (int n = 0; n <= 8; ++n) {
        const VerifyReport r = verifier.verify(n);
        EXPECT_EQ(r.problems(), 0u) << n << ": " << (r.examples.empty() ? "" : r.examples[0]);
        EXPECT_EQ(r.positions, layer_size(v.rules.pits(), n));
      }
    }
    const int n = 7;
    const auto path = dir / layer_file_name(n);
    const auto reader = LayerReader::open(path);
    std::vector<std::uint32_t> symbols(reader->info().entries);
    reader->read_all_symbols(symbols);
    std::vector<std::uint64_t> sets;
    sets.reserve(symbols.size());
    for (const std::uint32_t s : symbols)
      sets.push_back(reader->set(s)[0]);
    for (const bool everywhere : {false, true}) {
      std::vector<std::uint64_t> wrong = sets;
      std::uint64_t changed = 0;
      for (std::uint64_t& w : wrong) {
        // Differences n - 1 and 1 - n (bits 2n - 1 and 1): reachable from no position of layer
        // 7 here, whose sums have the parity of the seeds in the Kalah family.
        const std::uint64_t add = (std::uint64_t{1} << (2 * n - 1)) | 2;
        if ((w & add) != add && (everywhere || changed == 0)) {
          w |= add;
          ++changed;
        }
      }
      ASSERT_GT(changed, 0u);
      write_reach_layer(path, v.rules, n, wrong);
      const auto tables = TableSet::open(dir.path());
      ReachVerifier verifier(*tables);
      std::uint64_t bad = 0;
      for (int m = 0; m <= n; ++m)
        bad += verifier.verify(m).bad_values;
      EXPECT_GT(bad, 0u) << (everywhere ? "everywhere" : "one entry");
      EXPECT_LE(bad, changed);
    }
  }
}

}  // namespace
}  // namespace sowdb::test
