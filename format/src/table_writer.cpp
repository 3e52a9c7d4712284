// The table file writer: write_layer (FORMAT.md, "Writing").
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdio>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>

#include "sowdb/format/table_file.h"
#include "table_internal.h"

namespace sowdb {

using namespace table_internal;

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