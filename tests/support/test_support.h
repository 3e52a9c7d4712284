// Helpers shared by the test executables of every module. Header-only, and it needs nothing but
// `format/` (sowdb/format/rule_set.h), so the format tests can use it too.
#pragma once

#include <stdlib.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>

#include "sowdb/format/rule_set.h"

namespace sowdb::test {

/// A fresh empty directory under the system temporary directory (`sowdb-<tag>-XXXXXX`, unique
/// per call), removed with everything in it at destruction. ERRORS throws std::runtime_error
/// when it cannot be made.
class TempDir {
 public:
  explicit TempDir(const std::string& tag = "test") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("sowdb-" + tag + "-XXXXXX")).string();
    if (!mkdtemp(pattern.data()))
      throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// A board (sowdb::Pits) from its pit counts, mover's pits first; the pits not given are 0.
inline std::array<std::uint8_t, kMaxPits> board_of(std::initializer_list<int> pits) {
  std::array<std::uint8_t, kMaxPits> b{};
  int i = 0;
  for (int x : pits)
    b[i++] = static_cast<std::uint8_t>(x);
  return b;
}

/// Every byte of the file at `path`; empty when it cannot be read (a test comparing two files
/// then sees the difference).
inline std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace sowdb::test
