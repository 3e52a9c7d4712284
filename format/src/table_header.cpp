// Parsing a table file's header and seek table (FORMAT.md, "Reader checks"), TableError, and
// read_info.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <limits>
#include <string_view>

#include "sowdb/format/table_file.h"
#include "table_internal.h"

namespace sowdb {
namespace table_internal {

Parsed parse_header(const Source& src, bool verify_header_checksum) {
  const std::string& name = src.name();
  const std::uint64_t size = src.size();
  std::array<std::byte, kHeaderSize> h{};
  const std::size_t have = static_cast<std::size_t>(std::min<std::uint64_t>(size, kHeaderSize));
  src.read(0, std::span(h.data(), have));

  // Check 2: magic.
  const bool magic_prefix =
      std::equal(h.begin(),
                 h.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(have, 8)),
                 kMagic.begin(),
                 [](std::byte a, std::uint8_t b) { return std::to_integer<std::uint8_t>(a) == b; });
  if (have == 0 || !magic_prefix) {
    fail_check(Code::kNotATable, name, 2, "no sowdb table magic at offset 0");
  }
  if (have < 8)
    fail_check(Code::kTruncated, name, 2, "file ends inside the magic");
  // Check 3: format version.
  if (have < 10)
    fail_check(Code::kTruncated, name, 3, "file ends inside the header");
  const auto version = static_cast<std::uint16_t>(get_le(&h[8], 2));
  if (version < 1 || version > kTableFormatVersion) {
    fail_check(Code::kVersion,
               name,
               3,
               "format version " + std::to_string(version) + " (this reader knows versions 1.." +
                   std::to_string(kTableFormatVersion) + ")");
  }
  // Check 4: the header is complete.
  if (have < kHeaderSize) {
    fail_check(
        Code::kTruncated,
        name,
        4,
        "file has " + count_text(size, "byte", "bytes") + ", shorter than the 64-byte header");
  }
  // Check 5: header checksum.
  const std::uint64_t header_hash = get_le(&h[56], 8);
  if (verify_header_checksum && header_hash != xxh64(std::span(h.data(), kHeaderHashedBytes))) {
    fail_check(Code::kChecksum, name, 5, "header checksum mismatch");
  }
  // Check 6: header size and reserved bytes.
  const auto header_size = get_le(&h[10], 2);
  if (header_size != kHeaderSize) {
    fail_check(Code::kBadHeader,
               name,
               6,
               "header_size is " + std::to_string(header_size) + ", must be 64");
  }
  for (std::size_t i = 42; i < 56; ++i) {
    if (get8(&h[i]) != 0) {
      fail_check(Code::kBadHeader, name, 6, "reserved byte " + std::to_string(i) + " is not 0");
    }
  }
  // Check 7: flags. Version 3 defines the required flag kFlagRecompute ("Flags").
  const auto flags = static_cast<std::uint32_t>(get_le(&h[12], 4));
  const std::uint32_t known_required = version >= 4   ? kFlagRecompute | kFlagAllMoves
                                       : version >= 3 ? kFlagRecompute
                                                      : 0;
  if ((flags & kRequiredFlagsMask & ~known_required) != 0) {
    fail_check(
        Code::kUnsupported,
        name,
        7,
        "unknown required flags 0x" +
            [&] {
              char buf[16];
              std::snprintf(buf, sizeof buf, "%04x", flags & kRequiredFlagsMask & ~known_required);
              return std::string(buf);
            }() +
            " in a version " + std::to_string(version) + " file");
  }
  const bool recompute = (flags & kFlagRecompute) != 0;
  const bool all_moves = (flags & kFlagAllMoves) != 0;
  if (all_moves && !recompute) {
    fail_check(Code::kBadHeader, name, 7, "flag ALL_MOVES without flag RECOMPUTE");
  }
  // Version 4 exists for the all-moves rule alone: read without it, its marks would be resolved
  // over the moves that gain seeds only, which is not how they were chosen.
  if (version >= 4 && !all_moves) {
    fail_check(Code::kBadHeader, name, 7, "a version 4 file without flag ALL_MOVES");
  }
  // Check 8: codecs.
  if (get8(&h[40]) != 0) {
    fail_check(Code::kUnsupported, name, 8, "unknown value codec " + std::to_string(get8(&h[40])));
  }
  // Depth codec 1 exists from format version 2 on ("Depth encoding").
  const std::uint8_t depth_codec = get8(&h[41]);
  if (depth_codec > 1 || (depth_codec == 1 && version < 2)) {
    fail_check(Code::kUnsupported,
               name,
               8,
               "unknown depth codec " + std::to_string(depth_codec) + " in a version " +
                   std::to_string(version) + " file");
  }
  if (recompute && depth_codec != 1) {
    fail_check(Code::kUnsupported, name, 8, "recompute entries need depth codec 1");
  }
  // Check 9: the rule set.
  Parsed p;
  LayerInfo& info = p.info;
  info.format_version = version;
  info.depth_codec = static_cast<DepthCodec>(depth_codec);
  info.recompute = recompute;
  info.all_moves = all_moves;
  info.file_size = size;
  const std::uint8_t family = get8(&h[16]), pits = get8(&h[17]), skip = get8(&h[18]),
                     slam = get8(&h[19]), capture = get8(&h[20]), end = get8(&h[21]);
  if (family > 2)
    fail_check(Code::kBadHeader, name, 9, "family " + std::to_string(family));
  if (pits < 1 || pits > kMaxPitsPerSide) {
    fail_check(Code::kBadHeader, name, 9, "pits_per_side " + std::to_string(pits));
  }
  if (skip > 1)
    fail_check(Code::kBadHeader, name, 9, "skip_origin " + std::to_string(skip));
  if (slam > 2)
    fail_check(Code::kBadHeader, name, 9, "grand_slam " + std::to_string(slam));
  if (capture > 1) {
    fail_check(Code::kBadHeader, name, 9, "capture_empty_opposite " + std::to_string(capture));
  }
  if (end > 1)
    fail_check(Code::kBadHeader, name, 9, "end " + std::to_string(end));
  info.rules.family = static_cast<Family>(family);
  info.rules.pits_per_side = pits;
  info.rules.skip_origin = skip != 0;
  info.rules.grand_slam = static_cast<GrandSlam>(slam);
  info.rules.capture_empty_opposite = capture != 0;
  info.rules.end = static_cast<KalahEnd>(end);
  if (!(info.rules == info.rules.normalised())) {
    fail_check(Code::kBadHeader,
               name,
               9,
               "rule set not normalised: an option that does not apply to the family is set");
  }
  // Check 10: sizes.
  const std::uint8_t stones = get8(&h[22]);
  if (stones > kMaxIndexedStones) {
    fail_check(Code::kBadHeader, name, 10, "stones " + std::to_string(stones));
  }
  info.stones = stones;
  info.entries = get_le(&h[24], 8);
  const std::uint64_t expected_entries = layer_size(info.rules.pits(), stones);
  if (info.entries != expected_entries) {
    fail_check(Code::kBadHeader,
               name,
               10,
               "entry_count " + std::to_string(info.entries) +
                   ", expected C(n+2P-1, 2P-1) = " + std::to_string(expected_entries));
  }
  info.block_entries = static_cast<std::uint32_t>(get_le(&h[32], 4));
  if (info.block_entries < 1 || info.block_entries > kMaxBlockEntries) {
    fail_check(Code::kBadHeader,
               name,
               10,
               "block_entries " + std::to_string(info.block_entries) + " outside 1.." +
                   std::to_string(kMaxBlockEntries));
  }
  info.block_count = static_cast<std::uint32_t>(get_le(&h[36], 4));
  if (info.block_count != block_count_for(info.entries, info.block_entries)) {
    fail_check(Code::kBadHeader,
               name,
               10,
               "block_count " + std::to_string(info.block_count) + ", expected " +
                   std::to_string(block_count_for(info.entries, info.block_entries)));
  }
  // "Recompute entries": up to two recompute bytes besides the 2n+1 values.
  const int recompute_bytes = !recompute ? 0 : (stones <= kMaxStonesWithStoredRecompute ? 2 : 1);
  const std::uint8_t value_count = get8(&h[23]);
  if (value_count < 1 || value_count > 2 * stones + 1 + recompute_bytes) {
    fail_check(Code::kBadHeader,
               name,
               10,
               "value_count " + std::to_string(value_count) + " outside 1.." +
                   std::to_string(2 * stones + 1 + recompute_bytes));
  }
  // Check 11: the file is long enough for its layout, and ends with the footer magic.
  p.data_start = kHeaderSize + pad8(value_count);
  const std::uint64_t seek_bytes = std::uint64_t{info.block_count} * kSeekEntrySize;
  // Every block holds two frames of at least one byte each.
  const std::uint64_t min_size =
      p.data_start + 2 * std::uint64_t{info.block_count} + seek_bytes + kFooterSize;
  if (size < min_size) {
    fail_check(Code::kTruncated,
               name,
               11,
               "file has " + count_text(size, "byte", "bytes") + ", its header needs at least " +
                   std::to_string(min_size));
  }
  std::array<std::byte, 8> footer_magic{};
  src.read(size - kFooterSize, footer_magic);
  if (!std::equal(
          footer_magic.begin(),
          footer_magic.end(),
          kFooterMagic.begin(),
          [](std::byte a, std::uint8_t b) { return std::to_integer<std::uint8_t>(a) == b; })) {
    fail_check(Code::kTruncated,
               name,
               11,
               "no footer magic at the end: the file is truncated, unfinished or has trailing "
               "bytes");
  }
  p.seek_offset = size - kFooterSize - seek_bytes;
  // Check 12: the value table.
  std::array<std::byte, 256> table{};
  const auto table_bytes = static_cast<std::size_t>(pad8(value_count));
  src.read(kHeaderSize, std::span(table.data(), table_bytes));
  bool seen[256] = {};
  bool has_recompute_byte = false;
  for (std::size_t i = 0; i < value_count; ++i) {
    const auto v = static_cast<std::int8_t>(get8(&table[i]));
    const bool recompute_byte =
        recompute && (v == kRecomputeValue ||
                      (v == kStoredRecomputeByte && info.stones <= kMaxStonesWithStoredRecompute));
    has_recompute_byte = has_recompute_byte || recompute_byte;
    if (!recompute_byte && (v < -info.stones || v > info.stones)) {
      fail_check(Code::kCorrupt,
                 name,
                 12,
                 "value table entry " + std::to_string(i) + " is " + std::to_string(v) +
                     ", outside [-n, n]");
    }
    if (seen[static_cast<std::uint8_t>(v)]) {
      fail_check(Code::kCorrupt, name, 12, "value " + std::to_string(v) + " listed twice");
    }
    seen[static_cast<std::uint8_t>(v)] = true;
    info.value_table.push_back(v);
  }
  if (recompute && !has_recompute_byte) {
    fail_check(Code::kCorrupt, name, 12, "recompute flag set but no recompute byte in the table");
  }
  for (std::size_t i = value_count; i < table_bytes; ++i) {
    if (get8(&table[i]) != 0)
      fail_check(Code::kCorrupt, name, 12, "value table padding not 0");
  }
  return p;
}

void check_whole_file(const Source& src) {
  // Check 14: XXH64 of every byte before the last 8 equals the last 8.
  const std::uint64_t size = src.size();
  const std::uint64_t hashed = size - 8;
  Xxh64 h;
  std::vector<std::byte> buf(static_cast<std::size_t>(std::min<std::uint64_t>(hashed, kHashChunk)));
  for (std::uint64_t off = 0; off < hashed;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(hashed - off, buf.size()));
    src.read(off, std::span(buf.data(), n));
    h.update(std::span(buf.data(), n));
    off += n;
  }
  std::array<std::byte, 8> stored{};
  src.read(hashed, stored);
  if (get_le(stored.data(), 8) != h.digest()) {
    fail_check(Code::kChecksum, src.name(), 14, "file checksum mismatch");
  }
}

