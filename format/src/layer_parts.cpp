// The steps of the layer writer (layer_parts.h): value counts, the value plan, block
// compression, and the file assembled from blocks in order (FORMAT.md, "Value encoding",
// "Seek table", "Writing"). write_layer (table_writer.cpp) is built from them.
#include "sowdb/format/layer_parts.h"

#include <zstd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "atomic_file.h"
#include "block_codec.h"
#include "header.h"
#include "seek_table.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "table_common.h"
#include "writer_steps.h"

namespace sowdb {

namespace table_internal {

namespace {

bool rules_in_range(const RuleSet& r) {
  return static_cast<int>(r.family) <= 2 && r.pits_per_side >= 1 &&
         r.pits_per_side <= kMaxPitsPerSide && static_cast<int>(r.grand_slam) <= 2 &&
         static_cast<int>(r.end) <= 1;
}

}  // namespace

void run_tasks(const Executor& executor,
               std::size_t tasks,
               const std::function<void(std::size_t)>& task) {
  if (executor) {
    executor(tasks, task);
  } else {
    for (std::size_t t = 0; t < tasks; ++t)
      task(t);
  }
}

void check_common(const std::string& name,
                  const RuleSet& rules_in,
                  int stones,
                  std::uint64_t given,
                  std::uint64_t per_entry,
                  const char* noun,
                  const WriteOptions& options) {
  if (!rules_in_range(rules_in))
    fail(Code::kInvalidArgument, name, "rule set out of range");
  if (stones < 0 || stones > kMaxIndexedStones)
    fail(Code::kInvalidArgument, name, "stones " + std::to_string(stones) + " out of range");
  const std::uint64_t entries = layer_size(rules_in.normalised().pits(), stones);
  if (given != entries * per_entry) {
    fail(Code::kInvalidArgument,
         name,
         "the layer has " + count_text(entries, "entry", "entries") + "; got " +
             std::to_string(given) + " " + noun);
  }
  if (options.format_version != 0 && options.format_version != 6) {
    fail(Code::kInvalidArgument,
         name,
         "format version " + std::to_string(options.format_version) +
             " cannot be asked for (0: the lowest that describes the file, or 6)");
  }
  if (options.block_entries < 1 || options.block_entries > kMaxBlockEntries) {
    fail(Code::kInvalidArgument,
         name,
         "block_entries " + std::to_string(options.block_entries) + " out of range");
  }
  if (options.zstd_level < ZSTD_minCLevel() || options.zstd_level > ZSTD_maxCLevel()) {
    fail(Code::kInvalidArgument,
         name,
         "zstd level " + std::to_string(options.zstd_level) + " out of range");
  }
  if (options.zstd_min_match != 0 && options.zstd_min_match != kAutoMinMatch) {
    const ZSTD_bounds mm = ZSTD_cParam_getBounds(ZSTD_c_minMatch);
    if (options.zstd_min_match < mm.lowerBound || options.zstd_min_match > mm.upperBound) {
      fail(Code::kInvalidArgument,
           name,
           "zstd minimum match " + std::to_string(options.zstd_min_match) + " out of range");
    }
  }
  if (block_count_for(entries, options.block_entries) > std::numeric_limits<std::uint32_t>::max())
    fail(Code::kInvalidArgument, name, "too many blocks; raise block_entries");
}

}  // namespace table_internal

using namespace table_internal;

namespace {

using Histogram = std::array<std::uint64_t, 256>;

}  // namespace

ValueCounts& ValueCounts::operator+=(const ValueCounts& other) {
  for (std::size_t v = 0; v < 256; ++v) {
    all[v] += other.all[v];
    marked[v] += other.marked[v];
  }
  return *this;
}

// Counts in chunks of whole mask words, on the executor's threads.
ValueCounts count_layer_values(const LayerSource& part, const Executor& executor) {
  constexpr std::uint64_t kCountChunk = std::uint64_t{1} << 20;
  const std::span<const std::int8_t> values = part.values;
  const std::span<const std::uint64_t> marks = part.recompute;
  const std::uint64_t entries = values.size();
  const std::size_t chunks = static_cast<std::size_t>((entries + kCountChunk - 1) / kCountChunk);
  std::vector<Histogram> chunk_freq(chunks), chunk_marked(marks.empty() ? 0 : chunks);
  run_tasks(executor, chunks, [&](std::size_t c) {
    const std::uint64_t first = c * kCountChunk;
    const std::uint64_t last = std::min(entries, first + kCountChunk);
    Histogram& f = chunk_freq[c];
    f.fill(0);
    // Four counters per value: runs of one value would otherwise wait on one counter.
    std::array<Histogram, 4> counters{};
    std::uint64_t i = first;
    for (; i + 4 <= last; i += 4) {
      for (std::size_t k = 0; k < 4; ++k)
        ++counters[k][static_cast<std::uint8_t>(values[i + k])];
    }
    for (; i < last; ++i)
      ++f[static_cast<std::uint8_t>(values[i])];
    for (std::size_t v = 0; v < 256; ++v)
      f[v] += counters[0][v] + counters[1][v] + counters[2][v] + counters[3][v];
    if (marks.empty())
      return;
    Histogram& m = chunk_marked[c];
    m.fill(0);
    for (std::uint64_t w = first / 64; w < (last + 63) / 64; ++w) {
      for (std::uint64_t bits = marks[w]; bits != 0; bits &= bits - 1)
        ++m[static_cast<std::uint8_t>(values[w * 64 + std::countr_zero(bits)])];
    }
  });
  ValueCounts counts;
  for (std::size_t c = 0; c < chunks; ++c) {
    for (std::size_t v = 0; v < 256; ++v) {
      counts.all[v] += chunk_freq[c][v];
      if (!marks.empty())
        counts.marked[v] += chunk_marked[c][v];
    }
  }
  return counts;
}

LayerEncoder::LayerEncoder(const std::string& name,
                           const RuleSet& rules,
                           int stones,
                           const ValueCounts& counts,
                           bool marks,
                           bool all_moves,
                           const WriteOptions& options)
    : name_(name), options_(options) {
  std::uint64_t entries = 0;
  for (const std::uint64_t c : counts.all)
    entries += c;
  check_common(name, rules, stones, entries, 1, "values", options);
  // Its blocks are zstd frames: version 6 is write_layer's alone (v6_writer.cpp plans with a
  // copy of the options that asks for no version), so that a caller that compresses parts
  // (sowdb-mpi) never writes another version than the one asked for.
  if (options.format_version == 6) {
    fail(Code::kInvalidArgument,
         name,
         "format version 6 is written by write_layer only, not in parts (LayerEncoder)");
  }
  Histogram freq = counts.all;
  for (int v = -128; v <= 127; ++v) {
    if (freq[static_cast<std::uint8_t>(v)] != 0 && (v < -stones || v > stones)) {
      fail(Code::kInvalidArgument,
           name,
           "value " + std::to_string(v) + " outside [-" + std::to_string(stones) + ", " +
               std::to_string(stones) + "]");
    }
  }
  // "Recompute entries": the byte each entry stores. A marked entry of value >= 0 stores
  // kRecomputeValue (under the all-moves rule kStoredRecomputeByte), one of value < 0
  // kStoredRecomputeByte (in layers of at most 126 stones; else its value).
  const bool stored_recompute_byte = stones <= kMaxStonesWithStoredRecompute;
  if (marks) {
    Histogram marked_freq = freq;
    for (int v = -128; v <= 127; ++v) {
      const std::uint64_t count = counts.marked[static_cast<std::uint8_t>(v)];
      const bool stored_depth = v < 0 || all_moves;
      if (count == 0 || (stored_depth && !stored_recompute_byte))
        continue;
      marked_freq[static_cast<std::uint8_t>(v)] -= count;
      marked_freq[static_cast<std::uint8_t>(stored_depth ? kStoredRecomputeByte
                                                         : kRecomputeValue)] += count;
      use_recompute_ = true;
    }
    // A value_count is at most 255: a 127-stone layer with all 255 values has no room for the
    // recompute byte, and is written without recompute entries.
    if (use_recompute_ && std::count_if(marked_freq.begin(), marked_freq.end(), [](auto f) {
                            return f != 0;
                          }) > 255) {
      use_recompute_ = false;
    }
    if (use_recompute_)
      freq = marked_freq;
  }
  if (use_recompute_ && options.depth_codec == DepthCodec::kAll)
    fail(Code::kInvalidArgument, name, "recompute entries need depth codec kNonZeroValues");
  std::vector<std::int8_t> table;
  // "Value encoding": symbols in order of falling frequency, ties by rising byte.
  for (int v = -128; v <= 127; ++v) {
    if (freq[static_cast<std::uint8_t>(v)] != 0)
      table.push_back(static_cast<std::int8_t>(v));
  }
  std::stable_sort(table.begin(), table.end(), [&](std::int8_t a, std::int8_t b) {
    return freq[static_cast<std::uint8_t>(a)] > freq[static_cast<std::uint8_t>(b)];
  });
  for (std::size_t i = 0; i < table.size(); ++i)
    symbol_[static_cast<std::uint8_t>(table[i])] = static_cast<std::uint8_t>(i);
  for (int v = -128; v <= 127; ++v) {
    const auto u = static_cast<std::uint8_t>(v);
    byte_of_[0][u] = static_cast<std::int8_t>(v);
    byte_of_[1][u] = static_cast<std::int8_t>(v);
    if (use_recompute_) {
      byte_of_[1][u] = v >= 0 && !all_moves    ? kRecomputeValue
                       : stored_recompute_byte ? kStoredRecomputeByte
                                               : static_cast<std::int8_t>(v);
    }
  }
  const bool plan_all_moves = use_recompute_ && all_moves;
  info_.rules = rules.normalised();
  info_.stones = stones;
  info_.entries = entries;
  info_.block_entries = options.block_entries;
  info_.block_count = static_cast<std::uint32_t>(block_count_for(entries, options.block_entries));
  // The lowest version that describes the file ("Version"): depth codec 0 is version 1, depth
  // codec 1 version 2, recompute entries version 3, under the all-moves rule version 4.
  info_.format_version = plan_all_moves                            ? 4
                         : use_recompute_                          ? 3
                         : options.depth_codec == DepthCodec::kAll ? 1
                                                                   : 2;
  info_.depth_codec = options.depth_codec;
  info_.recompute = use_recompute_;
  info_.all_moves = plan_all_moves;
  info_.value_table = std::move(table);
}

std::vector<std::byte> LayerEncoder::head() const {
  const auto header = serialise_header(info_);
  const auto table = serialise_value_table(info_.value_table);
  // Sized first: inserting after the header's bytes trips g++ 12's -Warray-bounds.
  std::vector<std::byte> out(header.size() + table.size());
  std::copy(header.begin(), header.end(), out.begin());
  std::copy(table.begin(), table.end(), out.begin() + static_cast<std::ptrdiff_t>(header.size()));
  return out;
}

// Compresses block `b`, on whichever thread the executor runs it.
EncodedBlock LayerEncoder::encode_block(std::uint64_t b,
                                        const LayerSource& part,
                                        std::uint64_t part_first) const {
  // The buffers are the thread's, unless a task of this thread is already using them (a
  // fill_depths or an executor that waits on nested parallel work can run another block's task
  // on the waiting thread).
  struct Buffers {
    std::vector<std::byte> symbols;
    std::vector<std::int8_t> bytes;
    std::vector<std::uint16_t> depths;
    bool busy = false;
  };
  thread_local Buffers thread_buffers;
  Buffers own;
  Buffers& buffers = thread_buffers.busy ? own : thread_buffers;
  buffers.busy = true;
  struct Release {
    Buffers& b;
    ~Release() { b.busy = false; }
  } release{buffers};

  const std::span<const std::int8_t> values = part.values;
  const std::span<const std::uint64_t> marks = part.recompute;
  const std::uint64_t first = b * options_.block_entries;  // in the layer
  const auto n = static_cast<std::size_t>(
      std::min<std::uint64_t>(options_.block_entries, info_.entries - first));
  if (first < part_first || first + n > part_first + values.size())
    fail(Code::kInvalidArgument, name_, "block " + std::to_string(b) + " is not in the part");
  const std::uint64_t local = first - part_first;  // in the part
  buffers.symbols.resize(n);
  buffers.bytes.resize(n);
  buffers.depths.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t at = local + i;
    const std::uint64_t mark = use_recompute_ ? (marks[at / 64] >> (at % 64)) & 1 : 0;
    const std::int8_t byte = byte_of_[mark][static_cast<std::uint8_t>(values[at])];
    buffers.bytes[i] = byte;
    buffers.symbols[i] = static_cast<std::byte>(symbol_[static_cast<std::uint8_t>(byte)]);
  }
  EncodedBlock cb;
  cb.values = encode_value_frame(buffers.symbols, options_, name_);
  part.fill_depths(local, buffers.depths);
  cb.depths = encode_depth_frame(buffers.bytes,
                                 values.subspan(local, n),
                                 buffers.depths,
                                 use_recompute_,
                                 first,
                                 options_,
                                 name_);
  if (cb.values.size() > std::numeric_limits<std::uint32_t>::max() ||
      cb.depths.size() > std::numeric_limits<std::uint32_t>::max()) {
    fail(Code::kInvalidArgument, name_, "compressed block too large");
  }
  return cb;
}

