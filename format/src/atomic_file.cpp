// The writer's temporary file (FORMAT.md, "Writing").
#include "atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <span>
#include <string>

#include "sowdb/format/layer_parts.h"
#include "table_common.h"

namespace sowdb::table_internal {

namespace {

constexpr std::size_t kBufferSize = std::size_t{1} << 20;
// Bytes read at a time when a temporary other writers filled is taken over.
constexpr std::uint64_t kReadBackSize = std::uint64_t{16} << 20;

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target)
    : target_(std::move(target)), temp_(temporary_path(target_, ::getpid())) {
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    fail(Code::kIo, temp_.string(), "cannot create: " + errno_text(errno));
}

AtomicFile::AtomicFile(std::filesystem::path target, std::filesystem::path temp, std::uint64_t keep)
    : target_(std::move(target)), temp_(std::move(temp)) {
  try {
    adopt(keep);
  } catch (...) {
    // The destructor does not run for a constructor that throws.
    if (fd_ >= 0)
      ::close(fd_);
    ::unlink(temp_.c_str());
    throw;
  }
}

void AtomicFile::adopt(std::uint64_t keep) {
  fd_ = ::open(temp_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd_ < 0)
    fail(Code::kIo, temp_.string(), "cannot open: " + errno_text(errno));
  std::vector<std::byte> chunk(std::min<std::uint64_t>(keep, kReadBackSize));
  for (std::uint64_t at = 0; at < keep;) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), keep - at));
    const ssize_t n = ::pread(fd_, chunk.data(), want, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      fail(Code::kIo, temp_.string(), "read failed: " + errno_text(errno));
    if (n == 0)
      fail(Code::kIo, temp_.string(), "shorter than its blocks");
    hash_.update(std::span(chunk.data(), static_cast<std::size_t>(n)));
    at += static_cast<std::uint64_t>(n);
  }
  if (::ftruncate(fd_, static_cast<off_t>(keep)) != 0)
    fail(Code::kIo, temp_.string(), "truncate failed: " + errno_text(errno));
  if (::lseek(fd_, static_cast<off_t>(keep), SEEK_SET) < 0)
    fail(Code::kIo, temp_.string(), "seek failed: " + errno_text(errno));
  written_ = keep;
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
