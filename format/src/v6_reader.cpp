// The reader of format version 6 (v6_reader.h; FORMAT.md, "Version 6", "Reader checks" 22..26).
#include "v6_reader.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "header_schema.h"
#include "table_common.h"

namespace sowdb::table_internal {

namespace {

using huffman::BitReader;
using huffman::kCodeBits;

const char* const kStreamNames[2] = {"values", "depths"};

// The calling thread's buffers: a block's (or its hash group's) bytes, and the classes of the
// symbols of the stored depths a depth lookup walks past.
struct Scratch {
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint8_t> classes;
};
Scratch& scratch() {
  static thread_local Scratch s;
  return s;
}

}  // namespace

V6Layer::V6Layer(const Source& src, const LayerInfo& info, std::uint64_t data_start, bool map)
    : info_(info) {
  const std::string& name = src.name();
  symbols_ = info.value_table.size();
  for (std::size_t s = 0; s < symbols_; ++s)
    stores_[s] = info.value_table[s] != 0 && info.value_table[s] != kRecomputeValue;
  // Check 22: the layout record, and a file exactly as long as the layout it gives.
  std::array<std::byte, v6::kLayoutSize> record{};
  src.read(data_start, record);
  std::uint64_t sizes[2];
  int width[2];
  for (int s = 0; s < 2; ++s) {
    sizes[s] = get_le(record.data() + std::ptrdiff_t{8} * s, 8);
    width[s] = static_cast<int>(get_le(record.data() + 16 + s, 1));
    if (width[s] != 2 && width[s] != 4)
      fail_check(Code::kCorrupt, name, 22, "block offset width " + std::to_string(width[s]));
    if (sizes[s] > src.size())
      fail_check(Code::kCorrupt, name, 22, "stream size beyond the file");
  }
  for (std::size_t i = 18; i < record.size(); ++i) {
    if (record[i] != std::byte{0})
      fail_check(Code::kCorrupt, name, 22, "layout record reserved byte not 0");
  }
  const v6::Layout l = v6::make_layout(data_start, symbols_, info.block_count, sizes, width);
  if (l.footer + kFooterSize != src.size()) {
    fail_check(Code::kCorrupt,
               name,
               22,
               "the layout needs " + std::to_string(l.footer + kFooterSize) +
                   " bytes, the file has " + std::to_string(src.size()));
  }
  if (map)
    map_ = src.map();
  for (int s = 0; s < 2; ++s) {
    streams_[s].data = l.data[s];
    streams_[s].bytes = sizes[s];
    streams_[s].width = width[s];
  }
  load_codes(src, 0, l.codes[0], v6::value_contexts(symbols_), v6::value_tokens(symbols_));
  load_codes(src, 1, l.codes[1], v6::kDepthContexts, v6::kDepthTokens);
  for (int s = 0; s < 2; ++s) {
    load_index(src, s, l.index[s]);
    // The group hashes (checked at decode, check 25); their padding is covered by check 14.
    const std::uint64_t groups =
        (std::uint64_t{info.block_count} + v6::kHashGroupBlocks - 1) / v6::kHashGroupBlocks;
    std::vector<std::byte> raw(static_cast<std::size_t>(4 * groups));
    src.read(l.hashes[s], raw);
    streams_[s].hashes.resize(static_cast<std::size_t>(groups));
    for (std::size_t g = 0; g < groups; ++g)
      streams_[s].hashes[g] = static_cast<std::uint32_t>(get_le(raw.data() + 4 * g, 4));
  }
}

// Check 23: each context's code lengths form a code a reader accepts, and no context where a
// run cannot start codes a run token.
void V6Layer::load_codes(
    const Source& src, int which, std::uint64_t offset, std::size_t contexts, std::size_t tokens) {
  const std::string where = src.name() + ": " + kStreamNames[which] + " code tables";
  const std::uint64_t nibbles = std::uint64_t{contexts} * tokens;
  std::vector<std::byte> raw(static_cast<std::size_t>(v6::code_bytes(contexts, tokens)));
  src.read(offset, raw);
  for (std::uint64_t i = nibbles / 2 + (nibbles % 2); i < raw.size(); ++i) {
    if (raw[static_cast<std::size_t>(i)] != std::byte{0})
      fail_check(Code::kCorrupt, where, 23, "padding not 0");
  }
  if (nibbles % 2 != 0 && (std::to_integer<unsigned>(raw[nibbles / 2]) >> 4) != 0)
    fail_check(Code::kCorrupt, where, 23, "padding not 0");
  Stream& s = streams_[which];
  s.tables.reset(contexts);
  std::vector<std::uint8_t> len(tokens);
  const std::size_t first_run = which == 0 ? symbols_ : v6::kDepthEscape + 1;
  for (std::size_t ctx = 0; ctx < contexts; ++ctx) {
    for (std::size_t t = 0; t < tokens; ++t) {
      const std::size_t n = ctx * tokens + t;
      len[t] =
          static_cast<std::uint8_t>((std::to_integer<unsigned>(raw[n / 2]) >> (4 * (n % 2))) & 15);
    }
    if (!huffman::valid_lengths(len)) {
      fail_check(Code::kCorrupt,
                 where,
                 23,
                 "context " + std::to_string(ctx) + " is neither a complete code nor one token");
    }
    // Runs repeat the previous symbol or depth: none at a block's start (the value context
    // `symbols_`, the depth contexts of bucket 0).
    const bool start = which == 0 ? ctx == symbols_ : ctx < 4;
    if (start && std::any_of(len.begin() + static_cast<std::ptrdiff_t>(first_run),
                             len.end(),
                             [](std::uint8_t l) { return l != 0; })) {
      fail_check(
          Code::kCorrupt, where, 23, "context " + std::to_string(ctx) + " codes a run at a start");
    }
    s.tables.set(ctx, huffman::code_from_lengths(len));
  }
}

// Check 24: the block index starts at 0, never goes back, stays within the stream, and gives
// each group's first block offset 0.
void V6Layer::load_index(const Source& src, int which, std::uint64_t offset) {
  const std::string where = src.name() + ": " + kStreamNames[which] + " block index";
  Stream& s = streams_[which];
  const std::uint64_t blocks = info_.block_count;
  const std::uint64_t groups = (blocks + v6::kIndexGroupBlocks - 1) / v6::kIndexGroupBlocks;
  const auto w = static_cast<std::uint64_t>(s.width);
  std::vector<std::byte> raw(static_cast<std::size_t>(v6::index_bytes(info_.block_count, s.width)));
  src.read(offset, raw);
  s.base.resize(static_cast<std::size_t>(groups));
  for (std::size_t g = 0; g < groups; ++g)
    s.base[g] = get_le(raw.data() + 8 * g, 8);
  s.offsets.resize(static_cast<std::size_t>(blocks * w));
  for (std::size_t i = 0; i < s.offsets.size(); ++i)
    s.offsets[i] = std::to_integer<std::uint8_t>(raw[static_cast<std::size_t>(8 * groups) + i]);
  for (std::size_t i = static_cast<std::size_t>(8 * groups + blocks * w); i < raw.size(); ++i) {
    if (raw[i] != std::byte{0})
      fail_check(Code::kCorrupt, where, 24, "padding not 0");
  }
  std::uint64_t prev = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t at = start(s, b);
    if (b % v6::kIndexGroupBlocks == 0 && at != s.base[b / v6::kIndexGroupBlocks])
      fail_check(Code::kCorrupt, where, 24, "group " + std::to_string(b / 64) + " offset not 0");
    if (at < prev || at > s.bytes || (b == 0 && at != 0) ||
        at < s.base[b / v6::kIndexGroupBlocks]) {
      fail_check(Code::kCorrupt, where, 24, "block " + std::to_string(b) + " starts out of order");
    }
    prev = at;
  }
}