void LayerEncoder::encode(
    std::uint64_t first,
    std::uint64_t last,
    const LayerSource& part,
    std::uint64_t part_first,
    const Executor& executor,
    std::size_t batch,
    const std::function<void(std::uint64_t, std::span<EncodedBlock>)>& take) const {
  batch = std::max<std::size_t>(batch, 1);
  std::vector<EncodedBlock> round;
  for (std::uint64_t start = first; start < last; start += batch) {
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(batch, last - start));
    round.assign(count, EncodedBlock{});
    run_tasks(executor, count, [&](std::size_t t) {
      round[t] = encode_block(start + t, part, part_first);
    });
    take(start, round);
  }
}

BlockSummary BlockSummary::of(const EncodedBlock& block) {
  BlockSummary s;
  s.value_size = static_cast<std::uint32_t>(block.values.size());
  s.depth_size = static_cast<std::uint32_t>(block.depths.size());
  s.value_hash = hash32(block.values);
  s.depth_hash = hash32(block.depths);
  return s;
}

std::vector<std::byte> seek_table_bytes(std::uint64_t data_start,
                                        std::span<const BlockSummary> blocks) {
  std::vector<std::byte> seek(blocks.size() * kSeekEntrySize);
  std::uint64_t offset = data_start;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    SeekEntry e;
    e.offset = offset;
    e.value_size = blocks[b].value_size;
    e.depth_size = blocks[b].depth_size;
    e.value_hash = blocks[b].value_hash;
    e.depth_hash = blocks[b].depth_hash;
    serialise_seek_entry(e, seek.data() + b * kSeekEntrySize);
    offset += std::uint64_t{e.value_size} + e.depth_size;
  }
  return seek;
}

