// Two-level decode tables for the canonical codes of one version 6 stream (FORMAT.md, "Code
// tables"): an 8-bit first level per context, then 16-entry tables for the words longer than 8
// bits. A context's first level is 512 bytes, so every context of a layer's value code and the
// 64 of its depth code stay in the processor's first caches, where a 12-bit table a context
// (8 KiB) missed them on most tokens. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sowdb/format/huffman_code.h"

namespace sowdb::table_internal::v6 {

class DecodeTables {
 public:
  static constexpr int kRootBits = 8;
  static constexpr int kSubBits = huffman::kCodeBits - kRootBits;
  static constexpr std::uint32_t kRoot = 1u << kRootBits;
  static constexpr std::uint32_t kSub = 1u << kSubBits;

  // Sizes the tables for `contexts` contexts, all without a code word.
  void reset(std::size_t contexts) {
    entries_.assign(contexts * kRoot, 0);
    sub_base_.assign(contexts, 0);
  }

  // Fills context `ctx`'s tables from `code` (lengths that huffman::valid_lengths accepts,
  // tokens < 2048).
  void set(std::size_t ctx, const huffman::Code& code) {
    std::uint16_t* root = &entries_[ctx * kRoot];
    const auto sub_base = static_cast<std::uint32_t>(entries_.size());
    sub_base_[ctx] = sub_base;
    std::uint32_t subs = 0;
    // First the long words' prefixes, each a 16-entry table (the code is a prefix code: a
    // prefix of a long word starts no short word).
    for (std::size_t t = 0; t < code.len.size(); ++t) {
      const int l = code.len[t];
      if (l <= kRootBits)
        continue;
      const std::uint32_t prefix = code.word[t] >> (l - kRootBits);
      if (root[prefix] == 0) {
        root[prefix] = static_cast<std::uint16_t>(0x8000u | subs);
        ++subs;
      }
    }
    entries_.resize(sub_base + std::size_t{subs} * kSub, 0);
    root = &entries_[ctx * kRoot];  // the resize may have moved it
    for (std::size_t t = 0; t < code.len.size(); ++t) {
      const int l = code.len[t];
      if (l == 0)
        continue;
      const auto entry = static_cast<std::uint16_t>((t << 4) | static_cast<std::size_t>(l));
      if (l <= kRootBits) {
        const std::uint32_t first = code.word[t] << (kRootBits - l);
        for (std::uint32_t x = first; x < first + (1u << (kRootBits - l)); ++x)
          root[x] = entry;
      } else {
        const std::uint32_t prefix = code.word[t] >> (l - kRootBits);
        std::uint16_t* sub = &entries_[sub_base + (root[prefix] & 0x7FFFu) * kSub];
        const std::uint32_t low = (code.word[t] << (huffman::kCodeBits - l)) & (kSub - 1);
        for (std::uint32_t x = low; x < low + (1u << (huffman::kCodeBits - l)); ++x)
          sub[x] = entry;
      }
    }
  }

  // The entry for the next kCodeBits bits `bits` in context `ctx`: (token << 4) | length, or 0
  // where no code word starts (a corrupt stream).
  std::uint32_t lookup(std::uint32_t ctx, std::uint32_t bits) const {
    const std::uint32_t e = entries_[(ctx << kRootBits) | (bits >> kSubBits)];
    if ((e & 0x8000u) == 0)
      return e;
    return entries_[sub_base_[ctx] + (e & 0x7FFFu) * kSub + (bits & (kSub - 1))];
  }

 private:
  std::vector<std::uint16_t> entries_;   // the first levels, context after context, then subs
  std::vector<std::uint32_t> sub_base_;  // where each context's 16-entry tables start
};

}  // namespace sowdb::table_internal::v6
