// The seek table (FORMAT.md, "Seek table" and "Reader checks" 15).
#include "seek_table.h"

#include <string>

#include "table_common.h"

namespace sowdb::table_internal {

std::vector<SeekEntry> parse_seek_table(const Source& src,
                                        std::uint32_t block_count,
                                        std::uint64_t data_start,
                                        std::uint64_t seek_offset) {
  using F = SeekField;
  std::vector<std::byte> raw(std::size_t{block_count} * kSeekEntrySize);
  src.read(seek_offset, raw);
  std::vector<SeekEntry> seek(block_count);
  std::uint64_t expected = data_start;
  for (std::uint32_t b = 0; b < block_count; ++b) {
    const ConstRecordBytes<F::kOffset> e(raw.data() + std::size_t{b} * kSeekEntrySize,
                                         kSeekEntrySize);
    SeekEntry& s = seek[b];
    s.offset = get_field<F::kOffset>(e);
    s.value_size = static_cast<std::uint32_t>(get_field<F::kValueSize>(e));
    s.depth_size = static_cast<std::uint32_t>(get_field<F::kDepthSize>(e));
    s.value_hash = static_cast<std::uint32_t>(get_field<F::kValueHash>(e));
    s.depth_hash = static_cast<std::uint32_t>(get_field<F::kDepthHash>(e));
    const std::string which = "seek table entry " + std::to_string(b);
    if (s.offset != expected) {
      fail_check(Code::kCorrupt,
                 src.name(),
                 field<F::kOffset>().check,
                 which + ": offset " + std::to_string(s.offset) + ", expected " +
                     std::to_string(expected));
    }
    if (s.value_size == 0 || s.depth_size == 0)
      fail_check(Code::kCorrupt, src.name(), field<F::kValueSize>().check, which + ": empty frame");
    expected += std::uint64_t{s.value_size} + s.depth_size;  // < 2^64: both < 2^33 a block
    if (expected > seek_offset) {
      fail_check(Code::kCorrupt,
                 src.name(),
                 field<F::kOffset>().check,
                 which + ": block runs into the seek table");
    }
  }
  if (expected != seek_offset) {
    fail_check(Code::kCorrupt,
               src.name(),
               field<F::kOffset>().check,
               "blocks end at " + std::to_string(expected) + ", the seek table starts at " +
                   std::to_string(seek_offset));
  }
  return seek;
}

void serialise_seek_entry(const SeekEntry& e, std::byte* out) {
  using F = SeekField;
  const RecordBytes<F::kOffset> record(out, kSeekEntrySize);
  put_field<F::kOffset>(record, e.offset);
  put_field<F::kValueSize>(record, e.value_size);
  put_field<F::kDepthSize>(record, e.depth_size);
  put_field<F::kValueHash>(record, e.value_hash);
  put_field<F::kDepthHash>(record, e.depth_hash);
}

}  // namespace sowdb::table_internal
