#include "proof_store_layout.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>
#include <vector>

#include "sowdb/format/xxhash64.h"

namespace sowdb::proof_store_internal {
namespace {

// Little-endian, whatever the host (the spec's "Conventions").
template <typename T>
void put(std::byte* at, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    at[i] = static_cast<std::byte>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff);
}

template <typename T>
T get(const std::byte* at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    v |= static_cast<std::uint64_t>(std::to_integer<std::uint8_t>(at[i])) << (8 * i);
  return static_cast<T>(v);
}

std::int8_t get_i8(const std::byte* at) {
  return static_cast<std::int8_t>(std::to_integer<std::uint8_t>(*at));
}

void put_i8(std::byte* at, std::int8_t v) {
  *at = static_cast<std::byte>(static_cast<std::uint8_t>(v));
}

bool all_zero(std::span<const std::byte> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](std::byte b) { return b == std::byte{0}; });
}

// Record fields (docs/PROOF_STORE.md, "Record").
constexpr std::size_t kWork = 16;
constexpr std::size_t kStamp = 24;
constexpr std::size_t kLower = 28;
constexpr std::size_t kUpper = 29;
constexpr std::size_t kBest = 30;
constexpr std::size_t kMoveMask = 31;
constexpr std::size_t kMoves = 32;
constexpr std::size_t kReserved = 48;
constexpr std::size_t kChecksum = 56;

}  // namespace

HeaderBytes encode_header(const HeaderFields& fields) {
  HeaderBytes h{};
  std::memcpy(h.data(), kMagic, sizeof kMagic);
  put<std::uint32_t>(&h[8], kProofStoreVersion);
  put<std::uint32_t>(&h[12], ProofStore::kHeaderBytes);
  put<std::uint32_t>(&h[16], ProofStore::kRecordBytes);
  put<std::uint32_t>(&h[20], ProofStore::kBucketRecords);
  put<std::uint64_t>(&h[24], fields.buckets);
  put<std::uint64_t>(&h[32], file_bytes(fields.buckets));
  put<std::uint64_t>(&h[40], fields.rules_hash);
  const std::size_t n = std::min(fields.rules_text.size(), kMaxRulesText);
  put<std::uint32_t>(&h[48], static_cast<std::uint32_t>(n));
  std::memcpy(&h[kRulesTextOffset], fields.rules_text.data(), n);
  put<std::uint64_t>(&h[kHeaderChecksumOffset], xxh64(std::span(h.data(), kHeaderChecksumOffset)));
  return h;
}

std::string check_header(const HeaderBytes& h,
                         std::uint64_t file_size,
                         const HeaderFields& expected,
                         HeaderFields& found) {
  if (std::memcmp(h.data(), kMagic, sizeof kMagic) != 0)
    return "not a proof store (no SOWPROOF magic)";
  if (get<std::uint64_t>(&h[kHeaderChecksumOffset]) !=
      xxh64(std::span(h.data(), kHeaderChecksumOffset)))
    return "the header's checksum does not match (damaged)";
  if (const auto v = get<std::uint32_t>(&h[8]); v != kProofStoreVersion)
    return "format version " + std::to_string(v) + ", this sowdb reads version " +
           std::to_string(kProofStoreVersion);
  if (get<std::uint32_t>(&h[12]) != ProofStore::kHeaderBytes ||
      get<std::uint32_t>(&h[16]) != ProofStore::kRecordBytes ||
      get<std::uint32_t>(&h[20]) != ProofStore::kBucketRecords || get<std::uint32_t>(&h[52]) != 0)
    return "a header of another layout (header, record or bucket size)";
  found.buckets = get<std::uint64_t>(&h[24]);
  const std::uint64_t size = get<std::uint64_t>(&h[32]);
  // The first test keeps file_bytes() from overflowing on a header of absurd bucket counts.
  if (found.buckets == 0 || found.buckets > (std::uint64_t{1} << 48) ||
      size != file_bytes(found.buckets))
    return "a header whose size and bucket count disagree";
  if (size != file_size)
    return "a file of " + std::to_string(file_size) + " bytes, its header says " +
           std::to_string(size);
  found.rules_hash = get<std::uint64_t>(&h[40]);
  const auto n = get<std::uint32_t>(&h[48]);
  if (n > kMaxRulesText ||
      !all_zero(std::span(&h[kRulesTextOffset + n], kHeaderChecksumOffset - kRulesTextOffset - n)))
    return "a header whose rules text is malformed";
  found.rules_text.assign(reinterpret_cast<const char*>(&h[kRulesTextOffset]), n);
  if (found.rules_hash != expected.rules_hash || found.rules_text != expected.rules_text)
    return "a file of other rules (" + found.rules_text + ")";
  return {};
}

RecordBytes encode_record(const ProofRecord& r, std::uint64_t rules_hash) {
  RecordBytes b{};
  std::memcpy(b.data(), r.position.data(), kMaxPits);
  put<std::uint64_t>(&b[kWork], r.work);
  put<std::uint32_t>(&b[kStamp], r.stamp);
  put_i8(&b[kLower], r.value.lower);
  put_i8(&b[kUpper], r.value.upper);
  b[kBest] = static_cast<std::byte>(r.best_pit < 0 ? kNoBestPit : r.best_pit);
  std::uint8_t mask = 0;
  for (int i = 0; i < kMaxPitsPerSide; ++i) {
    if (!r.moves[i])
      continue;
    mask = static_cast<std::uint8_t>(mask | (1U << i));
    const std::size_t at = kMoves + 2 * static_cast<std::size_t>(i);
    put_i8(&b[at], r.moves[i]->lower);
    put_i8(&b[at + 1], r.moves[i]->upper);
  }
  b[kMoveMask] = static_cast<std::byte>(mask);
  put<std::uint64_t>(&b[kChecksum], xxh64(std::span(b.data(), kChecksum), rules_hash));
  return b;
}

