// The stream helpers of sowdb_format_explore: blocks compressed and timed with zstd, with or
// without a trained dictionary.
#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "format_explore.h"

namespace sowdb::bench {

Dict train(const Blocks& blocks, std::size_t dict_size, int level) {
  std::vector<std::uint8_t> samples;
  std::vector<std::size_t> sizes;
  // Samples: every block, cut into 4 KiB pieces (ZDICT wants many samples), up to 16 MiB.
  for (const auto& b : blocks) {
    for (std::size_t off = 0; off < b.size() && samples.size() < (std::size_t{16} << 20);
         off += 4096) {
      const std::size_t len = std::min<std::size_t>(4096, b.size() - off);
      samples.insert(samples.end(), b.begin() + off, b.begin() + off + len);
      sizes.push_back(len);
    }
  }
  std::vector<std::uint8_t> dict(dict_size);
  const std::size_t got = ZDICT_trainFromBuffer(
      dict.data(), dict.size(), samples.data(), sizes.data(), static_cast<unsigned>(sizes.size()));
  Dict d;
  if (ZDICT_isError(got)) {
    std::fprintf(stderr, "dictionary training failed: %s\n", ZDICT_getErrorName(got));
    return d;
  }
  d.size = got;
  d.cdict.reset(ZSTD_createCDict(dict.data(), got, level));
  return d;
}

ParamResult compress_with(
    const Blocks& blocks, int level, int min_match, const Dict* dict, bool time_decode) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0);
  if (min_match != 0)
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_minMatch, min_match);
  if (dict && dict->cdict)
    ZSTD_CCtx_refCDict(cctx, dict->cdict.get());
  ParamResult r;
  r.bytes = dict ? dict->size : 0;
  std::vector<std::uint8_t> out;
  std::vector<std::uint8_t> back;
  int timed = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].empty())
      continue;
    out.resize(ZSTD_compressBound(blocks[b].size()));
    const std::size_t n =
        ZSTD_compress2(cctx, out.data(), out.size(), blocks[b].data(), blocks[b].size());
    if (ZSTD_isError(n)) {
      std::fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(n));
      std::exit(1);
    }
    r.bytes += n;
    if (!time_decode || b % 16 != 0)
      continue;
    back.resize(blocks[b].size());
    double best = 1e30;
    for (int rep = 0; rep < 20; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      ZSTD_decompressDCtx(dctx, back.data(), back.size(), out.data(), n);
      best = std::min(
          best,
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    r.decode_us += best;
    ++timed;
  }
  if (timed)
    r.decode_us /= timed;
  ZSTD_freeCCtx(cctx);
  ZSTD_freeDCtx(dctx);
  return r;
}

std::size_t compressed_size(const Blocks& blocks, int level, const Dict* dict) {
  return compress_with(blocks, level, 0, dict, false).bytes;
}

}  // namespace sowdb::bench
