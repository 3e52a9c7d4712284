// The seek table: where each block's frames are and their hashes (FORMAT.md, "Seek table"),
// entry by entry through a table of fields, parsed with check 15 and serialised. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "byte_source.h"
#include "field_schema.h"

namespace sowdb::table_internal {

enum class SeekField : std::uint8_t {
  kOffset,
  kValueSize,
  kDepthSize,
  kValueHash,
  kDepthHash,
};

// Check 15 checks where the frames are; check 17 each frame against its hash.
inline constexpr Layout<SeekField, 5> kSeekEntryLayout = {
    24,
    {{
        {SeekField::kOffset, "offset", 0, 8, FieldType::kUnsigned, 15},
        {SeekField::kValueSize, "value_size", 8, 4, FieldType::kUnsigned, 15},
        {SeekField::kDepthSize, "depth_size", 12, 4, FieldType::kUnsigned, 15},
        {SeekField::kValueHash, "value_hash", 16, 4, FieldType::kUnsigned, 17},
        {SeekField::kDepthHash, "depth_hash", 20, 4, FieldType::kUnsigned, 17},
    }}};

constexpr const auto& layout_of(SeekField) {
  return kSeekEntryLayout;
}

constexpr std::size_t kSeekEntrySize = kSeekEntryLayout.size;

static_assert(kSeekEntryLayout.tiles(), "the seek entry fields must tile the entry");
static_assert(kSeekEntrySize == 24, "FORMAT.md, \"Seek table\": 24 bytes an entry");

struct SeekEntry {
  std::uint64_t offset = 0;
  std::uint32_t value_size = 0;
  std::uint32_t depth_size = 0;
  std::uint32_t value_hash = 0;
  std::uint32_t depth_hash = 0;
};

// Check 15: the `block_count` entries at `seek_offset`, which must tile [data_start,
// seek_offset) in order, every frame non-empty.
std::vector<SeekEntry> parse_seek_table(const Source& src,
                                        std::uint32_t block_count,
                                        std::uint64_t data_start,
                                        std::uint64_t seek_offset);

// Entry `e` into the `kSeekEntrySize` bytes at `out`.
void serialise_seek_entry(const SeekEntry& e, std::byte* out);

}  // namespace sowdb::table_internal
