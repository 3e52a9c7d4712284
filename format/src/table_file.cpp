// Table file writer and reader. Every section and check number cited here is from FORMAT.md.
#include "sowdb/format/table_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <list>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "sowdb/format/index.h"
#include "sowdb/format/xxhash64.h"

namespace sowdb {
namespace {

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

void put_le(std::byte* p, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
}

std::uint64_t get_le(const std::byte* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

std::uint8_t get8(const std::byte* p) {
  return std::to_integer<std::uint8_t>(*p);
}

std::uint64_t pad8(std::uint64_t n) {
  return (n + 7) & ~std::uint64_t{7};
}

std::uint32_t hash32(std::span<const std::byte> bytes) {
  return static_cast<std::uint32_t>(xxh64(bytes) & 0xFFFFFFFFu);
}

std::string errno_text(int err) {
  return std::strerror(err);
}

// `n` and its noun, singular for one: "1 byte", "12 bytes".
template <typename Count>
std::string count_text(Count n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

[[noreturn]] void fail(Code code, const std::string& where, const std::string& what) {
  throw TableError(code, where + ": " + what);
}

[[noreturn]] void fail_check(Code code,
                             const std::string& where,
                             int check,
                             const std::string& what) {
  throw TableError(code, where + ": check " + std::to_string(check) + ": " + what);
}

// --- Rule set fields ("Rule set"). -------------------------------------------------------

bool rules_in_range(const RuleSet& r) {
  return static_cast<int>(r.family) <= 2 && r.pits_per_side >= 1 &&
         r.pits_per_side <= kMaxPitsPerSide && static_cast<int>(r.grand_slam) <= 2 &&
         static_cast<int>(r.end) <= 1;
}

std::uint64_t block_count_for(std::uint64_t entries, std::uint32_t block_entries) {
  return entries / block_entries + (entries % block_entries != 0 ? 1 : 0);
}

// The entries in block `b`: block_entries except possibly in the last block.
std::uint32_t entries_in_block(const LayerInfo& info, std::uint32_t b) {
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
Parsed parse_header(const Source& src, bool verify_header_checksum) {
  const std::string& name = src.name();
  const std::uint64_t size = src.size();
  std::array<std::byte, kHeaderSize> h{};
  const std::size_t have = static_cast<std::size_t>(std::min<std::uint64_t>(size, kHeaderSize));
  src.read(0, std::span(h.data(), have));

  // Check 2: magic.
  const bool magic_prefix =
      std::equal(h.begin(),
                 h.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(have, 8)),
                 kMagic.begin(),
                 [](std::byte a, std::uint8_t b) { return std::to_integer<std::uint8_t>(a) == b; });
  if (have == 0 || !magic_prefix) {
    fail_check(Code::kNotATable, name, 2, "no sowdb table magic at offset 0");
  }
  if (have < 8)
    fail_check(Code::kTruncated, name, 2, "file ends inside the magic");
  // Check 3: format version.
  if (have < 10)
    fail_check(Code::kTruncated, name, 3, "file ends inside the header");
  const auto version = static_cast<std::uint16_t>(get_le(&h[8], 2));
  if (version < 1 || version > kTableFormatVersion) {
    fail_check(Code::kVersion,
               name,
               3,
               "format version " + std::to_string(version) + " (this reader knows versions 1.." +
                   std::to_string(kTableFormatVersion) + ")");
  }
  // Check 4: the header is complete.
  if (have < kHeaderSize) {
    fail_check(
        Code::kTruncated,
        name,
        4,
        "file has " + count_text(size, "byte", "bytes") + ", shorter than the 64-byte header");
  }
  // Check 5: header checksum.
  const std::uint64_t header_hash = get_le(&h[56], 8);
  if (verify_header_checksum && header_hash != xxh64(std::span(h.data(), kHeaderHashedBytes))) {
    fail_check(Code::kChecksum, name, 5, "header checksum mismatch");
  }
  // Check 6: header size and reserved bytes.
  const auto header_size = get_le(&h[10], 2);
  if (header_size != kHeaderSize) {
    fail_check(Code::kBadHeader,
               name,
               6,
               "header_size is " + std::to_string(header_size) + ", must be 64");
  }
  for (std::size_t i = 42; i < 56; ++i) {
    if (get8(&h[i]) != 0) {
      fail_check(Code::kBadHeader, name, 6, "reserved byte " + std::to_string(i) + " is not 0");
    }
  }
  // Check 7: flags. Version 3 defines the required flag kFlagRecompute ("Flags").
  const auto flags = static_cast<std::uint32_t>(get_le(&h[12], 4));
  const std::uint32_t known_required = version >= 4   ? kFlagRecompute | kFlagAllMoves
                                       : version >= 3 ? kFlagRecompute
                                                      : 0;
  if ((flags & kRequiredFlagsMask & ~known_required) != 0) {
    fail_check(
        Code::kUnsupported,
        name,
        7,
        "unknown required flags 0x" +
            [&] {
              char buf[16];
              std::snprintf(buf, sizeof buf, "%04x", flags & kRequiredFlagsMask & ~known_required);
              return std::string(buf);
            }() +
            " in a version " + std::to_string(version) + " file");
  }
  const bool recompute = (flags & kFlagRecompute) != 0;
  const bool all_moves = (flags & kFlagAllMoves) != 0;
  if (all_moves && !recompute) {
    fail_check(Code::kBadHeader, name, 7, "flag ALL_MOVES without flag RECOMPUTE");
  }
  // Version 4 exists for the all-moves rule alone: read without it, its marks would be resolved
  // over the moves that gain seeds only, which is not how they were chosen.
  if (version >= 4 && !all_moves) {
    fail_check(Code::kBadHeader, name, 7, "a version 4 file without flag ALL_MOVES");
  }
  // Check 8: codecs.
  if (get8(&h[40]) != 0) {
    fail_check(Code::kUnsupported, name, 8, "unknown value codec " + std::to_string(get8(&h[40])));
  }
  // Depth codec 1 exists from format version 2 on ("Depth encoding").
  const std::uint8_t depth_codec = get8(&h[41]);
  if (depth_codec > 1 || (depth_codec == 1 && version < 2)) {
    fail_check(Code::kUnsupported,
               name,
               8,
               "unknown depth codec " + std::to_string(depth_codec) + " in a version " +
                   std::to_string(version) + " file");
  }
  if (recompute && depth_codec != 1) {
    fail_check(Code::kUnsupported, name, 8, "recompute entries need depth codec 1");
  }
  // Check 9: the rule set.
  Parsed p;
  LayerInfo& info = p.info;
  info.format_version = version;
  info.depth_codec = static_cast<DepthCodec>(depth_codec);
  info.recompute = recompute;
  info.all_moves = all_moves;
  info.file_size = size;
  const std::uint8_t family = get8(&h[16]), pits = get8(&h[17]), skip = get8(&h[18]),
                     slam = get8(&h[19]), capture = get8(&h[20]), end = get8(&h[21]);
  if (family > 2)
    fail_check(Code::kBadHeader, name, 9, "family " + std::to_string(family));
  if (pits < 1 || pits > kMaxPitsPerSide) {
    fail_check(Code::kBadHeader, name, 9, "pits_per_side " + std::to_string(pits));
  }
  if (skip > 1)
    fail_check(Code::kBadHeader, name, 9, "skip_origin " + std::to_string(skip));
  if (slam > 2)
    fail_check(Code::kBadHeader, name, 9, "grand_slam " + std::to_string(slam));
  if (capture > 1) {
    fail_check(Code::kBadHeader, name, 9, "capture_empty_opposite " + std::to_string(capture));
  }
  if (end > 1)
    fail_check(Code::kBadHeader, name, 9, "end " + std::to_string(end));
  info.rules.family = static_cast<Family>(family);
  info.rules.pits_per_side = pits;
  info.rules.skip_origin = skip != 0;
  info.rules.grand_slam = static_cast<GrandSlam>(slam);
  info.rules.capture_empty_opposite = capture != 0;
  info.rules.end = static_cast<KalahEnd>(end);
  if (!(info.rules == info.rules.normalised())) {
    fail_check(Code::kBadHeader,
               name,
               9,
               "rule set not normalised: an option that does not apply to the family is set");
  }
  // Check 10: sizes.
  const std::uint8_t stones = get8(&h[22]);
  if (stones > kMaxIndexedStones) {
    fail_check(Code::kBadHeader, name, 10, "stones " + std::to_string(stones));
  }
  info.stones = stones;
  info.entries = get_le(&h[24], 8);
  const std::uint64_t expected_entries = layer_size(info.rules.pits(), stones);
  if (info.entries != expected_entries) {
    fail_check(Code::kBadHeader,
               name,
               10,
               "entry_count " + std::to_string(info.entries) +
                   ", expected C(n+2P-1, 2P-1) = " + std::to_string(expected_entries));
  }
  info.block_entries = static_cast<std::uint32_t>(get_le(&h[32], 4));
  if (info.block_entries < 1 || info.block_entries > kMaxBlockEntries) {
    fail_check(Code::kBadHeader,
               name,
               10,
               "block_entries " + std::to_string(info.block_entries) + " outside 1.." +
                   std::to_string(kMaxBlockEntries));
  }
  info.block_count = static_cast<std::uint32_t>(get_le(&h[36], 4));
  if (info.block_count != block_count_for(info.entries, info.block_entries)) {
    fail_check(Code::kBadHeader,
               name,
               10,
               "block_count " + std::to_string(info.block_count) + ", expected " +
                   std::to_string(block_count_for(info.entries, info.block_entries)));
  }
  // "Recompute entries": up to two recompute bytes besides the 2n+1 values.
  const int recompute_bytes = !recompute ? 0 : (stones <= kMaxStonesWithStoredRecompute ? 2 : 1);
  const std::uint8_t value_count = get8(&h[23]);
  if (value_count < 1 || value_count > 2 * stones + 1 + recompute_bytes) {
    fail_check(Code::kBadHeader,
               name,
               10,
               "value_count " + std::to_string(value_count) + " outside 1.." +
                   std::to_string(2 * stones + 1 + recompute_bytes));
  }
  // Check 11: the file is long enough for its layout, and ends with the footer magic.
  p.data_start = kHeaderSize + pad8(value_count);
  const std::uint64_t seek_bytes = std::uint64_t{info.block_count} * kSeekEntrySize;
  // Every block holds two frames of at least one byte each.
  const std::uint64_t min_size =
      p.data_start + 2 * std::uint64_t{info.block_count} + seek_bytes + kFooterSize;
  if (size < min_size) {
    fail_check(Code::kTruncated,
               name,
               11,
               "file has " + count_text(size, "byte", "bytes") + ", its header needs at least " +
                   std::to_string(min_size));
  }
  std::array<std::byte, 8> footer_magic{};
  src.read(size - kFooterSize, footer_magic);
  if (!std::equal(
          footer_magic.begin(),
          footer_magic.end(),
          kFooterMagic.begin(),
          [](std::byte a, std::uint8_t b) { return std::to_integer<std::uint8_t>(a) == b; })) {
    fail_check(Code::kTruncated,
               name,
               11,
               "no footer magic at the end: the file is truncated, unfinished or has trailing "
               "bytes");
  }
  p.seek_offset = size - kFooterSize - seek_bytes;
  // Check 12: the value table.
  std::array<std::byte, 256> table{};
  const auto table_bytes = static_cast<std::size_t>(pad8(value_count));
  src.read(kHeaderSize, std::span(table.data(), table_bytes));
  bool seen[256] = {};
  bool has_recompute_byte = false;
  for (std::size_t i = 0; i < value_count; ++i) {
    const auto v = static_cast<std::int8_t>(get8(&table[i]));
    const bool recompute_byte =
        recompute && (v == kRecomputeValue ||
                      (v == kStoredRecomputeByte && info.stones <= kMaxStonesWithStoredRecompute));
    has_recompute_byte = has_recompute_byte || recompute_byte;
    if (!recompute_byte && (v < -info.stones || v > info.stones)) {
      fail_check(Code::kCorrupt,
                 name,
                 12,
                 "value table entry " + std::to_string(i) + " is " + std::to_string(v) +
                     ", outside [-n, n]");
    }
    if (seen[static_cast<std::uint8_t>(v)]) {
      fail_check(Code::kCorrupt, name, 12, "value " + std::to_string(v) + " listed twice");
    }
    seen[static_cast<std::uint8_t>(v)] = true;
    info.value_table.push_back(v);
  }
  if (recompute && !has_recompute_byte) {
    fail_check(Code::kCorrupt, name, 12, "recompute flag set but no recompute byte in the table");
  }
  for (std::size_t i = value_count; i < table_bytes; ++i) {
    if (get8(&table[i]) != 0)
      fail_check(Code::kCorrupt, name, 12, "value table padding not 0");
  }
  return p;
}

void check_whole_file(const Source& src) {
  // Check 14: XXH64 of every byte before the last 8 equals the last 8.
  const std::uint64_t size = src.size();
  const std::uint64_t hashed = size - 8;
  Xxh64 h;
  std::vector<std::byte> buf(static_cast<std::size_t>(std::min<std::uint64_t>(hashed, kHashChunk)));
  for (std::uint64_t off = 0; off < hashed;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(hashed - off, buf.size()));
    src.read(off, std::span(buf.data(), n));
    h.update(std::span(buf.data(), n));
    off += n;
  }
  std::array<std::byte, 8> stored{};
  src.read(hashed, stored);
  if (get_le(stored.data(), 8) != h.digest()) {
    fail_check(Code::kChecksum, src.name(), 14, "file checksum mismatch");
  }
}

void parse_seek_table(const Source& src, Parsed& p) {
  // Check 15: the blocks tile [data_start, seek_offset) in order, every frame non-empty.
  const std::uint32_t count = p.info.block_count;
  std::vector<std::byte> raw(std::size_t{count} * kSeekEntrySize);
  src.read(p.seek_offset, raw);
  p.seek.resize(count);
  std::uint64_t expected = p.data_start;
  for (std::uint32_t b = 0; b < count; ++b) {
    const std::byte* e = raw.data() + std::size_t{b} * kSeekEntrySize;
    SeekEntry& s = p.seek[b];
    s.offset = get_le(e, 8);
    s.value_size = static_cast<std::uint32_t>(get_le(e + 8, 4));
    s.depth_size = static_cast<std::uint32_t>(get_le(e + 12, 4));
    s.value_hash = static_cast<std::uint32_t>(get_le(e + 16, 4));
    s.depth_hash = static_cast<std::uint32_t>(get_le(e + 20, 4));
    const std::string which = "seek table entry " + std::to_string(b);
    if (s.offset != expected) {
      fail_check(Code::kCorrupt,
                 src.name(),
                 15,
                 which + ": offset " + std::to_string(s.offset) + ", expected " +
                     std::to_string(expected));
    }
    if (s.value_size == 0 || s.depth_size == 0) {
      fail_check(Code::kCorrupt, src.name(), 15, which + ": empty frame");
    }
    expected += std::uint64_t{s.value_size} + s.depth_size;  // < 2^64: both < 2^33 a block
    if (expected > p.seek_offset) {
      fail_check(Code::kCorrupt, src.name(), 15, which + ": block runs into the seek table");
    }
  }
  if (expected != p.seek_offset) {
    fail_check(Code::kCorrupt,
               src.name(),
               15,
               "blocks end at " + std::to_string(expected) + ", the seek table starts at " +
                   std::to_string(p.seek_offset));
  }
}

// --- zstd contexts. --------------------------------------------------------------------------

struct DCtxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};
struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

// One decompression context per thread: creating one per block would dominate small probes.
ZSTD_DCtx* thread_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> ctx(ZSTD_createDCtx());
  return ctx.get();
}

}  // namespace

