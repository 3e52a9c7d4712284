// The block coder of format version 6 (FORMAT.md, "Version 6 streams"; v6_coder.h): two passes
// over a run of blocks, the first counting the tokens of every context (in parallel over ranges
// of blocks), the second coding the blocks (in parallel, in rounds) with the canonical codes
// built from the whole layer's counts.
#include "v6_coder.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "block_codec.h"
#include "table_common.h"
#include "v6_streams.h"
#include "writer_steps.h"

namespace sowdb::table_internal::v6 {

// One block's entries as the streams code them; the vectors keep their capacity from block
// to block.
struct BlockData {
  std::vector<std::uint16_t> depths;  // every entry's depth, as fill_depths gives them
  std::vector<std::uint8_t> symbols;  // every entry's value-table symbol
  std::vector<std::uint8_t> classes;  // min(symbol, 3) of each entry that stores its depth
  std::vector<std::uint16_t> stored;  // the depth of each entry that stores it
  std::size_t k = 0;                  // entries
  std::size_t m = 0;                  // stored depths
};

// The coded blocks of a run of consecutive blocks, both streams, in a buffer that keeps its
// room from round to round.
struct CodedChunk {
  std::unique_ptr<std::uint8_t[]> bytes[2];
  std::size_t room[2] = {0, 0};
  std::size_t used[2] = {0, 0};
  std::vector<std::uint32_t> sizes[2];  // each block's bytes

  // Room for `more` bytes after the used ones in stream s.
  std::uint8_t* reserve(int s, std::size_t more) {
    if (used[s] + more > room[s]) {
      const std::size_t grown = std::max(2 * room[s], used[s] + more);
      std::unique_ptr<std::uint8_t[]> next(new std::uint8_t[grown]);
      if (used[s] > 0)
        std::memcpy(next.get(), bytes[s].get(), used[s]);
      bytes[s] = std::move(next);
      room[s] = grown;
    }
    return bytes[s].get() + used[s];
  }
};

namespace {

using HuffCode = huffman::Code;

// The run token of each run length 2..256 ("Value stream": the longest run not longer).
const std::array<std::uint8_t, 257>& run_tokens() {
  static const std::array<std::uint8_t, 257> table = [] {
    std::array<std::uint8_t, 257> t{};
    for (std::size_t run = 2; run <= 256; ++run)
      t[run] = static_cast<std::uint8_t>(v6::run_token(run));
    return t;
  }();
  return table;
}

// The counts of a layer of kSampleFromBlocks blocks or more are taken over every kSampleStep-th
// block: the codes of the sample cost about 0.2% in bytes (the tokens it did not see take code
// space), and the counting a sixteenth of its time.
constexpr std::uint64_t kSampleFromBlocks = 4096;
constexpr std::uint64_t kSampleStep = 16;

// Bytes readable past a block's symbols and stored depths, for run_of's word reads.
constexpr std::size_t kRunSlack = 8;

// The number of leading elements of s[0 .. most) equal to `prev` (the elements may be read up
// to 8 bytes past `most`): a word at a time, so that a run's end costs one branch, not one per
// element.
template <typename T>
std::size_t run_of(const T* s, std::size_t most, T prev) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2);
  if constexpr (std::endian::native != std::endian::little) {
    std::size_t run = 0;
    while (run < most && s[run] == prev)
      ++run;
    return run;
  } else {
    constexpr std::uint64_t kOnes = sizeof(T) == 1 ? 0x0101010101010101ULL : 0x0001000100010001ULL;
    const std::uint64_t pattern = kOnes * prev;
    std::size_t run = 0;
    while (run < most) {
      std::uint64_t w;
      std::memcpy(&w, s + run, 8);
      const std::uint64_t x = w ^ pattern;
      if (x != 0)
        return std::min(most,
                        run + static_cast<std::size_t>(std::countr_zero(x)) / (8 * sizeof(T)));
      run += 8 / sizeof(T);
    }
    return most;
  }
}

// Appends bits MSB first at a raw pointer, 32 bits at a time; the caller provides the room
// (BitWriter's output, without a vector push per byte).
class BlockBits {
 public:
  explicit BlockBits(std::uint8_t* p) : p_(p) {}
  // The low `count` bits of `bits`, count 0..16.
  void put(std::uint32_t bits, int count) {
    acc_ = (acc_ << count) | bits;
    n_ += count;
    if (n_ >= 32) {
      n_ -= 32;
      const std::uint32_t w = __builtin_bswap32(static_cast<std::uint32_t>(acc_ >> n_));
      std::memcpy(p_, &w, 4);
      p_ += 4;
    }
  }
  // Pads the last byte with zero bits; returns the end of the bytes written.
  std::uint8_t* finish() {
    while (n_ >= 8) {
      n_ -= 8;
      *p_++ = static_cast<std::uint8_t>(acc_ >> n_);
    }
    if (n_ > 0)
      *p_++ = static_cast<std::uint8_t>(acc_ << (8 - n_));
    n_ = 0;
    return p_;
  }

