// The table directory's lock and clean-up (directory_writer.h).
#include "sowdb/probe/directory_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace sowdb {

DirectoryLock::DirectoryLock(const std::filesystem::path& dir, const std::string& what) {
  const std::filesystem::path path = dir / kLockName;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
    // A directory this process may not write in: lock the file if it is there (a writer that
    // can write holds it the same way), else there is nothing to lock against, since no one
    // has written here either, and this process cannot write; the run needs a lock only to
    // write, and fails at its first write.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
      return;
  }
  if (fd_ < 0) {
    throw std::runtime_error("cannot create the lock file " + path.string() + ": " +
                             std::strerror(errno));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder;
    if (err == EWOULDBLOCK) {
      char buf[512];
      const ssize_t got = ::pread(fd_, buf, sizeof buf - 1, 0);
      if (got > 0) {
        holder.assign(buf, static_cast<std::size_t>(got));
        while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0'))
          holder.pop_back();
      }
    }
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) {
      throw DirectoryBusy(dir.string() + " is being written by another sowdb (" +
                          (holder.empty() ? std::string("it has not said who yet") : holder) +
                          "); wait for it to finish, or use another directory");
    }
    throw std::runtime_error("cannot lock " + path.string() + ": " + std::strerror(err));
  }
  // Who holds it, for the message of the next writer that tries.
  const std::string text = "pid " + std::to_string(::getpid()) + ": " + what + "\n";
  if (::ftruncate(fd_, 0) != 0 ||
      ::pwrite(fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    // The lock holds without the record; only the next writer's message is poorer.
  }
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0)
    ::close(fd_);  // releases the lock
}

void wait_for_directory(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kLockName;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;  // no lock file: no writer has been here
  int rc = 0;
  // A shared lock is granted only once the writer's exclusive lock is released.
  while ((rc = ::flock(fd, LOCK_SH)) != 0 && errno == EINTR) {
  }
  const int err = errno;
  ::close(fd);  // releases the shared lock at once
  if (rc != 0)
    throw std::runtime_error("cannot wait for the lock " + path.string() + ": " +
                             std::strerror(err));
}

void remove_stale_temporaries(const std::filesystem::path& dir) {
  for (const LeftBehind& left : left_behind(dir)) {
    std::error_code ec;
    if (left.stale)
      std::filesystem::remove(left.path, ec);
  }
}

}  // namespace sowdb
