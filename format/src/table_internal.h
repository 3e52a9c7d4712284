// What the table file's reader and writer share (FORMAT.md's constants, little-endian fields,
// the checks' errors, the byte sources and the parsed header). Not installed.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/format/table_file.h"
#include "sowdb/format/xxhash64.h"

namespace sowdb::table_internal {

using Code = TableError::Code;

// "Header" section.
constexpr std::array<std::uint8_t, 8> kMagic = {0x89, 'S', 'O', 'W', 'D', 'B', '\r', '\n'};
constexpr std::array<std::uint8_t, 8> kFooterMagic = {'S', 'O', 'W', 'D', 'B', 'E', 'N', 'D'};
constexpr std::size_t kHeaderSize = 64;
constexpr std::size_t kHeaderHashedBytes = 56;  // the header checksum covers bytes 0..55
constexpr std::size_t kSeekEntrySize = 24;
constexpr std::size_t kFooterSize = 16;
constexpr std::uint32_t kRequiredFlagsMask = 0x0000FFFFu;
// "Recompute entries": the value-table byte of the "recompute, stored depth" symbol (the
// "recompute, derived depth" symbol's byte is kRecomputeValue). Only in layers of at most
// kMaxStonesWithStoredRecompute stones, where 127 is not a value.
constexpr std::int8_t kStoredRecomputeByte = 127;
constexpr int kMaxStonesWithStoredRecompute = 126;
constexpr std::size_t kHashChunk = std::size_t{1} << 20;

// --- Little-endian field access ("Conventions": every integer is little-endian). -----------

inline void put_le(std::byte* p, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
}

inline std::uint64_t get_le(const std::byte* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

inline std::uint8_t get8(const std::byte* p) {
  return std::to_integer<std::uint8_t>(*p);
}

inline std::uint64_t pad8(std::uint64_t n) {
  return (n + 7) & ~std::uint64_t{7};
}

inline std::uint32_t hash32(std::span<const std::byte> bytes) {
  return static_cast<std::uint32_t>(xxh64(bytes) & 0xFFFFFFFFu);
}

inline std::string errno_text(int err) {
  return std::strerror(err);
}

// `n` and its noun, singular for one: "1 byte", "12 bytes".
template <typename Count>
inline std::string count_text(Count n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

[[noreturn]] inline void fail(Code code, const std::string& where, const std::string& what) {
  throw TableError(code, where + ": " + what);
}

[[noreturn]] inline void fail_check(Code code,
                                    const std::string& where,
                                    int check,
                                    const std::string& what) {
  throw TableError(code, where + ": check " + std::to_string(check) + ": " + what);
}

// --- Rule set fields ("Rule set"). -------------------------------------------------------

inline bool rules_in_range(const RuleSet& r) {
  return static_cast<int>(r.family) <= 2 && r.pits_per_side >= 1 &&
         r.pits_per_side <= kMaxPitsPerSide && static_cast<int>(r.grand_slam) <= 2 &&
         static_cast<int>(r.end) <= 1;
}

inline std::uint64_t block_count_for(std::uint64_t entries, std::uint32_t block_entries) {
  return entries / block_entries + (entries % block_entries != 0 ? 1 : 0);
}

// The entries in block `b`: block_entries except possibly in the last block.
inline std::uint32_t entries_in_block(const LayerInfo& info, std::uint32_t b) {
  const std::uint64_t first = std::uint64_t{b} * info.block_entries;
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>(info.block_entries, info.entries - first));
}

// --- Sources: a file read with pread, or bytes in memory. ------------------------------------

class Source {
 public:
  virtual ~Source() = default;
  virtual std::uint64_t size() const = 0;
  // Reads exactly out.size() bytes at `offset`; throws TableError (kTruncated, kIo) otherwise.
  virtual void read(std::uint64_t offset, std::span<std::byte> out) const = 0;
  const std::string& name() const { return name_; }

 protected:
  std::string name_;
};

class FileSource final : public Source {
 public:
  explicit FileSource(const std::filesystem::path& path) {
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
  ~FileSource() override { ::close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  std::uint64_t size() const override { return size_; }

  void read(std::uint64_t offset, std::span<std::byte> out) const override {
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

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

class MemorySource final : public Source {
 public:
  explicit MemorySource(std::vector<std::byte> bytes) : bytes_(std::move(bytes)) {
    name_ = "<memory>";
  }
  std::uint64_t size() const override { return bytes_.size(); }
  void read(std::uint64_t offset, std::span<std::byte> out) const override {
    if (offset > bytes_.size() || out.size() > bytes_.size() - offset) {
      fail(Code::kTruncated,
           name_,
           "read of " + count_text(out.size(), "byte", "bytes") + " at " + std::to_string(offset) +
               " passes the end (" + count_text(bytes_.size(), "byte", "bytes") + ")");
    }
    if (!out.empty())
      std::memcpy(out.data(), bytes_.data() + offset, out.size());
  }

 private:
  std::vector<std::byte> bytes_;
};

// --- Parsing ("Reader checks"). ------------------------------------------------------------

struct SeekEntry {
  std::uint64_t offset = 0;
  std::uint32_t value_size = 0;
  std::uint32_t depth_size = 0;
  std::uint32_t value_hash = 0;
  std::uint32_t depth_hash = 0;
};

struct Parsed {
  LayerInfo info;
  std::uint64_t data_start = 0;
  std::uint64_t seek_offset = 0;
  std::vector<SeekEntry> seek;
};

// Checks 1..12: everything read_info promises. `verify_header_checksum` guards check 5.

// Checks 1..12: everything read_info promises. `verify_header_checksum` guards check 5.
Parsed parse_header(const Source& src, bool verify_header_checksum);
// Check 14: the whole-file checksum.
void check_whole_file(const Source& src);
// Check 15: the seek table, into `p`.
void parse_seek_table(const Source& src, Parsed& p);

struct DCtxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};
struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

// One decompression context per thread: creating one per block would dominate small probes.
ZSTD_DCtx* thread_dctx();

}  // namespace sowdb::table_internal