std::vector<std::byte> footer_bytes(const Xxh64& hash) {
  const auto footer = serialise_footer(hash);
  return std::vector<std::byte>(footer.begin(), footer.end());
}

std::filesystem::path temporary_path(const std::filesystem::path& path, long pid) {
  return path.string() + kTemporaryInfix + std::to_string(pid);
}

void finish_layer_file(const std::filesystem::path& temporary,
                       const std::filesystem::path& path,
                       std::uint64_t data_start,
                       std::span<const BlockSummary> blocks) {
  std::uint64_t end = data_start;
  for (const BlockSummary& s : blocks)
    end += std::uint64_t{s.value_size} + s.depth_size;
  AtomicFile out(path, temporary, end);
  out.write(seek_table_bytes(data_start, blocks));
  out.write(serialise_footer(out.hash()));
  out.commit();
}

struct LayerFileWriter::File {
  explicit File(const std::filesystem::path& path) : out(path) {}
  AtomicFile out;
};

LayerFileWriter::LayerFileWriter(const std::filesystem::path& path,
                                 std::span<const std::byte> head,
                                 std::uint32_t block_count)
    : file_(std::make_unique<File>(path)),
      name_(path.string()),
      data_start_(head.size()),
      block_count_(block_count) {
  summaries_.reserve(block_count);
  file_->out.write(head);
}