 private:
  std::uint8_t* p_;
  std::uint64_t acc_ = 0;
  int n_ = 0;
};

}  // namespace

Coder::Coder(const std::string& name, const LayerEncoder& plan)
    : name_(name), plan_(plan), info_(plan.info()) {
  symbols_ = info_.value_table.size();
  for (std::size_t s = 0; s < symbols_; ++s)
    stores_[s] = stores_depth(info_.value_table[s]);
  for (std::uint32_t marked = 0; marked < 2; ++marked) {
    for (std::uint32_t u = 0; u < 256; ++u) {
      const auto v = static_cast<std::int8_t>(u);
      const std::int8_t byte = plan_.stored_byte(v, marked != 0);
      EntryRule& e = rules_[marked << 8 | u];
      e.symbol = plan_.symbol(byte);
      e.cls = static_cast<std::uint8_t>(std::min<std::uint8_t>(e.symbol, 3));
      e.stores = stores_[e.symbol] ? 1 : 0;
      // The bounds of load's checks: a stored depth other than kRecomputeDepth in a file
      // with recompute entries; 0 for value 0; a derived depth for a recompute entry.
      e.max_depth = e.stores != 0 ? (info_.recompute ? kRecomputeDepth - 1 : kRecomputeDepth)
                    : byte == 0   ? 0
                    : byte == kRecomputeValue ? (v == 0 ? 0 : 1)
                                              : kRecomputeDepth;
    }
  }
}

std::uint64_t Coder::sample_step() const {
  return info_.block_count >= kSampleFromBlocks ? kSampleStep : 1;
}

std::size_t Coder::value_tokens() const {
  return v6::value_tokens(symbols_);
}

std::size_t Coder::value_contexts() const {
  return v6::value_contexts(symbols_);
}

// Sizes d's buffers for block b, whose entries `part` must hold, and fills d.depths with their
// depths; returns the block's entry count (also in d.k).
std::size_t Coder::load_depths(const PartSource& part, std::uint64_t b, BlockData& d) const {
  const std::uint64_t first = b * info_.block_entries;
  const auto n =
      static_cast<std::size_t>(std::min<std::uint64_t>(info_.block_entries, info_.entries - first));
  if (first < part.first || first + n > part.first + part.source.values.size())
    fail(Code::kInvalidArgument, name_, "block " + std::to_string(b) + " is not in the part");
  if (d.symbols.size() < n + kRunSlack) {
    d.depths.resize(n + kRunSlack);
    d.symbols.resize(n + kRunSlack);
    d.classes.resize(n + kRunSlack);
    d.stored.resize(n + kRunSlack);
  }
  d.k = n;
  part.source.fill_depths(first - part.first, std::span(d.depths.data(), n));
  return n;
}

// Fills `d` with block b's symbols and stored depths; checks the depths as version 2..5 do.
void Coder::load(const PartSource& part, std::uint64_t b, BlockData& d) const {
  const std::size_t n = load_depths(part, b, d);
  const std::uint64_t first = b * info_.block_entries;
  const std::uint64_t local = first - part.first;
  const std::span<const std::uint64_t> marks = part.source.recompute;
  const std::int8_t* values = part.source.values.data() + local;
  std::uint8_t* symbols = d.symbols.data();
  std::uint8_t* classes = d.classes.data();
  std::uint16_t* stored = d.stored.data();
  const std::uint16_t* depths = d.depths.data();
  // Without branches on the data: every entry is written as if it stored its depth, and
  // the count moves on only for those that do; a depth out of its bounds is looked for again
  // below, for the error.
  std::size_t m = 0;
  bool bad = false;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t at = local + i;
    const std::uint32_t marked =
        marks.empty() ? 0 : static_cast<std::uint32_t>((marks[at / 64] >> (at % 64)) & 1);
    const EntryRule& e = rules_[marked << 8 | static_cast<std::uint8_t>(values[i])];
    const std::uint16_t depth = depths[i];
    symbols[i] = e.symbol;
    classes[m] = e.cls;
    stored[m] = depth;
    m += e.stores;
    bad |= depth > e.max_depth;
  }
  d.m = m;
  if (bad)
    report_bad_depth(part, first, n, d.depths);
}

