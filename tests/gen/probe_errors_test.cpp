// The probe library (TableSet and the C ABI) on Oware tables written by the generator: published
// and known values, and every kind of damage (missing, corrupt, truncated or foreign layer files,
// bad positions, refused directories) coming back as a status or an error, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "generated_tables.h"
#include "probe_tables_util.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/gen/solver.h"
#include "sowdb/probe/rules.h"
#include "sowdb/probe/sowdb.h"
#include "sowdb/probe/tables.h"
#include "sowdb/probe/variant.h"
#include "test_support.h"

namespace sowdb::test {
namespace {
namespace fs = std::filesystem;

// Romein & Bal's Awari databases: under `oware`, the board 1 1 1 1 1 2 4 2 3 0 0 0 has value 0
// and moves worth -1 -1 -2 -2 -2 0. It needs the tables of layers 0..16 (30 million positions),
// built here.
TEST(ProbeReference, OwarePublishedValues) {
  const GeneratedTables& g = generated_tables({"oware/6x4", 16});
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
  const GeneratedTables& g = generated_tables({"oware/6x4", 12});
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

TEST(ProbeErrors, TooManyStonesAndBadPositions) {
  const GeneratedTables& g = generated_tables({"oware/6x4", 12});
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
  ASSERT_EQ(sowdb_open(g.dir.c_str(), nullptr, &h), SOWDB_OK);
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
  const TempDir tmp("probe-errors");
  const GeneratedTables& g = generated_tables({"oware/6x4", 12});
  const fs::path dir = copy_tables(g.dir, tmp / "missing");
  auto set = TableSet::open(dir);
  ASSERT_EQ(set->max_stones(), 12);
  sowdb_tables* before = nullptr;
  ASSERT_EQ(sowdb_open(dir.c_str(), nullptr, &before), SOWDB_OK);
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
  ASSERT_EQ(sowdb_open(dir.c_str(), nullptr, &h), SOWDB_OK);
  EXPECT_EQ(sowdb_max_stones(h), 4);
  std::int32_t cv = 0;
  EXPECT_EQ(sowdb_probe_value(h, p12.data(), 12, &cv, nullptr), SOWDB_ERR_MISSING_TABLE);
  EXPECT_NE(std::string(sowdb_last_error()).find("layer-005.sdb"), std::string::npos)
      << sowdb_last_error();
  sowdb_close(h);
  // Without layer 0 the directory is refused.
  fs::remove(dir / "layer-000.sdb");
  EXPECT_THROW(TableSet::open(dir), std::runtime_error);
  EXPECT_EQ(sowdb_open(dir.c_str(), nullptr, &h), SOWDB_ERR_OPEN);
  EXPECT_EQ(h, nullptr);
  EXPECT_NE(std::string(sowdb_last_error()).find("layer-000.sdb"), std::string::npos);
}

TEST(ProbeErrors, CorruptAndTruncatedLayerFiles) {
  const TempDir tmp("probe-errors");
  const GeneratedTables& g = generated_tables({"oware/6x4", 12});
  const fs::path dir = copy_tables(g.dir, tmp / "corrupt");
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
  ASSERT_EQ(sowdb_open(dir.c_str(), nullptr, &h), SOWDB_OK);
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
  const TempDir tmp("probe-errors");
  const GeneratedTables& g = generated_tables({"oware/6x4", 12});
  const fs::path dir = copy_tables(g.dir, tmp / "explain");
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
  ASSERT_EQ(sowdb_open(dir.c_str(), nullptr, &h), SOWDB_OK);
  sowdb_move_worth best{};
  EXPECT_EQ(sowdb_best_move(h, p.data(), 12, &best), SOWDB_ERR_CORRUPT_TABLE);
  EXPECT_NE(std::string(sowdb_last_error()).find("layer-010.sdb"), std::string::npos)
      << sowdb_last_error();
  sowdb_close(h);
}

TEST(ProbeErrors, DirectoriesThatAreRefused) {
  const TempDir tmp("probe-errors");
  EXPECT_THROW(TableSet::open(tmp / "no-such-dir"), std::runtime_error);
  const fs::path empty = tmp / "empty";
  fs::create_directories(empty);
  try {
    TableSet::open(empty);
    ADD_FAILURE() << "an empty directory opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no table files"), std::string::npos) << e.what();
  }
  // Tables of two rule sets in one directory.
  const GeneratedTables& ow = generated_tables({"oware/6x4", 12});
  const GeneratedTables& ab = generated_tables({"abapa/3x4", 14});
  const fs::path mixed = copy_tables(ow.dir, tmp / "mixed");
  fs::copy_file(ab.dir / "layer-013.sdb", mixed / "layer-013.sdb");
  try {
    TableSet::open(mixed);
    ADD_FAILURE() << "mixed rule sets opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("different rule sets"), std::string::npos) << e.what();
  }
  // A manifest naming another game.
  const fs::path wrong = copy_tables(ow.dir, tmp / "wrong-manifest");
  std::ofstream(wrong / "sowdb.json", std::ios::trunc) << "{\"variant\": \"kalah/6x4\"}\n";
  EXPECT_THROW(TableSet::open(wrong), std::runtime_error);
  // No manifest: refused, with the repair.
  const fs::path bare = copy_tables(ab.dir, tmp / "no-manifest");
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
  const TempDir tmp("probe-errors");
  const GeneratedTables& g = generated_tables({"oware/6x4", 12});
  const fs::path dir = copy_tables(g.dir, tmp / "read-layer-damaged");
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
