// Where a reader's bytes come from: a file read with pread (or mapped), or bytes in memory.
// Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "file_map.h"

namespace sowdb::table_internal {

class Source {
 public:
  virtual ~Source() = default;
  virtual std::uint64_t size() const = 0;
  // Reads exactly out.size() bytes at `offset`; throws TableError (kTruncated, kIo) otherwise.
  virtual void read(std::uint64_t offset, std::span<std::byte> out) const = 0;
  // All size() bytes in memory (a file is mapped at the first call: OpenOptions::memory_map).
  // Not thread safe on its first call; throws TableError kIo when the mapping fails.
  virtual const std::byte* map() const = 0;
  // The file's name in error messages.
  const std::string& name() const { return name_; }

 protected:
  std::string name_;
};

// Opening one performs check 1.
class FileSource final : public Source {
 public:
  explicit FileSource(const std::filesystem::path& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  std::uint64_t size() const override { return size_; }
  void read(std::uint64_t offset, std::span<std::byte> out) const override;
  const std::byte* map() const override;

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
  mutable std::unique_ptr<FileMap> map_;
};

class MemorySource final : public Source {
 public:
  explicit MemorySource(std::vector<std::byte> bytes);
  std::uint64_t size() const override { return bytes_.size(); }
  void read(std::uint64_t offset, std::span<std::byte> out) const override;
  const std::byte* map() const override { return bytes_.data(); }

 private:
  std::vector<std::byte> bytes_;
};

}  // namespace sowdb::table_internal
