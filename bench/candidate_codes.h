// Building blocks of sowdb_format_candidates (issue #43): length-limited canonical Huffman codes
// with table decoding, MSB-first bit I/O, and the stream of independently decodable blocks that
// every candidate encoding produces.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace sowdb::bench {

/// Longest code word; a decode table has 2^kCodeBits entries per context.
inline constexpr int kCodeBits = 12;

/// A canonical prefix code over tokens 0..len.size()-1, with its decode table: entry `x` of
/// `table` (the next kCodeBits bits of input) is (token << 4) | length.
struct Code {
  std::vector<std::uint8_t> len;     ///< Code length of each token, 0 for a token never coded.
  std::vector<std::uint32_t> word;   ///< Code word of each token, MSB first.
  std::vector<std::uint16_t> table;  ///< 2^kCodeBits entries.
};

/// The canonical code of `freq` (any size up to 4096 tokens), no word longer than kCodeBits
/// (frequencies are halved until the Huffman lengths fit). A single token gets length 1.
Code build_code(const std::vector<std::uint64_t>& freq);

/// Bits a model of `codes` costs: 4 bits per (context, token) code length.
std::size_t model_bytes(const std::vector<Code>& codes);

/// Appends bits, MSB first, to a byte vector.
class BitWriter {
 public:
  explicit BitWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void put(std::uint32_t bits, int count) {
    acc_ = (acc_ << count) | bits;
    n_ += count;
    while (n_ >= 8) {
      n_ -= 8;
      out_.push_back(static_cast<std::uint8_t>(acc_ >> n_));
    }
    acc_ &= (std::uint64_t{1} << n_) - 1;
  }
  /// Pads the last byte with zero bits.
  void flush() {
    if (n_ > 0)
      out_.push_back(static_cast<std::uint8_t>(acc_ << (8 - n_)));
    acc_ = 0;
    n_ = 0;
  }

 private:
  std::vector<std::uint8_t>& out_;
  std::uint64_t acc_ = 0;
  int n_ = 0;
};

/// Reads bits MSB first. May read up to 8 bytes past the block: streams keep 8 bytes of padding.
class BitReader {
 public:
  explicit BitReader(const std::uint8_t* p) : p_(p) { refill(); }
  /// After refill() at least 56 bits are buffered.
  void refill() {
    std::uint64_t w;
    std::memcpy(&w, p_, 8);
    buf_ |= __builtin_bswap64(w) >> bits_;
    p_ += (63 - bits_) >> 3;
    bits_ |= 56;
  }
  std::uint32_t peek(int count) const { return static_cast<std::uint32_t>(buf_ >> (64 - count)); }
  void skip(int count) {
    buf_ <<= count;
    bits_ -= count;
  }
  /// The next token of `code` (refill() first).
  std::uint32_t token(const Code& code) {
    const std::uint16_t e = code.table[peek(kCodeBits)];
    skip(e & 15);
    return e >> 4;
  }

 private:
  const std::uint8_t* p_;
  std::uint64_t buf_ = 0;
  int bits_ = 0;
};

/// Independently decodable blocks laid end to end, followed by 8 bytes of padding.
struct BlockStream {
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint64_t> start;  ///< Block b is bytes[start[b] .. start[b + 1]).
  std::size_t model = 0;             ///< Bytes of per-layer tables (codes, dictionary).

  /// Bytes of a block-start index a file would hold: a u64 every 64 blocks and a u16 offset
  /// from it per block (every group of 64 blocks measured here is below 64 KiB; else 4 bytes).
  std::size_t index_bytes() const;
  /// Blocks + index + model.
  std::size_t total() const { return bytes.size() - 8 + index_bytes() + model; }
  void close_block() { start.push_back(bytes.size()); }
  /// Blocks g * blocks .. (g + 1) * blocks - 1, g = block / blocks.
  std::span<const std::uint8_t> group(std::uint64_t block, std::uint32_t blocks) const {
    const std::uint64_t first = block / blocks * blocks;
    const std::uint64_t last = std::min<std::uint64_t>(first + blocks, start.size() - 1);
    return {bytes.data() + start[first], start[last] - start[first]};
  }
  void finish() { bytes.resize(bytes.size() + 8, 0); }
};

}  // namespace sowdb::bench