void parse_seek_table(const Source& src, Parsed& p) {
  // Check 15: the blocks tile [data_start, seek_offset) in order, every frame non-empty.
  const std::uint32_t count = p.info.block_count;
  std::vector<std::byte> raw(std::size_t{count} * kSeekEntrySize);
  src.read(p.seek_offset, raw);
  p.seek.resize(count);
  std::uint64_t expected = p.data_start;
  for (std::uint32_t b = 0; b < count; ++b) {
    const std::byte* e = raw.data() + std::size_t{b} * kSeekEntrySize;
    SeekEntry& s = p.seek[b];
    s.offset = get_le(e, 8);
    s.value_size = static_cast<std::uint32_t>(get_le(e + 8, 4));
    s.depth_size = static_cast<std::uint32_t>(get_le(e + 12, 4));
    s.value_hash = static_cast<std::uint32_t>(get_le(e + 16, 4));
    s.depth_hash = static_cast<std::uint32_t>(get_le(e + 20, 4));
    const std::string which = "seek table entry " + std::to_string(b);
    if (s.offset != expected) {
      fail_check(Code::kCorrupt,
                 src.name(),
                 15,
                 which + ": offset " + std::to_string(s.offset) + ", expected " +
                     std::to_string(expected));
    }
    if (s.value_size == 0 || s.depth_size == 0) {
      fail_check(Code::kCorrupt, src.name(), 15, which + ": empty frame");
    }
    expected += std::uint64_t{s.value_size} + s.depth_size;  // < 2^64: both < 2^33 a block
    if (expected > p.seek_offset) {
      fail_check(Code::kCorrupt, src.name(), 15, which + ": block runs into the seek table");
    }
  }
  if (expected != p.seek_offset) {
    fail_check(Code::kCorrupt,
               src.name(),
               15,
               "blocks end at " + std::to_string(expected) + ", the seek table starts at " +
                   std::to_string(p.seek_offset));
  }
}

ZSTD_DCtx* thread_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> ctx(ZSTD_createDCtx());
  return ctx.get();
}

}  // namespace table_internal

using namespace table_internal;

// --- TableError. ---------------------------------------------------------------------------

TableError::TableError(Code code, const std::string& message)
    : std::runtime_error(message), code_(code) {}

const char* to_string(TableError::Code code) noexcept {
  switch (code) {
    case Code::kIo:
      return "Io";
    case Code::kNotATable:
      return "NotATable";
    case Code::kVersion:
      return "Version";
    case Code::kUnsupported:
      return "Unsupported";
    case Code::kBadHeader:
      return "BadHeader";
    case Code::kRuleMismatch:
      return "RuleMismatch";
    case Code::kTruncated:
      return "Truncated";
    case Code::kCorrupt:
      return "Corrupt";
    case Code::kChecksum:
      return "Checksum";
    case Code::kInvalidArgument:
      return "InvalidArgument";
  }
  return "Unknown";
}

LayerInfo read_info(const std::filesystem::path& path) {
  FileSource src(path);
  return parse_header(src, true).info;
}

}  // namespace sowdb