// --- TableError. ---------------------------------------------------------------------------

TableError::TableError(Code code, const std::string& message)
    : std::runtime_error(message), code_(code) {}

const char* to_string(TableError::Code code) noexcept {
  switch (code) {
    case Code::kIo:
      return "Io";
    case Code::kNotATable:
      return "NotATable";
    case Code::kVersion:
      return "Version";
    case Code::kUnsupported:
      return "Unsupported";
    case Code::kBadHeader:
      return "BadHeader";
    case Code::kRuleMismatch:
      return "RuleMismatch";
    case Code::kTruncated:
      return "Truncated";
    case Code::kCorrupt:
      return "Corrupt";
    case Code::kChecksum:
      return "Checksum";
    case Code::kInvalidArgument:
      return "InvalidArgument";
  }
  return "Unknown";
}

// --- Reader. ---------------------------------------------------------------------------------

struct LayerReader::Impl {
  std::unique_ptr<Source> src;
  Parsed parsed;
  OpenOptions options;

  // A block's depth frame as decoded for probes: the byte planes as stored, and (depth codec 1)
  // how many depths the block stores before each run of 64 entries, so that one depth is found
  // in O(1) without spreading all of them out (which cost more than decoding the frame).
  struct DepthFrame {
    std::vector<std::uint8_t> planes;  // the m low bytes, the m high bytes, one spare zero byte
    std::size_t stored = 0;            // m
    std::vector<std::uint32_t> before;
  };

