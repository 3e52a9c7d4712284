// The writer of format version 6 (FORMAT.md, "Version 6"): write_layer with
// WriteOptions::format_version 6. Two passes over the layer: the first counts the tokens of
// every context (in parallel over ranges of blocks), the second codes the blocks (in parallel,
// in rounds) with the canonical codes built from the counts. Both streams are held in memory
// until the file is written, since the block index and the group hashes precede them.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "block_codec.h"
#include "header.h"
#include "sowdb/format/huffman_code.h"
#include "sowdb/format/layer_parts.h"
#include "sowdb/format/table_file.h"
#include "table_common.h"
#include "v6_streams.h"
#include "writer_steps.h"

namespace sowdb::table_internal {

namespace {

using huffman::BitWriter;
using HuffCode = huffman::Code;

// One block's symbols and the (symbol, depth) of its depth-storing entries.
struct BlockData {
  std::vector<std::uint8_t> symbols;
  std::vector<std::uint8_t> stored_symbols;
  std::vector<std::uint16_t> stored_depths;
  std::vector<std::uint16_t> depths;
};

class V6Writer {
 public:
  V6Writer(const std::string& name,
           const LayerSource& source,
           const LayerEncoder& plan,
           const WriteOptions& options)
      : name_(name), source_(source), plan_(plan), options_(options), info_(plan.info()) {
    symbols_ = info_.value_table.size();
    for (std::size_t s = 0; s < symbols_; ++s)
      stores_[s] = stores_depth(info_.value_table[s]);
  }

  // Fills `d` with block b's symbols and stored depths; checks the depths as version 2..5 do.
  void load(std::uint64_t b, BlockData& d) const {
    const std::uint64_t first = b * info_.block_entries;
    const auto n = static_cast<std::size_t>(
        std::min<std::uint64_t>(info_.block_entries, info_.entries - first));
    d.symbols.resize(n);
    d.depths.resize(n);
    d.stored_symbols.clear();
    d.stored_depths.clear();
    source_.fill_depths(first, d.depths);
    const std::span<const std::uint64_t> marks = source_.recompute;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t at = first + i;
      const bool marked = !marks.empty() && ((marks[at / 64] >> (at % 64)) & 1) != 0;
      const std::int8_t v = source_.values[at];
      const std::int8_t byte = plan_.stored_byte(v, marked);
      const std::uint8_t sym = plan_.symbol(byte);
      const std::uint16_t depth = d.depths[i];
      d.symbols[i] = sym;
      if (stores_[sym]) {
        if (info_.recompute && depth == kRecomputeDepth) {
          fail(Code::kInvalidArgument,
               name_,
               "entry " + std::to_string(at) + " has depth " + std::to_string(kRecomputeDepth) +
                   ", which a file with recompute entries cannot store");
        }
        d.stored_symbols.push_back(sym);
        d.stored_depths.push_back(depth);
      } else if (byte == 0 && depth != 0) {
        fail(Code::kInvalidArgument,
             name_,
             "entry " + std::to_string(at) + " has value 0 and depth " + std::to_string(depth) +
                 " (depth codec 1 needs depth 0)");
      } else if (byte == kRecomputeValue && (v == 0 ? depth != 0 : depth > 1)) {
        fail(Code::kInvalidArgument,
             name_,
             "recompute entry " + std::to_string(at) + " has value " + std::to_string(v) +
                 " and depth " + std::to_string(depth) +
                 ", not the derived depth (0 for value 0, 0 or 1 for a value > 0)");
      }
    }
  }

  // "Value stream": emit(context, token) for each token of a block's symbols.
  template <typename Emit>
  void value_tokens(const BlockData& d, Emit&& emit) const {
    const auto start = static_cast<std::uint32_t>(symbols_);
    const std::uint8_t* s = d.symbols.data();
    const std::size_t k = d.symbols.size();
    std::uint32_t prev = start;
    for (std::size_t i = 0; i < k;) {
      if (prev != start) {
        std::size_t run = 0;
        while (i + run < k && run < 256 && s[i + run] == prev)
          ++run;
        if (run >= 2) {
          const std::uint32_t r = v6::run_token(run);
          emit(prev, start + r, 0u, 0);
          i += v6::kRunLengths[r];
          continue;
        }
      }
      emit(prev, s[i], 0u, 0);
      prev = s[i];
      ++i;
    }
  }

