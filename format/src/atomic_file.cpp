// The writer's temporary file (FORMAT.md, "Writing").
#include "atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>

#include "table_common.h"

namespace sowdb::table_internal {

namespace {

constexpr std::size_t kBufferSize = std::size_t{1} << 20;

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target)
    : target_(std::move(target)), temp_(target_.string() + ".tmp." + std::to_string(::getpid())) {
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    fail(Code::kIo, temp_.string(), "cannot create: " + errno_text(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0)
    ::close(fd_);
  if (!committed_)
    ::unlink(temp_.c_str());
}

void AtomicFile::write(std::span<const std::byte> bytes) {
  hash_.update(bytes);
  while (!bytes.empty()) {
    if (buffer_.size() == kBufferSize)
      flush();
    const std::size_t take = std::min(bytes.size(), kBufferSize - buffer_.size());
    buffer_.insert(buffer_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(take));
    bytes = bytes.subspan(take);
  }
}

void AtomicFile::commit() {
  flush();
  if (::fsync(fd_) != 0)
    fail(Code::kIo, temp_.string(), "fsync failed: " + errno_text(errno));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0)
    fail(Code::kIo, temp_.string(), "close failed: " + errno_text(errno));
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    fail(Code::kIo, target_.string(), "rename from the temporary failed: " + errno_text(errno));
  committed_ = true;
  // Make the rename itself durable. Best effort: some file systems refuse fsync on a directory.
  std::filesystem::path dir = target_.parent_path();
  if (dir.empty())
    dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void AtomicFile::flush() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      fail(Code::kIo, temp_.string(), "write failed: " + errno_text(errno));
    }
    if (n == 0)
      fail(Code::kIo, temp_.string(), "write wrote nothing");
    done += static_cast<std::size_t>(n);
  }
  written_ += buffer_.size();
  buffer_.clear();
}

}  // namespace sowdb::table_internal
