// The table file writer: write_layer (FORMAT.md, "Writing"; the header's bytes are laid out in
// header.cpp, the seek table's in seek_table.cpp, the frames' in block_codec.cpp).
#include <zstd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "atomic_file.h"
#include "block_codec.h"
#include "header.h"
#include "seek_table.h"
#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "table_common.h"

namespace sowdb {

using namespace table_internal;

namespace {

using Histogram = std::array<std::uint64_t, 256>;

// Blocks compressed per executor call: bounds the compressed bytes held before writing.
constexpr std::size_t kBlocksPerRound = 256;

bool rules_in_range(const RuleSet& r) {
  return static_cast<int>(r.family) <= 2 && r.pits_per_side >= 1 &&
         r.pits_per_side <= kMaxPitsPerSide && static_cast<int>(r.grand_slam) <= 2 &&
         static_cast<int>(r.end) <= 1;
}

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

// The checks of a writer's input shared by both kinds of file: rule set, stone count, the
// number of entries given (`given` `noun`s for a layer of `per_entry` of them an entry) and the
// options.
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

// The checks of write_layer's input that need no pass over the values (plan_values checks
// those), all made before the temporary is created.
void check_arguments(const std::string& name,
                     const RuleSet& rules_in,
                     int stones,
                     const LayerSource& source,
                     const WriteOptions& options) {
  if (!source.fill_depths)
    fail(Code::kInvalidArgument, name, "no depth source (fill_depths is empty)");
  if (options.depth_codec != DepthCodec::kAll &&
      options.depth_codec != DepthCodec::kNonZeroValues) {
    fail(Code::kInvalidArgument, name, "unknown depth codec");
  }
  check_common(name, rules_in, stones, source.values.size(), 1, "values", options);
  const std::uint64_t entries = source.values.size();
  const std::span<const std::uint64_t> marks = source.recompute;
  if (!marks.empty()) {
    if (marks.size() != (entries + 63) / 64) {
      fail(Code::kInvalidArgument,
           name,
           "the recompute mask has " + count_text(marks.size(), "word", "words") +
               ", the layer needs " + std::to_string((entries + 63) / 64));
    }
    if (entries % 64 != 0 && (marks.back() >> (entries % 64)) != 0)
      fail(Code::kInvalidArgument, name, "the recompute mask marks entries past the layer");
  }
}

// How often each value occurs, over all entries and (with marks) over the marked ones.
struct ValueCounts {
  Histogram all{};
  Histogram marked{};
};

// Counts in chunks of whole mask words, on the executor's threads.
ValueCounts count_values(std::span<const std::int8_t> values,
                         std::span<const std::uint64_t> marks,
                         const Executor& executor) {
  constexpr std::uint64_t kCountChunk = std::uint64_t{1} << 20;
  const std::uint64_t entries = values.size();
  const std::size_t chunks = static_cast<std::size_t>((entries + kCountChunk - 1) / kCountChunk);
  std::vector<Histogram> chunk_freq(chunks), chunk_marked(marks.empty() ? 0 : chunks);
  run_tasks(executor, chunks, [&](std::size_t c) {
    const std::uint64_t first = c * kCountChunk;
    const std::uint64_t last = std::min(entries, first + kCountChunk);
    Histogram& f = chunk_freq[c];
    f.fill(0);
    // Four counters per value: runs of one value would otherwise wait on one counter.
    std::array<Histogram, 4> part{};
    std::uint64_t i = first;
    for (; i + 4 <= last; i += 4) {
      for (std::size_t k = 0; k < 4; ++k)
        ++part[k][static_cast<std::uint8_t>(values[i + k])];
    }
    for (; i < last; ++i)
      ++f[static_cast<std::uint8_t>(values[i])];
    for (std::size_t v = 0; v < 256; ++v)
      f[v] += part[0][v] + part[1][v] + part[2][v] + part[3][v];
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

// How the layer's entries become symbols: decided from the value counts before any block is
// written, since the value table precedes the blocks.
struct ValuePlan {
  bool use_recompute = false;
  bool all_moves = false;
  std::vector<std::int8_t> table;          // value-table bytes in symbol order
  std::array<std::uint8_t, 256> symbol{};  // by value-table byte
  // The byte each value stores, unmarked ([0]) and marked ([1]).
  std::array<std::int8_t, 256> byte_of[2]{};
};

ValuePlan plan_values(const std::string& name,
                      int stones,
                      const LayerSource& source,
                      const WriteOptions& options,
                      const ValueCounts& counts) {
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
  ValuePlan plan;
  if (!source.recompute.empty()) {
    Histogram marked_freq = freq;
    for (int v = -128; v <= 127; ++v) {
      const std::uint64_t count = counts.marked[static_cast<std::uint8_t>(v)];
      const bool stored_depth = v < 0 || source.all_moves;
      if (count == 0 || (stored_depth && !stored_recompute_byte))
        continue;
      marked_freq[static_cast<std::uint8_t>(v)] -= count;
      marked_freq[static_cast<std::uint8_t>(stored_depth ? kStoredRecomputeByte
                                                         : kRecomputeValue)] += count;
      plan.use_recompute = true;
    }
    // A value_count is at most 255: a 127-stone layer with all 255 values has no room for the
    // recompute byte, and is written without recompute entries.
    if (plan.use_recompute && std::count_if(marked_freq.begin(), marked_freq.end(), [](auto f) {
                                return f != 0;
                              }) > 255) {
      plan.use_recompute = false;
    }
    if (plan.use_recompute)
      freq = marked_freq;
  }
  if (plan.use_recompute && options.depth_codec == DepthCodec::kAll)
    fail(Code::kInvalidArgument, name, "recompute entries need depth codec kNonZeroValues");
  plan.all_moves = plan.use_recompute && source.all_moves;
  // "Value encoding": symbols in order of falling frequency, ties by rising byte.
  for (int v = -128; v <= 127; ++v) {
    if (freq[static_cast<std::uint8_t>(v)] != 0)
      plan.table.push_back(static_cast<std::int8_t>(v));
  }
  std::stable_sort(plan.table.begin(), plan.table.end(), [&](std::int8_t a, std::int8_t b) {
    return freq[static_cast<std::uint8_t>(a)] > freq[static_cast<std::uint8_t>(b)];
  });
  for (std::size_t i = 0; i < plan.table.size(); ++i)
    plan.symbol[static_cast<std::uint8_t>(plan.table[i])] = static_cast<std::uint8_t>(i);
  for (int v = -128; v <= 127; ++v) {
    const auto u = static_cast<std::uint8_t>(v);
    plan.byte_of[0][u] = static_cast<std::int8_t>(v);
    plan.byte_of[1][u] = static_cast<std::int8_t>(v);
    if (plan.use_recompute) {
      plan.byte_of[1][u] = v >= 0 && !source.all_moves ? kRecomputeValue
                           : stored_recompute_byte     ? kStoredRecomputeByte
                                                       : static_cast<std::int8_t>(v);
    }
  }
  return plan;
}

// The lowest version that describes the file ("Version"): depth codec 0 is version 1, depth
// codec 1 version 2, recompute entries version 3, under the all-moves rule version 4.
std::uint16_t version_for(const ValuePlan& plan, DepthCodec codec) {
  return plan.all_moves ? 4 : plan.use_recompute ? 3 : codec == DepthCodec::kAll ? 1 : 2;
}

// One compressed block: its two frames.
struct CompressedBlock {
  std::vector<std::byte> values;
  std::vector<std::byte> depths;
};

// Compresses block `b`, on whichever thread the executor runs it.
CompressedBlock encode_block(std::uint64_t b,
                             const ValuePlan& plan,
                             const LayerSource& source,
                             const WriteOptions& options,
                             const std::string& name) {
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

  const std::span<const std::int8_t> values = source.values;
  const std::span<const std::uint64_t> marks = source.recompute;
  const std::uint64_t first = b * options.block_entries;
  const auto n = static_cast<std::size_t>(
      std::min<std::uint64_t>(options.block_entries, values.size() - first));
  buffers.symbols.resize(n);
  buffers.bytes.resize(n);
  buffers.depths.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t at = first + i;
    const std::uint64_t mark = plan.use_recompute ? (marks[at / 64] >> (at % 64)) & 1 : 0;
    const std::int8_t byte = plan.byte_of[mark][static_cast<std::uint8_t>(values[at])];
    buffers.bytes[i] = byte;
    buffers.symbols[i] = static_cast<std::byte>(plan.symbol[static_cast<std::uint8_t>(byte)]);
  }
  CompressedBlock cb;
  cb.values = encode_value_frame(buffers.symbols, options, name);
  source.fill_depths(first, buffers.depths);
  cb.depths = encode_depth_frame(buffers.bytes,
                                 values.subspan(first, n),
                                 buffers.depths,
                                 plan.use_recompute,
                                 first,
                                 options,
                                 name);
  if (cb.values.size() > std::numeric_limits<std::uint32_t>::max() ||
      cb.depths.size() > std::numeric_limits<std::uint32_t>::max()) {
    fail(Code::kInvalidArgument, name, "compressed block too large");
  }
  return cb;
}

// Writes the blocks that `encode` compresses (on the executor's threads, kBlocksPerRound at a
// time, in block order), the seek table and the footer, and commits the file.
void write_blocks(AtomicFile& out,
                  const LayerInfo& info,
                  const WriteOptions& options,
                  const std::function<CompressedBlock(std::uint64_t block)>& encode) {
  std::vector<std::byte> seek(std::size_t{info.block_count} * kSeekEntrySize);
  std::vector<CompressedBlock> round;
  for (std::uint64_t start = 0; start < info.block_count; start += kBlocksPerRound) {
    const auto count = static_cast<std::size_t>(
        std::min<std::uint64_t>(kBlocksPerRound, info.block_count - start));
    round.assign(count, CompressedBlock{});
    run_tasks(options.executor, count, [&](std::size_t t) { round[t] = encode(start + t); });
    for (std::size_t t = 0; t < count; ++t) {
      const CompressedBlock& cb = round[t];
      SeekEntry e;
      e.offset = out.written();
      e.value_size = static_cast<std::uint32_t>(cb.values.size());
      e.depth_size = static_cast<std::uint32_t>(cb.depths.size());
      e.value_hash = hash32(cb.values);
      e.depth_hash = hash32(cb.depths);
      serialise_seek_entry(e, seek.data() + static_cast<std::size_t>(start + t) * kSeekEntrySize);
      out.write(cb.values);
      out.write(cb.depths);
    }
    if (options.progress) {
      options.progress(std::min(info.entries, (start + count) * options.block_entries),
                       info.entries);
    }
  }
  out.write(seek);
  out.write(serialise_footer(out.hash()));
  out.commit();
}

// --- Co-operative files ("Co-operative tables"). ---------------------------------------------

// One set's words, padded with zeros: a key for counting and numbering the distinct sets.
using SetKey = std::array<std::uint64_t, 4>;

struct SetKeyHash {
  std::size_t operator()(const SetKey& k) const {
    std::uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (std::uint64_t w : k) {
      h ^= w + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
      h *= 0xBF58476D1CE4E5B9ULL;
    }
    return static_cast<std::size_t>(h ^ (h >> 31));
  }
};

SetKey set_key(std::span<const std::uint64_t> sets, std::uint64_t i, std::size_t words) {
  SetKey k{};
  for (std::size_t w = 0; w < words; ++w)
    k[w] = sets[i * words + w];
  return k;
}

// The distinct sets in symbol order ("Set table": by falling frequency, ties by rising words,
// word 0 first) and each one's symbol. Checks every set: non-empty, nothing above bit 2n.
struct SetPlan {
  std::vector<std::uint64_t> table;
  std::unordered_map<SetKey, std::uint32_t, SetKeyHash> symbol;
};

SetPlan plan_sets(const std::string& name,
                  int stones,
                  std::span<const std::uint64_t> sets,
                  std::size_t words,
                  const Executor& executor) {
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 20;
  const std::uint64_t entries = sets.size() / words;
  const std::size_t chunks = static_cast<std::size_t>((entries + kChunk - 1) / kChunk);
  std::vector<std::unordered_map<SetKey, std::uint64_t, SetKeyHash>> counts(chunks);
  std::vector<std::uint64_t> bad(chunks, entries);  // the first bad entry of each chunk
  const int top = 2 * stones + 1;
  const int high_bits = top - 64 * static_cast<int>(words - 1);
  run_tasks(executor, chunks, [&](std::size_t c) {
    const std::uint64_t last = std::min(entries, (c + 1) * kChunk);
    // Neighbouring entries mostly share their set: count runs, not entries.
    SetKey run{};
    std::uint64_t run_length = 0;
    for (std::uint64_t i = c * kChunk; i < last; ++i) {
      const SetKey k = set_key(sets, i, words);
      const bool empty = k == SetKey{};
      if (empty || (high_bits < 64 && (k[words - 1] >> high_bits) != 0)) {
        bad[c] = i;
        return;
      }
      if (run_length != 0 && k == run) {
        ++run_length;
        continue;
      }
      if (run_length != 0)
        counts[c][run] += run_length;
      run = k;
      run_length = 1;
    }
    if (run_length != 0)
      counts[c][run] += run_length;
  });
  for (std::size_t c = 0; c < chunks; ++c) {
    if (bad[c] != entries) {
      const bool empty = set_key(sets, bad[c], words) == SetKey{};
      fail(Code::kInvalidArgument,
           name,
           "entry " + std::to_string(bad[c]) +
               (empty ? "'s set is empty" : "'s set has a difference outside [-n, n]"));
    }
  }
  std::unordered_map<SetKey, std::uint64_t, SetKeyHash> total;
  for (const auto& chunk : counts) {
    for (const auto& [k, n] : chunk)
      total[k] += n;
  }
  if (total.size() > kMaxSetCount) {
    fail(Code::kInvalidArgument,
         name,
         std::to_string(total.size()) + " distinct sets, more than a file holds (" +
             std::to_string(kMaxSetCount) + ")");
  }
  std::vector<std::pair<SetKey, std::uint64_t>> order(total.begin(), total.end());
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  SetPlan plan;
  for (std::size_t k = 0; k < order.size(); ++k) {
    plan.symbol.emplace(order[k].first, static_cast<std::uint32_t>(k));
    for (std::size_t w = 0; w < words; ++w)
      plan.table.push_back(order[k].first[w]);
  }
  return plan;
}

}  // namespace

void write_reach_layer(const std::filesystem::path& path,
                       const RuleSet& rules_in,
                       int stones,
                       std::span<const std::uint64_t> sets,
                       const WriteOptions& options) {
  const std::string name = path.string();
  const int words_int = stones >= 0 && stones <= kMaxIndexedStones ? reach_set_words(stones) : 1;
  const auto words = static_cast<std::size_t>(words_int);
  check_common(name, rules_in, stones, sets.size(), words, "set words", options);
  const SetPlan plan = plan_sets(name, stones, sets, words, options.executor);
  LayerInfo info;
  info.rules = rules_in.normalised();
  info.stones = stones;
  info.entries = sets.size() / words;
  info.block_entries = options.block_entries;
  info.block_count =
      static_cast<std::uint32_t>(block_count_for(info.entries, options.block_entries));
  info.format_version = 5;
  info.depth_codec = DepthCodec::kNone;
  info.objective = Objective::kCooperative;
  info.set_table = plan.table;
  info.set_count = static_cast<std::uint32_t>(plan.table.size() / words);
  const int width = set_symbol_width(info.set_count);

  AtomicFile out(path);
  out.write(serialise_header(info));
  out.write(serialise_set_table(info.set_table));
  write_blocks(out, info, options, [&](std::uint64_t b) {
    const std::uint64_t first = b * options.block_entries;
    const auto n = static_cast<std::size_t>(
        std::min<std::uint64_t>(options.block_entries, info.entries - first));
    // "Set symbols": the symbols' low bytes, then (wider symbols) their higher bytes.
    std::vector<std::byte> planes(n * static_cast<std::size_t>(width));
    SetKey last{};
    std::uint32_t last_symbol = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const SetKey k = set_key(sets, first + i, words);
      if (i == 0 || !(k == last)) {
        last = k;
        last_symbol = plan.symbol.at(k);
      }
      for (int p = 0; p < width; ++p)
        planes[static_cast<std::size_t>(p) * n + i] =
            static_cast<std::byte>(last_symbol >> (8 * p));
    }
    CompressedBlock cb;
    cb.values = encode_value_frame(planes, options, name);
    cb.depths = encode_empty_frame(options, name);
    return cb;
  });
}

void write_layer(const std::filesystem::path& path,
                 const RuleSet& rules_in,
                 int stones,
                 const LayerSource& source,
                 const WriteOptions& options) {
  const std::string name = path.string();
  // Validate everything before creating the temporary.
  check_arguments(name, rules_in, stones, source, options);
  const ValueCounts counts = count_values(source.values, source.recompute, options.executor);
  const ValuePlan plan = plan_values(name, stones, source, options, counts);
  LayerInfo info;
  info.rules = rules_in.normalised();
  info.stones = stones;
  info.entries = source.values.size();
  info.block_entries = options.block_entries;
  info.block_count =
      static_cast<std::uint32_t>(block_count_for(info.entries, options.block_entries));
  info.format_version = version_for(plan, options.depth_codec);
  info.depth_codec = options.depth_codec;
  info.recompute = plan.use_recompute;
  info.all_moves = plan.all_moves;
  info.value_table = plan.table;

  AtomicFile out(path);
  out.write(serialise_header(info));
  out.write(serialise_value_table(info.value_table));
  write_blocks(out, info, options, [&](std::uint64_t b) {
    return encode_block(b, plan, source, options, name);
  });
}

void write_layer(const std::filesystem::path& path,
                 const RuleSet& rules,
                 int stones,
                 std::span<const std::int8_t> values,
                 std::span<const std::uint16_t> depths,
                 const WriteOptions& options) {
  if (depths.size() != values.size()) {
    fail(Code::kInvalidArgument,
         path.string(),
         "got " + count_text(values.size(), "value", "values") + " and " +
             count_text(depths.size(), "depth", "depths"));
  }
  LayerSource source;
  source.values = values;
  source.fill_depths = [depths](std::uint64_t first, std::span<std::uint16_t> out) {
    std::copy_n(depths.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
  };
  write_layer(path, rules, stones, source, options);
}

}  // namespace sowdb