  // "Depth stream": emit(context, token, extra bits, their count) for a block's stored depths.
  template <typename Emit>
  void depth_tokens(const BlockData& d, Emit&& emit) const {
    const std::size_t m = d.stored_depths.size();
    std::uint32_t prev = 0;
    for (std::size_t j = 0; j < m;) {
      const std::uint32_t ctx =
          v6::depth_context(static_cast<std::uint32_t>(j), prev, d.stored_symbols[j]);
      if (j > 0) {
        std::size_t run = 0;
        while (j + run < m && run < 256 && d.stored_depths[j + run] == prev)
          ++run;
        if (run >= 2) {
          const std::uint32_t r = v6::run_token(run);
          emit(ctx, v6::kDepthEscape + 1 + r, 0u, 0);
          j += v6::kRunLengths[r];
          continue;
        }
      }
      const std::uint32_t depth = d.stored_depths[j];
      if (depth < v6::kDepthEscape)
        emit(ctx, depth, 0u, 0);
      else
        emit(ctx, v6::kDepthEscape, depth, 16);
      prev = depth;
      ++j;
    }
  }

  // Pass 1: the token counts of every context, and the codes built from them.
  void build_codes() {
    const std::size_t vt = v6::value_tokens(symbols_);
    const std::size_t vc = v6::value_contexts(symbols_);
    const std::uint64_t blocks = info_.block_count;
    const auto chunks = static_cast<std::size_t>(std::min<std::uint64_t>(blocks, 64));
    std::vector<std::vector<std::uint64_t>> vf(chunks), df(chunks);
    run_tasks(options_.executor, chunks, [&](std::size_t c) {
      vf[c].assign(vc * vt, 0);
      df[c].assign(std::size_t{v6::kDepthContexts} * v6::kDepthTokens, 0);
      BlockData d;
      for (std::uint64_t b = blocks * c / chunks; b < blocks * (c + 1) / chunks; ++b) {
        load(b, d);
        value_tokens(d, [&](std::uint32_t ctx, std::uint32_t tok, std::uint32_t, int) {
          ++vf[c][ctx * vt + tok];
        });
        depth_tokens(d, [&](std::uint32_t ctx, std::uint32_t tok, std::uint32_t, int) {
          ++df[c][ctx * v6::kDepthTokens + tok];
        });
      }
    });
    const auto codes = [&](std::vector<std::vector<std::uint64_t>>& counts,
                           std::size_t contexts,
                           std::size_t tokens,
                           std::vector<HuffCode>& out) {
      std::vector<std::uint64_t> total(contexts * tokens, 0);
      for (const auto& c : counts) {
        for (std::size_t i = 0; i < total.size(); ++i)
          total[i] += c[i];
      }
      for (std::size_t ctx = 0; ctx < contexts; ++ctx)
        out.push_back(huffman::build_code(std::span(total).subspan(ctx * tokens, tokens)));
    };
    codes(vf, vc, vt, codes_[0]);
    codes(df, v6::kDepthContexts, v6::kDepthTokens, codes_[1]);
  }

  // Pass 2: every block of both streams, in block order.
  void encode_blocks() {
    constexpr std::uint64_t kRound = 4096;
    const std::uint64_t blocks = info_.block_count;
    std::vector<std::vector<std::uint8_t>> round[2];
    for (std::uint64_t start = 0; start < blocks; start += kRound) {
      const auto count = static_cast<std::size_t>(std::min(kRound, blocks - start));
      for (auto& r : round)
        r.assign(count, {});
      run_tasks(options_.executor, count, [&](std::size_t t) {
        thread_local BlockData d;
        load(start + t, d);
        for (int s = 0; s < 2; ++s) {
          BitWriter w(round[s][t]);
          const auto put = [&](std::uint32_t ctx, std::uint32_t tok, std::uint32_t extra, int n) {
            const HuffCode& c = codes_[s][ctx];
            w.put(c.word[tok], c.len[tok]);
            if (n > 0)
              w.put(extra, n);
          };
          if (s == 0)
            value_tokens(d, put);
          else
            depth_tokens(d, put);
          w.flush();
        }
      });
      for (int s = 0; s < 2; ++s) {
        for (const auto& block : round[s]) {
          starts_[s].push_back(stream_[s].size());
          stream_[s].insert(stream_[s].end(), block.begin(), block.end());
        }
      }
      if (options_.progress) {
        options_.progress(std::min(info_.entries, (start + count) * info_.block_entries),
                          info_.entries);
      }
    }
  }