std::uint64_t V6Layer::start(const Stream& s, std::uint64_t b) const {
  const std::uint8_t* o = s.offsets.data() + b * static_cast<std::uint64_t>(s.width);
  const std::uint64_t off = s.width == 2
                                ? std::uint64_t{o[0]} | std::uint64_t{o[1]} << 8
                                : std::uint64_t{o[0]} | std::uint64_t{o[1]} << 8 |
                                      std::uint64_t{o[2]} << 16 | std::uint64_t{o[3]} << 24;
  return s.base[b / v6::kIndexGroupBlocks] + off;
}

std::uint64_t V6Layer::end(const Stream& s, std::uint64_t b) const {
  return b + 1 < info_.block_count ? start(s, b + 1) : s.bytes;
}

std::span<const std::uint8_t> V6Layer::read(const Source& src,
                                            int which,
                                            std::uint32_t b,
                                            bool verify) const {
  const Stream& s = streams_[which];
  const std::uint64_t block_at = start(s, b);
  const std::uint64_t block_end = end(s, b);
  std::uint64_t first = block_at;
  std::uint64_t last = block_end;
  const std::uint32_t group = b / v6::kHashGroupBlocks;
  if (verify) {
    // The group's hash covers its blocks together: copy them all, then check and decode the
    // copy, so that the bytes decoded are the bytes hashed.
    const std::uint64_t g0 = std::uint64_t{group} * v6::kHashGroupBlocks;
    first = start(s, g0);
    last = end(s, std::min<std::uint64_t>(g0 + v6::kHashGroupBlocks, info_.block_count) - 1);
  }
  std::vector<std::uint8_t>& buf = scratch().bytes;
  const auto n = static_cast<std::size_t>(last - first);
  if (buf.size() < n + BitReader::kReadPadding)
    buf.resize(n + BitReader::kReadPadding);
  // Zero bits after the copy: a decoder reading past a (corrupt) block's end reads no stale
  // bytes of another lookup.
  std::memset(buf.data() + n, 0, BitReader::kReadPadding);
  if (map_) {
    // No handler catches a fault here: a file cut short under the mapping ends the process
    // with SIGBUS (OpenOptions::memory_map says so). The copy is what gets hashed and decoded.
    std::memcpy(buf.data(), map_ + s.data + first, n);
  } else {
    // Check 16: a file cut short after it was opened ends the read early (kTruncated).
    src.read(s.data + first, std::as_writable_bytes(std::span(buf.data(), n)));
  }
  if (verify && hash32(std::as_bytes(std::span(buf.data(), n))) != s.hashes[group]) {
    fail_check(Code::kChecksum,
               src.name() + ": block " + std::to_string(b) + " " + kStreamNames[which],
               25,
               "group " + std::to_string(group) + " hash mismatch");
  }
  return {buf.data() + (block_at - first), static_cast<std::size_t>(block_end - block_at)};
}

