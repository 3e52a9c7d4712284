// One writer at a time per table directory.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace sowdb::gen {

/// Thrown when another process holds a table directory's lock.
struct DirectoryBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// File name of a table directory's lock file. It stays in the directory (removing it would let
/// a third writer lock a new file while the second still holds the old one).
inline constexpr const char* kLockName = ".sowdb.lock";

/// An exclusive lock on a table directory, held from construction to destruction: `sowdb gen`
/// and `sowdb manifest` take it before they read or change anything in the directory, so that
/// two writers never mix their layers. An advisory lock (flock) on `dir`/.sowdb.lock, released
/// by the system when the process ends however it ends, so a killed writer never leaves the
/// directory locked.
class DirectoryLock {
 public:
  /// Takes the lock without waiting and records the holder (this process's id and `what`, e.g.
  /// "sowdb gen oware/6x4 0..13") in the lock file. In a directory this process may not write
  /// in, it locks the lock file read-only when there is one, and takes no lock when there is
  /// none (so a rerun over complete tables on a read-only file system still passes).
  /// ERRORS throws DirectoryBusy, naming the holder as its lock file records it, when another
  ///   process (or another DirectoryLock of this one) holds the lock; std::runtime_error when
  ///   the lock file cannot be created or locked.
  /// THREAD SAFETY any number may be constructed in parallel: at most one succeeds per directory.
  DirectoryLock(const std::filesystem::path& dir, const std::string& what);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

/// Waits until no process holds the lock of table directory `dir` (returns at once when there
/// is no lock file, or none may be opened), so that a caller refused with DirectoryBusy can try
/// again when the writer has finished instead of failing. Takes and releases a shared lock on
/// the lock file; a writer may take the directory again before the caller does, so callers loop.
/// ERRORS throws std::runtime_error when the lock file cannot be locked for another reason than
///   a signal.
/// THREAD SAFETY any number of calls in parallel; blocks the calling thread.
void wait_for_directory(const std::filesystem::path& dir);

}  // namespace sowdb::gen
