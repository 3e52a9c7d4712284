// The `fields` of a position answer (docs/API.md): which top-level keys a client keeps, and an
// answer's JSON text cut down to them without parsing it into a document.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sowdb::server {

/// A set of the known top-level keys of a position answer, one bit each (known_fields() order).
/// 0 means every key (no `fields` given).
using FieldMask = std::uint64_t;

/// The top-level keys of every position answer the server gives (competitive, searched,
/// co-operative, and "api"), comma-separated in sorted order: the names `fields` accepts.
std::string known_fields_text();

/// Reads `text`, comma-separated key names ("value,best"), into `out`. Returns false and a
/// one-line reason in `error` for an empty list, an empty name or a name that is not a key of
/// any position answer (the reason lists the known ones). Thread safe.
bool parse_fields(std::string_view text, FieldMask& out, std::string& error);

/// The bit of the key `name`, or 0 when it is not a known key.
FieldMask field_bit(std::string_view name) noexcept;

/// `object`, the compact JSON text of one object (as the server writes answers), with only the
/// top-level members whose keys are in `keep`, and "api" always; the members keep their order
/// and their bytes. `keep` 0 returns `object` unchanged. Text that is not such an object is
/// returned unchanged. Thread safe.
std::string keep_fields(std::string_view object, FieldMask keep);

}  // namespace sowdb::server
