// Candidate (b): small blocks, a static canonical Huffman code per layer and context.
//
// Values: the context of a token is the previous symbol of the block (a start context at the
// block's first entry); a token is either a symbol or a run of 2..256 copies of the context's
// symbol (greedy, longest run token that fits). Depths: only the entries whose symbol stores a
// depth, coded 0..254 directly or as an escape and 16 raw bits, with the previous stored depth
// of the block (bucketed) or the entry's symbol as context.
#include <algorithm>
#include <chrono>

#include "candidate_codes.h"
#include "candidates.h"

namespace sowdb::bench {
namespace {

constexpr std::array<std::uint16_t, 31> kRunLens = {2,  3,  4,  5,  6,   7,   8,   9,   10, 11, 12,
                                                    13, 14, 15, 16, 17,  20,  24,  28,  32, 40, 48,
                                                    56, 64, 80, 96, 112, 128, 160, 192, 256};
constexpr int kDepthContexts = 64;
constexpr std::uint32_t kEscape = 255;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class HuffmanCandidate final : public Candidate {
 public:
  HuffmanCandidate(
      std::uint32_t entries, int depth_context, bool fill, std::uint32_t depth_entries, bool order2)
      : e_(entries),
        de_(depth_entries),
        depth_context_(depth_context),
        fill_(fill),
        order2_(order2) {}

  bool exact() const override { return !fill_; }

  std::string name() const override {
    const char* ctx[] = {"-dprev", "-dsym", "-dprevsym", "-dprevsym-runs"};
    return "huffman-" + std::to_string(e_) + ctx[depth_context_] + (fill_ ? "-filled" : "") +
           (de_ != e_ ? "-depthblocks" + std::to_string(de_) : "") + (order2_ ? "-order2" : "");
  }

  std::array<double, 2> encode(const Layer& layer) override {
    layer_ = &layer;
    v_ = layer.symbols;
    auto t0 = std::chrono::steady_clock::now();
    values_ = &layer.symbol;
    if (fill_)
      fill_marks();
    encode_values();
    const double tv = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    encode_depths();
    return {tv, seconds_since(t0)};
  }

  std::size_t value_bytes() const override { return vs_.total(); }
  std::span<const std::uint8_t> value_group(std::uint64_t i, std::uint32_t blocks) const override {
    return vs_.group(i / e_, blocks);
  }
  std::size_t depth_bytes() const override { return ds_.total(); }

  std::uint8_t value(std::uint64_t i, Cursor& c) override {
    const std::uint64_t b = i / e_;
    const auto t = static_cast<std::uint32_t>(i % e_);
    const std::uint32_t base = t / de_ * de_;  // the depth block's first entry, in this block
    std::uint32_t stored_at_base = 0;
    BitReader r(vs_.bytes.data() + vs_.start[b]);
    const auto& stores = layer_->stores;
    int prev = v_;
    int cls = 0;
    std::uint32_t pos = 0;
    std::uint32_t stored = 0;
    stored_syms_.clear();
    for (;;) {
      r.refill();
      const std::uint32_t tok = r.token(vcode_[value_ctx(prev, cls)]);
      std::uint32_t len = 1;
      std::uint8_t sym = static_cast<std::uint8_t>(tok);
      if (tok >= static_cast<std::uint32_t>(v_)) {
        len = kRunLens[tok - static_cast<std::uint32_t>(v_)];
        sym = static_cast<std::uint8_t>(prev);
      }
      if (base >= pos && base < pos + len)
        stored_at_base = stored + (stores[sym] ? base - pos : 0);
      if (t < pos + len) {
        c.stored_before = stored + (stores[sym] ? t - pos : 0) - stored_at_base;
        c.symbol = sym;
        depth_base_ = stored_at_base;
        return sym;
      }
      if (stores[sym]) {
        stored += len;
        if (depth_context_ != 0)
          stored_syms_.insert(stored_syms_.end(), len, sym);
      }
      cls = len > 1 ? 0 : klass(prev, sym);
      prev = sym;
      pos += len;
    }
  }

  std::uint16_t depth(std::uint64_t i, const Cursor& c) override {
    const std::uint64_t b = i / de_;
    BitReader r(ds_.bytes.data() + ds_.start[b]);
    std::uint32_t prev = 0;
    const std::uint8_t own = c.symbol;
    for (std::uint32_t j = 0;;) {
      const std::uint8_t sym =
          depth_base_ + j < stored_syms_.size() ? stored_syms_[depth_base_ + j] : own;
      const int ctx = depth_ctx(j, prev, sym);
      r.refill();
      std::uint32_t d = r.token(dcode_[static_cast<std::size_t>(ctx)]);
      std::uint32_t len = 1;
      if (d == kEscape) {
        d = r.peek(16);
        r.skip(16);
      } else if (d > kEscape) {
        len = kRunLens[d - kEscape - 1];
        d = prev;
      }
      if (c.stored_before < j + len)
        return static_cast<std::uint16_t>(d);
      prev = d;
      j += len;
    }
  }

 private:
  // The bound of filling: every recompute entry takes the previous entry's symbol (the most
  // common symbol at a block's start), as if a reader knew the marks without a symbol for them.
  void fill_marks() {
    filled_ = layer_->symbol;
    std::uint8_t common = 0;
    while (common < 255 && layer_->mark[common])
      ++common;
    for (std::size_t i = 0; i < filled_.size(); ++i) {
      if (layer_->mark[filled_[i]])
        filled_[i] = i % e_ == 0 ? common : filled_[i - 1];
    }
    values_ = &filled_;
  }

  int depth_ctx(std::uint32_t j, std::uint32_t prev, std::uint8_t sym) const {
    if (depth_context_ == 1)
      return std::min<int>(sym, kDepthContexts - 1);
    if (depth_context_ >= 2) {
      const int bucket = j == 0 ? 0 : 1 + static_cast<int>(std::min<std::uint32_t>(prev, 14));
      return 4 * bucket + std::min<int>(sym, 3);
    }
    return j == 0 ? 0 : 1 + static_cast<int>(std::min<std::uint32_t>(prev, kDepthContexts - 2));
  }

  template <typename Emit>
  void value_tokens(const std::uint8_t* s, std::size_t k, Emit&& emit) const {
    int prev = v_;
    int cls = 0;
    std::size_t i = 0;
    while (i < k) {
      const auto ctx = static_cast<int>(value_ctx(prev, cls));
      if (prev != v_) {
        std::size_t run = 0;
        while (i + run < k && run < 256 && s[i + run] == prev)
          ++run;
        if (run >= 2) {
          std::size_t r = kRunLens.size() - 1;
          while (kRunLens[r] > run)
            --r;
          emit(ctx, static_cast<std::uint32_t>(v_) + static_cast<std::uint32_t>(r), 0u, 0);
          i += kRunLens[r];
          cls = 0;
          continue;
        }
      }
      emit(ctx, s[i], 0u, 0);
      cls = klass(prev, s[i]);
      prev = s[i];
      ++i;
    }
  }

  // Value contexts: the previous symbol (v_ at a block's start) and, with order2_, a class of
  // the one before it: 0 the same symbol, 1 a recompute symbol, 2 another.
  std::size_t value_ctx(int prev, int cls) const {
    const int k = order2_ ? 3 : 1;
    return static_cast<std::size_t>(prev == v_ ? v_ * k : prev * k + cls);
  }
  int klass(int prev, int sym) const {
    if (!order2_ || prev == sym)
      return 0;
    return prev != v_ && layer_->mark[static_cast<std::size_t>(prev)] ? 1 : 2;
  }

  template <typename Emit>
  void depth_tokens(std::uint64_t first, std::size_t k, Emit&& emit) const {
    auto& syms = scratch_syms_;
    auto& ds = scratch_depths_;
    syms.clear();
    ds.clear();
    for (std::uint64_t i = first; i < first + k; ++i) {
      if (layer_->stores[layer_->symbol[i]]) {
        syms.push_back(layer_->symbol[i]);
        ds.push_back(layer_->depth[i]);
      }
    }
    std::uint32_t prev = 0;
    for (std::size_t j = 0; j < ds.size();) {
      const int ctx = depth_ctx(static_cast<std::uint32_t>(j), prev, syms[j]);
      if (depth_context_ == 3 && j > 0) {
        std::size_t run = 0;
        while (j + run < ds.size() && run < 256 && ds[j + run] == prev)
          ++run;
        if (run >= 2) {
          std::size_t r = kRunLens.size() - 1;
          while (kRunLens[r] > run)
            --r;
          emit(ctx, kEscape + 1 + static_cast<std::uint32_t>(r), 0u, 0);
          j += kRunLens[r];
          continue;
        }
      }
      const std::uint32_t d = ds[j];
      if (d < kEscape)
        emit(ctx, d, 0u, 0);
      else
        emit(ctx, kEscape, d, 16);
      prev = d;
      ++j;
    }
  }

  template <typename Tokens>
  void encode_stream(std::uint32_t block,
                     std::size_t contexts,
                     std::size_t tokens,
                     std::vector<Code>& codes,
                     BlockStream& out,
                     Tokens&& for_block) {
    const std::uint64_t n = layer_->symbol.size();
    std::vector<std::vector<std::uint64_t>> freq(contexts, std::vector<std::uint64_t>(tokens));
    for (std::uint64_t first = 0; first < n; first += block) {
      for_block(first,
                std::min<std::uint64_t>(block, n - first),
                [&](int ctx, std::uint32_t tok, std::uint32_t, int) {
                  ++freq[static_cast<std::size_t>(ctx)][tok];
                });
    }
    codes.clear();
    for (const auto& f : freq)
      codes.push_back(build_code(f));
    out = BlockStream{};
    out.bytes.reserve(n / 2);
    out.start.push_back(0);
    BitWriter w(out.bytes);
    for (std::uint64_t first = 0; first < n; first += block) {
      for_block(first,
                std::min<std::uint64_t>(block, n - first),
                [&](int ctx, std::uint32_t tok, std::uint32_t extra, int extra_bits) {
                  const Code& c = codes[static_cast<std::size_t>(ctx)];
                  w.put(c.word[tok], c.len[tok]);
                  if (extra_bits > 0)
                    w.put(extra, extra_bits);
                });
      w.flush();
      out.close_block();
    }
    out.finish();
    out.model = model_bytes(codes);
  }

  void encode_values() {
    const auto contexts = value_ctx(v_, 0) + 1;
    const auto tokens = static_cast<std::size_t>(v_) + kRunLens.size();
    encode_stream(
        e_, contexts, tokens, vcode_, vs_, [&](std::uint64_t first, std::size_t k, auto&& f) {
          value_tokens(values_->data() + first, k, f);
        });
  }

  void encode_depths() {
    encode_stream(de_,
                  kDepthContexts,
                  kEscape + 1 + kRunLens.size(),
                  dcode_,
                  ds_,
                  [&](std::uint64_t first, std::size_t k, auto&& f) { depth_tokens(first, k, f); });
  }

  std::uint32_t e_;
  std::uint32_t de_;
  int depth_context_;
  bool fill_;
  bool order2_;
  const Layer* layer_ = nullptr;
  const std::vector<std::uint8_t>* values_ = nullptr;
  std::vector<std::uint8_t> filled_;
  int v_ = 0;
  std::vector<Code> vcode_, dcode_;
  BlockStream vs_, ds_;
  std::vector<std::uint8_t> stored_syms_;
  std::uint32_t depth_base_ = 0;
  mutable std::vector<std::uint8_t> scratch_syms_;
  mutable std::vector<std::uint32_t> scratch_depths_;
};

}  // namespace

std::unique_ptr<Candidate> make_huffman_candidate(
    std::uint32_t entries, int depth_context, bool fill, std::uint32_t depth_entries, bool order2) {
  return std::make_unique<HuffmanCandidate>(
      entries, depth_context, fill, depth_entries ? depth_entries : entries, order2);
}

}  // namespace sowdb::bench
