// Candidates (a) the file as written and (c) zstd with a per-layer dictionary over small blocks,
// and the layer loader they share with (b).
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_c_format / ZSTD_d_format: magicless frames
#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "candidate_codes.h"
#include "candidates.h"

namespace sowdb::bench {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::uint64_t le(const std::uint8_t* p, int bytes) {
  std::uint64_t x = 0;
  for (int i = bytes - 1; i >= 0; --i)
    x = (x << 8) | p[i];
  return x;
}

void check(std::size_t r, const char* what) {
  if (ZSTD_isError(r))
    throw std::runtime_error(std::string(what) + ": " + ZSTD_getErrorName(r));
}

struct DCtxFree {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};
struct CCtxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct CDictFree {
  void operator()(ZSTD_CDict* c) const { ZSTD_freeCDict(c); }
};
struct DDictFree {
  void operator()(ZSTD_DDict* d) const { ZSTD_freeDDict(d); }
};

// Entries of sym[0 .. n) that store no depth: at most two symbols do not (the value 0 and the
// derived-depth recompute byte), so this counts equal bytes, which the compiler vectorises, as
// the reader counts its value bytes eight at a time.
std::uint32_t count_unstored(const Layer& l, const std::uint8_t* sym, std::size_t n) {
  std::uint32_t x = 0;
  for (int u : l.unstored) {
    if (u < 0)
      continue;
    const auto b = static_cast<std::uint8_t>(u);
    for (std::size_t j = 0; j < n; ++j)
      x += sym[j] == b ? 1u : 0u;
  }
  return x;
}

// What a depth frame needs from the block's value frame (decoded in `sym`, `k` entries): the
// depth-storing entries before entry `t` and in total. Counted when the depth is asked for, as
// the reader does, so that a value lookup does not pay for it.
void count_stored(
    const Layer& l, const std::uint8_t* sym, std::size_t k, std::size_t t, Cursor& c) {
  c.stored_before = static_cast<std::uint32_t>(t) - count_unstored(l, sym, t);
  c.stored_total = static_cast<std::uint32_t>(k) - count_unstored(l, sym, k);
}

class FileCandidate final : public Candidate {
 public:
  std::string name() const override { return "v5-file"; }

  std::array<double, 2> encode(const Layer& layer) override {
    layer_ = &layer;
    std::ifstream in(layer.path, std::ios::binary);
    file_.assign(std::istreambuf_iterator<char>(in), {});
    if (file_.size() != layer.info.file_size)
      throw std::runtime_error("cannot read " + layer.path.string());
    const std::uint32_t bc = layer.info.block_count;
    const std::uint8_t* seek = file_.data() + file_.size() - 16 - 24 * std::size_t{bc};
    frames_.resize(bc);
    for (std::uint32_t b = 0; b < bc; ++b) {
      const std::uint8_t* e = seek + 24 * std::size_t{b};
      frames_[b] = {le(e, 8), le(e + 8, 4), le(e + 12, 4)};
      value_ += frames_[b][1];
      depth_ += frames_[b][2];
    }
    // The seek table, header, value table and footer, split evenly between the streams.
    const std::size_t rest = file_.size() - value_ - depth_;
    value_ += rest / 2;
    depth_ += rest - rest / 2;
    dctx_.reset(ZSTD_createDCtx());
    vbuf_.resize(layer.info.block_entries);
    dbuf_.resize(2 * std::size_t{layer.info.block_entries});
    return reencode_seconds(layer);
  }

  std::size_t value_bytes() const override { return value_; }
  std::size_t depth_bytes() const override { return depth_; }

  std::uint8_t value(std::uint64_t i, Cursor& c) override {
    const std::uint64_t e = layer_->info.block_entries;
    const auto& f = frames_[i / e];
    const std::size_t k =
        ZSTD_decompressDCtx(dctx_.get(), vbuf_.data(), vbuf_.size(), file_.data() + f[0], f[1]);
    check(k, "value frame");
    k_ = k;
    c.symbol = vbuf_[i % e];
    return c.symbol;
  }

  std::uint16_t depth(std::uint64_t i, const Cursor& cur) override {
    Cursor c = cur;
    count_stored(*layer_, vbuf_.data(), k_, i % layer_->info.block_entries, c);
    const auto& f = frames_[i / layer_->info.block_entries];
    check(ZSTD_decompressDCtx(
              dctx_.get(), dbuf_.data(), dbuf_.size(), file_.data() + f[0] + f[1], f[2]),
          "depth frame");
    const std::size_t m = c.stored_total, j = c.stored_before;
    return static_cast<std::uint16_t>(dbuf_[j] | dbuf_[m + j] << 8);
  }