void V6Layer::prefetch(int which, std::uint64_t index) const noexcept {
  if (!map_)
    return;
  const Stream& s = streams_[which];
  const std::uint64_t g0 =
      index / info_.block_entries / v6::kHashGroupBlocks * v6::kHashGroupBlocks;
  const std::uint64_t first = start(s, g0);
  const std::uint64_t last =
      end(s, std::min<std::uint64_t>(g0 + v6::kHashGroupBlocks, info_.block_count) - 1);
  // A prefetch never faults, even on a page the file no longer has.
  const std::byte* p = map_ + s.data;
  for (std::uint64_t at = first & ~std::uint64_t{63}; at < last; at += 64)
    __builtin_prefetch(p + at);
}

namespace {

[[noreturn]] void corrupt(const Source& src, std::uint32_t b, int which, const char* what) {
  fail_check(Code::kCorrupt,
             src.name() + ": block " + std::to_string(b) + " " + kStreamNames[which],
             26,
             what);
}

}  // namespace

// Walks the value tokens of `block` (block b, k entries), calling visit(symbol, pos, length)
// for each until it returns true; returns the bits consumed.
template <typename Visit>
static std::uint64_t walk_values(const Source& src,
                                 std::uint32_t b,
                                 std::span<const std::uint8_t> block,
                                 std::uint32_t k,
                                 std::size_t symbols,
                                 const v6::DecodeTables& tables,
                                 Visit&& visit) {
  BitReader r(block.data());
  const std::uint64_t limit = std::uint64_t{block.size()} * 8;
  auto prev = static_cast<std::uint32_t>(symbols);
  for (std::uint32_t pos = 0; pos < k;) {
    r.refill();
    const std::uint32_t e = tables.lookup(prev, r.peek(kCodeBits));
    r.skip(static_cast<int>(e & 15));
    if (e == 0 || r.consumed() > limit)
      corrupt(src, b, 0, "a token past the block's bytes or without a code word");
    const std::uint32_t tok = e >> 4;
    std::uint32_t sym = tok;
    std::uint32_t len = 1;
    if (tok >= symbols) {
      len = v6::kRunLengths[tok - symbols];
      sym = prev;
      if (len > k - pos)
        corrupt(src, b, 0, "a run past the block's end");
    }
    if (visit(sym, pos, len))
      return r.consumed();
    prev = sym;
    pos += len;
  }
  return r.consumed();
}

