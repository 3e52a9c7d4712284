// The reader checks of FORMAT.md ("Reader checks"), one by one on a tampered file (each field
// changed and the checksums resealed, so that the check that names it fires), bytes changed after
// open, flips without checksums, truncation anywhere, and files that are no table at all.
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "table_test_util.h"

namespace sowdb {
namespace {

using Code = TableError::Code;
using test::error_of;
using test::expect_reads_back;
using test::Layer;
using test::make_layer;
using test::name_of;
using test::read_bytes;
using test::reseal;
using test::TempDir;
using test::with_depth_frame;
using test::write_bytes;

class Tamper : public ::testing::Test {
 protected:
  void SetUp() override {
    layer_ = make_layer(rules_, 5, 4);  // P = 3, n = 5: C(10, 5) = 252 entries
    write_layer(
        dir_ / "good.sdb", rules_, 5, layer_.values, layer_.depths, test::write_options(40, 3));
    good_ = read_bytes(dir_ / "good.sdb");
    data_start_ = 64 + (std::to_integer<std::size_t>(good_[23]) + 7) / 8 * 8;
  }

  // The error of opening `bytes` (from a file, so read_info is checked too when `info_too`).
  std::optional<Code> open_error(const std::vector<std::byte>& bytes,
                                 std::string* msg = nullptr,
                                 const OpenOptions& options = {}) {
    write_bytes(dir_ / "bad.sdb", bytes);
    const auto from_file = error_of([&] { LayerReader::open(dir_ / "bad.sdb", options); }, msg);
    const auto from_memory = error_of([&] { LayerReader::open_memory(bytes, options); });
    EXPECT_EQ(from_file, from_memory);
    return from_file;
  }

  // Sets header byte field at `at` (`n` bytes) to `v`, reseals, and expects `code`.
  void expect_field(std::size_t at, int n, std::uint64_t v, Code code) {
    auto b = good_;
    test::put_le(b, at, v, n);
    reseal(b);
    std::string msg;
    const auto got = open_error(b, &msg);
    ASSERT_TRUE(got.has_value()) << "offset " << at << " value " << v;
    EXPECT_EQ(name_of(*got), name_of(code)) << "offset " << at << " value " << v << ": " << msg;
  }