  // Writes the file: header, value table, layout record, code tables, indexes, hashes, streams.
  void write(const std::filesystem::path& path) const {
    LayerInfo info = info_;
    info.format_version = 6;
    const auto header = serialise_header(info);
    const auto table = serialise_value_table(info.value_table);
    const std::uint64_t data_start = header.size() + table.size();
    std::uint64_t sizes[2] = {stream_[0].size(), stream_[1].size()};
    int width[2];
    for (int s = 0; s < 2; ++s)
      width[s] = narrow_index(s) ? 2 : 4;
    const v6::Layout l = v6::make_layout(data_start, symbols_, info.block_count, sizes, width);
    std::vector<std::byte> bytes(static_cast<std::size_t>(l.data[0] - data_start), std::byte{0});
    const auto at = [&](std::uint64_t offset) { return bytes.data() + (offset - data_start); };
    put_le(at(l.layout), sizes[0], 8);
    put_le(at(l.layout) + 8, sizes[1], 8);
    put_le(at(l.layout) + 16, static_cast<std::uint64_t>(width[0]), 1);
    put_le(at(l.layout) + 17, static_cast<std::uint64_t>(width[1]), 1);
    for (int s = 0; s < 2; ++s) {
      // "Code tables": 4 bits a token, contexts in order, low nibble first.
      std::size_t nibble = 0;
      for (const HuffCode& c : codes_[s]) {
        for (const std::uint8_t len : c.len) {
          at(l.codes[s])[nibble / 2] |= static_cast<std::byte>(len << (4 * (nibble % 2)));
          ++nibble;
        }
      }
      // "Block index": a u64 base every 64 blocks, then each block's offset from its base.
      const std::uint32_t blocks = info.block_count;
      const std::uint32_t groups = (blocks + v6::kIndexGroupBlocks - 1) / v6::kIndexGroupBlocks;
      for (std::uint32_t g = 0; g < groups; ++g)
        put_le(at(l.index[s]) + 8 * g, starts_[s][g * v6::kIndexGroupBlocks], 8);
      std::byte* offsets = at(l.index[s]) + 8 * std::uint64_t{groups};
      for (std::uint32_t b = 0; b < blocks; ++b) {
        const std::uint64_t base = starts_[s][b - b % v6::kIndexGroupBlocks];
        put_le(offsets + std::uint64_t{b} * static_cast<std::uint64_t>(width[s]),
               starts_[s][b] - base,
               width[s]);
      }
      // "Group hashes".
      for (std::uint32_t g = 0; g * v6::kHashGroupBlocks < blocks; ++g) {
        const std::uint64_t first = starts_[s][g * v6::kHashGroupBlocks];
        const std::uint32_t end_block = std::min(blocks, (g + 1) * v6::kHashGroupBlocks);
        const std::uint64_t last = end_block == blocks ? sizes[s] : starts_[s][end_block];
        const auto group = std::as_bytes(
            std::span(stream_[s])
                .subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(last - first)));
        put_le(at(l.hashes[s]) + 4 * std::uint64_t{g}, hash32(group), 4);
      }
    }
    AtomicFile out(path);
    out.write(header);
    out.write(table);
    out.write(bytes);
    out.write(std::as_bytes(std::span(stream_[0])));
    out.write(std::as_bytes(std::span(stream_[1])));
    out.write(serialise_footer(out.hash()));
    out.commit();
  }

 private:
  // Whether every block of stream `s` starts less than 64 KiB after its index group's base.
  bool narrow_index(int s) const {
    for (std::size_t b = 0; b < starts_[s].size(); ++b) {
      if (starts_[s][b] - starts_[s][b - b % v6::kIndexGroupBlocks] > 0xFFFF)
        return false;
    }
    return true;
  }

  std::string name_;
  const LayerSource& source_;
  const LayerEncoder& plan_;
  const WriteOptions& options_;
  const LayerInfo& info_;
  std::size_t symbols_ = 0;
  std::array<bool, 256> stores_{};
  std::vector<HuffCode> codes_[2];
  std::vector<std::uint8_t> stream_[2];
  std::vector<std::uint64_t> starts_[2];
};

}  // namespace

void write_layer_v6(const std::filesystem::path& path,
                    const RuleSet& rules,
                    int stones,
                    const LayerSource& source,
                    const WriteOptions& options) {
  const std::string name = path.string();
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
  const LayerEncoder plan(name,
                          rules,
                          stones,
                          count_layer_values(source, options.executor),
                          !source.recompute.empty(),
                          source.all_moves,
                          plan_options);
  V6Writer writer(name, source, plan, options);
  writer.build_codes();
  writer.encode_blocks();
  writer.write(path);
}

}  // namespace sowdb::table_internal
