// Format version 6's writer in parts (v6_parts.h) as a distributed writer uses it: a layer cut
// into parts of whole 64-block groups, each part's tokens counted alone, the counts summed, each
// part coded and placed, and the file assembled from the head and each section's pieces in
// order gives write_layer's bytes; so does the MPI-IO way (pieces written at their offsets,
// then finish_v6_layer_file).
#include "sowdb/format/v6_parts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "table_test_util.h"

namespace sowdb {
namespace {

using test::cut;
using test::Layer;
using test::make_layer;
using test::Part;
using test::read_bytes;
using test::TempDir;

WriteOptions v6_options(std::uint32_t block_entries) {
  WriteOptions o;
  o.format_version = 6;
  o.block_entries = block_entries;
  return o;
}

// The layer cut at whole 64-block groups into 3 unequal parts (one empty), written both ways.
void expect_v6_parts_give_the_same_bytes(const Layer& l, const WriteOptions& o) {
  TempDir dir;
  write_layer(dir / "whole.sdb", l.rules, l.stones, l.source(), o);
  const auto want = read_bytes(dir / "whole.sdb");

  const std::uint64_t entries = l.values.size();
  const std::uint64_t blocks = (entries + o.block_entries - 1) / o.block_entries;
  const std::uint64_t groups = (blocks + kV6PartBlocks - 1) / kV6PartBlocks;
  ASSERT_GE(groups, 4u);
  const std::vector<std::uint64_t> cuts = {
      0, kV6PartBlocks, kV6PartBlocks, groups * 2 / 3 * kV6PartBlocks, blocks};
  std::vector<Part> parts;
  ValueCounts counts;
  for (std::size_t r = 0; r + 1 < cuts.size(); ++r) {
    parts.push_back(cut(l,
                        std::min(entries, cuts[r] * o.block_entries),
                        std::min(entries, cuts[r + 1] * o.block_entries)));
    counts += count_layer_values(parts.back().source(l.all_moves));
  }
  V6LayerEncoder encoder("parts", l.rules, l.stones, counts, !l.recompute.empty(), l.all_moves, o);
  ASSERT_EQ(encoder.info().block_count, blocks);
  ASSERT_EQ(encoder.info().format_version, 6);
  V6TokenCounts tokens;
  for (std::size_t r = 0; r < parts.size(); ++r) {
    tokens += encoder.count(parts[r].source(l.all_moves),
                            parts[r].first,
                            cuts[r],
                            cuts[r + 1],
                            test::thread_executor(3));
  }
  encoder.set_codes(tokens);
  std::vector<V6Part> coded;
  V6Streams streams;
  std::array<std::uint64_t, 2> most{};
  for (std::size_t r = 0; r < parts.size(); ++r) {
    coded.push_back(encoder.encode(parts[r].source(l.all_moves),
                                   parts[r].first,
                                   cuts[r],
                                   cuts[r + 1],
                                   test::thread_executor(2)));
    for (int s = 0; s < 2; ++s) {
      streams.bytes[s] += coded.back().stream_bytes(s);
      most[s] = std::max(most[s], coded.back().max_offset(s));
    }
  }
  for (int s = 0; s < 2; ++s)
    streams.width[s] = v6_index_width(most[s]);
  std::array<std::uint64_t, 2> start{};
  for (V6Part& p : coded) {
    p.place(start, streams.width);
    for (int s = 0; s < 2; ++s)
      start[s] += p.stream_bytes(s);
  }

  // Gathered: the head, each section's pieces in part order and its padding, the footer.
  {
    V6FileWriter out(dir / "gathered.sdb", encoder.head(streams), encoder.footer_offset(streams));
    for (int i = 0; i < kV6Sections; ++i) {
      const auto section = static_cast<V6Section>(i);
      EXPECT_EQ(out.written(), encoder.section_offset(section, streams)) << i;
      for (const V6Part& p : coded)
        out.append(p.piece(section));
      out.pad(encoder.padding(section, streams));
    }
    out.finish();
  }
  EXPECT_EQ(read_bytes(dir / "gathered.sdb"), want);

  // Placed: every piece at its section's offset plus its own, bytes past the footer's offset
  // (a writer that preallocated), then finish_v6_layer_file.
  const std::filesystem::path path = dir / "placed.sdb";
  const std::filesystem::path temp = temporary_path(path, 79);
  {
    std::vector<std::byte> bytes(encoder.footer_offset(streams) + 1000, std::byte{0x5a});
    const auto head = encoder.head(streams);
    std::copy(head.begin(), head.end(), bytes.begin());
    for (int i = 0; i < kV6Sections; ++i) {
      const auto section = static_cast<V6Section>(i);
      const std::uint64_t at = encoder.section_offset(section, streams);
      std::uint64_t end = at;
      for (const V6Part& p : coded) {
        const auto piece = p.piece(section);
        std::copy(piece.begin(),
                  piece.end(),
                  bytes.begin() + static_cast<std::ptrdiff_t>(at + p.piece_offset(section)));
        end = std::max(end, at + p.piece_offset(section) + piece.size());
      }
      std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(end),
                  encoder.padding(section, streams),
                  std::byte{0});
    }
    std::ofstream file(temp, std::ios::binary);
    file.write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  finish_v6_layer_file(temp, path, encoder.footer_offset(streams));
  EXPECT_EQ(read_bytes(path), want);
  EXPECT_FALSE(std::filesystem::exists(temp));
}

TEST(V6Parts, PartsOfWholeGroupsGiveWriteLayersBytes) {
  const RuleSet rules{Family::kOware, 6, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  Layer l = make_layer(rules, 7, 21);  // 31824 entries
  // 30 entries a block: 1061 blocks, 17 groups, the last block short.
  expect_v6_parts_give_the_same_bytes(l, v6_options(30));
  test::mark_recompute(l, 100);
  l.all_moves = true;
  expect_v6_parts_give_the_same_bytes(l, v6_options(7));
}

TEST(V6Parts, RefusesPartsOffTheGroupsAndShortFiles) {
  TempDir dir;
  const RuleSet rules{Family::kKalah, 3, false, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 6, 3);  // 462 entries
  const WriteOptions o = v6_options(2);     // 231 blocks
  const Part all = cut(l, 0, l.values.size());
  const LayerSource source = all.source(false);
  V6LayerEncoder encoder("x", rules, 6, count_layer_values(source), false, false, o);
  // Blocks coded before the codes are set.
  EXPECT_THROW(encoder.encode(source, 0, 0, 64, {}), TableError);
  encoder.set_codes(encoder.count(source, 0, 0, encoder.info().block_count, {}));
  EXPECT_NO_THROW(encoder.encode(source, 0, 64, 128, {}));
  EXPECT_NO_THROW(encoder.encode(source, 0, 100, 100, {}));  // empty
  EXPECT_THROW(encoder.encode(source, 0, 1, 64, {}), TableError);
  EXPECT_THROW(encoder.encode(source, 0, 192, 232, {}), TableError);  // past the last block
  // A part that does not hold its blocks.
  const Part p = cut(l, 128, 256);  // blocks 64..127
  EXPECT_THROW(encoder.encode(p.source(false), p.first, 0, 64, {}), TableError);
  EXPECT_THROW(encoder.count(p.source(false), p.first, 64, 129, {}), TableError);
  // Token counts of other contexts.
  EXPECT_THROW(encoder.set_codes(V6TokenCounts{}), TableError);
  // Another version asked for, and version 6's own limits.
  EXPECT_THROW(
      V6LayerEncoder("x", rules, 6, count_layer_values(source), false, false, WriteOptions{}),
      TableError);
  EXPECT_THROW(V6LayerEncoder("x",
                              rules,
                              6,
                              count_layer_values(source),
                              false,
                              false,
                              v6_options(kMaxV6BlockEntries + 1)),
               TableError);
  // A file finished before its last byte leaves no file and no temporary.
  {
    V6Part part = encoder.encode(source, 0, 0, encoder.info().block_count, {});
    V6Streams streams;
    for (int s = 0; s < 2; ++s) {
      streams.bytes[s] = part.stream_bytes(s);
      streams.width[s] = v6_index_width(part.max_offset(s));
    }
    part.place({0, 0}, streams.width);
    V6FileWriter out(dir / "short.sdb", encoder.head(streams), encoder.footer_offset(streams));
    out.append(part.piece(V6Section::kValueBases));
    EXPECT_THROW(out.finish(), TableError);
    // Nor does it take bytes past the footer's offset.
    EXPECT_THROW(out.pad(encoder.footer_offset(streams)), TableError);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  // A temporary shorter than the footer's offset is refused and removed.
  {
    const std::filesystem::path temp = temporary_path(dir / "cut.sdb", 80);
    std::ofstream(temp, std::ios::binary).write("abc", 3);
    EXPECT_THROW(finish_v6_layer_file(temp, dir / "cut.sdb", 100), TableError);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace sowdb