  const RuleSet rules_{Family::kKalah, 3, true, GrandSlam::kCapture, true, KalahEnd::kEmptySide};
  TempDir dir_;
  Layer layer_;
  std::vector<std::byte> good_;
  std::size_t data_start_ = 0;  // the first block
};

TEST_F(Tamper, GoodFileOpens) {
  EXPECT_EQ(open_error(good_), std::nullopt);
  auto b = good_;
  reseal(b);
  EXPECT_EQ(b, good_);
}

TEST_F(Tamper, Check2Magic) {
  for (std::size_t i = 0; i < 8; ++i) {
    auto b = good_;
    b[i] ^= std::byte{0x20};
    EXPECT_EQ(open_error(b), Code::kNotATable) << i;
  }
}

TEST_F(Tamper, Check3Version) {
  expect_field(8, 2, 0, Code::kVersion);
  expect_field(8, 2, kTableFormatVersion + 1, Code::kVersion);
  expect_field(8, 2, 0xFFFF, Code::kVersion);
  // The message says which versions this reader knows, in words a user can read.
  auto b = good_;
  test::put_le(b, 8, kTableFormatVersion + 1, 2);
  reseal(b);
  std::string msg;
  ASSERT_TRUE(open_error(b, &msg).has_value());
  EXPECT_NE(
      msg.find("check 3: format version " + std::to_string(kTableFormatVersion + 1) +
               " (this reader knows versions 1.." + std::to_string(kTableFormatVersion) + ")"),
      std::string::npos)
      << msg;
}

TEST_F(Tamper, Check5HeaderChecksum) {
  for (std::size_t i = 10; i < 64; ++i) {
    auto b = good_;
    b[i] ^= std::byte{0x01};
    EXPECT_EQ(open_error(b), Code::kChecksum) << i;
    write_bytes(dir_ / "bad.sdb", b);
    EXPECT_EQ(error_of([&] { read_info(dir_ / "bad.sdb"); }), Code::kChecksum) << i;
  }
}

TEST_F(Tamper, Check6HeaderSizeAndReserved) {
  expect_field(10, 2, 63, Code::kBadHeader);
  expect_field(10, 2, 72, Code::kBadHeader);
  for (std::size_t at = 42; at < 56; ++at)
    expect_field(at, 1, 1, Code::kBadHeader);
}

TEST_F(Tamper, Check7Flags) {
  for (int bit = 0; bit < 16; ++bit)
    expect_field(12, 4, 1u << bit, Code::kUnsupported);
  // Optional flags are ignored.
  for (int bit = 16; bit < 32; ++bit) {
    auto b = good_;
    test::put_le(b, 12, std::uint64_t{1} << bit, 4);
    reseal(b);
    EXPECT_EQ(open_error(b), std::nullopt) << bit;
    expect_reads_back(*LayerReader::open_memory(b), layer_);
  }
}

TEST_F(Tamper, Check8Codecs) {
  ASSERT_EQ(std::to_integer<int>(good_[41]), 1);  // the fixture's file: depth codec 1
  expect_field(40, 1, 1, Code::kUnsupported);
  expect_field(41, 1, 2, Code::kUnsupported);
  expect_field(41, 1, 255, Code::kUnsupported);
  expect_field(40, 1, 255, Code::kUnsupported);
  expect_field(8, 2, 1, Code::kUnsupported);  // depth codec 1 needs version 2
}

// A depth codec byte that disagrees with the depth frames (resealed, so only the frame check
// sees it): the values still read, the depths of every block whose stored-depth count changes
// fail check 18, never a wrong depth.
TEST_F(Tamper, DepthCodecSwappedAfterWriting) {
  for (const int codec : {0, 1}) {
    auto b = good_;
    test::put_le(b, 41, static_cast<std::uint64_t>(codec), 1);
    if (codec == 0) {
      // Now a version 2 file whose frames hold fewer depths than codec 0 wants.
      reseal(b);
      std::string msg;
      ASSERT_EQ(open_error(b, &msg), std::nullopt) << msg;
    } else {
      // A version 1 file relabelled to codec 1 and version 2.
      write_layer(dir_ / "v1.sdb", rules_, 5, layer_.values, layer_.depths, [] {
        WriteOptions o = test::write_options(40, 3);
        o.depth_codec = DepthCodec::kAll;
        return o;
      }());
      b = read_bytes(dir_ / "v1.sdb");
      test::put_le(b, 8, 2, 2);
      test::put_le(b, 41, 1, 1);
    }
    reseal(b);
    const auto r = LayerReader::open_memory(b);
    std::size_t failed = 0;
    for (std::uint64_t i = 0; i < layer_.values.size(); ++i) {
      ASSERT_EQ(r->value(i), layer_.values[i]);
      const auto d = r->depth(i);
      if (d.has_value())
        ASSERT_EQ(*d, layer_.depths[i]) << i;
      else
        ++failed;
    }
    EXPECT_GT(failed, 0u) << "codec " << codec;
    std::vector<std::uint16_t> d(layer_.values.size());
    EXPECT_TABLE_ERROR(r->read_all({}, d), Code::kCorrupt);
  }
}

TEST_F(Tamper, Check9RuleSet) {
  expect_field(16, 1, 3, Code::kBadHeader);  // family
  expect_field(17, 1, 0, Code::kBadHeader);  // pits_per_side
  expect_field(17, 1, 9, Code::kBadHeader);
  expect_field(18, 1, 2, Code::kBadHeader);  // skip_origin
  expect_field(19, 1, 3, Code::kBadHeader);  // grand_slam
  expect_field(19, 1, 2, Code::kBadHeader);  // a Kalah file with a grand slam rule set
  expect_field(20, 1, 2, Code::kBadHeader);  // capture_empty_opposite
  expect_field(21, 1, 2, Code::kBadHeader);  // end
  expect_field(16, 1, 0, Code::kBadHeader);  // Oware with Kalah options: not normalised
}

TEST_F(Tamper, Check10Sizes) {
  expect_field(22, 1, 128, Code::kBadHeader);  // stones beyond the index
  expect_field(22, 1, 6, Code::kBadHeader);    // entry_count no longer C(n+2P-1, 2P-1)
  expect_field(17, 1, 2, Code::kBadHeader);    // the same through P
  expect_field(24, 8, 253, Code::kBadHeader);  // entry_count
  expect_field(24, 8, 0, Code::kBadHeader);
  expect_field(32, 4, 0, Code::kBadHeader);  // block_entries
  expect_field(32, 4, kMaxBlockEntries + 1, Code::kBadHeader);
  expect_field(32, 4, 20, Code::kBadHeader);  // 13 blocks, but block_count says 7
  expect_field(36, 4, 8, Code::kBadHeader);   // block_count
  expect_field(36, 4, 0, Code::kBadHeader);
  expect_field(23, 1, 0, Code::kBadHeader);   // value_count
  expect_field(23, 1, 12, Code::kBadHeader);  // > 2n + 1
}

TEST_F(Tamper, Check11SizeAndFooter) {
  auto b = good_;
  b.insert(b.end(), std::byte{0});
  EXPECT_EQ(open_error(b), Code::kTruncated);
  b = good_;
  b[b.size() - 16] ^= std::byte{1};
  EXPECT_EQ(open_error(b), Code::kTruncated);
  write_bytes(dir_ / "bad.sdb", b);
  EXPECT_EQ(error_of([&] { read_info(dir_ / "bad.sdb"); }), Code::kTruncated);
}

TEST_F(Tamper, Check12ValueTable) {
  const auto value_count = std::to_integer<std::size_t>(good_[23]);
  ASSERT_GE(value_count, 3u);
  expect_field(64, 1, static_cast<std::uint8_t>(std::int8_t{6}), Code::kCorrupt);  // > n
  expect_field(64, 1, static_cast<std::uint8_t>(std::int8_t{-6}), Code::kCorrupt);
  expect_field(64, 1, std::to_integer<std::uint8_t>(good_[65]), Code::kCorrupt);  // twice
  if (value_count % 8 != 0)
    expect_field(64 + value_count, 1, 1, Code::kCorrupt);  // padding
}

TEST_F(Tamper, Check13ExpectedRuleSetAndStones) {
  RuleSet other = rules_;
  other.end = KalahEnd::kNoMove;
  EXPECT_EQ(open_error(good_, nullptr, test::expecting(other, std::nullopt)), Code::kRuleMismatch);
  EXPECT_EQ(open_error(good_, nullptr, test::expecting(std::nullopt, 4)), Code::kRuleMismatch);
  EXPECT_EQ(open_error(good_, nullptr, test::expecting(rules_, 5)), std::nullopt);
}

TEST_F(Tamper, Check14FileChecksum) {
  for (std::size_t i = 64; i < good_.size(); ++i) {
    auto b = good_;
    b[i] ^= std::byte{0x80};
    const auto got = open_error(b);
    ASSERT_TRUE(got.has_value()) << i;
    // The value table, the footer magic and the checksum bytes are caught by their own checks.
    EXPECT_TRUE(*got == Code::kChecksum || *got == Code::kCorrupt || *got == Code::kTruncated)
        << i << " " << name_of(*got);
    if (i >= data_start_ && i < good_.size() - 16) {
      EXPECT_EQ(*got, Code::kChecksum) << i;
    }
  }
}

TEST_F(Tamper, Check15SeekTable) {
  const std::uint32_t blocks = 7;  // ceil(252 / 40)
  const std::size_t seek = good_.size() - 16 - std::size_t{24} * blocks;
  for (std::uint32_t e = 0; e < blocks; ++e) {
    const std::size_t at = seek + std::size_t{24} * e;
    expect_field(at, 8, test::get_le(good_, at, 8) + 1, Code::kCorrupt);            // offset
    expect_field(at + 8, 4, test::get_le(good_, at + 8, 4) + 1, Code::kCorrupt);    // value size
    expect_field(at + 12, 4, test::get_le(good_, at + 12, 4) - 1, Code::kCorrupt);  // depth size
    expect_field(at + 8, 4, 0, Code::kCorrupt);
  }
}

// Check 17..20 at probe time: bytes changed after open (the whole-file check passed) are caught
// by the frame checksums; a probe gives nullopt, never a wrong value.
TEST_F(Tamper, ChangedAfterOpenNeverGivesAWrongValue) {
  const auto path = dir_ / "live.sdb";
  const std::size_t seek = good_.size() - std::size_t{16 + 24 * 7};
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    write_bytes(path, good_);
    const auto r = LayerReader::open(path, test::options(0));
    auto b = good_;
    const std::size_t at = data_start_ + rng() % (seek - data_start_);
    b[at] ^= static_cast<std::byte>(1 + rng() % 255);
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(at));
      const char c = static_cast<char>(b[at]);
      f.write(&c, 1);
    }
    int missing = 0;
    for (std::uint64_t i = 0; i < layer_.values.size(); ++i) {
      const auto v = r->value(i);
      const auto d = r->depth(i);
      if (v) {
        ASSERT_EQ(*v, layer_.values[i]) << "flip at " << at;
      }
      if (d) {
        ASSERT_EQ(*d, layer_.depths[i]) << "flip at " << at;
      }
      missing += !v + !d;
    }
    EXPECT_GT(missing, 0) << "flip at " << at;
    std::vector<std::int8_t> v(layer_.values.size());
    std::vector<std::uint16_t> d(layer_.values.size());
    EXPECT_EQ(error_of([&] { r->read_all(v, d); }), Code::kChecksum);
  }
}

