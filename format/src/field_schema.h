// A fixed-size record of the file (the header, a seek-table entry, the footer) described once,
// as a table of fields that the parser and the serialiser both go through: an offset written in
// two places can drift from the other, and from FORMAT.md, unseen. Not installed.
//
// A record is an enum of its fields and a Layout whose fields are listed in the enum's order; a
// `layout_of(Field)` function found by argument-dependent lookup ties the two. The accessors take
// the field as a template argument, so that a field's type and the record's size are checked
// when compiling.
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "table_common.h"

namespace sowdb::table_internal {

enum class FieldType : std::uint8_t {
  kBytes,     // bytes as they are (a magic, reserved bytes)
  kUnsigned,  // a little-endian unsigned integer of 1 to 8 bytes
};

template <typename Id>
struct Field {
  Id id;
  std::string_view name;  // FORMAT.md's name of the field
  std::size_t offset;     // from the start of the record
  std::size_t size;
  FieldType type;
  int check;  // the FORMAT.md reader check that guards the field's value
};

template <typename Id, std::size_t N>
struct Layout {
  std::size_t size;  // bytes in the record
  std::array<Field<Id>, N> fields;

  constexpr const Field<Id>& operator[](Id id) const {
    return fields[static_cast<std::size_t>(id)];
  }

  // Whether the fields are listed in the enum's order and follow one another from byte 0 to
  // `size`, with no gap and no overlap, each integer fitting a std::uint64_t.
  constexpr bool tiles() const {
    std::size_t end = 0;
    for (std::size_t i = 0; i < N; ++i) {
      const Field<Id>& f = fields[i];
      if (static_cast<std::size_t>(f.id) != i || f.offset != end || f.size == 0 ||
          (f.type == FieldType::kUnsigned && f.size > 8)) {
        return false;
      }
      end += f.size;
    }
    return end == size;
  }
};

// The field `kId` of its record.
template <auto kId>
constexpr const auto& field() {
  return layout_of(kId)[kId];
}

// The bytes of one record of the layout of `kId`.
template <auto kId>
using RecordBytes = std::span<std::byte, layout_of(kId).size>;
template <auto kId>
using ConstRecordBytes = std::span<const std::byte, layout_of(kId).size>;

template <auto kId>
std::uint64_t get_field(ConstRecordBytes<kId> record) {
  constexpr auto f = field<kId>();
  static_assert(f.type == FieldType::kUnsigned);
  return get_le(record.data() + f.offset, static_cast<int>(f.size));
}

// `value` must fit the field: callers have checked it against FORMAT.md's range.
template <auto kId>
void put_field(RecordBytes<kId> record, std::uint64_t value) {
  constexpr auto f = field<kId>();
  static_assert(f.type == FieldType::kUnsigned);
  if constexpr (f.size < 8)
    assert(value >> (8 * f.size) == 0);
  put_le(record.data() + f.offset, value, static_cast<int>(f.size));
}

template <auto kId>
std::span<const std::byte, field<kId>().size> field_bytes(ConstRecordBytes<kId> record) {
  constexpr auto f = field<kId>();
  static_assert(f.type == FieldType::kBytes);
  return record.template subspan<f.offset, f.size>();
}

template <auto kId>
void put_field_bytes(RecordBytes<kId> record,
                     std::span<const std::uint8_t, field<kId>().size> bytes) {
  constexpr auto f = field<kId>();
  static_assert(f.type == FieldType::kBytes);
  for (std::size_t i = 0; i < f.size; ++i)
    record[f.offset + i] = static_cast<std::byte>(bytes[i]);
}

}  // namespace sowdb::table_internal
