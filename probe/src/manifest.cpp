#include "sowdb/probe/manifest.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "sowdb/format/xxhash64.h"
#include "sowdb/probe/table_directory.h"

namespace sowdb {
namespace {

std::string checksum_of(std::string_view variant, std::string_view rules) {
  const std::string hashed = std::string(variant) + "\n" + std::string(rules);
  const std::uint64_t h = xxh64(std::as_bytes(std::span(hashed.data(), hashed.size())));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

// The string value of `"key": "..."` in `text`; nullopt when absent or not a plain string.
std::optional<std::string> string_field(std::string_view text, std::string_view key) {
  // Built piece by piece: g++ 12 warns (-Wrestrict, a false positive) on "\"" + key + "\"".
  std::string quoted(1, '"');
  quoted.append(key);
  quoted.push_back('"');
  const std::size_t at = text.find(quoted);
  if (at == std::string_view::npos)
    return std::nullopt;
  std::size_t i = at + quoted.size();
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
    ++i;
  if (i >= text.size() || text[i] != ':')
    return std::nullopt;
  ++i;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
    ++i;
  if (i >= text.size() || text[i] != '"')
    return std::nullopt;
  const std::size_t end = text.find('"', i + 1);
  if (end == std::string_view::npos)
    return std::nullopt;
  const std::string_view value = text.substr(i + 1, end - i - 1);
  if (value.find('\\') != std::string_view::npos || value.find('\n') != std::string_view::npos)
    return std::nullopt;
  return std::string(value);
}

}  // namespace

std::string describe(const RuleSet& r) {
  std::string s = std::string(to_string(r.family)) + " rules, " + std::to_string(r.pits_per_side) +
                  (r.pits_per_side == 1 ? " pit" : " pits") +
                  " per side, skip_origin=" + (r.skip_origin ? "on" : "off");
  if (r.family == Family::kOware)
    s += ", grand_slam=" + std::string(to_string(r.grand_slam));
  if (r.family == Family::kKalah) {
    s += ", capture_empty_opposite=" + std::string(r.capture_empty_opposite ? "on" : "off") +
         ", end=" + std::string(to_string(r.end));
  }
  return s;
}

std::string manifest_text(const Variant& variant) {
  const std::string name = variant.to_string();
  const std::string rules = describe(variant.rules.normalised());
  return "{\"variant\": \"" + name + "\", \"rules\": \"" + rules + "\", \"checksum\": \"" +
         checksum_of(name, rules) + "\"}\n";
}

ManifestContent parse_manifest(std::string_view text) {
  ManifestContent out;
  const auto name = string_field(text, "variant");
  const std::size_t open = text.find_first_not_of(" \t\r\n");
  if (!name || open == std::string_view::npos || text[open] != '{') {
    out.error = "not a manifest (no \"variant\")";
    return out;
  }
  std::string why;
  out.variant = parse_variant(*name, &why);
  if (!out.variant) {
    out.error = "bad variant '" + *name + "': " + why;
    return out;
  }
  const auto checksum = string_field(text, "checksum");
  if (!checksum) {
    out.legacy = true;
    out.error = "it has no checksum (an older sowdb wrote it)";
    return out;
  }
  const auto rules = string_field(text, "rules");
  if (!rules || *checksum != checksum_of(*name, *rules)) {
    out.error = "its checksum does not match (damaged, or edited by hand)";
    return out;
  }
  if (*rules != describe(out.variant->rules.normalised())) {
    out.error = "its rules (" + *rules + ") are not those of " + *name;
    return out;
  }
  return out;
}

std::optional<ManifestContent> read_manifest(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kManifestName;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec)
    return std::nullopt;
  ManifestContent out;
  try {
    std::ifstream in(path, std::ios::binary);
    // A manifest is one short line; more is not one (and is not read whole).
    std::string text(4096, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (in.bad() || (!in.eof() && in.gcount() == static_cast<std::streamsize>(text.size()))) {
      out.error = in.bad() ? "cannot be read" : "not a manifest (too long)";
      return out;
    }
    text.resize(static_cast<std::size_t>(in.gcount()));
    return parse_manifest(text);
  } catch (const std::exception& e) {
    out.error = std::string("cannot be read: ") + e.what();
    return out;
  }
}

void write_manifest(const std::filesystem::path& dir, const Variant& variant) {
  namespace fs = std::filesystem;
  const fs::path path = dir / kManifestName;
  const std::string text = manifest_text(variant);
  {
    std::ifstream in(path, std::ios::binary);
    std::stringstream have;
    have << in.rdbuf();
    if (in && have.str() == text)
      return;
  }
  const fs::path tmp = dir / temporary_name(kManifestName, getpid());
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      const int err = errno;
      std::error_code ec;
      fs::remove(tmp, ec);
      if (err == 0)
        throw std::runtime_error("cannot write " + path.string() + ": write failed");
      throw std::system_error(err, std::generic_category(), "cannot write " + path.string());
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw std::runtime_error("cannot rename " + tmp.string() + ": " + ec.message());
  }
}

}  // namespace sowdb
