// The header, the value table and the footer (FORMAT.md, "Header", "Value table", "Footer" and
// "Reader checks" 2..12 and 14), and read_info.
#include "header.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "seek_table.h"
#include "sowdb/format/index.h"
#include "table_common.h"

namespace sowdb {
namespace table_internal {

namespace {

constexpr std::uint32_t kRequiredFlagsMask = 0x0000FFFFu;
constexpr std::uint8_t kValueCodec = 0;
constexpr std::uint8_t kSetValueCodec = 1;
// "Version 6": the value and depth streams of small Huffman-coded blocks.
constexpr std::uint8_t kHuffmanValueCodec = 2;
constexpr std::uint64_t kV6LayoutSize = 32;
// Check 14 hashes the file in chunks of this many bytes.
constexpr std::size_t kHashChunk = std::size_t{1} << 20;

// "<field> <value>": how checks 9 and 10 name a value out of its range.
template <auto kId>
std::string field_text(std::uint64_t value) {
  return std::string(field<kId>().name) + " " + std::to_string(value);
}

template <auto kId>
[[noreturn]] void fail_field(Code code, const std::string& where, const std::string& what) {
  fail_check(code, where, field<kId>().check, what);
}

// Check 12 for a co-operative file ("Set table"): `count` sets of `stones`' words, each non-empty,
// with no bit above 2n, none twice. Read in chunks: `count` is bounded by the file size (check 11
// ran), not by memory the caller chose.
std::vector<std::uint64_t> read_set_table(const Source& src, int stones, std::uint32_t count) {
  const auto words = static_cast<std::size_t>(reach_set_words(stones));
  const int top = 2 * stones + 1;  // bits top.. of the last word are 0
  std::vector<std::uint64_t> table(words * count);
  std::vector<std::byte> bytes(table.size() * 8);
  src.read(kHeaderSize, bytes);
  for (std::size_t w = 0; w < table.size(); ++w)
    table[w] = get_le(bytes.data() + 8 * w, 8);
  std::vector<std::size_t> order(count);
  for (std::size_t k = 0; k < count; ++k) {
    order[k] = k;
    const std::uint64_t* set = table.data() + k * words;
    bool any = false;
    for (std::size_t w = 0; w < words; ++w)
      any = any || set[w] != 0;
    if (!any)
      fail_check(Code::kCorrupt, src.name(), 12, "set " + std::to_string(k) + " is empty");
    const int high_bits = top - 64 * static_cast<int>(words - 1);
    if (high_bits < 64 && (set[words - 1] >> high_bits) != 0) {
      fail_check(Code::kCorrupt,
                 src.name(),
                 12,
                 "set " + std::to_string(k) + " has a difference outside [-n, n]");
    }
  }
  const auto less = [&](std::size_t a, std::size_t b) {
    return std::lexicographical_compare(
        table.begin() + static_cast<std::ptrdiff_t>(a * words),
        table.begin() + static_cast<std::ptrdiff_t>(a * words + words),
        table.begin() + static_cast<std::ptrdiff_t>(b * words),
        table.begin() + static_cast<std::ptrdiff_t>(b * words + words));
  };
  std::sort(order.begin(), order.end(), less);
  for (std::size_t k = 1; k < order.size(); ++k) {
    if (!less(order[k - 1], order[k])) {
      fail_check(Code::kCorrupt,
                 src.name(),
                 12,
                 "set " + std::to_string(std::max(order[k - 1], order[k])) + " listed twice");
    }
  }
  return table;
}

// Checks 2..6: magic, format version, a complete header, its checksum, its size and reserved
// bytes. Returns the format version.
std::uint16_t check_header_frame(const std::string& name,
                                 const HeaderBytes& h,
                                 std::size_t have,
                                 std::uint64_t size,
                                 bool verify_header_checksum) {
  using F = HeaderField;
  // Check 2: magic.
  if (have == 0 || !matches_magic(std::span(h.data(), std::min(have, kMagicEnd)), kMagicBytes)) {
    fail_field<F::kMagic>(
        Code::kNotATable,
        name,
        "no sowdb table magic at offset " + std::to_string(field<F::kMagic>().offset));
  }
  if (have < kMagicEnd)
    fail_field<F::kMagic>(Code::kTruncated, name, "file ends inside the magic");
  // Check 3: format version.
  if (have < kFormatVersionEnd)
    fail_field<F::kFormatVersion>(Code::kTruncated, name, "file ends inside the header");
  const auto version = static_cast<std::uint16_t>(get_field<F::kFormatVersion>(h));
  if (version < 1 || version > kTableFormatVersion) {
    fail_field<F::kFormatVersion>(Code::kVersion,
                                  name,
                                  "format version " + std::to_string(version) +
                                      " (this reader knows versions 1.." +
                                      std::to_string(kTableFormatVersion) + ")");
  }
  // Check 4: the header is complete.
  if (have < kHeaderSize) {
    fail_check(Code::kTruncated,
               name,
               4,
               "file has " + count_text(size, "byte", "bytes") + ", shorter than the " +
                   std::to_string(kHeaderSize) + "-byte header");
  }
  // Check 5: header checksum.
  if (verify_header_checksum &&
      get_field<F::kHeaderChecksum>(h) != xxh64(std::span(h.data(), kHeaderHashedBytes))) {
    fail_field<F::kHeaderChecksum>(Code::kChecksum, name, "header checksum mismatch");
  }
  // Check 6: header size and reserved bytes.
  const std::uint64_t header_size = get_field<F::kHeaderSize>(h);
  if (header_size != kHeaderSize) {
    fail_field<F::kHeaderSize>(Code::kBadHeader,
                               name,
                               "header_size is " + std::to_string(header_size) + ", must be " +
                                   std::to_string(kHeaderSize));
  }
  const auto reserved = field_bytes<F::kReserved>(h);
  for (std::size_t i = 0; i < reserved.size(); ++i) {
    if (reserved[i] != std::byte{0}) {
      fail_field<F::kReserved>(
          Code::kBadHeader,
          name,
          "reserved byte " + std::to_string(field<F::kReserved>().offset + i) + " is not 0");
    }
  }
  return version;
}

// The three flags of check 7.
struct HeaderFlags {
  bool recompute = false;
  bool all_moves = false;
  bool cooperative = false;
};

// Check 7: flags, against what `version` defines.
HeaderFlags check_flags(const std::string& name, const HeaderBytes& h, std::uint16_t version) {
  using F = HeaderField;
  // Version 3 defines the required flag kFlagRecompute, version 4
  // kFlagAllMoves, version 5 kFlagCooperative ("Flags").
  const auto flags = static_cast<std::uint32_t>(get_field<F::kFlags>(h));
  // Version 6 holds competitive layers only ("Version 6").
  const std::uint32_t known_required = version >= 6 ? kFlagRecompute | kFlagAllMoves
                                       : version >= 5
                                           ? kFlagRecompute | kFlagAllMoves | kFlagCooperative
                                       : version >= 4 ? kFlagRecompute | kFlagAllMoves
                                       : version >= 3 ? kFlagRecompute
                                                      : 0;
  if ((flags & kRequiredFlagsMask & ~known_required) != 0) {
    char unknown[16];
    std::snprintf(unknown, sizeof unknown, "%04x", flags & kRequiredFlagsMask & ~known_required);
    fail_field<F::kFlags>(Code::kUnsupported,
                          name,
                          "unknown required flags 0x" + std::string(unknown) + " in a version " +
                              std::to_string(version) + " file");
  }
  const bool recompute = (flags & kFlagRecompute) != 0;
  const bool all_moves = (flags & kFlagAllMoves) != 0;
  const bool cooperative = (flags & kFlagCooperative) != 0;
  if (all_moves && !recompute)
    fail_field<F::kFlags>(Code::kBadHeader, name, "flag ALL_MOVES without flag RECOMPUTE");
  if (cooperative && recompute)
    fail_field<F::kFlags>(Code::kBadHeader, name, "flag COOPERATIVE with flag RECOMPUTE");
  // Version 4 exists for the all-moves rule alone: read without it, its marks would be resolved
  // over the moves that gain seeds only, which is not how they were chosen. Version 5 exists
  // for co-operative files alone.
  if (version == 4 && !all_moves)
    fail_field<F::kFlags>(Code::kBadHeader, name, "a version 4 file without flag ALL_MOVES");
  if (version == 5 && !cooperative)
    fail_field<F::kFlags>(Code::kBadHeader, name, "a version 5 file without flag COOPERATIVE");
  return {recompute, all_moves, cooperative};
}

// Check 8: codecs. Returns the depth codec.
std::uint8_t check_codecs(const std::string& name,
                          const HeaderBytes& h,
                          std::uint16_t version,
                          HeaderFlags flags) {
  using F = HeaderField;
  const bool cooperative = flags.cooperative;
  // Value codec 1 and depth codec 2 go with flag COOPERATIVE, and only with it.
  const std::uint64_t value_codec = get_field<F::kValueCodec>(h);
  const std::uint8_t expected_value_codec = cooperative    ? kSetValueCodec
                                            : version >= 6 ? kHuffmanValueCodec
                                                           : kValueCodec;
  if (value_codec != expected_value_codec) {
    fail_field<F::kValueCodec>(
        Code::kUnsupported,
        name,
        "unknown value codec " + std::to_string(value_codec) + " in a " +
            (cooperative ? "co-operative" : "version " + std::to_string(version)) + " file");
  }
  // Depth codec 1 exists from format version 2 on ("Depth encoding").
  const auto depth_codec = static_cast<std::uint8_t>(get_field<F::kDepthCodec>(h));
  // Version 6 stores the depths by codec 1's rule ("Version 6").
  if (cooperative ? depth_codec != 2
                  : depth_codec > 1 || (depth_codec == 1 && version < 2) ||
                        (depth_codec != 1 && version >= 6)) {
    fail_field<F::kDepthCodec>(
        Code::kUnsupported,
        name,
        "unknown depth codec " + std::to_string(depth_codec) + " in a " +
            (cooperative ? "co-operative" : "version " + std::to_string(version)) + " file");
  }
  if (flags.recompute && depth_codec != 1) {
    fail_field<F::kDepthCodec>(Code::kUnsupported, name, "recompute entries need depth codec 1");
  }
  return depth_codec;
}

// Check 9: the rule set, every field in range and the set normalised.
RuleSet check_rules(const std::string& name, const HeaderBytes& h) {
  using F = HeaderField;
  // Every rule set field is one byte.
  const auto family = static_cast<std::uint8_t>(get_field<F::kFamily>(h));
  const auto pits = static_cast<std::uint8_t>(get_field<F::kPitsPerSide>(h));
  const auto skip = static_cast<std::uint8_t>(get_field<F::kSkipOrigin>(h));
  const auto slam = static_cast<std::uint8_t>(get_field<F::kGrandSlam>(h));
  const auto capture = static_cast<std::uint8_t>(get_field<F::kCaptureEmptyOpposite>(h));
  const auto end = static_cast<std::uint8_t>(get_field<F::kEnd>(h));
  if (family > 2)
    fail_field<F::kFamily>(Code::kBadHeader, name, field_text<F::kFamily>(family));
  if (pits < 1 || pits > kMaxPitsPerSide)
    fail_field<F::kPitsPerSide>(Code::kBadHeader, name, field_text<F::kPitsPerSide>(pits));
  if (skip > 1)
    fail_field<F::kSkipOrigin>(Code::kBadHeader, name, field_text<F::kSkipOrigin>(skip));
  if (slam > 2)
    fail_field<F::kGrandSlam>(Code::kBadHeader, name, field_text<F::kGrandSlam>(slam));
  if (capture > 1) {
    fail_field<F::kCaptureEmptyOpposite>(
        Code::kBadHeader, name, field_text<F::kCaptureEmptyOpposite>(capture));
  }
  if (end > 1)
    fail_field<F::kEnd>(Code::kBadHeader, name, field_text<F::kEnd>(end));
  RuleSet rules;
  rules.family = static_cast<Family>(family);
  rules.pits_per_side = pits;
  rules.skip_origin = skip != 0;
  rules.grand_slam = static_cast<GrandSlam>(slam);
  rules.capture_empty_opposite = capture != 0;
  rules.end = static_cast<KalahEnd>(end);
  if (!(rules == rules.normalised())) {
    fail_check(Code::kBadHeader,
               name,
               9,
               "rule set not normalised: an option that does not apply to the family is set");
  }
  return rules;
}

// Check 10: sizes (stones, entries, blocks, value and set counts) into `info`, whose rule set and
// flags are set. Returns the value count.
std::uint8_t check_sizes(const std::string& name, const HeaderBytes& h, LayerInfo& info) {
  using F = HeaderField;
  const bool recompute = info.recompute;
  const bool cooperative = info.objective == Objective::kCooperative;
  const auto stones = static_cast<std::uint8_t>(get_field<F::kStones>(h));
  if (stones > kMaxIndexedStones)
    fail_field<F::kStones>(Code::kBadHeader, name, field_text<F::kStones>(stones));
  info.stones = stones;
  info.entries = get_field<F::kEntryCount>(h);
  const std::uint64_t expected_entries = layer_size(info.rules.pits(), info.stones);
  if (info.entries != expected_entries) {
    fail_field<F::kEntryCount>(
        Code::kBadHeader,
        name,
        field_text<F::kEntryCount>(info.entries) +
            ", expected C(n+2P-1, 2P-1) = " + std::to_string(expected_entries));
  }
  info.block_entries = static_cast<std::uint32_t>(get_field<F::kBlockEntries>(h));
  if (info.block_entries < 1 || info.block_entries > kMaxBlockEntries) {
    fail_field<F::kBlockEntries>(Code::kBadHeader,
                                 name,
                                 field_text<F::kBlockEntries>(info.block_entries) + " outside 1.." +
                                     std::to_string(kMaxBlockEntries));
  }
  if (info.format_version >= 6 && info.block_entries > kMaxV6BlockEntries) {
    fail_field<F::kBlockEntries>(Code::kBadHeader,
                                 name,
                                 field_text<F::kBlockEntries>(info.block_entries) + " outside 1.." +
                                     std::to_string(kMaxV6BlockEntries) + " (version 6)");
  }
  info.block_count = static_cast<std::uint32_t>(get_field<F::kBlockCount>(h));
  const std::uint64_t expected_blocks = block_count_for(info.entries, info.block_entries);
  if (info.block_count != expected_blocks) {
    fail_field<F::kBlockCount>(Code::kBadHeader,
                               name,
                               field_text<F::kBlockCount>(info.block_count) + ", expected " +
                                   std::to_string(expected_blocks));
  }
  // "Recompute entries": up to two recompute bytes besides the 2n+1 values. A co-operative
  // file lists sets instead ("Set table").
  const int recompute_bytes =
      !recompute ? 0 : (info.stones <= kMaxStonesWithStoredRecompute ? 2 : 1);
  const auto value_count = static_cast<std::uint8_t>(get_field<F::kValueCount>(h));
  const int max_values = cooperative ? 0 : 2 * info.stones + 1 + recompute_bytes;
  if (value_count < (cooperative ? 0 : 1) || value_count > max_values) {
    fail_field<F::kValueCount>(
        Code::kBadHeader,
        name,
        field_text<F::kValueCount>(value_count) + " outside " +
            (cooperative ? "0..0 (a co-operative file)" : "1.." + std::to_string(max_values)));
  }
  info.set_count = static_cast<std::uint32_t>(get_field<F::kSetCount>(h));
  if (cooperative ? info.set_count < 1 || info.set_count > kMaxSetCount : info.set_count != 0) {
    fail_field<F::kSetCount>(Code::kBadHeader,
                             name,
                             field_text<F::kSetCount>(info.set_count) + " outside " +
                                 (cooperative ? "1.." + std::to_string(kMaxSetCount)
                                              : std::string("0..0 (not a co-operative file)")));
  }
  return value_count;
}

// Check 11: the file is long enough for the layout `p.info` describes, and ends with the footer
// magic; sets p.data_start and p.seek_offset.
void check_layout(const Source& src, std::uint8_t value_count, ParsedHeader& p) {
  const std::string& name = src.name();
  const std::uint64_t size = src.size();
  const LayerInfo& info = p.info;
  const int set_words = reach_set_words(info.stones);
  const std::uint64_t table_size =
      info.objective == Objective::kCooperative
          ? std::uint64_t{8} * static_cast<std::uint64_t>(set_words) * info.set_count
          : pad8(value_count);
  p.data_start = kHeaderSize + table_size;
  // Version 6 has no seek table: its layout record follows the value table ("Version 6"),
  // and v6_reader.cpp checks the rest of its layout.
  const bool v6 = info.format_version >= 6;
  const std::uint64_t seek_bytes = v6 ? 0 : std::uint64_t{info.block_count} * kSeekEntrySize;
  // Every block holds two frames of at least one byte each.
  const std::uint64_t min_size =
      v6 ? p.data_start + kV6LayoutSize + kFooterSize
         : p.data_start + 2 * std::uint64_t{info.block_count} + seek_bytes + kFooterSize;
  if (size < min_size) {
    fail_check(Code::kTruncated,
               name,
               11,
               "file has " + count_text(size, "byte", "bytes") + ", its header needs at least " +
                   std::to_string(min_size));
  }
  FooterBytes footer{};
  src.read(size - kFooterSize, footer);
  if (!matches_magic(field_bytes<FooterField::kFooterMagic>(footer), kFooterMagicBytes)) {
    fail_field<FooterField::kFooterMagic>(
        Code::kTruncated,
        name,
        "no footer magic at the end: the file is truncated, unfinished or has trailing bytes");
  }
  p.seek_offset = size - kFooterSize - seek_bytes;
}

// Check 12 for a competitive file: the value table, into info.value_table.
void read_value_table(const Source& src, std::uint8_t value_count, LayerInfo& info) {
  const std::string& name = src.name();
  const bool recompute = info.recompute;
  std::array<std::byte, 256> table{};
  const auto table_bytes = static_cast<std::size_t>(pad8(value_count));
  src.read(kHeaderSize, std::span(table.data(), table_bytes));
  bool seen[256] = {};
  bool has_recompute_byte = false;
  for (std::size_t i = 0; i < value_count; ++i) {
    const auto v = static_cast<std::int8_t>(table[i]);
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
    if (seen[static_cast<std::uint8_t>(v)])
      fail_check(Code::kCorrupt, name, 12, "value " + std::to_string(v) + " listed twice");
    seen[static_cast<std::uint8_t>(v)] = true;
    info.value_table.push_back(v);
  }
  if (recompute && !has_recompute_byte)
    fail_check(Code::kCorrupt, name, 12, "recompute flag set but no recompute byte in the table");
  for (std::size_t i = value_count; i < table_bytes; ++i) {
    if (table[i] != std::byte{0})
      fail_check(Code::kCorrupt, name, 12, "value table padding not 0");
  }
}

}  // namespace

ParsedHeader parse_header(const Source& src, bool verify_header_checksum) {
  const std::string& name = src.name();
  const std::uint64_t size = src.size();
  HeaderBytes h{};
  const std::size_t have = static_cast<std::size_t>(std::min<std::uint64_t>(size, kHeaderSize));
  src.read(0, std::span(h.data(), have));
  const std::uint16_t version = check_header_frame(name, h, have, size, verify_header_checksum);
  const HeaderFlags flags = check_flags(name, h, version);
  const std::uint8_t depth_codec = check_codecs(name, h, version, flags);
  ParsedHeader p;
  LayerInfo& info = p.info;
  info.format_version = version;
  info.depth_codec = static_cast<DepthCodec>(depth_codec);
  info.recompute = flags.recompute;
  info.all_moves = flags.all_moves;
  info.objective = flags.cooperative ? Objective::kCooperative : Objective::kCompetitive;
  info.file_size = size;
  info.rules = check_rules(name, h);
  const std::uint8_t value_count = check_sizes(name, h, info);
  check_layout(src, value_count, p);
  // Check 12: the value table, or the set table of a co-operative file.
  if (flags.cooperative)
    info.set_table = read_set_table(src, info.stones, info.set_count);
  else
    read_value_table(src, value_count, info);
  return p;
}

void check_file_checksum(const Source& src) {
  // Check 14: XXH64 of every byte before the file checksum equals it.
  const std::uint64_t size = src.size();
  const std::uint64_t hashed = size - kFooterSize + kFooterHashedBytes;
  Xxh64 h;
  std::vector<std::byte> buf(static_cast<std::size_t>(std::min<std::uint64_t>(hashed, kHashChunk)));
  for (std::uint64_t off = 0; off < hashed;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(hashed - off, buf.size()));
    src.read(off, std::span(buf.data(), n));
    h.update(std::span(buf.data(), n));
    off += n;
  }
  FooterBytes footer{};
  src.read(size - kFooterSize, footer);
  if (get_field<FooterField::kFileChecksum>(footer) != h.digest())
    fail_field<FooterField::kFileChecksum>(Code::kChecksum, src.name(), "file checksum mismatch");
}

HeaderBytes serialise_header(const LayerInfo& info) {
  using F = HeaderField;
  HeaderBytes h{};
  const RuleSet& r = info.rules;
  put_field_bytes<F::kMagic>(h, kMagicBytes);
  put_field<F::kFormatVersion>(h, info.format_version);
  put_field<F::kHeaderSize>(h, kHeaderSize);
  const bool cooperative = info.objective == Objective::kCooperative;
  put_field<F::kFlags>(h,
                       cooperative      ? kFlagCooperative
                       : info.recompute ? kFlagRecompute | (info.all_moves ? kFlagAllMoves : 0)
                                        : 0);
  put_field<F::kFamily>(h, static_cast<std::uint64_t>(r.family));
  put_field<F::kPitsPerSide>(h, static_cast<std::uint64_t>(r.pits_per_side));
  put_field<F::kSkipOrigin>(h, r.skip_origin ? 1 : 0);
  put_field<F::kGrandSlam>(h, static_cast<std::uint64_t>(r.grand_slam));
  put_field<F::kCaptureEmptyOpposite>(h, r.capture_empty_opposite ? 1 : 0);
  put_field<F::kEnd>(h, static_cast<std::uint64_t>(r.end));
  put_field<F::kStones>(h, static_cast<std::uint64_t>(info.stones));
  put_field<F::kValueCount>(h, info.value_table.size());
  put_field<F::kEntryCount>(h, info.entries);
  put_field<F::kBlockEntries>(h, info.block_entries);
  put_field<F::kBlockCount>(h, info.block_count);
  put_field<F::kValueCodec>(h,
                            cooperative                ? kSetValueCodec
                            : info.format_version >= 6 ? kHuffmanValueCodec
                                                       : kValueCodec);
  put_field<F::kSetCount>(h, info.set_count);
  put_field<F::kDepthCodec>(h, static_cast<std::uint64_t>(info.depth_codec));
  // The reserved bytes stay 0.
  put_field<F::kHeaderChecksum>(h, xxh64(std::span(h.data(), kHeaderHashedBytes)));
  return h;
}

std::vector<std::byte> serialise_set_table(std::span<const std::uint64_t> table) {
  std::vector<std::byte> bytes(table.size() * 8);
  for (std::size_t w = 0; w < table.size(); ++w)
    put_le(bytes.data() + 8 * w, table[w], 8);
  return bytes;
}

std::vector<std::byte> serialise_value_table(std::span<const std::int8_t> table) {
  std::vector<std::byte> bytes(static_cast<std::size_t>(pad8(table.size())));
  for (std::size_t i = 0; i < table.size(); ++i)
    bytes[i] = static_cast<std::byte>(table[i]);
  return bytes;
}

FooterBytes serialise_footer(Xxh64 hash) {
  FooterBytes footer{};
  put_field_bytes<FooterField::kFooterMagic>(footer, kFooterMagicBytes);
  hash.update(std::span(footer.data(), kFooterHashedBytes));
  put_field<FooterField::kFileChecksum>(footer, hash.digest());
  return footer;
}

}  // namespace table_internal

LayerInfo read_info(const std::filesystem::path& path) {
  table_internal::FileSource src(path);
  return table_internal::parse_header(src, true).info;
}

}  // namespace sowdb
