// The writer's side of a table directory (table_directory.h names the files): one writer at a
// time through the lock, and the removal of what a killed writer left behind.
//
// Not installed: an engine reads tables and never writes a directory, so the lock protocol
// (flock on `.sowdb.lock`) and the clean-up are the generator's business, not a contract of the
// probe API. Built as the static library sowdb::directory_writer, between probe and gen.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include "sowdb/probe/table_directory.h"

namespace sowdb {

/// Thrown when another process holds a table directory's lock.
struct DirectoryBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An exclusive lock on a table directory, held from construction to destruction: `sowdb gen`
/// and `sowdb manifest` take it before they read or change anything in the directory, so that
/// two writers never mix their layers. An advisory lock (flock) on `dir`/kLockName, released
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

/// Removes the stale files of left_behind(`dir`): temporaries of processes that no longer exist
/// and .plain files; a temporary of a live process (a concurrent run) is left alone. Failures
/// to list or remove are ignored (the files are garbage, never read). THREAD SAFETY the caller
/// holds the directory's lock.
void remove_stale_temporaries(const std::filesystem::path& dir);

}  // namespace sowdb