// Walks the depth tokens of `block`, whose stored depths' symbol classes (min(symbol, 3)) start
// with `classes` (all of them when `strict`), calling visit(depth, j, length) until it returns
// true; returns the bits consumed.
template <typename Visit>
static std::uint64_t walk_depths(const Source& src,
                                 std::uint32_t b,
                                 std::span<const std::uint8_t> block,
                                 std::span<const std::uint8_t> classes,
                                 bool strict,
                                 bool recompute,
                                 const v6::DecodeTables& tables,
                                 Visit&& visit) {
  BitReader r(block.data());
  const std::uint64_t limit = std::uint64_t{block.size()} * 8;
  const auto m = static_cast<std::uint32_t>(classes.size());
  std::uint32_t prev = 0;
  for (std::uint32_t j = 0; j < m;) {
    r.refill();
    const std::uint32_t ctx = v6::depth_context(j, prev, classes[j]);
    const std::uint32_t e = tables.lookup(ctx, r.peek(kCodeBits));
    r.skip(static_cast<int>(e & 15));
    const std::uint32_t tok = e >> 4;
    std::uint32_t depth = tok;
    std::uint32_t len = 1;
    if (tok == v6::kDepthEscape) {
      depth = r.peek(16);
      r.skip(16);
    } else if (tok > v6::kDepthEscape) {
      len = v6::kRunLengths[tok - v6::kDepthEscape - 1];
      depth = prev;
      if (strict && len > m - j)
        corrupt(src, b, 1, "a run past the block's stored depths");
    }
    if (e == 0 || r.consumed() > limit)
      corrupt(src, b, 1, "a token past the block's bytes or without a code word");
    if (recompute && depth == kRecomputeDepth)
      corrupt(src, b, 1, "a stored depth of 65535 in a file with recompute entries");
    if (visit(depth, j, len))
      return r.consumed();
    prev = depth;
    j += len;
  }
  return r.consumed();
}

std::int8_t V6Layer::value_byte(const Source& src, std::uint64_t index, bool verify) const {
  const auto b = static_cast<std::uint32_t>(index / info_.block_entries);
  const auto t = static_cast<std::uint32_t>(index % info_.block_entries);
  const auto block = read(src, 0, b, verify);
  std::uint32_t found = 0;
  walk_values(src,
              b,
              block,
              entries_in_block(info_, b),
              symbols_,
              streams_[0].tables,
              [&](std::uint32_t sym, std::uint32_t pos, std::uint32_t len) {
                found = sym;
                return t < pos + len;
              });
  return info_.value_table[found];
}

std::uint16_t V6Layer::depth(const Source& src, std::uint64_t index, bool verify) const {
  std::int8_t byte = 0;
  return value_and_depth(src, index, verify, byte);
}

