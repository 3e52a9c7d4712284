// The writer of format version 6 (FORMAT.md, "Version 6"; sowdb/format/v6_parts.h): the layer's
// plan and codes, each part's pieces of the index and hash sections, the file assembled in
// order, and write_layer with WriteOptions::format_version 6 built from them with one part.
// The streams are held in memory until the file is written, since the block index and the group
// hashes precede them.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "atomic_file.h"
#include "header.h"
#include "sowdb/format/layer_parts.h"
#include "sowdb/format/table_file.h"
#include "sowdb/format/v6_parts.h"
#include "table_common.h"
#include "v6_coder.h"
#include "v6_streams.h"
#include "writer_steps.h"

namespace sowdb {

using namespace table_internal;

namespace {

// The section's stream (0 values, 1 depths) and kind.
int stream_of(V6Section section) {
  switch (section) {
    case V6Section::kValueBases:
    case V6Section::kValueOffsets:
    case V6Section::kValueHashes:
    case V6Section::kValueStream:
      return 0;
    default:
      return 1;
  }
}

bool is_bases(V6Section s) {
  return s == V6Section::kValueBases || s == V6Section::kDepthBases;
}
bool is_offsets(V6Section s) {
  return s == V6Section::kValueOffsets || s == V6Section::kDepthOffsets;
}
bool is_hashes(V6Section s) {
  return s == V6Section::kValueHashes || s == V6Section::kDepthHashes;
}

std::uint32_t index_groups(std::uint64_t blocks) {
  return static_cast<std::uint32_t>((blocks + v6::kIndexGroupBlocks - 1) / v6::kIndexGroupBlocks);
}
std::uint32_t hash_groups(std::uint64_t blocks) {
  return static_cast<std::uint32_t>((blocks + v6::kHashGroupBlocks - 1) / v6::kHashGroupBlocks);
}

}  // namespace

V6TokenCounts& V6TokenCounts::operator+=(const V6TokenCounts& other) {
  const auto add = [](std::vector<std::uint64_t>& to, const std::vector<std::uint64_t>& from) {
    if (to.empty())
      to.assign(from.size(), 0);
    for (std::size_t i = 0; i < std::min(to.size(), from.size()); ++i)
      to[i] += from[i];
  };
  add(values, other.values);
  add(depths, other.depths);
  add(deepest, other.deepest);
  return *this;
}

void V6Part::place(const std::array<std::uint64_t, 2>& start, const std::array<int, 2>& width) {
  start_ = start;
  width_ = width;
  const std::uint64_t blocks = last_ - first_;
  for (int s = 0; s < 2; ++s) {
    if (max_offset_[s] > (width[s] == 2 ? 0xFFFFu : 0xFFFFFFFFu))
      fail(Code::kInvalidArgument, "version 6 part", "a block offset wider than its index");
    std::vector<std::byte>& bases = pieces_[static_cast<std::size_t>(2 * s)];
    std::vector<std::byte>& offsets = pieces_[static_cast<std::size_t>(2 * s + 1)];
    std::vector<std::byte>& hashes = pieces_[static_cast<std::size_t>(4 + s)];
    bases.assign(8 * std::uint64_t{index_groups(blocks)}, std::byte{0});
    offsets.assign(blocks * static_cast<std::uint64_t>(width[s]), std::byte{0});
    hashes.assign(4 * std::uint64_t{hash_groups(blocks)}, std::byte{0});
    // The part starts an index group (kV6PartBlocks), so every group's base is in the part.
    std::uint64_t at = 0, base = 0, group_start = 0;
    for (std::uint64_t i = 0; i < blocks; ++i) {
      if (i % v6::kIndexGroupBlocks == 0) {
        base = at;
        put_le(bases.data() + 8 * (i / v6::kIndexGroupBlocks), start[s] + at, 8);
      }
      put_le(offsets.data() + i * static_cast<std::uint64_t>(width[s]), at - base, width[s]);
      at += sizes_[s][i];
      if ((i + 1) % v6::kHashGroupBlocks == 0 || i + 1 == blocks) {
        const auto group = std::as_bytes(std::span(stream_[s])
                                             .subspan(static_cast<std::size_t>(group_start),
                                                      static_cast<std::size_t>(at - group_start)));
        put_le(hashes.data() + 4 * (i / v6::kHashGroupBlocks), hash32(group), 4);
        group_start = at;
      }
    }
  }
}

std::span<const std::byte> V6Part::piece(V6Section section) const {
  const auto i = static_cast<int>(section);
  if (i >= 6)
    return std::as_bytes(std::span(stream_[i - 6]));
  return pieces_[i];
}

std::uint64_t V6Part::piece_offset(V6Section section) const {
  const int s = stream_of(section);
  if (is_bases(section))
    return 8 * (first_ / v6::kIndexGroupBlocks);
  if (is_offsets(section))
    return first_ * static_cast<std::uint64_t>(width_[s]);
  if (is_hashes(section))
    return 4 * (first_ / v6::kHashGroupBlocks);
  return start_[s];
}

void V6Part::release(V6Section section) {
  const auto i = static_cast<int>(section);
  if (i >= 6)
    std::vector<std::uint8_t>().swap(stream_[i - 6]);
  else
    std::vector<std::byte>().swap(pieces_[i]);
}

V6LayerEncoder::V6LayerEncoder(const std::string& name,
                               const RuleSet& rules,
                               int stones,
                               const ValueCounts& counts,
                               bool marks,
                               bool all_moves,
                               const WriteOptions& options)
    : name_(name) {
  if (options.format_version != 6)
    fail(Code::kInvalidArgument, name, "V6LayerEncoder writes format version 6 only");
  if (options.depth_codec != DepthCodec::kNonZeroValues)
    fail(Code::kInvalidArgument, name, "format version 6 needs depth codec kNonZeroValues");
  if (options.block_entries > kMaxV6BlockEntries) {
    fail(Code::kInvalidArgument,
         name,
         "block_entries " + std::to_string(options.block_entries) + " above format version 6's " +
             std::to_string(kMaxV6BlockEntries));
  }
  // The value table and the recompute bytes are planned as for version 2..4 (LayerEncoder
  // refuses to be asked for version 6 itself).
  WriteOptions plan_options = options;
  plan_options.format_version = 0;
  plan_ =
      std::make_unique<LayerEncoder>(name, rules, stones, counts, marks, all_moves, plan_options);
  info_ = plan_->info();
  info_.format_version = 6;
  coder_ = std::make_unique<v6::Coder>(name, *plan_);
}

V6LayerEncoder::~V6LayerEncoder() = default;

const LayerInfo& V6LayerEncoder::info() const {
  return info_;
}

V6TokenCounts V6LayerEncoder::count(const LayerSource& part,
                                    std::uint64_t part_first,
                                    std::uint64_t first,
                                    std::uint64_t last,
                                    const Executor& executor) const {
  V6TokenCounts counts;
  coder_->count({part, part_first}, first, last, executor, counts);
  return counts;
}

void V6LayerEncoder::set_codes(const V6TokenCounts& layer) {
  coder_->set_codes(layer);
}

V6Part V6LayerEncoder::encode(const LayerSource& part,
                              std::uint64_t part_first,
                              std::uint64_t first,
                              std::uint64_t last,
                              const Executor& executor,
                              const std::function<void(std::uint64_t)>& progress) const {
  last = std::max(first, last);
  if (last > info_.block_count || (first < last && first % kV6PartBlocks != 0)) {
    fail(Code::kInvalidArgument,
         name_,
         "blocks [" + std::to_string(first) + ", " + std::to_string(last) +
             ") are not a version 6 part");
  }
  v6::CodedBlocks coded = coder_->encode({part, part_first}, first, last, executor, progress);
  V6Part p;
  p.first_ = first;
  p.last_ = last;
  for (int s = 0; s < 2; ++s) {
    std::uint64_t at = 0, base = 0, most = 0;
    for (std::size_t i = 0; i < coded.sizes[s].size(); ++i) {
      if (i % v6::kIndexGroupBlocks == 0)
        base = at;
      most = std::max(most, at - base);
      at += coded.sizes[s][i];
    }
    p.max_offset_[s] = most;
    p.stream_[s] = std::move(coded.stream[s]);
    p.sizes_[s] = std::move(coded.sizes[s]);
  }
  return p;
}

namespace {

v6::Layout layout_of(const LayerInfo& info, std::uint64_t data_start, const V6Streams& streams) {
  const std::uint64_t bytes[2] = {streams.bytes[0], streams.bytes[1]};
  const int width[2] = {streams.width[0], streams.width[1]};
  return v6::make_layout(data_start, info.value_table.size(), info.block_count, bytes, width);
}

std::uint64_t data_start_of(const LayerInfo& info) {
  return serialise_header(info).size() + serialise_value_table(info.value_table).size();
}

}  // namespace

std::vector<std::byte> V6LayerEncoder::head(const V6Streams& streams) const {
  const auto header = serialise_header(info_);
  const auto table = serialise_value_table(info_.value_table);
  const std::uint64_t data_start = header.size() + table.size();
  const v6::Layout l = layout_of(info_, data_start, streams);
  std::vector<std::byte> bytes(static_cast<std::size_t>(l.index[0]), std::byte{0});
  std::copy(header.begin(), header.end(), bytes.begin());
  std::copy(table.begin(), table.end(), bytes.begin() + static_cast<std::ptrdiff_t>(header.size()));
  std::byte* record = bytes.data() + l.layout;
  put_le(record, streams.bytes[0], 8);
  put_le(record + 8, streams.bytes[1], 8);
  put_le(record + 16, static_cast<std::uint64_t>(streams.width[0]), 1);
  put_le(record + 17, static_cast<std::uint64_t>(streams.width[1]), 1);
  for (int s = 0; s < 2; ++s) {
    // "Code tables": 4 bits a token, contexts in order, low nibble first.
    std::byte* codes = bytes.data() + l.codes[s];
    std::size_t nibble = 0;
    for (const huffman::Code& c : coder_->codes(s)) {
      for (const std::uint8_t len : c.len) {
        codes[nibble / 2] |= static_cast<std::byte>(len << (4 * (nibble % 2)));
        ++nibble;
      }
    }
  }
  return bytes;
}

std::uint64_t V6LayerEncoder::section_offset(V6Section section, const V6Streams& streams) const {
  const v6::Layout l = layout_of(info_, data_start_of(info_), streams);
  const int s = stream_of(section);
  if (is_bases(section))
    return l.index[s];
  if (is_offsets(section))
    return l.index[s] + 8 * std::uint64_t{index_groups(info_.block_count)};
  if (is_hashes(section))
    return l.hashes[s];
  return l.data[s];
}

std::uint64_t V6LayerEncoder::padding(V6Section section, const V6Streams& streams) const {
  const std::uint64_t blocks = info_.block_count;
  if (is_offsets(section)) {
    const std::uint64_t n = blocks * static_cast<std::uint64_t>(streams.width[stream_of(section)]);
    return pad8(n) - n;
  }
  if (is_hashes(section))
    return v6::hash_bytes(info_.block_count) - 4 * std::uint64_t{hash_groups(blocks)};
  return 0;
}

std::uint64_t V6LayerEncoder::footer_offset(const V6Streams& streams) const {
  return layout_of(info_, data_start_of(info_), streams).footer;
}

struct V6FileWriter::File {
  explicit File(const std::filesystem::path& path) : out(path) {}
  AtomicFile out;
};

V6FileWriter::V6FileWriter(const std::filesystem::path& path,
                           std::span<const std::byte> head,
                           std::uint64_t footer_offset)
    : file_(std::make_unique<File>(path)), name_(path.string()), footer_offset_(footer_offset) {
  append(head);
}

V6FileWriter::~V6FileWriter() = default;

void V6FileWriter::append(std::span<const std::byte> bytes) {
  if (file_->out.written() + bytes.size() > footer_offset_)
    fail(Code::kInvalidArgument, name_, "more bytes than the layout has before the footer");
  file_->out.write(bytes);
}

void V6FileWriter::pad(std::uint64_t count) {
  static constexpr std::array<std::byte, 64> kZeros{};
  while (count > 0) {
    const std::uint64_t n = std::min<std::uint64_t>(count, kZeros.size());
    append(std::span(kZeros).first(static_cast<std::size_t>(n)));
    count -= n;
  }
}

std::uint64_t V6FileWriter::written() const {
  return file_->out.written();
}

void V6FileWriter::finish() {
  if (file_->out.written() != footer_offset_) {
    fail(Code::kInvalidArgument,
         name_,
         std::to_string(file_->out.written()) + " of " + std::to_string(footer_offset_) +
             " bytes written before the footer");
  }
  file_->out.write(serialise_footer(file_->out.hash()));
  file_->out.commit();
}

void finish_v6_layer_file(const std::filesystem::path& temporary,
                          const std::filesystem::path& path,
                          std::uint64_t footer_offset) {
  AtomicFile out(path, temporary, footer_offset);
  out.write(serialise_footer(out.hash()));
  out.commit();
}

namespace table_internal {

void write_layer_v6(const std::filesystem::path& path,
                    const RuleSet& rules,
                    int stones,
                    const LayerSource& source,
                    const WriteOptions& options) {
  V6LayerEncoder encoder(path.string(),
                         rules,
                         stones,
                         count_layer_values(source, options.executor),
                         !source.recompute.empty(),
                         source.all_moves,
                         options);
  const LayerInfo& info = encoder.info();
  const std::uint64_t blocks = info.block_count;
  encoder.set_codes(encoder.count(source, 0, 0, blocks, options.executor));
  V6Part part = encoder.encode(source, 0, 0, blocks, options.executor, [&](std::uint64_t done) {
    if (options.progress)
      options.progress(std::min(info.entries, done * info.block_entries), info.entries);
  });
  V6Streams streams;
  for (int s = 0; s < 2; ++s) {
    streams.bytes[s] = part.stream_bytes(s);
    streams.width[s] = v6_index_width(part.max_offset(s));
  }
  part.place({0, 0}, streams.width);
  V6FileWriter out(path, encoder.head(streams), encoder.footer_offset(streams));
  for (int i = 0; i < kV6Sections; ++i) {
    const auto section = static_cast<V6Section>(i);
    out.append(part.piece(section));
    out.pad(encoder.padding(section, streams));
  }
  out.finish();
}

}  // namespace table_internal

}  // namespace sowdb