// Without checksums the decode checks (18..20) still stop anything out of bounds; in memory so
// AddressSanitizer builds would see any overrun.
TEST_F(Tamper, UncheckedFlipsNeverCrash) {
  const std::size_t seek = good_.size() - std::size_t{16 + 24 * 7};
  std::mt19937_64 rng(6);
  for (int trial = 0; trial < 2000; ++trial) {
    auto b = good_;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k)
      b[data_start_ + rng() % (seek - data_start_)] ^= static_cast<std::byte>(rng());
    const auto r = LayerReader::open_memory(b, test::options(8, false));
    for (std::uint64_t i = 0; i < layer_.values.size(); ++i) {
      const auto v = r->value(i);
      if (v) {
        ASSERT_LE(std::abs(*v), 5);
      }
      (void)r->depth(i);
    }
  }
}

TEST_F(Tamper, TruncatedAnywhere) {
  std::vector<std::size_t> cuts = {0, 1, 7, 8, 9, 10, 63, 64, 65, 71, 72};
  const std::size_t seek = good_.size() - std::size_t{16 + 24 * 7};
  for (std::uint32_t e = 0; e < 7; ++e) {
    const auto off = static_cast<std::size_t>(test::get_le(good_, seek + std::size_t{24} * e, 8));
    const auto vsize =
        static_cast<std::size_t>(test::get_le(good_, seek + std::size_t{24} * e + 8, 4));
    cuts.push_back(off);
    cuts.push_back(off + vsize);
    cuts.push_back(off + 1);
  }
  cuts.push_back(seek);
  for (std::size_t k = 1; k <= 16; ++k)
    cuts.push_back(good_.size() - k);
  std::mt19937_64 rng(8);
  for (int k = 0; k < 200; ++k)
    cuts.push_back(rng() % good_.size());
  for (const std::size_t cut : cuts) {
    const std::vector<std::byte> b(good_.begin(), good_.begin() + static_cast<std::ptrdiff_t>(cut));
    std::string msg;
    const auto got = open_error(b, &msg);
    ASSERT_TRUE(got.has_value()) << cut;
    EXPECT_EQ(name_of(*got), name_of(cut == 0 ? Code::kNotATable : Code::kTruncated))
        << cut << ": " << msg;
    write_bytes(dir_ / "bad.sdb", b);
    EXPECT_TRUE(error_of([&] { read_info(dir_ / "bad.sdb"); }).has_value());
  }
}

