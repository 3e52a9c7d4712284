#include "gzip.h"

#include <zlib.h>

#include <cstddef>
#include <limits>

namespace sowdb::server {
namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equal_nocase(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i]))
      return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// Whether the parameters of one coding (";q=0.5") leave it acceptable: q=0 (0.0, 0.000) refuses.
bool acceptable(std::string_view params) {
  while (!params.empty()) {
    const std::size_t semi = params.find(';');
    const std::string_view p = trim(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    if (p.size() < 2 || lower(p[0]) != 'q' || p[1] != '=')
      continue;
    for (const char c : p.substr(2)) {
      if (c != '0' && c != '.')
        return true;
    }
    return false;
  }
  return true;
}

}  // namespace

bool accepts_gzip(std::string_view header) noexcept {
  while (!header.empty()) {
    const std::size_t comma = header.find(',');
    const std::string_view item = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    const std::size_t semi = item.find(';');
    const std::string_view coding = trim(item.substr(0, semi));
    if (equal_nocase(coding, "gzip") || equal_nocase(coding, "x-gzip") || coding == "*") {
      if (acceptable(semi == std::string_view::npos ? std::string_view() : item.substr(semi + 1)))
        return true;
    }
  }
  return false;
}

std::optional<std::string> gzip(std::string_view data) {
  if (data.size() > std::numeric_limits<uInt>::max())
    return std::nullopt;
  z_stream z{};
  // Level 1: the answers are repetitive JSON, which the fastest level already shrinks several
  // times over; the server's CPU is what a higher level would spend.
  constexpr int kLevel = 1;
  constexpr int kGzipWindow = 15 + 16;  // 32 KiB window, gzip header and trailer
  constexpr int kMemLevel = 8;
  if (deflateInit2(&z, kLevel, Z_DEFLATED, kGzipWindow, kMemLevel, Z_DEFAULT_STRATEGY) != Z_OK)
    return std::nullopt;
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  // zlib's API takes a non-const input pointer; it does not write through it.
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  const std::size_t written = z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END)
    return std::nullopt;
  out.resize(written);
  return out;
}

}  // namespace sowdb::server
