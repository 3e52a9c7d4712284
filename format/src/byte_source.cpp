// The reader's byte sources (FORMAT.md, "Reader checks" 1 and 16).
#include "byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "table_common.h"

namespace sowdb::table_internal {

FileSource::FileSource(const std::filesystem::path& path) {
  name_ = path.string();
  // O_NONBLOCK: opening a FIFO must not wait for a writer (check 1 rejects it below); it
  // has no effect on reads of a regular file.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0)
    fail_check(Code::kIo, name_, 1, "cannot open: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    fail_check(Code::kIo, name_, 1, "cannot stat: " + errno_text(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fail_check(Code::kIo, name_, 1, "not a regular file");
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
}

FileSource::~FileSource() {
  map_.reset();
  ::close(fd_);
}

const std::byte* FileSource::map() const {
  if (!map_)
    map_ = std::make_unique<FileMap>(fd_, size_, name_);
  return map_->data();
}

void FileSource::read(std::uint64_t offset, std::span<std::byte> out) const {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t got =
        ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR)
        continue;
      fail(Code::kIo,
           name_,
           "read failed at offset " + std::to_string(offset + done) + ": " + errno_text(errno));
    }
    if (got == 0) {
      fail(Code::kTruncated,
           name_,
           "file ended at offset " + std::to_string(offset + done) + " while reading " +
               count_text(out.size(), "byte", "bytes") + " at " + std::to_string(offset));
    }
    done += static_cast<std::size_t>(got);
  }
}

MemorySource::MemorySource(std::vector<std::byte> bytes) : bytes_(std::move(bytes)) {
  name_ = "<memory>";
}

void MemorySource::read(std::uint64_t offset, std::span<std::byte> out) const {
  if (offset > bytes_.size() || out.size() > bytes_.size() - offset) {
    fail(Code::kTruncated,
         name_,
         "read of " + count_text(out.size(), "byte", "bytes") + " at " + std::to_string(offset) +
             " passes the end (" + count_text(bytes_.size(), "byte", "bytes") + ")");
  }
  if (!out.empty())
    std::memcpy(out.data(), bytes_.data() + offset, out.size());
}

}  // namespace sowdb::table_internal