std::uint16_t V6Layer::value_and_depth(const Source& src,
                                       std::uint64_t index,
                                       bool verify,
                                       std::int8_t& byte) const {
  const auto b = static_cast<std::uint32_t>(index / info_.block_entries);
  const auto t = static_cast<std::uint32_t>(index % info_.block_entries);
  std::vector<std::uint8_t>& classes = scratch().classes;
  if (classes.size() < info_.block_entries)
    classes.resize(info_.block_entries);
  std::uint32_t stored = 0;
  std::uint32_t own = 0;
  // The depth block's group loads while the value block decodes (unused when the entry stores
  // no depth).
  prefetch(1, index);
  const auto block = read(src, 0, b, verify);
  walk_values(src,
              b,
              block,
              entries_in_block(info_, b),
              symbols_,
              streams_[0].tables,
              [&](std::uint32_t sym, std::uint32_t pos, std::uint32_t len) {
                const bool here = t < pos + len;
                if (stores_[sym]) {
                  const std::uint32_t n = here ? t - pos : len;
                  std::memset(classes.data() + stored, static_cast<int>(std::min(sym, 3u)), n);
                  stored += n;
                }
                own = sym;
                return here;
              });
  byte = info_.value_table[own];
  return depth_of(src, b, own, std::span(classes.data(), stored), verify);
}

std::uint16_t V6Layer::depth_of(const Source& src,
                                std::uint32_t b,
                                std::uint32_t own,
                                std::span<const std::uint8_t> classes,
                                bool verify) const {
  const std::int8_t byte = info_.value_table[own];
  if (!stores_[own])
    return byte == 0 ? 0 : kRecomputeDepth;
  // The walk stops at the entry's own stored depth, number classes.size() of the block; its
  // class ends the list (the scratch vector has room: the entry is in the block).
  const auto target = static_cast<std::uint32_t>(classes.size());
  std::uint8_t* c = scratch().classes.data();
  c[target] = static_cast<std::uint8_t>(std::min(own, 3u));
  const auto block = read(src, 1, b, verify);
  std::uint16_t found = 0;
  walk_depths(src,
              b,
              block,
              std::span<const std::uint8_t>(c, target + 1),
              false,
              info_.recompute,
              streams_[1].tables,
              [&](std::uint32_t d, std::uint32_t j, std::uint32_t len) {
                found = static_cast<std::uint16_t>(d);
                return target < j + len;
              });
  return found;
}

void V6Layer::decode_block(const Source& src,
                           std::uint32_t b,
                           std::span<std::int8_t> values,
                           std::span<std::uint16_t> depths,
                           bool verify) const {
  const std::uint32_t k = entries_in_block(info_, b);
  thread_local std::vector<std::uint8_t> symbols;
  symbols.resize(k);
  thread_local std::vector<std::uint8_t> classes;
  classes.clear();
  {
    const auto block = read(src, 0, b, verify);
    const std::uint64_t bits = walk_values(
        src,
        b,
        block,
        k,
        symbols_,
        streams_[0].tables,
        [&](std::uint32_t sym, std::uint32_t pos, std::uint32_t len) {
          std::fill_n(symbols.begin() + pos, len, static_cast<std::uint8_t>(sym));
          if (stores_[sym])
            classes.insert(classes.end(), len, static_cast<std::uint8_t>(std::min(sym, 3u)));
          return false;
        });
    if ((bits + 7) / 8 != block.size())
      corrupt(src, b, 0, "the tokens do not end with the block's bytes");
  }
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = info_.value_table[symbols[i]];
  if (depths.empty())
    return;
  thread_local std::vector<std::uint16_t> stored_depths;
  stored_depths.resize(classes.size());
  const auto block = read(src, 1, b, verify);
  const std::uint64_t bits =
      walk_depths(src,
                  b,
                  block,
                  classes,
                  true,
                  info_.recompute,
                  streams_[1].tables,
                  [&](std::uint32_t d, std::uint32_t j, std::uint32_t len) {
                    std::fill_n(stored_depths.begin() + j, len, static_cast<std::uint16_t>(d));
                    return false;
                  });
  if ((bits + 7) / 8 != block.size())
    corrupt(src, b, 1, "the tokens do not end with the block's bytes");
  std::size_t j = 0;
  for (std::uint32_t i = 0; i < k; ++i) {
    const std::uint8_t sym = symbols[i];
    depths[i] = stores_[sym]                  ? stored_depths[j++]
                : info_.value_table[sym] == 0 ? std::uint16_t{0}
                                              : kRecomputeDepth;
  }
}

}  // namespace sowdb::table_internal