// The largest depth of block b's entries (its depths in d.depths).
std::uint16_t Coder::largest_depth(const PartSource& part, std::uint64_t b, BlockData& d) const {
  const std::size_t n = load_depths(part, b, d);
  return *std::max_element(d.depths.begin(), d.depths.begin() + static_cast<std::ptrdiff_t>(n));
}

// Throws the error of the first entry of [first, first + n) whose depth `load` refused.
void Coder::report_bad_depth(const PartSource& part,
                             std::uint64_t first,
                             std::size_t n,
                             const std::vector<std::uint16_t>& depths) const {
  const std::span<const std::uint64_t> marks = part.source.recompute;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t at = first + i;
    const std::uint64_t local = at - part.first;
    const bool marked = !marks.empty() && ((marks[local / 64] >> (local % 64)) & 1) != 0;
    const std::int8_t v = part.source.values[local];
    const std::int8_t byte = plan_.stored_byte(v, marked);
    const std::uint16_t depth = depths[i];
    if (stores_[plan_.symbol(byte)]) {
      if (info_.recompute && depth == kRecomputeDepth) {
        fail(Code::kInvalidArgument,
             name_,
             "entry " + std::to_string(at) + " has depth " + std::to_string(kRecomputeDepth) +
                 ", which a file with recompute entries cannot store");
      }
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
  fail(Code::kInvalidArgument, name_, "a depth out of its bounds");
}

// "Value stream": emit(context, token) for each token of a block's symbols.
template <typename Emit>
void Coder::value_tokens(const BlockData& d, Emit&& emit) const {
  const auto start = static_cast<std::uint32_t>(symbols_);
  const std::uint8_t* s = d.symbols.data();
  const std::size_t k = d.k;
  const auto& runs = run_tokens();
  std::uint32_t prev = start;
  for (std::size_t i = 0; i < k;) {
    if (prev != start) {
      const std::size_t run =
          run_of(s + i, std::min<std::size_t>(k - i, 256), static_cast<std::uint8_t>(prev));
      if (run >= 2) {
        const std::uint32_t r = runs[run];
        emit(prev, start + r);
        i += kRunLengths[r];
        continue;
      }
    }
    emit(prev, s[i]);
    prev = s[i];
    ++i;
  }
}

// "Depth stream": emit(context, token, escaped depth) for a block's stored depths (the depth
// only for the escape token).
template <typename Emit>
void Coder::depth_tokens(const BlockData& d, Emit&& emit) const {
  const std::size_t m = d.m;
  const std::uint16_t* depth = d.stored.data();
  const auto& runs = run_tokens();
  std::uint32_t prev = 0;
  for (std::size_t j = 0; j < m;) {
    const std::uint32_t ctx = depth_context(static_cast<std::uint32_t>(j), prev, d.classes[j]);
    if (j > 0) {
      const std::size_t run =
          run_of(depth + j, std::min<std::size_t>(m - j, 256), static_cast<std::uint16_t>(prev));
      if (run >= 2) {
        const std::uint32_t r = runs[run];
        emit(ctx, kDepthEscape + 1 + r, 0u);
        j += kRunLengths[r];
        continue;
      }
    }
    const std::uint32_t dj = depth[j];
    emit(ctx, dj < kDepthEscape ? dj : kDepthEscape, dj);
    prev = dj;
    ++j;
  }
}

void Coder::count(const PartSource& part,
                  std::uint64_t first,
                  std::uint64_t last,
                  const Executor& executor,
                  V6TokenCounts& counts) const {
  const std::size_t vt = value_tokens();
  std::vector<std::uint64_t>& vf = counts.values;
  std::vector<std::uint64_t>& df = counts.depths;
  vf.resize(value_contexts() * vt, 0);
  df.resize(std::size_t{kDepthContexts} * kDepthTokens, 0);
  counts.deepest.resize(kDepthEscape + 1, 0);
  const std::uint64_t blocks = last > first ? last - first : 0;
  const auto chunks = static_cast<std::size_t>(std::min<std::uint64_t>(blocks, 64));
  // Every block of a small layer; every step-th of the layer's blocks (by the block's index in
  // the layer, so that the parts of a layer count the blocks the whole layer would) of a large.
  const std::uint64_t step = sample_step();
  std::mutex totals;
  run_tasks(executor, chunks, [&](std::size_t c) {
    // 32-bit counts of the calling thread, kept from task to task (a fresh 100 KB a task
    // cost page faults and zeroing that took longer than the counting), added to the totals
    // at the task's end and every 2^31 entries.
    thread_local std::vector<std::uint32_t> vcount, dcount;
    vcount.assign(vf.size(), 0);
    dcount.assign(df.size(), 0);
    const auto spill = [&] {
      std::lock_guard lock(totals);
      for (std::size_t i = 0; i < vf.size(); ++i)
        vf[i] += std::exchange(vcount[i], 0);
      for (std::size_t i = 0; i < df.size(); ++i)
        df[i] += std::exchange(dcount[i], 0);
    };
    thread_local BlockData d;
    std::uint64_t since_spill = 0;
    std::uint16_t deepest = 0;
    const std::uint64_t from = first + blocks * c / chunks, to = first + blocks * (c + 1) / chunks;
    for (std::uint64_t b = from; b < to; ++b) {
      if (b % step != 0) {
        deepest = std::max(deepest, largest_depth(part, b, d));
        continue;
      }
      load(part, b, d);
      deepest = std::max(deepest, *std::max_element(d.depths.begin(), d.depths.begin() + d.k));
      value_tokens(d, [&](std::uint32_t ctx, std::uint32_t tok) { ++vcount[ctx * vt + tok]; });
      depth_tokens(d, [&](std::uint32_t ctx, std::uint32_t tok, std::uint32_t) {
        ++dcount[ctx * kDepthTokens + tok];
      });
      since_spill += d.k;
      if (since_spill >= (std::uint64_t{1} << 31)) {
        spill();
        since_spill = 0;
      }
    }
    spill();
    std::lock_guard lock(totals);
    ++counts.deepest[std::min<std::uint32_t>(deepest, kDepthEscape)];
  });
}

void Coder::set_codes(const V6TokenCounts& layer) {
  const std::size_t vt = value_tokens();
  const std::size_t vc = value_contexts();
  if (layer.values.size() != vc * vt ||
      layer.depths.size() != std::size_t{kDepthContexts} * kDepthTokens ||
      layer.deepest.size() != kDepthEscape + 1)
    fail(Code::kInvalidArgument, name_, "token counts of another layer's contexts");
  // Counted over a sample of the blocks: every token that the layer's blocks can hold in a
  // context is given a count, so that each has a code word whether the sample saw it or not.
  const std::uint64_t step = sample_step();
  std::vector<std::uint64_t> smoothed[2];
  if (step > 1) {
    const std::uint64_t longest = info_.block_entries - 1;  // a run follows the block's first entry
    smoothed[0].resize(vc * vt);
    for (std::size_t ctx = 0; ctx < vc; ++ctx) {
      for (std::size_t t = 0; t < vt; ++t) {
        const bool run = t >= symbols_;
        const bool can = !run || (ctx < symbols_ && kRunLengths[t - symbols_] <= longest);
        smoothed[0][ctx * vt + t] = layer.values[ctx * vt + t] * step + (can ? 1 : 0);
      }
    }
    std::size_t deepest = 0;
    for (std::size_t i = 0; i < layer.deepest.size(); ++i) {
      if (layer.deepest[i] != 0)
        deepest = i;
    }
    smoothed[1].resize(layer.depths.size());
    for (std::size_t ctx = 0; ctx < kDepthContexts; ++ctx) {
      for (std::size_t t = 0; t < kDepthTokens; ++t) {
        const bool can = t < kDepthEscape ? t <= deepest
                         : t == kDepthEscape
                             ? deepest >= kDepthEscape
                             : ctx >= 4 && kRunLengths[t - kDepthEscape - 1] <= longest;
        smoothed[1][ctx * kDepthTokens + t] =
            layer.depths[ctx * kDepthTokens + t] * step + (can ? 1 : 0);
      }
    }
  }
  const auto codes = [&](const std::vector<std::uint64_t>& total,
                         std::size_t contexts,
                         std::size_t tokens,
                         int s) {
    codes_[s].clear();
    words_[s].clear();
    for (std::size_t ctx = 0; ctx < contexts; ++ctx) {
      codes_[s].push_back(huffman::build_code(std::span(total).subspan(ctx * tokens, tokens)));
      const HuffCode& c = codes_[s].back();
      for (std::size_t t = 0; t < tokens; ++t)
        words_[s].push_back(c.word[t] << 4 | c.len[t]);
    }
  };
  codes(step > 1 ? smoothed[0] : layer.values, vc, vt, 0);
  codes(step > 1 ? smoothed[1] : layer.depths, kDepthContexts, kDepthTokens, 1);
}

// Codes block b into the chunk's buffers.
void Coder::encode_block(const PartSource& part,
                         std::uint64_t b,
                         BlockData& d,
                         CodedChunk& out) const {
  load(part, b, d);
  const std::size_t vt = value_tokens();
  // A token the counts gave no code word (counts of another layer's blocks) would be coded
  // as nothing: refused, after the block, at the cost of an OR a token.
  bool uncoded = false;
  {
    // A value token is at most kCodeBits bits; 8 bytes for BlockBits' last word.
    std::uint8_t* p = out.reserve(0, d.k * huffman::kCodeBits / 8 + 16);
    BlockBits w(p);
    const std::uint32_t* code = words_[0].data();
    value_tokens(d, [&](std::uint32_t ctx, std::uint32_t tok) {
      const std::uint32_t c = code[ctx * vt + tok];
      uncoded |= (c & 15) == 0;
      w.put(c >> 4, static_cast<int>(c & 15));
    });
    const auto n = static_cast<std::size_t>(w.finish() - p);
    out.used[0] += n;
    out.sizes[0].push_back(static_cast<std::uint32_t>(n));
  }
  {
    // A depth token and its escape bits: at most kCodeBits + 16 bits.
    std::uint8_t* p = out.reserve(1, d.m * (huffman::kCodeBits + 16) / 8 + 16);
    BlockBits w(p);
    const std::uint32_t* code = words_[1].data();
    depth_tokens(d, [&](std::uint32_t ctx, std::uint32_t tok, std::uint32_t depth) {
      const std::uint32_t c = code[ctx * kDepthTokens + tok];
      uncoded |= (c & 15) == 0;
      w.put(c >> 4, static_cast<int>(c & 15));
      if (tok == kDepthEscape)
        w.put(depth, 16);
    });
    const auto n = static_cast<std::size_t>(w.finish() - p);
    out.used[1] += n;
    out.sizes[1].push_back(static_cast<std::uint32_t>(n));
  }
  if (uncoded)
    fail(Code::kInvalidArgument, name_, "block " + std::to_string(b) + " has a token with no code");
}

CodedBlocks Coder::encode(const PartSource& part,
                          std::uint64_t first,
                          std::uint64_t last,
                          const Executor& executor,
                          const std::function<void(std::uint64_t)>& progress) const {
  if (codes_[0].empty())
    fail(Code::kInvalidArgument, name_, "blocks coded before the codes are set");
  constexpr std::uint64_t kChunkBlocks = 64;
  constexpr std::uint64_t kRound = 4096;
  const std::uint64_t blocks = last > first ? last - first : 0;
  std::vector<CodedChunk> chunks(kRound / kChunkBlocks);
  CodedBlocks coded;
  const std::uint64_t entries = std::min(info_.entries, last * info_.block_entries) -
                                std::min(info_.entries, first * info_.block_entries);
  for (int s = 0; s < 2; ++s) {
    coded.sizes[s].reserve(static_cast<std::size_t>(blocks));
    // Above what the candidates measured (0.1-0.4 bytes an entry): no copies, and the pages
    // never touched cost no memory.
    coded.stream[s].reserve(static_cast<std::size_t>(entries / 2));
  }
  for (std::uint64_t start = first; start < last; start += kRound) {
    const std::uint64_t count = std::min(kRound, last - start);
    const auto tasks = static_cast<std::size_t>((count + kChunkBlocks - 1) / kChunkBlocks);
    run_tasks(executor, tasks, [&](std::size_t t) {
      thread_local BlockData d;
      CodedChunk& c = chunks[t];
      for (int s = 0; s < 2; ++s) {
        c.used[s] = 0;
        c.sizes[s].clear();
      }
      const std::uint64_t from = start + t * kChunkBlocks;
      const std::uint64_t to = std::min(from + kChunkBlocks, start + count);
      for (std::uint64_t b = from; b < to; ++b)
        encode_block(part, b, d, c);
    });
    for (std::size_t t = 0; t < tasks; ++t) {
      for (int s = 0; s < 2; ++s) {
        const CodedChunk& c = chunks[t];
        coded.sizes[s].insert(coded.sizes[s].end(), c.sizes[s].begin(), c.sizes[s].end());
        coded.stream[s].insert(
            coded.stream[s].end(), c.bytes[s].get(), c.bytes[s].get() + c.used[s]);
      }
    }
    if (progress)
      progress(start + count - first);
  }
  return coded;
}

}  // namespace sowdb::table_internal::v6
