// gzip for answers (Content-Encoding: gzip, RFC 9110), on zlib.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sowdb::server {

/// Whether an Accept-Encoding header value admits gzip: it names `gzip`, `x-gzip` or `*` with
/// no `q=0`. Thread safe.
bool accepts_gzip(std::string_view accept_encoding) noexcept;

/// `data` in the gzip format (one member), or nullopt when zlib fails (out of memory).
/// Thread safe.
std::optional<std::string> gzip(std::string_view data);

}  // namespace sowdb::server