 private:
  // What the writer's zstd step costs: the same frames again at level 1, minimum match 7.
  std::array<double, 2> reencode_seconds(const Layer& l) {
    std::unique_ptr<ZSTD_CCtx, CCtxFree> cctx(ZSTD_createCCtx());
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_minMatch, 7);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 0);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_dictIDFlag, 0);
    std::vector<std::uint8_t> out(ZSTD_compressBound(2 * std::size_t{l.info.block_entries}));
    std::vector<std::uint8_t> planes;
    const std::uint64_t n = l.symbol.size(), e = l.info.block_entries;
    auto t0 = std::chrono::steady_clock::now();
    for (std::uint64_t first = 0; first < n; first += e) {
      const std::size_t k = std::min(e, n - first);
      check(ZSTD_compress2(cctx.get(), out.data(), out.size(), l.symbol.data() + first, k), "v");
    }
    const double tv = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    for (std::uint64_t first = 0; first < n; first += e) {
      const std::size_t k = std::min(e, n - first);
      planes.clear();
      for (std::size_t j = 0; j < k; ++j)
        if (l.stores[l.symbol[first + j]])
          planes.push_back(static_cast<std::uint8_t>(l.depth[first + j]));
      const std::size_t m = planes.size();
      for (std::size_t j = 0; j < k; ++j)
        if (l.stores[l.symbol[first + j]])
          planes.push_back(static_cast<std::uint8_t>(l.depth[first + j] >> 8));
      check(ZSTD_compress2(cctx.get(), out.data(), out.size(), planes.data(), 2 * m), "d");
    }
    return {tv, seconds_since(t0)};
  }

  const Layer* layer_ = nullptr;
  std::vector<std::uint8_t> file_;
  std::vector<std::array<std::uint64_t, 3>> frames_;  // offset, value size, depth size
  std::size_t value_ = 0, depth_ = 0;
  std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx_;
  std::vector<std::uint8_t> vbuf_, dbuf_;
  std::size_t k_ = 0;  // entries of the value block in vbuf_
};

// One stream of zstd frames, optionally with a dictionary trained on a sample of its blocks.
struct ZstdStream {
  BlockStream blocks;
  std::unique_ptr<ZSTD_DDict, DDictFree> ddict;
  std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx;

  // `block(b, out)` fills block b's raw bytes; `count` blocks.
  template <typename Block>
  void encode(std::uint64_t count, std::size_t dict_bytes, int level, Block&& block) {
    std::vector<std::uint8_t> raw;
    std::unique_ptr<ZSTD_CDict, CDictFree> cdict;
    if (dict_bytes > 0) {
      // About 100 times the dictionary in samples, spread evenly over the layer.
      std::vector<std::uint8_t> samples;
      std::vector<std::size_t> sizes;
      const std::uint64_t want = 100 * dict_bytes;
      std::uint64_t total = 0;
      for (std::uint64_t b = 0; b < count; ++b) {
        block(b, raw);
        total += raw.size();
      }
      const std::uint64_t step = std::max<std::uint64_t>(1, total / want);
      for (std::uint64_t b = 0; b < count; b += step) {
        block(b, raw);
        samples.insert(samples.end(), raw.begin(), raw.end());
        sizes.push_back(raw.size());
      }
      std::vector<std::uint8_t> dict(dict_bytes);
      const std::size_t got = ZDICT_trainFromBuffer(dict.data(),
                                                    dict.size(),
                                                    samples.data(),
                                                    sizes.data(),
                                                    static_cast<unsigned>(sizes.size()));
      if (ZDICT_isError(got))
        throw std::runtime_error(std::string("dictionary: ") + ZDICT_getErrorName(got));
      dict.resize(got);
      cdict.reset(ZSTD_createCDict(dict.data(), dict.size(), level));
      ddict.reset(ZSTD_createDDict(dict.data(), dict.size()));
      blocks.model = dict.size();
    }
    std::unique_ptr<ZSTD_CCtx, CCtxFree> cctx(ZSTD_createCCtx());
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_format, ZSTD_f_zstd1_magicless);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 0);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 0);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_dictIDFlag, 0);
    if (cdict)
      check(ZSTD_CCtx_refCDict(cctx.get(), cdict.get()), "refCDict");
    blocks.start.push_back(0);
    std::vector<std::uint8_t> out;
    for (std::uint64_t b = 0; b < count; ++b) {
      block(b, raw);
      out.resize(ZSTD_compressBound(raw.size()));
      const std::size_t z =
          ZSTD_compress2(cctx.get(), out.data(), out.size(), raw.data(), raw.size());
      check(z, "compress");
      blocks.bytes.insert(blocks.bytes.end(), out.begin(), out.begin() + static_cast<long>(z));
      blocks.close_block();
    }
    blocks.finish();
    dctx.reset(ZSTD_createDCtx());
    check(ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_format, ZSTD_f_zstd1_magicless), "format");
    if (ddict)
      check(ZSTD_DCtx_refDDict(dctx.get(), ddict.get()), "refDDict");
  }

  std::size_t decode(std::uint64_t b, std::vector<std::uint8_t>& out) {
    const std::size_t k = ZSTD_decompressDCtx(dctx.get(),
                                              out.data(),
                                              out.size(),
                                              blocks.bytes.data() + blocks.start[b],
                                              blocks.start[b + 1] - blocks.start[b]);
    check(k, "decode");
    return k;
  }
};