  // One decoded frame: `values` for stream 0; for stream 1 `depths`, and (depth codec 1) the
  // block's values, which say where each depth is.
  struct Decoded {
    std::vector<std::int8_t> values;
    DepthFrame depths;
    std::shared_ptr<const Decoded> block_values;

    // The depth of the block's entry i (stream 1).
    std::uint16_t depth(std::size_t i) const {
      std::size_t j = i;
      if (block_values) {
        const std::int8_t v = block_values->values[i];
        if (!stores_depth(v))
          return v == 0 ? std::uint16_t{0} : kRecomputeDepth;
        const std::size_t run = i >> kRunShift;
        j = depths.before[run] +
            count_stored(block_values->values.data() + (run << kRunShift), i & (kRun - 1));
      }
      const std::uint8_t* planes = depths.planes.data();
      return static_cast<std::uint16_t>(planes[j] | (planes[depths.stored + j] << 8));
    }
  };
  static constexpr int kRunShift = 6;
  static constexpr std::size_t kRun = std::size_t{1} << kRunShift;

  // Depth codec 1 stores a depth where the value-table byte is neither 0 nor kRecomputeValue.
  static bool stores_depth(std::int8_t v) { return v != 0 && v != kRecomputeValue; }

  // How many of the `len` bytes at p store a depth: eight at a time, a byte counting when its
  // low seven bits are not all zero (0 and -128 are the two bytes whose are).
  static std::size_t count_stored(const std::int8_t* p, std::size_t len) {
    constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
    constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
    const auto count8 = [](std::uint64_t w) {
      const std::uint64_t x = w & kLow7;
      return static_cast<std::size_t>(__builtin_popcountll((x + kLow7) & kHigh));
    };
    std::size_t count = 0;
    std::size_t k = 0;
    for (; k + 8 <= len; k += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + k, 8);
      count += count8(w);
    }
    if (k < len) {
      std::uint64_t w = 0;  // the bytes past `len` count as 0: no depth
      std::memcpy(&w, p + k, len - k);
      count += count8(w);
    }
    return count;
  }
  // The block cache: shards of an LRU list of decoded frames, most recently used first, and a
  // hash map from a frame's key (block * 2 + stream, stream 0 values, 1 depths) to its list
  // node, so a hit, an insertion and an eviction each cost O(1) whatever the cache size. Each
  // shard is guarded by its own mutex; decoding happens outside it. A large cache is cut into
  // shards by block, so that threads probing at once rarely wait for one another (one mutex
  // for a whole layer made two verify threads spend most of their time in the kernel); a small
  // one stays one exact LRU.
  struct CacheEntry {
    std::uint64_t key = 0;
    std::shared_ptr<const Decoded> data;
  };
  using LruList = std::list<CacheEntry>;
  struct alignas(64) Shard {
    std::mutex mutex;
    LruList lru;
    std::unordered_map<std::uint64_t, LruList::iterator> index;
    CacheStats stats;
    std::size_t capacity = 0;
    std::vector<std::shared_ptr<const Decoded>> owned;  // the frames published in `pinned`
    std::atomic<std::uint64_t> pinned_hits{0};
  };
  // One cache of frames. When it can hold every frame it may be given, nothing is ever evicted:
  // a decoded frame is published in `pinned` (indexed by key, owned by its shard's `owned`) and
  // found without a lock, so that threads reading the same hot blocks (small layers, during
  // verify) do not queue on a mutex.
  struct FrameCache {
    std::unique_ptr<std::atomic<const Decoded*>[]> pinned;
    mutable std::unique_ptr<Shard[]> shards;
    std::size_t shard_mask = 0;

    // Sets up room for `capacity` of the `frames` frames it may be given: a power of two of
    // shards, at most kMaxShards, each holding at least kBlocksPerShard frames (or all of them,
    // with one shard). `keys` bounds the frame keys.
    void make(std::size_t capacity, std::uint64_t frames, std::uint64_t keys) {
      if (capacity >= frames)
        pinned = std::make_unique<std::atomic<const Decoded*>[]>(keys);  // all null (C++20)
      std::size_t count = 1;
      while (count < kMaxShards && capacity / (2 * count) >= kBlocksPerShard)
        count *= 2;
      shards = std::make_unique<Shard[]>(count);
      shard_mask = count - 1;
      for (std::size_t i = 0; i < count; ++i) {
        shards[i].capacity = capacity / count + (i < capacity % count ? 1 : 0);
        shards[i].index.reserve(std::min<std::size_t>(shards[i].capacity, 1024));
      }
    }
    // A block's value frame and depth frame share a shard.
    Shard& shard_of(std::uint64_t key) const { return shards[(key >> 1) & shard_mask]; }
  };
  static constexpr std::size_t kMaxShards = 16;
  static constexpr std::size_t kBlocksPerShard = 16;  // fewer: one exact LRU
  // caches[0] holds both streams' frames, unless OpenOptions::depth_cache_blocks gave the depth
  // frames a cache of their own, caches[1].
  FrameCache caches[2];
  bool split_cache = false;

  // After `options` is set.
  void make_caches() {
    const std::uint64_t blocks = info().block_count;
    split_cache = options.depth_cache_blocks.has_value();
    if (split_cache) {
      caches[0].make(options.cache_blocks, blocks, 2 * blocks);
      caches[1].make(*options.depth_cache_blocks, blocks, 2 * blocks);
    } else {
      caches[0].make(options.cache_blocks, 2 * blocks, 2 * blocks);
    }
  }
  const FrameCache& cache_of(std::uint64_t key) const { return caches[split_cache ? key & 1 : 0]; }

  const LayerInfo& info() const { return parsed.info; }

  static std::uint64_t frame_key(std::uint32_t b, int stream) {
    return std::uint64_t{b} * 2 + static_cast<std::uint64_t>(stream);
  }

  // "Recompute entries": decoded blocks hold value-table bytes, in which the "recompute, stored
  // depth" byte 127 is kept apart from kRecomputeValue until the depths are decoded. This maps
  // a table byte to what value() returns.
  std::int8_t public_value(std::int8_t byte) const {
    return byte == kStoredRecomputeByte && info().recompute &&
                   info().stones <= kMaxStonesWithStoredRecompute
               ? kRecomputeValue
               : byte;
  }

  // Checks 16..18: reads the frame and checks its checksum and frame header.
  std::vector<std::byte> read_frame(std::uint32_t b, int stream, std::size_t content) const {
    const SeekEntry& e = parsed.seek[b];
    const std::uint64_t offset = stream == 0 ? e.offset : e.offset + e.value_size;
    const std::uint32_t size = stream == 0 ? e.value_size : e.depth_size;
    const std::string where =
        src->name() + ": block " + std::to_string(b) + (stream == 0 ? " values" : " depths");
    std::vector<std::byte> frame(size);
    src->read(offset, frame);  // check 16
    if (options.verify_checksums && hash32(frame) != (stream == 0 ? e.value_hash : e.depth_hash)) {
      fail_check(Code::kChecksum, where, 17, "frame checksum mismatch");
    }
    // Check 18: exactly one zstd frame that declares the expected content size.
    // A skippable frame (or a legacy one) is no Zstandard frame and declares no content size,
    // though ZSTD_getFrameContentSize reports 0 for a skippable one.
    if (frame.size() < 4 || get_le(frame.data(), 4) != ZSTD_MAGICNUMBER ||
        ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size()) {
      fail_check(Code::kCorrupt, where, 18, "not exactly one zstd frame");
    }
    if (ZSTD_getFrameContentSize(frame.data(), frame.size()) != content) {
      fail_check(Code::kCorrupt,
                 where,
                 18,
                 "frame does not declare " + count_text(content, "content byte", "content bytes"));
    }
    return frame;
  }

  // Check 19: decompresses into exactly out.size() bytes.
  void decompress(std::span<const std::byte> frame,
                  std::span<std::byte> out,
                  const std::string& where) const {
    ZSTD_DCtx* dctx = thread_dctx();
    if (dctx == nullptr)
      fail(Code::kIo, where, "cannot allocate a zstd context");
    const std::size_t got =
        ZSTD_decompressDCtx(dctx, out.data(), out.size(), frame.data(), frame.size());
    if (ZSTD_isError(got) || got != out.size()) {
      fail_check(Code::kCorrupt,
                 where,
                 19,
                 ZSTD_isError(got) ? std::string("zstd: ") + ZSTD_getErrorName(got)
                                   : "decompressed to " + count_text(got, "byte", "bytes"));
    }
  }

  void decode_values(std::uint32_t b, std::span<std::int8_t> out) const {
    const std::string where = src->name() + ": block " + std::to_string(b) + " values";
    const auto frame = read_frame(b, 0, out.size());
    auto* bytes = reinterpret_cast<std::byte*>(out.data());
    decompress(frame, std::span(bytes, out.size()), where);
    // Check 20: every symbol names an entry of the value table.
    const auto& table = info().value_table;
    std::array<std::int8_t, 256> map{};
    for (std::size_t i = 0; i < table.size(); ++i)
      map[i] = table[i];
    const auto limit = static_cast<std::uint8_t>(table.size() - 1);
    std::uint8_t worst = 0;
    for (std::int8_t& v : out)
      worst = std::max(worst, static_cast<std::uint8_t>(v));
    if (worst > limit) {
      fail_check(Code::kCorrupt,
                 where,
                 20,
                 "symbol " + std::to_string(worst) + " outside the value table");
    }
    for (std::int8_t& v : out)
      v = map[static_cast<std::uint8_t>(v)];
  }

  // Decodes block `b`'s depth frame, checks 18, 19 and 21. `values` are the block's decoded
  // value-table bytes (depth codec 1: they say how many depths the frame holds).
  DepthFrame decode_depth_frame(std::uint32_t b,
                                std::span<const std::int8_t> values,
                                std::size_t entries) const {
    const std::string where = src->name() + ": block " + std::to_string(b) + " depths";
    const bool all = info().depth_codec == DepthCodec::kAll;
    DepthFrame f;
    f.stored = all ? entries : count_stored(values.data(), values.size());
    const std::size_t m = f.stored;
    const auto frame = read_frame(b, 1, 2 * m);
    f.planes.assign(2 * m + 1, 0);
    decompress(frame, std::as_writable_bytes(std::span(f.planes.data(), 2 * m)), where);
    // Check 21: a file with recompute entries never stores the depth kRecomputeDepth.
    if (info().recompute) {
      bool reserved = false;
      for (std::size_t j = 0; j < m; ++j)
        reserved |= (f.planes[j] & f.planes[m + j]) == 0xff;
      if (reserved) {
        fail_check(Code::kCorrupt,
                   where,
                   21,
                   "stored depth " + std::to_string(kRecomputeDepth) +
                       " in a file with recompute entries");
      }
    }
    if (!all) {
      f.before.resize((values.size() + kRun - 1) / kRun);
      std::size_t count = 0;
      for (std::size_t run = 0; run < f.before.size(); ++run) {
        f.before[run] = static_cast<std::uint32_t>(count);
        const std::size_t first = run << kRunShift;
        count += count_stored(values.data() + first, std::min(kRun, values.size() - first));
      }
    }
    return f;
  }

  // Decodes block `b`'s depths into `out` (read_all). `values` as for decode_depth_frame.
  void decode_depths(std::uint32_t b,
                     std::span<const std::int8_t> values,
                     std::span<std::uint16_t> out) const {
    const DepthFrame f = decode_depth_frame(b, values, out.size());
    const std::uint8_t* low = f.planes.data();
    const std::uint8_t* high = f.planes.data() + f.stored;
    if (info().depth_codec == DepthCodec::kAll) {
      for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<std::uint16_t>(low[i] | (high[i] << 8));
      return;
    }
    // Which entries store a depth follows the values, which look random to a branch predictor,
    // so this selects with masks (the compiler turns `?:` here back into a branch); the spare
    // byte of the planes makes reading one entry past the last stored depth safe.
    static_assert(kRecomputeDepth == 0xFFFF);
    std::size_t j = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const unsigned has = stores_depth(values[i]) ? 1u : 0u;
      const unsigned keep = 0u - has;
      const unsigned derived = 0u - static_cast<unsigned>(values[i] != 0);  // 0 or 0xFFFF
      const unsigned d = low[j] | (high[j] << 8);
      out[i] = static_cast<std::uint16_t>((d & keep) | (derived & ~keep));
      j += has;
    }
  }

  // The values of block `b` a depth decode needs: none for depth codec 0.
  std::shared_ptr<const Decoded> values_for_depths(std::uint32_t b) const {
    if (info().depth_codec == DepthCodec::kAll)
      return std::make_shared<Decoded>();
    return block(b, 0);
  }

  // The cached frame `key`, moved to the front of its shard's LRU list (a hit); null when it is
  // not cached. Call with the shard's mutex held.
  static const std::shared_ptr<const Decoded>* find_locked(Shard& shard, std::uint64_t key) {
    const auto it = shard.index.find(key);
    if (it == shard.index.end())
      return nullptr;
    shard.lru.splice(shard.lru.begin(), shard.lru, it->second);
    ++shard.stats.hits;
    return &it->second->data;
  }

  // Decodes block `b`'s stream (0 values, 1 depths), outside the lock, and caches it.
  std::shared_ptr<const Decoded> decode_and_cache(std::uint32_t b, int stream) const {
    const std::uint64_t key = frame_key(b, stream);
    auto decoded = std::make_shared<Decoded>();
    const std::uint32_t n = entries_in_block(info(), b);
    if (stream == 0) {
      decoded->values.resize(n);
      decode_values(b, decoded->values);
    } else {
      decoded->block_values = values_for_depths(b);
      decoded->depths = decode_depth_frame(b, decoded->block_values->values, n);
      if (info().depth_codec == DepthCodec::kAll)
        decoded->block_values.reset();
    }
    std::shared_ptr<const Decoded> evicted;  // freed after the lock is released
    const FrameCache& cache = cache_of(key);
    Shard& shard = cache.shard_of(key);
    std::lock_guard lock(shard.mutex);
    ++shard.stats.misses;
    if (cache.pinned) {
      // Another thread may have published the frame meanwhile: keep the first.
      if (const Decoded* there = cache.pinned[key].load(std::memory_order_acquire))
        return std::shared_ptr<const Decoded>(std::shared_ptr<const Decoded>(), there);
      shard.owned.push_back(decoded);
      cache.pinned[key].store(decoded.get(), std::memory_order_release);
      shard.stats.cached = shard.owned.size();
      return decoded;
    }
    if (shard.capacity == 0)
      return decoded;
    LruList& lru = shard.lru;
    if (const auto it = shard.index.find(key); it != shard.index.end()) {
      lru.splice(lru.begin(), lru, it->second);
      return it->second->data;  // another thread decoded it meanwhile
    }
    if (lru.size() >= shard.capacity) {
      // Evict the least recently used frame, reusing its node.
      shard.index.erase(lru.back().key);
      lru.splice(lru.begin(), lru, std::prev(lru.end()));
      evicted = std::move(lru.front().data);
      lru.front() = CacheEntry{key, decoded};
    } else {
      lru.push_front(CacheEntry{key, decoded});
    }
    shard.index.emplace(key, lru.begin());
    shard.stats.cached = lru.size();
    return decoded;
  }

  // The published frame `key` of `cache` (a hit, counted), or null.
  static const Decoded* find_pinned(const FrameCache& cache, std::uint64_t key) {
    const Decoded* d = cache.pinned[key].load(std::memory_order_acquire);
    if (d)
      cache.shard_of(key).pinned_hits.fetch_add(1, std::memory_order_relaxed);
    return d;
  }

  std::shared_ptr<const Decoded> block(std::uint32_t b, int stream) const {
    const std::uint64_t key = frame_key(b, stream);
    const FrameCache& cache = cache_of(key);
    if (cache.pinned) {
      // A published frame lives as long as the reader: a pointer that owns nothing will do.
      if (const Decoded* d = find_pinned(cache, key))
        return std::shared_ptr<const Decoded>(std::shared_ptr<const Decoded>(), d);
      return decode_and_cache(b, stream);
    }
    {
      Shard& shard = cache.shard_of(key);
      std::lock_guard lock(shard.mutex);
      if (const auto* d = find_locked(shard, key))
        return *d;
    }
    return decode_and_cache(b, stream);
  }

  // Entry `i` of block `b`'s stream, read from the cached frame under the shard's lock (no
  // reference count traffic on a hit), else decoded and cached.
  template <typename Read>
  auto entry(std::uint32_t b, int stream, Read&& read) const {
    const std::uint64_t key = frame_key(b, stream);
    const FrameCache& cache = cache_of(key);
    if (cache.pinned) {
      if (const Decoded* d = find_pinned(cache, key))
        return read(*d);
      return read(*decode_and_cache(b, stream));
    }
    if (split_cache && stream == 1) {
      // The thread's last depth frame answers the next lookup in its block without the shard's
      // lock, which two threads reading the depths side by side in index order (verify) took
      // for every entry: 15% of the run. Random lookups miss it and go on to the cache.
      LastDepthFrame& last = last_depth_frame();
      if (last.reader != id || last.key != key) {
        last.frame = block(b, stream);
        last.reader = id;
        last.key = key;
      } else {
        cache.shard_of(key).pinned_hits.fetch_add(1, std::memory_order_relaxed);
      }
      return read(*last.frame);
    }
    {
      Shard& shard = cache.shard_of(key);
      std::lock_guard lock(shard.mutex);
      if (const auto* d = find_locked(shard, key))
        return read(**d);
    }
    return read(*decode_and_cache(b, stream));
  }

  // Tells readers apart for last_depth_frame(); never reused, unlike an address.
  const std::uint64_t id = next_id.fetch_add(1, std::memory_order_relaxed);
  static inline std::atomic<std::uint64_t> next_id{1};
  struct LastDepthFrame {
    std::uint64_t reader = 0;  // 0: none
    std::uint64_t key = 0;
    std::shared_ptr<const Decoded> frame;  // keeps the frame alive past an eviction
  };
  static LastDepthFrame& last_depth_frame() {
    static thread_local LastDepthFrame last;
    return last;
  }
};