TEST(TableReader, MissingFile) {
  TempDir dir;
  std::string msg;
  EXPECT_EQ(error_of([&] { LayerReader::open(dir / "nope.sdb"); }, &msg), Code::kIo);
  EXPECT_NE(msg.find("nope.sdb"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { read_info(dir / "nope.sdb"); }), Code::kIo);
  EXPECT_EQ(error_of([&] { LayerReader::open(dir.path()); }), Code::kIo);  // a directory
}

// Check 1 on a FIFO: opening one must not wait for a writer (a blocking open hung every probe
// of the directory); the reader refuses it as not a regular file.
TEST(TableReader, FifoIsNotARegularFile) {
  TempDir dir;
  const std::filesystem::path fifo = dir / "layer-003.sdb";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string msg;
  EXPECT_EQ(error_of([&] { LayerReader::open(fifo); }, &msg), Code::kIo);
  EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { read_info(fifo); }), Code::kIo);
}

TEST(TableReader, NotATable) {
  TempDir dir;
  const std::string text = "this is a text file, not a table\n";
  std::vector<std::byte> b(text.size());
  std::memcpy(b.data(), text.data(), text.size());
  write_bytes(dir / "text.sdb", b);
  EXPECT_EQ(error_of([&] { LayerReader::open(dir / "text.sdb"); }), Code::kNotATable);
  EXPECT_EQ(error_of([&] { read_info(dir / "text.sdb"); }), Code::kNotATable);
  // A zstd frame is not a table either.
  const std::vector<std::byte> zstd_magic = {std::byte{0x28},
                                             std::byte{0xB5},
                                             std::byte{0x2F},
                                             std::byte{0xFD},
                                             std::byte{0},
                                             std::byte{0},
                                             std::byte{0},
                                             std::byte{0},
                                             std::byte{0}};
  EXPECT_EQ(error_of([&] { LayerReader::open_memory(zstd_magic); }), Code::kNotATable);
}

