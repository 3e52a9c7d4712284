// A file written under a temporary name and renamed onto its final name only when complete
// (FORMAT.md, "Writing"), so that the final name never holds a partial file. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "sowdb/format/xxhash64.h"

namespace sowdb::table_internal {

class AtomicFile {
 public:
  // Creates temporary_path(`target`, this process's id); throws TableError (kIo) when it cannot.
  explicit AtomicFile(std::filesystem::path target);
  // Takes over `temp`, a temporary of `target` that other writers filled: keeps its first
  // `keep` bytes (read back into hash(); written() starts there) and cuts off the rest. Throws
  // TableError (kIo) when it cannot be opened or read or is shorter than `keep`, and then
  // removes it.
  AtomicFile(std::filesystem::path target, std::filesystem::path temp, std::uint64_t keep);
  // Removes the temporary unless committed.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends `bytes`; a failed write throws TableError (kIo), here or at a later call.
  void write(std::span<const std::byte> bytes);
  // Bytes written so far.
  std::uint64_t written() const { return written_ + buffer_.size(); }
  // The XXH64 stream of every byte written so far.
  const Xxh64& hash() const { return hash_; }

  // Flushes, fsyncs, closes and renames the temporary onto the target, then fsyncs the
  // directory. Throws TableError (kIo) if any but the last step fails.
  void commit();

 private:
  void flush();
  void adopt(std::uint64_t keep);

  std::filesystem::path target_;
  std::filesystem::path temp_;
  int fd_ = -1;
  bool committed_ = false;
  std::vector<std::byte> buffer_;
  std::uint64_t written_ = 0;
  Xxh64 hash_;
};

}  // namespace sowdb::table_internal
