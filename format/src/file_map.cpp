// Read-only file mappings (file_map.h).
#include "file_map.h"

#include <sys/mman.h>

#include <cerrno>
#include <limits>

#include "table_common.h"

namespace sowdb::table_internal {

FileMap::FileMap(int fd, std::uint64_t size, const std::string& name) {
  if (size == 0 || size > std::numeric_limits<std::size_t>::max())
    fail(Code::kIo, name, "cannot map " + count_text(size, "byte", "bytes"));
  void* p = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    fail(Code::kIo, name, "cannot map the file: " + errno_text(errno));
  data_ = static_cast<const std::byte*>(p);
  size_ = static_cast<std::size_t>(size);
}

FileMap::~FileMap() {
  ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace sowdb::table_internal
