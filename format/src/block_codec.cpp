// A block's value and depth frames (FORMAT.md, "Blocks", "Value encoding", "Depth encoding"
// and "Reader checks" 18..21).
#include "block_codec.h"

#include <zstd.h>

#include <algorithm>
#include <array>
#include <memory>

#include "table_common.h"

namespace sowdb::table_internal {

namespace {

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

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

// One frame of `in`, compressed through the thread's scratch buffer so that the result is
// allocated at its final size.
std::vector<std::byte> compress(std::span<const std::byte> in,
                                const WriteOptions& options,
                                const std::string& where) {
  // The context is set up again for every frame: the writer's caller may run a nested task on
  // this thread (see write_layer) that used it meanwhile.
  ZSTD_CCtx* cctx = thread_cctx(options, where);
  thread_local std::vector<std::byte> scratch;
  const std::size_t bound = ZSTD_compressBound(in.size());
  if (scratch.size() < bound)
    scratch.resize(bound);
  const std::size_t n = ZSTD_compress2(cctx, scratch.data(), bound, in.data(), in.size());
  if (ZSTD_isError(n))
    fail(Code::kIo, where, std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  return std::vector<std::byte>(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(n));
}

// One decompression context per thread: creating one per block would dominate small probes.
ZSTD_DCtx* thread_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> ctx(ZSTD_createDCtx());
  return ctx.get();
}

// Check 18: exactly one zstd frame that declares `content` bytes.
void check_frame(std::span<const std::byte> frame, std::size_t content, const std::string& where) {
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
}

// Check 19, after check 18 on `frame`: decompresses into exactly out.size() bytes.
void decompress(std::span<const std::byte> frame,
                std::span<std::byte> out,
                const std::string& where) {
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

}  // namespace

std::vector<std::byte> encode_value_frame(std::span<const std::byte> symbols,
                                          const WriteOptions& options,
                                          const std::string& where) {
  return compress(symbols, options, where);
}

std::vector<std::byte> encode_depth_frame(std::span<const std::int8_t> bytes,
                                          std::span<const std::int8_t> values,
                                          std::span<std::uint16_t> depths,
                                          bool recompute,
                                          std::uint64_t first,
                                          const WriteOptions& options,
                                          const std::string& where) {
  // "Depth encoding": the stored depths' low bytes, then their high bytes. Codec 1 stores
  // the depths of the entries whose byte is neither 0 (their depth must be 0) nor
  // kRecomputeValue (their depth must be the derived one, see "Recompute entries"). Which
  // entries store a depth follows their values, which no branch predictor guesses: the
  // compaction goes without a branch, and the checks branch only to fail.
  const bool all_depths = options.depth_codec == DepthCodec::kAll;
  const std::size_t n = depths.size();
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int8_t byte = bytes[i];
    const std::int8_t v = values[i];
    const std::uint16_t d = depths[i];
    const bool stored = all_depths || stores_depth(byte);
    if (stored && recompute && d == kRecomputeDepth) {
      fail(Code::kInvalidArgument,
           where,
           "entry " + std::to_string(first + i) + " has depth " + std::to_string(kRecomputeDepth) +
               ", which a file with recompute entries cannot store");
    }
    if (!stored && byte == 0 && d != 0) {
      fail(Code::kInvalidArgument,
           where,
           "entry " + std::to_string(first + i) + " has value 0 and depth " + std::to_string(d) +
               " (depth codec 1 needs depth 0)");
    }
    if (!stored && byte == kRecomputeValue && (v == 0 ? d != 0 : d > 1)) {
      fail(Code::kInvalidArgument,
           where,
           "recompute entry " + std::to_string(first + i) + " has value " + std::to_string(v) +
               " and depth " + std::to_string(d) +
               ", not the derived depth (0 for value 0, 0 or 1 for a value > 0)");
    }
    depths[m] = d;
    m += stored ? 1 : 0;
  }
  // No user code runs between filling and compressing the planes, so the thread's buffer is
  // free whatever task this thread is in.
  thread_local std::vector<std::byte> planes;
  planes.resize(2 * m);
  for (std::size_t i = 0; i < m; ++i) {
    planes[i] = static_cast<std::byte>(depths[i] & 0xFF);
    planes[m + i] = static_cast<std::byte>(depths[i] >> 8);
  }
  return compress(planes, options, where);
}

void decode_value_frame(std::span<const std::byte> frame,
                        std::span<const std::int8_t> value_table,
                        std::span<std::int8_t> out,
                        const std::string& where) {
  check_frame(frame, out.size(), where);
  decompress(frame, std::as_writable_bytes(out), where);
  // Check 20: every symbol names an entry of the value table.
  std::array<std::int8_t, 256> map{};
  for (std::size_t i = 0; i < value_table.size(); ++i)
    map[i] = value_table[i];
  const auto limit = static_cast<std::uint8_t>(value_table.size() - 1);
  std::uint8_t worst = 0;
  for (std::int8_t& v : out)
    worst = std::max(worst, static_cast<std::uint8_t>(v));
  if (worst > limit) {
    fail_check(
        Code::kCorrupt, where, 20, "symbol " + std::to_string(worst) + " outside the value table");
  }
  for (std::int8_t& v : out)
    v = map[static_cast<std::uint8_t>(v)];
}

void decode_set_frame(std::span<const std::byte> frame,
                      std::uint32_t set_count,
                      std::size_t entries,
                      std::span<std::int8_t> out,
                      const std::string& where) {
  check_frame(frame, out.size(), where);
  decompress(frame, std::as_writable_bytes(out), where);
  // Check 20: every symbol names a set of the set table.
  const int width = set_symbol_width(set_count);
  std::uint32_t worst = 0;
  for (std::size_t i = 0; i < entries; ++i)
    worst = std::max(worst, plane_symbol(out.data(), entries, width, i));
  if (worst >= set_count) {
    fail_check(
        Code::kCorrupt, where, 20, "symbol " + std::to_string(worst) + " outside the set table");
  }
}

void check_empty_depth_frame(std::span<const std::byte> frame, const std::string& where) {
  check_frame(frame, 0, where);
  decompress(frame, {}, where);
}

std::vector<std::byte> encode_empty_frame(const WriteOptions& options, const std::string& where) {
  return compress({}, options, where);
}

void decode_depth_frame(std::span<const std::byte> frame,
                        std::span<const std::int8_t> values,
                        std::size_t entries,
                        DepthCodec codec,
                        bool recompute,
                        const std::string& where,
                        DepthFrame& f) {
  const bool all = codec == DepthCodec::kAll;
  f.before.clear();
  f.stored = all ? entries : count_stored(values.data(), values.size());
  const std::size_t m = f.stored;
  check_frame(frame, 2 * m, where);
  f.planes.assign(2 * m + 1, 0);
  decompress(frame, std::as_writable_bytes(std::span(f.planes.data(), 2 * m)), where);
  // Check 21: a file with recompute entries never stores the depth kRecomputeDepth.
  if (recompute) {
    bool reserved = false;
    for (std::size_t j = 0; j < m; ++j)
      reserved |= (f.planes[j] & f.planes[m + j]) == 0xff;
    if (reserved) {
      fail_check(
          Code::kCorrupt,
          where,
          21,
          "stored depth " + std::to_string(kRecomputeDepth) + " in a file with recompute entries");
    }
  }
  if (!all) {
    constexpr std::size_t kRun = DepthFrame::kRun;
    f.before.resize((values.size() + kRun - 1) / kRun);
    std::size_t count = 0;
    for (std::size_t run = 0; run < f.before.size(); ++run) {
      f.before[run] = static_cast<std::uint32_t>(count);
      const std::size_t first = run << DepthFrame::kRunShift;
      count += count_stored(values.data() + first, std::min(kRun, values.size() - first));
    }
  }
}

void expand_depths(const DepthFrame& f,
                   std::span<const std::int8_t> values,
                   DepthCodec codec,
                   std::span<std::uint16_t> out) {
  const std::uint8_t* low = f.planes.data();
  const std::uint8_t* high = f.planes.data() + f.stored;
  if (codec == DepthCodec::kAll) {
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

}  // namespace sowdb::table_internal