RecordState decode_record(const RecordBytes& b,
                          std::uint64_t rules_hash,
                          int pits_per_side,
                          ProofRecord& out) {
  if (all_zero(b))
    return RecordState::kEmpty;
  if (get<std::uint64_t>(&b[kChecksum]) != xxh64(std::span(b.data(), kChecksum), rules_hash) ||
      !all_zero(std::span(&b[kReserved], kChecksum - kReserved)))
    return RecordState::kDamaged;
  ProofRecord r;
  std::memcpy(r.position.data(), b.data(), kMaxPits);
  r.work = get<std::uint64_t>(&b[kWork]);
  r.stamp = get<std::uint32_t>(&b[kStamp]);
  r.value = {get_i8(&b[kLower]), get_i8(&b[kUpper])};
  const auto best = std::to_integer<std::uint8_t>(b[kBest]);
  r.best_pit = best == kNoBestPit ? -1 : best;
  const auto mask = std::to_integer<std::uint8_t>(b[kMoveMask]);
  for (int i = 0; i < kMaxPitsPerSide; ++i) {
    const std::size_t at = kMoves + 2 * static_cast<std::size_t>(i);
    const ProofBounds m{get_i8(&b[at]), get_i8(&b[at + 1])};
    if (mask & (1U << i))
      r.moves[i] = m;
    else if (m != ProofBounds{0, 0})
      return RecordState::kDamaged;
  }
  if (!is_storable(r, pits_per_side))
    return RecordState::kDamaged;
  out = r;
  return RecordState::kValid;
}

bool is_storable(const ProofRecord& r, int pits_per_side) {
  for (int i = 2 * pits_per_side; i < kMaxPits; ++i) {
    if (r.position[i] != 0)
      return false;
  }
  if (r.value.lower > r.value.upper || r.best_pit < -1 || r.best_pit >= pits_per_side)
    return false;
  for (int i = 0; i < kMaxPitsPerSide; ++i) {
    if (r.moves[i] && (i >= pits_per_side || r.moves[i]->lower > r.moves[i]->upper))
      return false;
  }
  return true;
}

bool scan_records(int fd,
                  std::uint64_t buckets,
                  std::uint64_t rules_hash,
                  int pits_per_side,
                  const std::function<void(RecordState, const ProofRecord&)>& visit) {
  constexpr std::uint64_t kBucketBytes = ProofStore::kBucketRecords * ProofStore::kRecordBytes;
  constexpr std::uint64_t kChunk = 4096;  // Buckets a read: few system calls, 1 MiB of memory.
  std::vector<std::byte> chunk(kChunk * kBucketBytes);
  const ProofRecord none;
  for (std::uint64_t first = 0; first < buckets; first += kChunk) {
    const std::uint64_t n = std::min(kChunk, buckets - first);
    const std::uint64_t at = ProofStore::kHeaderBytes + first * kBucketBytes;
    // The file is sparse: a chunk with no data in it (a hole, read as zeros) holds only empty
    // slots, and is not read. WHY: a store of a few records is a 256 MiB file, which a resumed
    // solve reads whole. SEEK_DATA's errors (ENXIO: no data from here on; EINVAL: not
    // supported) leave the chunk to be read.
    const off_t data = ::lseek(fd, static_cast<off_t>(at), SEEK_DATA);
    if (data < 0 ? errno == ENXIO : static_cast<std::uint64_t>(data) >= at + n * kBucketBytes) {
      for (std::uint64_t i = 0; i < n * ProofStore::kBucketRecords; ++i)
        visit(RecordState::kEmpty, none);
      continue;
    }
    if (!read_at(fd, chunk.data(), n * kBucketBytes, at))
      return false;
    for (std::uint64_t i = 0; i < n * ProofStore::kBucketRecords; ++i) {
      RecordBytes bytes;
      std::memcpy(bytes.data(), chunk.data() + i * ProofStore::kRecordBytes, bytes.size());
      ProofRecord r;
      const RecordState state = decode_record(bytes, rules_hash, pits_per_side, r);
      visit(state, r);
    }
  }
  return true;
}

bool read_at(int fd, std::byte* out, std::size_t n, std::uint64_t offset) {
  for (std::size_t done = 0; done < n;) {
    const ssize_t got = ::pread(fd, out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      if (got == 0)
        errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(got);
  }
  return true;
}

bool write_at(int fd, const std::byte* data, std::size_t n, std::uint64_t offset) {
  for (std::size_t done = 0; done < n;) {
    const ssize_t put = ::pwrite(fd, data + done, n - done, static_cast<off_t>(offset + done));
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0) {
      if (put == 0)
        errno = ENOSPC;
      return false;
    }
    done += static_cast<std::size_t>(put);
  }
  return true;
}

}  // namespace sowdb::proof_store_internal