TEST(TableReader, ErrorCodeNames) {
  EXPECT_STREQ(to_string(Code::kIo), "Io");
  EXPECT_STREQ(to_string(Code::kChecksum), "Checksum");
  EXPECT_STREQ(to_string(static_cast<Code>(99)), "Unknown");
}
// Check 18: a depth frame that stores nothing (every value of the block 0) must still be one
// Zstandard frame. A skippable frame declares no content size, though zstd reports 0 for it.
TEST(TableReader, SkippableFrameIsNoDepthFrame) {
  TempDir dir;
  const RuleSet rules{Family::kOware, 2, true, GrandSlam::kForbidden};
  Layer zero = make_layer(rules, 4, 1);
  std::fill(zero.values.begin(), zero.values.end(), std::int8_t{0});
  std::fill(zero.depths.begin(), zero.depths.end(), std::uint16_t{0});
  write_layer(dir / "zero.sdb", rules, 4, zero.source(), test::write_options(4096, 3));
  const auto good = read_bytes(dir / "zero.sdb");
  ASSERT_EQ(LayerReader::open_memory(good)->depth(0), std::optional<std::uint16_t>(0));
  // Skippable frame magic 0x184D2A50, 1 byte of user data.
  const std::vector<std::byte> skippable = {std::byte{0x50},
                                            std::byte{0x2A},
                                            std::byte{0x4D},
                                            std::byte{0x18},
                                            std::byte{0x01},
                                            std::byte{0x00},
                                            std::byte{0x00},
                                            std::byte{0x00},
                                            std::byte{0x41}};
  const auto bad = with_depth_frame(good, 1, 0, skippable);
  const auto r = LayerReader::open_memory(bad);
  EXPECT_EQ(r->value(0), std::optional<std::int8_t>(0));  // the value frame is fine
  EXPECT_EQ(r->depth(0), std::nullopt);
  std::vector<std::uint16_t> d(zero.values.size());
  std::string msg;
  EXPECT_EQ(error_of([&] { r->read_all({}, d); }, &msg), Code::kCorrupt);
  EXPECT_NE(msg.find("check 18"), std::string::npos) << msg;
}

}  // namespace
}  // namespace sowdb
