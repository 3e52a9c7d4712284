// A read-only mapping of a whole table file, for a version 6 reader opened with
// OpenOptions::memory_map (v6_reader.cpp copies each block it decodes out of it). Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace sowdb::table_internal {

// A whole file mapped read-only (MAP_SHARED: the page cache's pages, no copy). No signal handler
// is installed: reading a page that the file no longer has (it was cut short after it was
// mapped) raises SIGBUS, whose default action ends the process.
class FileMap {
 public:
  // Maps the `size` bytes of the open descriptor `fd` (size > 0). Throws TableError kIo,
  // naming `name`, when the mapping fails.
  FileMap(int fd, std::uint64_t size, const std::string& name);
  ~FileMap();
  FileMap(const FileMap&) = delete;
  FileMap& operator=(const FileMap&) = delete;

  const std::byte* data() const { return data_; }

 private:
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace sowdb::table_internal
