// The header that opens a table file and the footer that closes it, field by field (FORMAT.md,
// "Header" and "Footer"): the only place their byte offsets are written. Not installed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "field_schema.h"
#include "table_common.h"

namespace sowdb::table_internal {

enum class HeaderField : std::uint8_t {
  kMagic,
  kFormatVersion,
  kHeaderSize,
  kFlags,
  kFamily,
  kPitsPerSide,
  kSkipOrigin,
  kGrandSlam,
  kCaptureEmptyOpposite,
  kEnd,
  kStones,
  kValueCount,
  kEntryCount,
  kBlockEntries,
  kBlockCount,
  kValueCodec,
  kDepthCodec,
  kSetCount,
  kReserved,
  kHeaderChecksum,
};

// Checks 2..10 read one field each: a field's check is the one that rejects a bad value of it.
inline constexpr Layout<HeaderField, 20> kHeaderLayout = {
    64,
    {{
        {HeaderField::kMagic, "magic", 0, 8, FieldType::kBytes, 2},
        {HeaderField::kFormatVersion, "format_version", 8, 2, FieldType::kUnsigned, 3},
        {HeaderField::kHeaderSize, "header_size", 10, 2, FieldType::kUnsigned, 6},
        {HeaderField::kFlags, "flags", 12, 4, FieldType::kUnsigned, 7},
        {HeaderField::kFamily, "family", 16, 1, FieldType::kUnsigned, 9},
        {HeaderField::kPitsPerSide, "pits_per_side", 17, 1, FieldType::kUnsigned, 9},
        {HeaderField::kSkipOrigin, "skip_origin", 18, 1, FieldType::kUnsigned, 9},
        {HeaderField::kGrandSlam, "grand_slam", 19, 1, FieldType::kUnsigned, 9},
        {HeaderField::kCaptureEmptyOpposite,
         "capture_empty_opposite",
         20,
         1,
         FieldType::kUnsigned,
         9},
        {HeaderField::kEnd, "end", 21, 1, FieldType::kUnsigned, 9},
        {HeaderField::kStones, "stones", 22, 1, FieldType::kUnsigned, 10},
        {HeaderField::kValueCount, "value_count", 23, 1, FieldType::kUnsigned, 10},
        {HeaderField::kEntryCount, "entry_count", 24, 8, FieldType::kUnsigned, 10},
        {HeaderField::kBlockEntries, "block_entries", 32, 4, FieldType::kUnsigned, 10},
        {HeaderField::kBlockCount, "block_count", 36, 4, FieldType::kUnsigned, 10},
        {HeaderField::kValueCodec, "value_codec", 40, 1, FieldType::kUnsigned, 8},
        {HeaderField::kDepthCodec, "depth_codec", 41, 1, FieldType::kUnsigned, 8},
        {HeaderField::kSetCount, "set_count", 42, 4, FieldType::kUnsigned, 10},
        {HeaderField::kReserved, "reserved", 46, 10, FieldType::kBytes, 6},
        {HeaderField::kHeaderChecksum, "header_checksum", 56, 8, FieldType::kUnsigned, 5},
    }}};

constexpr const auto& layout_of(HeaderField) {
  return kHeaderLayout;
}

constexpr std::size_t kHeaderSize = kHeaderLayout.size;
// The header checksum covers every byte before it.
constexpr std::size_t kHeaderHashedBytes = kHeaderLayout[HeaderField::kHeaderChecksum].offset;
// Checks 2 and 3 tell a short file by how far it gets into the header.
constexpr std::size_t kMagicEnd =
    kHeaderLayout[HeaderField::kMagic].offset + kHeaderLayout[HeaderField::kMagic].size;
constexpr std::size_t kFormatVersionEnd = kHeaderLayout[HeaderField::kFormatVersion].offset +
                                          kHeaderLayout[HeaderField::kFormatVersion].size;

static_assert(kHeaderLayout.tiles(), "the header fields must tile the header");
static_assert(kHeaderSize == 64, "FORMAT.md, \"Header\": 64 bytes");
static_assert(kHeaderHashedBytes + kHeaderLayout[HeaderField::kHeaderChecksum].size == kHeaderSize,
              "the header checksum is the header's last field");
static_assert(kMagicBytes.size() == kHeaderLayout[HeaderField::kMagic].size);

using HeaderBytes = std::array<std::byte, kHeaderSize>;

enum class FooterField : std::uint8_t {
  kFooterMagic,
  kFileChecksum,
};

inline constexpr Layout<FooterField, 2> kFooterLayout = {
    16,
    {{
        {FooterField::kFooterMagic, "footer_magic", 0, 8, FieldType::kBytes, 11},
        {FooterField::kFileChecksum, "file_checksum", 8, 8, FieldType::kUnsigned, 14},
    }}};

constexpr const auto& layout_of(FooterField) {
  return kFooterLayout;
}

constexpr std::size_t kFooterSize = kFooterLayout.size;
// The file checksum covers every byte of the file before it, the footer magic included.
constexpr std::size_t kFooterHashedBytes = kFooterLayout[FooterField::kFileChecksum].offset;

static_assert(kFooterLayout.tiles(), "the footer fields must tile the footer");
static_assert(kFooterSize == 16, "FORMAT.md, \"Footer\": 16 bytes");
static_assert(kFooterHashedBytes + kFooterLayout[FooterField::kFileChecksum].size == kFooterSize,
              "the file checksum is the file's last field");
static_assert(kFooterMagicBytes.size() == kFooterLayout[FooterField::kFooterMagic].size);

using FooterBytes = std::array<std::byte, kFooterSize>;

}  // namespace sowdb::table_internal
