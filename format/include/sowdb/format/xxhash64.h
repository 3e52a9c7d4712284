// XXH64, the 64-bit xxHash, implemented from its public specification (FORMAT.md, "Checksums").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace sowdb {

/// XXH64 of `data` with `seed`, as specified in xxHash's doc/xxhash_spec.md (version 0.1.1),
/// bit-identical to the reference `XXH64()`. Thread safe (pure function).
std::uint64_t xxh64(std::span<const std::byte> data, std::uint64_t seed = 0) noexcept;

/// Streaming XXH64: feeding the bytes in any number of `update` calls gives the same digest as
/// one `xxh64` call over their concatenation. Not thread safe (one object per stream); copyable.
class Xxh64 {
 public:
  /// Starts a stream with `seed`.
  explicit Xxh64(std::uint64_t seed = 0) noexcept;

  /// Appends `data` to the stream.
  void update(std::span<const std::byte> data) noexcept;

  /// The digest of every byte fed so far. Does not end the stream: `update` may follow.
  std::uint64_t digest() const noexcept;

 private:
  std::uint64_t seed_;
  std::uint64_t acc_[4];
  std::uint64_t total_ = 0;    // bytes fed so far
  std::byte buffer_[32] = {};  // a partial stripe
  std::size_t buffered_ = 0;   // bytes in buffer_
};

}  // namespace sowdb