LayerFileWriter::~LayerFileWriter() = default;

void LayerFileWriter::append(std::span<const BlockSummary> blocks,
                             std::span<const std::byte> bytes) {
  std::uint64_t total = 0;
  for (const BlockSummary& s : blocks)
    total += std::uint64_t{s.value_size} + s.depth_size;
  if (total != bytes.size())
    fail(Code::kInvalidArgument, name_, "the blocks' sizes do not add up to the bytes given");
  if (summaries_.size() + blocks.size() > block_count_)
    fail(Code::kInvalidArgument, name_, "more blocks than the layer has");
  file_->out.write(bytes);
  summaries_.insert(summaries_.end(), blocks.begin(), blocks.end());
}

void LayerFileWriter::append(const EncodedBlock& block) {
  if (summaries_.size() + 1 > block_count_)
    fail(Code::kInvalidArgument, name_, "more blocks than the layer has");
  file_->out.write(block.values);
  file_->out.write(block.depths);
  summaries_.push_back(BlockSummary::of(block));
}

void LayerFileWriter::finish() {
  if (summaries_.size() != block_count_) {
    fail(Code::kInvalidArgument,
         name_,
         std::to_string(summaries_.size()) + " of " + std::to_string(block_count_) +
             " blocks written");
  }
  file_->out.write(seek_table_bytes(data_start_, summaries_));
  file_->out.write(serialise_footer(file_->out.hash()));
  file_->out.commit();
}

}  // namespace sowdb
