// Length-limited canonical Huffman codes with table decoding and MSB-first bit I/O: the entropy
// coder of format version 6 (FORMAT.md, "Version 6 streams"), also used by the format candidate
// benchmarks (bench/). Plain functions and value types, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sowdb::huffman {

/// Longest code word; a decode table has 2^kCodeBits entries.
inline constexpr int kCodeBits = 12;

/// Most tokens one code may have (a decode table entry holds the token in 12 bits).
inline constexpr std::size_t kMaxTokens = 4096;

/// A canonical prefix code over tokens 0..len.size()-1 (FORMAT.md, "Code tables"): tokens are
/// ordered by (length, token) and take consecutive words, the first word all zeros.
struct Code {
  std::vector<std::uint8_t> len;    ///< Code length of each token, 0 for a token never coded.
  std::vector<std::uint32_t> word;  ///< Code word of each token, MSB first.
};

/// A decode table: entry `x` (the next kCodeBits bits of input) is (token << 4) | length, or 0
/// where no code word starts with x (a corrupt stream).
using DecodeTable = std::vector<std::uint16_t>;

/// The canonical code of `freq` (at most kMaxTokens tokens), no word longer than kCodeBits:
/// frequencies are halved (keeping them non-zero) until the Huffman lengths fit. A single token
/// gets length 1; no token with a non-zero frequency gets length 0. Deterministic. Thread safe.
/// Throws std::invalid_argument for more than kMaxTokens tokens.
Code build_code(std::span<const std::uint64_t> freq);

/// Whether `len` (each 0..kCodeBits) is a code a reader accepts: no token coded, exactly one
/// token of length 1, or a complete code (Kraft sum exactly 1). Thread safe.
bool valid_lengths(std::span<const std::uint8_t> len);

/// The canonical words of `len` (valid_lengths(len)) into a Code. Thread safe.
Code code_from_lengths(std::span<const std::uint8_t> len);

/// The decode table of `code` (2^kCodeBits entries; tokens < kMaxTokens). Thread safe.
DecodeTable decode_table(const Code& code);

/// Appends bits, MSB first, to a byte vector.
class BitWriter {
 public:
  /// Appends to `out`, which must outlive the writer.
  explicit BitWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  /// Appends the low `count` bits of `bits` (count 0..32), the highest first.
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

/// Reads bits MSB first from memory. Reads up to 8 bytes past the last bit it returns: the
/// caller keeps kReadPadding readable bytes after the data.
class BitReader {
 public:
  /// Bytes a reader may touch past the data it decodes.
  static constexpr std::size_t kReadPadding = 16;

  explicit BitReader(const std::uint8_t* p) : start_(p), p_(p) { refill(); }
  /// After refill() at least 56 bits are buffered.
  void refill() {
    // Eight bytes, most significant first: standard C++ (the installed headers use no
    // builtin), which g++ -O2 compiles to one load and a byte swap.
    std::uint64_t w = 0;
    for (int i = 0; i < 8; ++i)
      w = w << 8 | p_[i];
    buf_ |= w >> bits_;
    p_ += (63 - bits_) >> 3;
    bits_ |= 56;
  }
  /// The next `count` bits (1..32), not consumed.
  std::uint32_t peek(int count) const { return static_cast<std::uint32_t>(buf_ >> (64 - count)); }
  /// Consumes `count` bits (at most those buffered).
  void skip(int count) {
    buf_ <<= count;
    bits_ -= count;
  }
  /// The next token of `table`'s code, or -1 for bits that start no code word (refill()
  /// first).
  int token(const DecodeTable& table) {
    const std::uint16_t e = table[peek(kCodeBits)];
    if (e == 0)
      return -1;
    skip(e & 15);
    return e >> 4;
  }
  /// Bits consumed since construction.
  std::uint64_t consumed() const {
    return static_cast<std::uint64_t>(p_ - start_) * 8 - static_cast<std::uint64_t>(bits_);
  }

 private:
  const std::uint8_t* start_;
  const std::uint8_t* p_;
  std::uint64_t buf_ = 0;
  int bits_ = 0;
};

}  // namespace sowdb::huffman