class ZstdCandidate final : public Candidate {
 public:
  ZstdCandidate(std::uint32_t entries, std::size_t dict_bytes, int level)
      : e_(entries), dict_(dict_bytes), level_(level) {}

  std::string name() const override {
    return "zstd-" + std::to_string(e_) +
           (dict_ ? "-dict" + std::to_string(dict_ / 1024) + "k" : "") + "-l" +
           std::to_string(level_);
  }

  std::array<double, 2> encode(const Layer& l) override {
    layer_ = &l;
    const std::uint64_t n = l.symbol.size();
    const std::uint64_t count = (n + e_ - 1) / e_;
    auto t0 = std::chrono::steady_clock::now();
    values_.encode(count, dict_, level_, [&](std::uint64_t b, std::vector<std::uint8_t>& raw) {
      const std::uint64_t first = b * e_;
      raw.assign(l.symbol.begin() + static_cast<long>(first),
                 l.symbol.begin() + static_cast<long>(std::min(n, first + e_)));
    });
    const double tv = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    depths_.encode(count, dict_, level_, [&](std::uint64_t b, std::vector<std::uint8_t>& raw) {
      raw.clear();
      const std::uint64_t first = b * e_, last = std::min(n, first + e_);
      for (std::uint64_t i = first; i < last; ++i)
        if (l.stores[l.symbol[i]])
          raw.push_back(static_cast<std::uint8_t>(l.depth[i]));
      for (std::uint64_t i = first; i < last; ++i)
        if (l.stores[l.symbol[i]])
          raw.push_back(static_cast<std::uint8_t>(l.depth[i] >> 8));
    });
    vbuf_.resize(e_);
    dbuf_.resize(2 * std::size_t{e_});
    return {tv, seconds_since(t0)};
  }

  std::size_t value_bytes() const override { return values_.blocks.total(); }
  std::size_t depth_bytes() const override { return depths_.blocks.total(); }

  std::uint8_t value(std::uint64_t i, Cursor& c) override {
    k_ = values_.decode(i / e_, vbuf_);
    c.symbol = vbuf_[i % e_];
    return c.symbol;
  }

  std::uint16_t depth(std::uint64_t i, const Cursor& cur) override {
    Cursor c = cur;
    count_stored(*layer_, vbuf_.data(), k_, i % e_, c);
    depths_.decode(i / e_, dbuf_);
    const std::size_t m = c.stored_total, j = c.stored_before;
    return static_cast<std::uint16_t>(dbuf_[j] | dbuf_[m + j] << 8);
  }

 private:
  std::uint32_t e_;
  std::size_t dict_;
  int level_;
  const Layer* layer_ = nullptr;
  ZstdStream values_, depths_;
  std::vector<std::uint8_t> vbuf_, dbuf_;
  std::size_t k_ = 0;  // entries of the value block in vbuf_
};

}  // namespace

Layer load_layer(const std::filesystem::path& dir, int n) {
  char name[32];
  std::snprintf(name, sizeof name, "layer-%03d.sdb", n);
  Layer l;
  l.path = dir / name;
  const auto r = sowdb::LayerReader::open(l.path);
  l.info = r->info();
  const auto& vt = l.info.value_table;
  l.symbols = static_cast<int>(vt.size());
  std::vector<std::int8_t> values(l.info.entries);
  l.depth.resize(l.info.entries);
  r->read_all(values, l.depth);
  std::array<int, 256> sym_of{};
  for (std::size_t s = 0; s < vt.size(); ++s) {
    sym_of[static_cast<std::uint8_t>(vt[s])] = static_cast<int>(s);
    l.stores[s] = vt[s] != 0 && vt[s] != sowdb::kRecomputeValue;
    l.mark[s] = l.info.recompute && (vt[s] == sowdb::kRecomputeValue || vt[s] == 127);
    if (!l.stores[s])
      l.unstored[l.unstored[0] < 0 ? 0 : 1] = static_cast<int>(s);
  }
  // read_all gives -128 for both recompute bytes; byte 127 keeps its depth.
  const bool has127 =
      std::find(vt.begin(), vt.end(), std::int8_t{127}) != vt.end() && l.info.recompute;
  l.symbol.resize(l.info.entries);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::int8_t v = values[i];
    if (v == sowdb::kRecomputeValue && has127 && l.depth[i] != sowdb::kRecomputeDepth)
      v = 127;
    l.symbol[i] = static_cast<std::uint8_t>(sym_of[static_cast<std::uint8_t>(v)]);
  }
  return l;
}

std::unique_ptr<Candidate> make_file_candidate() {
  return std::make_unique<FileCandidate>();
}

std::unique_ptr<Candidate> make_zstd_candidate(std::uint32_t entries,
                                               std::size_t dict_bytes,
                                               int level) {
  return std::make_unique<ZstdCandidate>(entries, dict_bytes, level);
}

}  // namespace sowdb::bench