LayerReader::LayerReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LayerReader::~LayerReader() = default;

namespace {

std::unique_ptr<LayerReader::Impl> open_source(std::unique_ptr<Source> src,
                                               const OpenOptions& options) {
  auto impl = std::make_unique<LayerReader::Impl>();
  impl->parsed = parse_header(*src, options.verify_checksums);
  const LayerInfo& info = impl->parsed.info;
  // Check 13: the table the caller asked for.
  if (options.expected_rules && !(info.rules == options.expected_rules->normalised())) {
    fail_check(
        Code::kRuleMismatch, src->name(), 13, "the file's rule set differs from the one expected");
  }
  if (options.expected_stones && info.stones != *options.expected_stones) {
    fail_check(Code::kRuleMismatch,
               src->name(),
               13,
               "the file holds " + count_text(info.stones, "stone", "stones") + ", expected " +
                   std::to_string(*options.expected_stones));
  }
  if (options.verify_checksums)
    check_whole_file(*src);
  parse_seek_table(*src, impl->parsed);
  impl->options = options;
  impl->make_caches();
  impl->src = std::move(src);
  return impl;
}

}  // namespace

std::unique_ptr<LayerReader> LayerReader::open(const std::filesystem::path& path,
                                               const OpenOptions& options) {
  return std::unique_ptr<LayerReader>(
      new LayerReader(open_source(std::make_unique<FileSource>(path), options)));
}

