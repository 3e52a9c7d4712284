// Copies out of a read-only file mapping that survive the file shrinking under the mapping.
// The version 6 reader (v6_reader.cpp) maps its file and copies each block it decodes: no
// system call per lookup. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace sowdb::table_internal {

// A whole file mapped read-only (MAP_SHARED: the page cache's pages, no copy).
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

// Copies n bytes from `from`, which lies in a FileMap (or in ordinary memory), to `to`. RETURN
// false when a page of `from` is no longer backed by the file (it was cut short after it was
// mapped: the access raised SIGBUS), `to` then holding an unspecified prefix of the bytes.
// NOTES the first FileMap installs a SIGBUS handler for the process that turns such a fault
// during this copy into the false return and hands every other SIGBUS to the handler it
// replaced (or to the default action, which ends the process). An application that installs its
// own SIGBUS handler afterwards and does not chain to it turns a cut file back into a crash.
// Thread safe; no system call.
bool copy_from_map(void* to, const void* from, std::size_t n) noexcept;

}  // namespace sowdb::table_internal
