// The header, the value table after it and the footer: parsing with FORMAT.md's checks 1..12
// and 14, and serialising. Both go through header_schema.h. Not installed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "byte_source.h"
#include "header_schema.h"
#include "sowdb/format/table_file.h"
#include "sowdb/format/xxhash64.h"

namespace sowdb::table_internal {

struct ParsedHeader {
  LayerInfo info;
  std::uint64_t data_start = 0;   // where the first block starts
  std::uint64_t seek_offset = 0;  // where the seek table starts
};

// Checks 1..12: everything read_info promises. `verify_header_checksum` guards check 5.
ParsedHeader parse_header(const Source& src, bool verify_header_checksum);

// Check 14: the whole-file checksum.
void check_file_checksum(const Source& src);

// The header of a file that `info` describes: its version, flags, rule set, sizes, depth codec
// value_table.size() as value_count and
// set_count (file_size is not in the header), checksum included.
HeaderBytes serialise_header(const LayerInfo& info);

// The value table as it follows the header: `table`'s bytes, padded with zeros to a multiple
// of 8.
std::vector<std::byte> serialise_value_table(std::span<const std::int8_t> table);

// The set table of a co-operative file as it follows the header: `table`'s words, little-endian.
std::vector<std::byte> serialise_set_table(std::span<const std::uint64_t> table);

// The footer of a file whose bytes before the footer `hash` has been fed.
FooterBytes serialise_footer(Xxh64 hash);

}  // namespace sowdb::table_internal