std::unique_ptr<LayerReader> LayerReader::open_memory(std::vector<std::byte> bytes,
                                                      const OpenOptions& options) {
  return std::unique_ptr<LayerReader>(
      new LayerReader(open_source(std::make_unique<MemorySource>(std::move(bytes)), options)));
}

const LayerInfo& LayerReader::info() const noexcept {
  return impl_->info();
}

namespace {

// Entry `index` of one stream (0 values, 1 depths) through the block cache; nullopt for an index
// out of range or a block that fails to read or decode.
template <typename Get>
auto entry_at(const LayerReader::Impl& impl, std::uint64_t index, int stream, Get get) noexcept
    -> std::optional<decltype(get(std::declval<const LayerReader::Impl::Decoded&>(), 0))> {
  const LayerInfo& info = impl.info();
  if (index >= info.entries)
    return std::nullopt;
  try {
    const auto b = static_cast<std::uint32_t>(index / info.block_entries);
    const auto i = static_cast<std::size_t>(index % info.block_entries);
    return impl.entry(b, stream, [&](const LayerReader::Impl::Decoded& d) { return get(d, i); });
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<std::int8_t> LayerReader::value(std::uint64_t index) const noexcept {
  const auto v =
      entry_at(*impl_, index, 0, [](const Impl::Decoded& d, std::size_t i) { return d.values[i]; });
  if (!v)
    return std::nullopt;
  return impl_->public_value(*v);
}

std::optional<std::uint16_t> LayerReader::depth(std::uint64_t index) const noexcept {
  return entry_at(
      *impl_, index, 1, [](const Impl::Decoded& d, std::size_t i) { return d.depth(i); });
}

CacheStats LayerReader::cache_stats() const noexcept {
  CacheStats total;
  for (int c = 0; c < (impl_->split_cache ? 2 : 1); ++c) {
    const Impl::FrameCache& cache = impl_->caches[c];
    for (std::size_t i = 0; i <= cache.shard_mask; ++i) {
      Impl::Shard& shard = cache.shards[i];
      std::lock_guard lock(shard.mutex);
      total.hits += shard.stats.hits + shard.pinned_hits.load(std::memory_order_relaxed);
      total.misses += shard.stats.misses;
      total.cached += shard.stats.cached;
    }
  }
  return total;
}

void LayerReader::read_all(std::span<std::int8_t> values, std::span<std::uint16_t> depths) const {
  const LayerInfo& info = impl_->info();
  const std::string& name = impl_->src->name();
  if (!values.empty() && values.size() != info.entries) {
    fail(Code::kInvalidArgument,
         name,
         "read_all: values has " + count_text(values.size(), "entry", "entries") + ", the layer " +
             std::to_string(info.entries));
  }
  if (!depths.empty() && depths.size() != info.entries) {
    fail(Code::kInvalidArgument,
         name,
         "read_all: depths has " + count_text(depths.size(), "entry", "entries") + ", the layer " +
             std::to_string(info.entries));
  }
  // Depth codec 1 needs each block's values: decode them into `values`, or a scratch block.
  const bool depths_need_values = info.depth_codec != DepthCodec::kAll && !depths.empty();
  std::vector<std::int8_t> scratch;
  for (std::uint32_t b = 0; b < info.block_count; ++b) {
    const std::size_t first = std::size_t{b} * info.block_entries;
    const std::size_t n = entries_in_block(info, b);
    std::span<std::int8_t> block_values;
    if (!values.empty()) {
      block_values = values.subspan(first, n);
      impl_->decode_values(b, block_values);
    } else if (depths_need_values) {
      scratch.resize(n);
      block_values = scratch;
      impl_->decode_values(b, block_values);
    }
    if (!depths.empty())
      impl_->decode_depths(b, block_values, depths.subspan(first, n));
    if (!values.empty() && info.recompute) {
      for (std::int8_t& v : block_values)
        v = impl_->public_value(v);
    }
  }
}

std::uint32_t LayerReader::block_size(std::uint32_t block) const noexcept {
  return block < impl_->info().block_count ? entries_in_block(impl_->info(), block) : 0;
}

LayerReader::BlockRead LayerReader::read_block(std::uint32_t block,
                                               std::span<std::int8_t> values,
                                               std::span<std::uint16_t> depths) const noexcept {
  BlockRead out;
  const LayerInfo& info = impl_->info();
  const std::size_t n = block_size(block);
  const auto failed = [&](const std::string& why) {
    if (out.error.empty())
      out.error = why;
  };
  if (n == 0 || (!values.empty() && values.size() != n) ||
      (!depths.empty() && depths.size() != n)) {
    failed(impl_->src->name() + ": read_block: block " + std::to_string(block) +
           " does not exist or a span does not match its " + count_text(n, "entry", "entries"));
    return out;
  }
  // Depth codec 1 needs the block's value-table bytes (with the "stored depth" recompute byte
  // still apart from kRecomputeValue): decode them into `values`, or a scratch block.
  const bool need_values =
      !values.empty() || (!depths.empty() && info.depth_codec != DepthCodec::kAll);
  try {
    thread_local std::vector<std::int8_t> scratch;
    std::span<std::int8_t> raw = values;
    if (need_values && raw.empty()) {
      scratch.resize(n);
      raw = scratch;
    }
    if (need_values) {
      try {
        impl_->decode_values(block, raw);
        out.values = true;
      } catch (const std::exception& e) {
        failed(e.what());
      }
    } else {
      out.values = true;
    }
    if (depths.empty()) {
      out.depths = true;
    } else if (out.values) {
      try {
        impl_->decode_depths(block, raw, depths);
        out.depths = true;
      } catch (const std::exception& e) {
        failed(e.what());
      }
    }
    if (out.values && !values.empty() && info.recompute) {
      for (std::int8_t& v : values)
        v = impl_->public_value(v);
    }
    if (values.empty())
      out.values = true;
  } catch (...) {
    failed(impl_->src->name() + ": block " + std::to_string(block) + ": out of memory");
  }
  return out;
}

LayerInfo read_info(const std::filesystem::path& path) {
  FileSource src(path);
  return parse_header(src, true).info;
}

// --- Writer. ---------------------------------------------------------------------------------

namespace {

// The temporary file of one write: removed unless committed.
class TempFile {
 public:
  TempFile(std::filesystem::path target)
      : target_(std::move(target)), temp_(target_.string() + ".tmp." + std::to_string(::getpid())) {
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
      fail(Code::kIo, temp_.string(), "cannot create: " + errno_text(errno));
  }
  ~TempFile() {
    if (fd_ >= 0)
      ::close(fd_);
    if (!committed_)
      ::unlink(temp_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  void write(std::span<const std::byte> bytes) {
    hash_.update(bytes);
    while (!bytes.empty()) {
      if (buffer_.size() == kBufferSize)
        flush();
      const std::size_t take = std::min(bytes.size(), kBufferSize - buffer_.size());
      buffer_.insert(
          buffer_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(take));
      bytes = bytes.subspan(take);
    }
  }
  std::uint64_t written() const { return written_ + buffer_.size(); }
  std::uint64_t digest() const { return hash_.digest(); }

  // Appends the checksum (not hashed), flushes, fsyncs, closes, renames, fsyncs the directory.
  void commit(std::uint64_t checksum) {
    std::array<std::byte, 8> c{};
    put_le(c.data(), checksum, 8);
    buffer_.insert(buffer_.end(), c.begin(), c.end());
    flush();
    if (::fsync(fd_) != 0)
      fail(Code::kIo, temp_.string(), "fsync failed: " + errno_text(errno));
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0)
      fail(Code::kIo, temp_.string(), "close failed: " + errno_text(errno));
    if (::rename(temp_.c_str(), target_.c_str()) != 0) {
      fail(Code::kIo, target_.string(), "rename from the temporary failed: " + errno_text(errno));
    }
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

 private:
  static constexpr std::size_t kBufferSize = std::size_t{1} << 20;

  void flush() {
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

  std::filesystem::path target_;
  std::filesystem::path temp_;
  int fd_ = -1;
  bool committed_ = false;
  std::vector<std::byte> buffer_;
  std::uint64_t written_ = 0;
  Xxh64 hash_;
};

// One frame of `in`, compressed through the thread's scratch buffer so that the result is
// allocated at its final size.
std::vector<std::byte> compress(ZSTD_CCtx* cctx,
                                std::span<const std::byte> in,
                                const std::string& where) {
  thread_local std::vector<std::byte> scratch;
  const std::size_t bound = ZSTD_compressBound(in.size());
  if (scratch.size() < bound)
    scratch.resize(bound);
  const std::size_t n = ZSTD_compress2(cctx, scratch.data(), bound, in.data(), in.size());
  if (ZSTD_isError(n)) {
    fail(Code::kIo, where, std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  }
  return std::vector<std::byte>(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(n));
}

// The thread's compression context, set to the writer's fixed parameters ("Blocks": content
// size, no checksum, no dictionary ID). Kept per thread: creating a context per block cost
// more than compressing a block at the faster levels.
ZSTD_CCtx* thread_cctx(const WriteOptions& options, const std::string& where) {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(ZSTD_createCCtx());
  if (!cctx)
    fail(Code::kIo, where, "cannot allocate a zstd context");
  ZSTD_CCtx_reset(cctx.get(), ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, options.zstd_level);
  // kAutoMinMatch: 7 for zstd's fast strategy (level 1 and the negative levels), else 5 (level
  // 0 is zstd's default, level 3).
  const bool fast = options.zstd_level <= 1 && options.zstd_level != 0;
  const int min_match = options.zstd_min_match != kAutoMinMatch ? options.zstd_min_match
                        : fast                                  ? 7
                                                                : 5;
  if (min_match != 0)
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_minMatch, min_match);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 0);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_dictIDFlag, 0);
  return cctx.get();
}

// One compressed block: its two frames.
struct CompressedBlock {
  std::vector<std::byte> values;
  std::vector<std::byte> depths;
};

// Blocks compressed per executor call: bounds the compressed bytes held before writing.
constexpr std::size_t kBlocksPerRound = 256;

void run_tasks(const Executor& executor,
               std::size_t tasks,
               const std::function<void(std::size_t)>& task) {
  if (executor) {
    executor(tasks, task);
  } else {
    for (std::size_t t = 0; t < tasks; ++t)
      task(t);
  }
}

}  // namespace

void write_layer(const std::filesystem::path& path,
                 const RuleSet& rules_in,
                 int stones,
                 const LayerSource& source,
                 const WriteOptions& options) {
  const std::string name = path.string();
  const std::span<const std::int8_t> values = source.values;
  // Validate everything before creating the temporary.
  if (!rules_in_range(rules_in))
    fail(Code::kInvalidArgument, name, "rule set out of range");
  const RuleSet rules = rules_in.normalised();
  if (stones < 0 || stones > kMaxIndexedStones) {
    fail(Code::kInvalidArgument, name, "stones " + std::to_string(stones) + " out of range");
  }
  if (!source.fill_depths)
    fail(Code::kInvalidArgument, name, "no depth source (fill_depths is empty)");
  if (options.depth_codec != DepthCodec::kAll &&
      options.depth_codec != DepthCodec::kNonZeroValues) {
    fail(Code::kInvalidArgument, name, "unknown depth codec");
  }
  const bool all_depths = options.depth_codec == DepthCodec::kAll;
  const std::uint64_t entries = layer_size(rules.pits(), stones);
  if (values.size() != entries) {
    fail(Code::kInvalidArgument,
         name,
         "the layer has " + count_text(entries, "entry", "entries") + "; got " +
             count_text(values.size(), "value", "values"));
  }
  if (options.block_entries < 1 || options.block_entries > kMaxBlockEntries) {
    fail(Code::kInvalidArgument,
         name,
         "block_entries " + std::to_string(options.block_entries) + " out of range");
  }
  if (options.zstd_level < ZSTD_minCLevel() || options.zstd_level > ZSTD_maxCLevel()) {
    fail(Code::kInvalidArgument,
         name,
         "zstd level " + std::to_string(options.zstd_level) + " out of range");
  }
  if (options.zstd_min_match != 0 && options.zstd_min_match != kAutoMinMatch) {
    const ZSTD_bounds mm = ZSTD_cParam_getBounds(ZSTD_c_minMatch);
    if (options.zstd_min_match < mm.lowerBound || options.zstd_min_match > mm.upperBound) {
      fail(Code::kInvalidArgument,
           name,
           "zstd minimum match " + std::to_string(options.zstd_min_match) + " out of range");
    }
  }
  const std::uint64_t block_count = block_count_for(entries, options.block_entries);
  if (block_count > std::numeric_limits<std::uint32_t>::max()) {
    fail(Code::kInvalidArgument, name, "too many blocks; raise block_entries");
  }
  const std::span<const std::uint64_t> marks = source.recompute;
  if (!marks.empty()) {
    if (marks.size() != (entries + 63) / 64) {
      fail(Code::kInvalidArgument,
           name,
           "the recompute mask has " + count_text(marks.size(), "word", "words") +
               ", the layer needs " + std::to_string((entries + 63) / 64));
    }
    if (entries % 64 != 0 && (marks.back() >> (entries % 64)) != 0) {
      fail(Code::kInvalidArgument, name, "the recompute mask marks entries past the layer");
    }
  }
  // How often each value occurs, over all entries and over the marked ones: in chunks of whole
  // mask words, on the executor's threads.
  using Histogram = std::array<std::uint64_t, 256>;
  constexpr std::uint64_t kCountChunk = std::uint64_t{1} << 20;
  const std::size_t chunks = static_cast<std::size_t>((entries + kCountChunk - 1) / kCountChunk);
  std::vector<Histogram> chunk_freq(chunks), chunk_marked(marks.empty() ? 0 : chunks);
  run_tasks(options.executor, chunks, [&](std::size_t c) {
    const std::uint64_t first = c * kCountChunk;
    const std::uint64_t last = std::min(entries, first + kCountChunk);
    Histogram& f = chunk_freq[c];
    f.fill(0);
    // Four counters per value: runs of one value would otherwise wait on one counter.
    std::array<Histogram, 4> part{};
    std::uint64_t i = first;
    for (; i + 4 <= last; i += 4) {
      for (std::size_t k = 0; k < 4; ++k)
        ++part[k][static_cast<std::uint8_t>(values[i + k])];
    }
    for (; i < last; ++i)
      ++f[static_cast<std::uint8_t>(values[i])];
    for (std::size_t v = 0; v < 256; ++v)
      f[v] += part[0][v] + part[1][v] + part[2][v] + part[3][v];
    if (marks.empty())
      return;
    Histogram& m = chunk_marked[c];
    m.fill(0);
    for (std::uint64_t w = first / 64; w < (last + 63) / 64; ++w) {
      for (std::uint64_t bits = marks[w]; bits != 0; bits &= bits - 1)
        ++m[static_cast<std::uint8_t>(values[w * 64 + std::countr_zero(bits)])];
    }
  });
  Histogram freq{};
  Histogram marked_by_value{};
  for (std::size_t c = 0; c < chunks; ++c) {
    for (std::size_t v = 0; v < 256; ++v) {
      freq[v] += chunk_freq[c][v];
      if (!marks.empty())
        marked_by_value[v] += chunk_marked[c][v];
    }
  }
  for (int v = -128; v <= 127; ++v) {
    if (freq[static_cast<std::uint8_t>(v)] != 0 && (v < -stones || v > stones)) {
      fail(Code::kInvalidArgument,
           name,
           "value " + std::to_string(v) + " outside [-" + std::to_string(stones) + ", " +
               std::to_string(stones) + "]");
    }
  }
  // "Recompute entries": the byte each entry stores. A marked entry of value >= 0 stores
  // kRecomputeValue, one of value < 0 kStoredRecomputeByte (in layers of at most 126 stones;
  // else its value).
  const bool stored_recompute_byte = stones <= kMaxStonesWithStoredRecompute;
  bool use_recompute = false;
  if (!marks.empty()) {
    std::array<std::uint64_t, 256> marked_freq = freq;
    for (int v = -128; v <= 127; ++v) {
      const std::uint64_t count = marked_by_value[static_cast<std::uint8_t>(v)];
      const bool stored_depth = v < 0 || source.all_moves;
      if (count == 0 || (stored_depth && !stored_recompute_byte))
        continue;
      marked_freq[static_cast<std::uint8_t>(v)] -= count;
      marked_freq[static_cast<std::uint8_t>(stored_depth ? kStoredRecomputeByte
                                                         : kRecomputeValue)] += count;
      use_recompute = true;
    }
    // A value_count is at most 255: a 127-stone layer with all 255 values has no room for the
    // recompute byte, and is written without recompute entries.
    if (use_recompute && std::count_if(marked_freq.begin(), marked_freq.end(), [](auto f) {
                           return f != 0;
                         }) > 255) {
      use_recompute = false;
    }
    if (use_recompute)
      freq = marked_freq;
  }
  if (use_recompute && all_depths) {
    fail(Code::kInvalidArgument, name, "recompute entries need depth codec kNonZeroValues");
  }
  // "Value encoding": symbols in order of falling frequency, ties by rising byte.
  std::vector<std::int8_t> table;
  for (int v = -128; v <= 127; ++v) {
    if (freq[static_cast<std::uint8_t>(v)] != 0)
      table.push_back(static_cast<std::int8_t>(v));
  }
  std::stable_sort(table.begin(), table.end(), [&](std::int8_t a, std::int8_t b) {
    return freq[static_cast<std::uint8_t>(a)] > freq[static_cast<std::uint8_t>(b)];
  });
  std::array<std::uint8_t, 256> symbol{};
  for (std::size_t i = 0; i < table.size(); ++i) {
    symbol[static_cast<std::uint8_t>(table[i])] = static_cast<std::uint8_t>(i);
  }

  // Header.
  std::array<std::byte, kHeaderSize> h{};
  for (std::size_t i = 0; i < 8; ++i)
    h[i] = static_cast<std::byte>(kMagic[i]);
  // The lowest version that describes the file ("Version"): depth codec 0 is version 1,
  // depth codec 1 version 2, recompute entries version 3, under the all-moves rule version 4.
  const bool all_moves = use_recompute && source.all_moves;
  put_le(&h[8], all_moves ? 4 : use_recompute ? 3 : all_depths ? 1 : 2, 2);
  put_le(&h[10], kHeaderSize, 2);
  put_le(&h[12], use_recompute ? kFlagRecompute | (all_moves ? kFlagAllMoves : 0) : 0, 4);
  h[16] = static_cast<std::byte>(rules.family);
  h[17] = static_cast<std::byte>(rules.pits_per_side);
  h[18] = static_cast<std::byte>(rules.skip_origin ? 1 : 0);
  h[19] = static_cast<std::byte>(rules.grand_slam);
  h[20] = static_cast<std::byte>(rules.capture_empty_opposite ? 1 : 0);
  h[21] = static_cast<std::byte>(rules.end);
  h[22] = static_cast<std::byte>(stones);
  h[23] = static_cast<std::byte>(table.size());
  put_le(&h[24], entries, 8);
  put_le(&h[32], options.block_entries, 4);
  put_le(&h[36], block_count, 4);
  h[41] = static_cast<std::byte>(options.depth_codec);
  // 40 value codec 0, 42..55 reserved: all zero.
  put_le(&h[56], xxh64(std::span(h.data(), kHeaderHashedBytes)), 8);

  TempFile out(path);
  out.write(h);
  std::vector<std::byte> table_bytes(static_cast<std::size_t>(pad8(table.size())));
  for (std::size_t i = 0; i < table.size(); ++i)
    table_bytes[i] = static_cast<std::byte>(table[i]);
  out.write(table_bytes);

  // The byte each value stores, unmarked and marked: a marked entry of value >= 0 stores
  // kRecomputeValue (under the all-moves rule kStoredRecomputeByte), one of value < 0
  // kStoredRecomputeByte (in layers of at most 126 stones; else its value).
  std::array<std::int8_t, 256> byte_of[2];
  for (int v = -128; v <= 127; ++v) {
    const auto u = static_cast<std::uint8_t>(v);
    byte_of[0][u] = static_cast<std::int8_t>(v);
    byte_of[1][u] = static_cast<std::int8_t>(v);
    if (use_recompute) {
      byte_of[1][u] = v >= 0 && !source.all_moves ? kRecomputeValue
                      : stored_recompute_byte     ? kStoredRecomputeByte
                                                  : static_cast<std::int8_t>(v);
    }
  }
  // Compresses block `b` into `cb`, so blocks can run on any thread. The buffers are the thread's,
  // unless a task of this thread is already using them (a fill_depths or an executor that waits
  // on nested parallel work can run another block's task on the waiting thread).
  struct Buffers {
    std::vector<std::byte> raw;
    std::vector<std::int8_t> bytes;
    std::vector<std::uint16_t> depths;
    bool busy = false;
  };
  auto compress_block = [&](std::uint64_t b, CompressedBlock& cb) {
    const std::uint64_t first = b * options.block_entries;
    const auto n =
        static_cast<std::size_t>(std::min<std::uint64_t>(options.block_entries, entries - first));
    thread_local Buffers thread_buffers;
    Buffers own;
    Buffers& buffers = thread_buffers.busy ? own : thread_buffers;
    buffers.busy = true;
    struct Release {
      Buffers& b;
      ~Release() { b.busy = false; }
    } release{buffers};
    std::vector<std::byte>& raw = buffers.raw;
    std::vector<std::int8_t>& bytes = buffers.bytes;
    std::vector<std::uint16_t>& depths = buffers.depths;
    raw.resize(2 * n);
    bytes.resize(n);
    depths.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t at = first + i;
      const std::uint64_t mark = use_recompute ? (marks[at / 64] >> (at % 64)) & 1 : 0;
      const std::int8_t byte = byte_of[mark][static_cast<std::uint8_t>(values[at])];
      bytes[i] = byte;
      raw[i] = static_cast<std::byte>(symbol[static_cast<std::uint8_t>(byte)]);
    }
    cb.values = compress(thread_cctx(options, name), std::span(raw.data(), n), name);
    source.fill_depths(first, std::span(depths.data(), n));
    // "Depth encoding": the stored depths' low bytes, then their high bytes. Codec 1 stores
    // the depths of the entries whose byte is neither 0 (their depth must be 0) nor
    // kRecomputeValue (their depth must be the derived one, see "Recompute entries"). Which
    // entries store a depth follows their values, which no branch predictor guesses: the
    // compaction goes without a branch, and the checks branch only to fail.
    std::size_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int8_t byte = bytes[i];
      const std::int8_t v = values[first + i];
      const std::uint16_t d = depths[i];
      const bool stored = all_depths || (byte != 0 && byte != kRecomputeValue);
      if (stored && use_recompute && d == kRecomputeDepth) {
        fail(Code::kInvalidArgument,
             name,
             "entry " + std::to_string(first + i) + " has depth " +
                 std::to_string(kRecomputeDepth) +
                 ", which a file with recompute entries cannot store");
      }
      if (!stored && byte == 0 && d != 0) {
        fail(Code::kInvalidArgument,
             name,
             "entry " + std::to_string(first + i) + " has value 0 and depth " + std::to_string(d) +
                 " (depth codec 1 needs depth 0)");
      }
      if (!stored && byte == kRecomputeValue && (v == 0 ? d != 0 : d > 1)) {
        fail(Code::kInvalidArgument,
             name,
             "recompute entry " + std::to_string(first + i) + " has value " + std::to_string(v) +
                 " and depth " + std::to_string(d) +
                 ", not the derived depth (0 for value 0, 0 or 1 for a value > 0)");
      }
      depths[m] = d;
      m += stored ? 1 : 0;
    }
    raw.resize(2 * m);
    for (std::size_t i = 0; i < m; ++i) {
      raw[i] = static_cast<std::byte>(depths[i] & 0xFF);
      raw[m + i] = static_cast<std::byte>(depths[i] >> 8);
    }
    // The thread's context again: a nested task may have used it meanwhile.
    cb.depths = compress(thread_cctx(options, name), raw, name);
    if (cb.values.size() > std::numeric_limits<std::uint32_t>::max() ||
        cb.depths.size() > std::numeric_limits<std::uint32_t>::max()) {
      fail(Code::kInvalidArgument, name, "compressed block too large");
    }
  };

  std::vector<std::byte> seek(static_cast<std::size_t>(block_count) * kSeekEntrySize);
  std::vector<CompressedBlock> round;
  for (std::uint64_t start = 0; start < block_count; start += kBlocksPerRound) {
    const auto count =
        static_cast<std::size_t>(std::min<std::uint64_t>(kBlocksPerRound, block_count - start));
    round.assign(count, CompressedBlock{});
    run_tasks(options.executor, count, [&](std::size_t t) { compress_block(start + t, round[t]); });
    for (std::size_t t = 0; t < count; ++t) {
      const CompressedBlock& cb = round[t];
      std::byte* e = seek.data() + static_cast<std::size_t>(start + t) * kSeekEntrySize;
      put_le(e, out.written(), 8);
      put_le(e + 8, cb.values.size(), 4);
      put_le(e + 12, cb.depths.size(), 4);
      put_le(e + 16, hash32(cb.values), 4);
      put_le(e + 20, hash32(cb.depths), 4);
      out.write(cb.values);
      out.write(cb.depths);
    }
    if (options.progress)
      options.progress(std::min(entries, (start + count) * options.block_entries), entries);
  }
  out.write(seek);
  std::array<std::byte, 8> footer{};
  for (std::size_t i = 0; i < 8; ++i)
    footer[i] = static_cast<std::byte>(kFooterMagic[i]);
  out.write(footer);
  out.commit(out.digest());
}

void write_layer(const std::filesystem::path& path,
                 const RuleSet& rules,
                 int stones,
                 std::span<const std::int8_t> values,
                 std::span<const std::uint16_t> depths,
                 const WriteOptions& options) {
  if (depths.size() != values.size()) {
    fail(Code::kInvalidArgument,
         path.string(),
         "got " + count_text(values.size(), "value", "values") + " and " +
             count_text(depths.size(), "depth", "depths"));
  }
  LayerSource source;
  source.values = values;
  source.fill_depths = [depths](std::uint64_t first, std::span<std::uint16_t> out) {
    std::copy_n(depths.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
  };
  write_layer(path, rules, stones, source, options);
}

}  // namespace sowdb
