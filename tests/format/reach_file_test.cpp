// Co-operative table files (FORMAT.md, "Co-operative tables", format version 5): sets written and
// read back at every symbol width and set size, the writer's refusals, and the reader checks
// that version 5 adds or changes, each on a tampered file.
#include <zstd.h>

#include <optional>
#include <string>
#include <vector>

#include "table_test_util.h"

namespace sowdb {
namespace {

using Code = TableError::Code;
using test::error_of;
using test::get_le;
using test::make_reach_sets;
using test::put_le;
using test::read_bytes;
using test::reseal;
using test::TempDir;
using test::write_bytes;

// Reads `path` back entry by entry and whole, against `sets`; returns the file's set count.
std::uint32_t expect_sets_read_back(const std::filesystem::path& path,
                                    const std::vector<std::uint64_t>& sets,
                                    int stones) {
  const auto r = LayerReader::open(path);
  const LayerInfo& info = r->info();
  const auto words = static_cast<std::size_t>(reach_set_words(stones));
  EXPECT_EQ(info.objective, Objective::kCooperative);
  EXPECT_EQ(info.format_version, 5);
  EXPECT_EQ(info.depth_codec, DepthCodec::kNone);
  EXPECT_TRUE(info.value_table.empty());
  EXPECT_EQ(info.entries * words, sets.size());
  std::vector<std::uint32_t> symbols(info.entries);
  r->read_all_symbols(symbols);
  for (std::uint64_t i = 0; i < info.entries; ++i) {
    const auto set = r->set(symbols[i]);
    EXPECT_EQ(set.size(), words);
    for (std::size_t w = 0; w < words && w < set.size(); ++w) {
      if (set[w] != sets[i * words + w]) {
        ADD_FAILURE() << path << ": entry " << i << " word " << w;
        return info.set_count;
      }
    }
    if (i % 97 == 0) {
      EXPECT_EQ(r->set_symbol(i), symbols[i]) << i;
    }
  }
  std::vector<std::uint64_t> all(sets.size());
  r->read_all_sets(all);
  EXPECT_EQ(all, sets);
  EXPECT_EQ(error_of([&] { r->read_all_sets(std::span(all).first(all.size() - 1)); }),
            Code::kInvalidArgument);
  EXPECT_EQ(r->set_symbol(info.entries), std::nullopt);
  EXPECT_TRUE(r->set(info.set_count).empty());
  std::vector<std::int8_t> values(info.entries);
  EXPECT_EQ(error_of([&] { r->read_all(values, {}); }), Code::kInvalidArgument);
  return info.set_count;
}

TEST(ReachFile, RoundTripEverySymbolWidth) {
  TempDir dir;
  const RuleSet kalah{Family::kKalah, 6, false, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  // 352,716 entries of 21 bits: over 65536 distinct sets, so three-byte symbols.
  std::vector<std::uint64_t> wide(layer_size(kalah.pits(), 10));
  test::SplitMix rng{7};
  for (std::uint64_t& set : wide)
    set = (rng.next() & ((std::uint64_t{1} << 21) - 1)) | 1;
  write_reach_layer(dir / "wide.sdb", kalah, 10, wide, test::write_options(4096, 1));
  EXPECT_GT(expect_sets_read_back(dir / "wide.sdb", wide, 10), 65536u);
  // One-byte and two-byte symbols, one-word and several-word sets, the largest layer.
  const RuleSet one_pit{Family::kWariUs, 1, false, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  for (const int stones : {0, 1, 31, 32, 63, 64, 127}) {
    const auto sets = make_reach_sets(one_pit, stones, stones, 40);
    write_reach_layer(dir / "p1.sdb", one_pit, stones, sets, test::write_options(7, 3));
    expect_sets_read_back(dir / "p1.sdb", sets, stones);
  }
  const RuleSet oware{Family::kOware, 3, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  const auto two = make_reach_sets(oware, 9, 3, 600);
  write_reach_layer(dir / "two.sdb", oware, 9, two, test::write_options(100, 3));
  const std::uint32_t count = expect_sets_read_back(dir / "two.sdb", two, 9);
  EXPECT_GT(count, 256u);
  EXPECT_LE(count, 65536u);
}

TEST(ReachFile, SymbolsByFallingFrequency) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 2, false, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  const std::uint64_t entries = layer_size(rules.pits(), 4);  // 35
  // Set {0} 20 times, {-1, 1} 10 times, {4} 5 times, interleaved.
  std::vector<std::uint64_t> sets(entries);
  for (std::uint64_t i = 0; i < entries; ++i)
    sets[i] = i % 7 == 0 ? std::uint64_t{1} << 8 : i % 7 < 3 ? 0b101000 : std::uint64_t{1} << 4;
  write_reach_layer(dir / "x.sdb", rules, 4, sets);
  const auto r = LayerReader::open(dir / "x.sdb");
  EXPECT_EQ(r->info().set_table,
            (std::vector<std::uint64_t>{std::uint64_t{1} << 4, 0b101000, std::uint64_t{1} << 8}));
}

TEST(ReachFile, WriterRefusesBadSets) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 2, false, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  const std::uint64_t entries = layer_size(rules.pits(), 3);
  std::vector<std::uint64_t> sets(entries, 1);
  const auto path = dir / "x.sdb";
  EXPECT_TABLE_ERROR(write_reach_layer(path, rules, 3, std::span(sets).first(entries - 1)),
                     Code::kInvalidArgument);
  sets[5] = 0;  // empty
  EXPECT_TABLE_ERROR(write_reach_layer(path, rules, 3, sets), Code::kInvalidArgument);
  sets[5] = std::uint64_t{1} << 7;  // d = 4 > n
  EXPECT_TABLE_ERROR(write_reach_layer(path, rules, 3, sets), Code::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

class TamperV5 : public ::testing::Test {
 protected:
  void SetUp() override {
    sets_ = make_reach_sets(rules_, 6, 11, 50);  // C(11, 5) = 462 entries, 13 bits
    write_reach_layer(dir_ / "good.sdb", rules_, 6, sets_, test::write_options(40, 3));
    good_ = read_bytes(dir_ / "good.sdb");
    count_ = static_cast<std::uint32_t>(get_le(good_, 42, 4));
  }

  // The error of opening `bytes` once resealed, from a file and from memory.
  std::optional<Code> open_error(std::vector<std::byte> bytes, std::string* msg = nullptr) {
    reseal(bytes);
    write_bytes(dir_ / "bad.sdb", bytes);
    const auto from_file = error_of([&] { LayerReader::open(dir_ / "bad.sdb"); }, msg);
    EXPECT_EQ(from_file, error_of([&] { LayerReader::open_memory(bytes); }));
    return from_file;
  }

  std::vector<std::byte> with(std::size_t at, int n, std::uint64_t v) const {
    auto b = good_;
    put_le(b, at, v, n);
    return b;
  }

  const RuleSet rules_{Family::kKalah, 3, true, GrandSlam::kCapture, true, KalahEnd::kEmptySide};
  TempDir dir_;
  std::vector<std::uint64_t> sets_;
  std::vector<std::byte> good_;
  std::uint32_t count_ = 0;
};

TEST_F(TamperV5, GoodFileOpens) {
  EXPECT_EQ(get_le(good_, 8, 2), 5u);
  EXPECT_EQ(get_le(good_, 12, 4), kFlagCooperative);
  EXPECT_EQ(get_le(good_, 23, 1), 0u);
  EXPECT_EQ(get_le(good_, 40, 2), 0x0201u);  // value codec 1, depth codec 2
  EXPECT_GT(count_, 1u);
  EXPECT_EQ(open_error(good_), std::nullopt);
}

TEST_F(TamperV5, Check7Flags) {
  std::string msg;
  EXPECT_EQ(open_error(with(12, 4, 0), &msg), Code::kBadHeader);
  EXPECT_NE(msg.find("version 5 file without flag COOPERATIVE"), std::string::npos) << msg;
  EXPECT_EQ(open_error(with(12, 4, kFlagCooperative | kFlagRecompute), &msg), Code::kBadHeader);
  EXPECT_NE(msg.find("COOPERATIVE with flag RECOMPUTE"), std::string::npos) << msg;
  for (int bit = 3; bit < 16; ++bit)
    EXPECT_EQ(open_error(with(12, 4, kFlagCooperative | (1u << bit))), Code::kUnsupported) << bit;
  // The flag in a version 4 file is unknown there.
  auto b = with(8, 2, 4);
  put_le(b, 12, kFlagRecompute | kFlagAllMoves | kFlagCooperative, 4);
  EXPECT_EQ(open_error(b), Code::kUnsupported);
}

TEST_F(TamperV5, Check8Codecs) {
  EXPECT_EQ(open_error(with(40, 1, 0)), Code::kUnsupported);
  EXPECT_EQ(open_error(with(40, 1, 2)), Code::kUnsupported);
  EXPECT_EQ(open_error(with(41, 1, 1)), Code::kUnsupported);
  EXPECT_EQ(open_error(with(41, 1, 0)), Code::kUnsupported);
}

TEST_F(TamperV5, Check10Counts) {
  EXPECT_EQ(open_error(with(23, 1, 1)), Code::kBadHeader);  // value_count
  EXPECT_EQ(open_error(with(42, 4, 0)), Code::kBadHeader);  // set_count
  EXPECT_EQ(open_error(with(42, 4, kMaxSetCount + 1)), Code::kBadHeader);
  EXPECT_EQ(open_error(with(42, 4, 1000000)), Code::kTruncated);  // check 11: no room for it
}

TEST_F(TamperV5, Check12SetTable) {
  const auto set_at = [](std::size_t k) { return 64 + 8 * k; };
  std::string msg;
  EXPECT_EQ(open_error(with(set_at(1), 8, 0), &msg), Code::kCorrupt);
  EXPECT_NE(msg.find("set 1 is empty"), std::string::npos) << msg;
  EXPECT_EQ(open_error(with(set_at(0), 8, get_le(good_, set_at(0), 8) | 1u << 13), &msg),
            Code::kCorrupt);
  EXPECT_NE(msg.find("outside [-n, n]"), std::string::npos) << msg;
  EXPECT_EQ(open_error(with(set_at(count_ - 1), 8, get_le(good_, set_at(0), 8)), &msg),
            Code::kCorrupt);
  EXPECT_NE(msg.find("listed twice"), std::string::npos) << msg;
}

TEST_F(TamperV5, Check20SymbolOutsideTheSetTable) {
  // Drop the last (rarest, but used) set: its entries' symbols now point past the table.
  auto b = good_;
  const std::size_t last = 64 + 8 * std::size_t{count_ - 1};
  b.erase(b.begin() + static_cast<std::ptrdiff_t>(last),
          b.begin() + static_cast<std::ptrdiff_t>(last + 8));
  put_le(b, 42, count_ - 1, 4);
  const std::uint32_t blocks = static_cast<std::uint32_t>(get_le(b, 36, 4));
  const std::size_t seek = b.size() - 16 - 24 * std::size_t{blocks};
  for (std::uint32_t k = 0; k < blocks; ++k)
    put_le(b, seek + std::size_t{24} * k, get_le(b, seek + std::size_t{24} * k, 8) - 8, 8);
  reseal(b);
  const auto r = LayerReader::open_memory(b);
  std::vector<std::uint32_t> symbols(r->info().entries);
  std::string msg;
  EXPECT_EQ(error_of([&] { r->read_all_symbols(symbols); }, &msg), Code::kCorrupt);
  EXPECT_NE(msg.find("check 20"), std::string::npos) << msg;
  std::uint64_t unreadable = 0;
  for (std::uint64_t i = 0; i < r->info().entries; ++i)
    unreadable += !r->set_symbol(i).has_value();
  EXPECT_GT(unreadable, 0u);
}

TEST_F(TamperV5, Check18DepthFrameHoldsNothing) {
  const std::uint32_t blocks = static_cast<std::uint32_t>(get_le(good_, 36, 4));
  std::vector<std::byte> frame(ZSTD_compressBound(2));
  const std::byte two[2] = {std::byte{1}, std::byte{2}};
  frame.resize(ZSTD_compress(frame.data(), frame.size(), two, 2, 1));
  const auto b = test::with_depth_frame(good_, blocks, 1, frame);
  const auto r = LayerReader::open_memory(b);
  std::vector<std::uint32_t> symbols(r->info().entries);
  std::string msg;
  EXPECT_EQ(error_of([&] { r->read_all_symbols(symbols); }, &msg), Code::kCorrupt);
  EXPECT_NE(msg.find("check 18"), std::string::npos) << msg;
}

TEST_F(TamperV5, CompetitiveQueriesGetNoAnswer) {
  const auto r = LayerReader::open_memory(good_);
  EXPECT_EQ(r->value(0), std::nullopt);
  EXPECT_EQ(r->depth(0), std::nullopt);
  std::vector<std::int8_t> v(r->info().entries);
  EXPECT_FALSE(r->read_block(0, std::span(v).first(r->block_size(0)), {}).error.empty());
  // And the reverse: a competitive file has no sets.
  const test::Layer l = test::make_layer(rules_, 6, 3);
  write_layer(dir_ / "values.sdb", rules_, 6, l.values, l.depths);
  const auto c = LayerReader::open(dir_ / "values.sdb");
  EXPECT_EQ(c->set_symbol(0), std::nullopt);
  std::vector<std::uint32_t> symbols(c->info().entries);
  EXPECT_EQ(error_of([&] { c->read_all_symbols(symbols); }), Code::kInvalidArgument);
}

}  // namespace
}  // namespace sowdb
