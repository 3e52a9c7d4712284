// The page's files, embedded at build time (server/web/files.cmake lists them; the build
// generates their definition).
#pragma once

#include <span>
#include <string_view>

namespace sowdb::server {

/// One embedded file.
struct EmbeddedFile {
  std::string_view path;          ///< Relative to server/web/, e.g. "index.html", "js/board.js".
  std::string_view content_type;  ///< e.g. "text/html; charset=utf-8".
  std::string_view etag;          ///< A hash of the bytes (16 hex digits), unquoted.
  std::string_view bytes;         ///< The file's contents.
};

/// Every embedded file. Thread safe (constant data).
std::span<const EmbeddedFile> embedded_files() noexcept;

}  // namespace sowdb::server
