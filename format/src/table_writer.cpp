// The table file writer: write_layer and write_reach_layer (FORMAT.md, "Writing"; the steps of
// a competitive layer are in layer_parts.cpp, the header's bytes are laid out in header.cpp,
// the seek table's in seek_table.cpp, the frames' in block_codec.cpp).
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

#include "block_codec.h"
#include "header.h"
#include "seek_table.h"
#include "sowdb/format/index.h"
#include "sowdb/format/layer_parts.h"
#include "sowdb/format/table_file.h"
#include "table_common.h"
#include "writer_steps.h"

namespace sowdb {

using namespace table_internal;

namespace {

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

// Writes the blocks that `encode` compresses (on the executor's threads, kBlocksPerRound at a
// time, in block order) after `head`, then the seek table and the footer, and commits the file.
void write_blocks(const std::filesystem::path& path,
                  std::span<const std::byte> head,
                  const LayerInfo& info,
                  const WriteOptions& options,
                  const std::function<EncodedBlock(std::uint64_t block)>& encode) {
  LayerFileWriter out(path, head, info.block_count);
  std::vector<EncodedBlock> round;
  for (std::uint64_t start = 0; start < info.block_count; start += kBlocksPerRound) {
    const auto count = static_cast<std::size_t>(
        std::min<std::uint64_t>(kBlocksPerRound, info.block_count - start));
    round.assign(count, EncodedBlock{});
    run_tasks(options.executor, count, [&](std::size_t t) { round[t] = encode(start + t); });
    for (const EncodedBlock& block : round)
      out.append(block);
    if (options.progress) {
      options.progress(std::min(info.entries, (start + count) * options.block_entries),
                       info.entries);
    }
  }
  out.finish();
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
  if (options.format_version == 6)
    fail(Code::kInvalidArgument, name, "co-operative tables are written as format version 5 only");
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

  const auto header = serialise_header(info);
  const auto set_table = serialise_set_table(info.set_table);
  std::vector<std::byte> head(header.size() + set_table.size());
  std::copy(header.begin(), header.end(), head.begin());
  std::copy(set_table.begin(),
            set_table.end(),
            head.begin() + static_cast<std::ptrdiff_t>(header.size()));
  write_blocks(path, head, info, options, [&](std::uint64_t b) {
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
    EncodedBlock cb;
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
  if (options.format_version == 6) {
    write_layer_v6(path, rules_in, stones, source, options);
    return;
  }
  const LayerEncoder encoder(name,
                             rules_in,
                             stones,
                             count_layer_values(source, options.executor),
                             !source.recompute.empty(),
                             source.all_moves,
                             options);
  const LayerInfo& info = encoder.info();
  LayerFileWriter out(path, encoder.head(), info.block_count);
  encoder.encode(0,
                 info.block_count,
                 source,
                 0,
                 options.executor,
                 kBlocksPerRound,
                 [&](std::uint64_t start, std::span<EncodedBlock> blocks) {
                   for (const EncodedBlock& block : blocks)
                     out.append(block);
                   if (options.progress) {
                     options.progress(
                         std::min(info.entries, (start + blocks.size()) * options.block_entries),
                         info.entries);
                   }
                 });
  out.finish();
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