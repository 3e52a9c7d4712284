// The writer's steps (layer_parts.h) as a distributed writer uses them: a layer cut into parts
// of whole blocks, each part counted and compressed alone, the counts summed and the file
// assembled from the blocks in order, gives write_layer's bytes; so does the MPI-IO way (blocks
// placed at offsets, the seek table and footer from their summaries).
#include "sowdb/format/layer_parts.h"

#include <algorithm>
#include <cstring>
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

// The layer cut at whole blocks into 3 unequal parts (one of them empty), written both ways.
void expect_parts_give_the_same_bytes(const Layer& l, const WriteOptions& o) {
  TempDir dir;
  LayerSource whole;
  whole.values = l.values;
  whole.recompute = l.recompute;
  whole.all_moves = l.all_moves;
  whole.fill_depths = [&](std::uint64_t first, std::span<std::uint16_t> out) {
    std::copy_n(l.depths.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
  };
  write_layer(dir / "whole.sdb", l.rules, l.stones, whole, o);
  const auto want = read_bytes(dir / "whole.sdb");

  const std::uint64_t entries = l.values.size();
  const std::uint64_t blocks = (entries + o.block_entries - 1) / o.block_entries;
  ASSERT_GE(blocks, 4u);
  const std::vector<std::uint64_t> cuts = {0, 1, 1, blocks * 2 / 3, blocks};  // in blocks
  std::vector<Part> parts;
  ValueCounts counts;
  for (std::size_t r = 0; r + 1 < cuts.size(); ++r) {
    parts.push_back(cut(l,
                        std::min(entries, cuts[r] * o.block_entries),
                        std::min(entries, cuts[r + 1] * o.block_entries)));
    counts += count_layer_values(parts.back().source(l.all_moves));
  }
  const LayerEncoder encoder(
      "parts", l.rules, l.stones, counts, !l.recompute.empty(), l.all_moves, o);
  ASSERT_EQ(encoder.info().block_count, blocks);

  // Gathered: the blocks appended in order, a batch at a time.
  LayerFileWriter out(dir / "gathered.sdb", encoder.head(), encoder.info().block_count);
  std::vector<BlockSummary> sums;
  std::vector<std::vector<std::byte>> frames;  // per part, for the placed file
  for (std::size_t r = 0; r < parts.size(); ++r) {
    frames.emplace_back();
    encoder.encode(cuts[r],
                   cuts[r + 1],
                   parts[r].source(l.all_moves),
                   parts[r].first,
                   test::thread_executor(3),
                   2,
                   [&](std::uint64_t, std::span<EncodedBlock> got) {
                     for (const EncodedBlock& b : got) {
                       out.append(b);
                       sums.push_back(BlockSummary::of(b));
                       frames.back().insert(frames.back().end(), b.values.begin(), b.values.end());
                       frames.back().insert(frames.back().end(), b.depths.begin(), b.depths.end());
                     }
                   });
  }
  out.finish();
  EXPECT_EQ(read_bytes(dir / "gathered.sdb"), want);

  // Placed: head, each part's frames at its offset, then the seek table and the footer.
  std::vector<std::byte> placed = encoder.head();
  const std::uint64_t data_start = placed.size();
  for (const auto& f : frames)
    placed.insert(placed.end(), f.begin(), f.end());
  const auto seek = seek_table_bytes(data_start, sums);
  placed.insert(placed.end(), seek.begin(), seek.end());
  Xxh64 hash;
  hash.update(placed);
  const auto footer = footer_bytes(hash);
  placed.insert(placed.end(), footer.begin(), footer.end());
  EXPECT_EQ(placed, want);

  // Finished by format: the head and the frames written into the temporary (with bytes past
  // them, as a writer that preallocated leaves), then finish_layer_file.
  const std::filesystem::path path = dir / "finished.sdb";
  const std::filesystem::path temp = temporary_path(path, 77);
  EXPECT_EQ(temp, dir / "finished.sdb.tmp.77");
  {
    std::vector<std::byte> written(placed.begin(),
                                   placed.end() - static_cast<std::ptrdiff_t>(seek.size() + 16));
    written.resize(written.size() + 1000, std::byte{0x5a});
    std::ofstream file(temp, std::ios::binary);
    file.write(reinterpret_cast<const char*>(written.data()),
               static_cast<std::streamsize>(written.size()));
  }
  finish_layer_file(temp, path, data_start, sums);
  EXPECT_EQ(read_bytes(path), want);
  EXPECT_FALSE(std::filesystem::exists(temp));
}

TEST(LayerParts, PartsOfWholeBlocksGiveWriteLayersBytes) {
  const RuleSet rules{Family::kOware, 6, true, GrandSlam::kForbidden, false, KalahEnd::kNoMove};
  Layer l = make_layer(rules, 7, 21);  // 31824 entries
  // 100 entries a block: parts start off the 64-entry words of the marks; the last block short.
  const WriteOptions o = test::write_options(100, 1);
  expect_parts_give_the_same_bytes(l, o);
  test::mark_recompute(l, 100);
  l.all_moves = true;
  expect_parts_give_the_same_bytes(l, o);
}

TEST(LayerParts, RefusesABlockOutsideThePartAndShortFiles) {
  TempDir dir;
  const RuleSet rules{Family::kKalah, 3, false, GrandSlam::kCapture, false, KalahEnd::kNoMove};
  const Layer l = make_layer(rules, 6, 3);  // 462 entries
  const WriteOptions o = test::write_options(64, 1);
  const Part p = cut(l, 64, 192);  // blocks 1 and 2
  const Part all = cut(l, 0, l.values.size());
  const LayerEncoder encoder("x", rules, 6, count_layer_values(all.source(false)), false, false, o);
  const auto nothing = [](std::uint64_t, std::span<EncodedBlock>) {};
  EXPECT_THROW(encoder.encode(0, 2, p.source(false), p.first, {}, 1, nothing), TableError);
  EXPECT_THROW(encoder.encode(1, 4, p.source(false), p.first, {}, 1, nothing), TableError);
  EXPECT_NO_THROW(encoder.encode(1, 3, p.source(false), p.first, {}, 1, nothing));
  // Counts that do not add up to the layer are refused.
  EXPECT_THROW(LayerEncoder("x", rules, 6, count_layer_values(p.source(false)), false, false, o),
               TableError);
  // A file finished before its last block leaves no file and no temporary.
  {
    LayerFileWriter out(dir / "short.sdb", encoder.head(), encoder.info().block_count);
    encoder.encode(1, 3, p.source(false), p.first, {}, 1, [&](auto, std::span<EncodedBlock> b) {
      for (const auto& block : b)
        out.append(block);
    });
    EXPECT_THROW(out.finish(), TableError);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  // A temporary shorter than its blocks is refused and removed; the file is not created.
  {
    const std::filesystem::path temp = temporary_path(dir / "cut.sdb", 78);
    const std::vector<std::byte> head = encoder.head();
    std::ofstream(temp, std::ios::binary)
        .write(reinterpret_cast<const char*>(head.data()),
               static_cast<std::streamsize>(head.size()));
    const std::vector<BlockSummary> sums = {BlockSummary{100, 10, 0, 0}};
    try {
      finish_layer_file(temp, dir / "cut.sdb", head.size(), sums);
      ADD_FAILURE() << "a short temporary was finished";
    } catch (const TableError& e) {
      EXPECT_EQ(e.code(), TableError::Code::kIo);
      EXPECT_NE(std::string(e.what()).find("shorter than its blocks"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  // No temporary at all.
  EXPECT_THROW(finish_layer_file(dir / "none.sdb.tmp.1", dir / "none.sdb", 0, {}), TableError);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace sowdb
