// The bytes of a proof store file (docs/PROOF_STORE.md, "Header" and "Record"): the header and
// the record encoded and checked in one place. Not installed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "sowdb/analysis/proof_store.h"

namespace sowdb::proof_store_internal {

using HeaderBytes = std::array<std::byte, ProofStore::kHeaderBytes>;
using RecordBytes = std::array<std::byte, ProofStore::kRecordBytes>;

inline constexpr char kMagic[8] = {'S', 'O', 'W', 'P', 'R', 'O', 'O', 'F'};
/// The rules text's room in the header: bytes 56..4087.
inline constexpr std::size_t kRulesTextOffset = 56;
inline constexpr std::size_t kHeaderChecksumOffset = ProofStore::kHeaderBytes - 8;
inline constexpr std::size_t kMaxRulesText = kHeaderChecksumOffset - kRulesTextOffset;
inline constexpr std::uint8_t kNoBestPit = 0xff;

/// What a header says, for a file of `buckets` buckets.
struct HeaderFields {
  std::uint64_t buckets = 0;
  std::uint64_t rules_hash = 0;
  std::string rules_text;
};

/// The bytes of a header.
HeaderBytes encode_header(const HeaderFields& fields);

/// Why `bytes`, read from a file of `file_size` bytes, is not the header of a file for
/// `expected` rules (rules_hash and rules_text); empty when it is. Fills `found.buckets`.
std::string check_header(const HeaderBytes& bytes,
                         std::uint64_t file_size,
                         const HeaderFields& expected,
                         HeaderFields& found);

/// The file size of `buckets` buckets.
constexpr std::uint64_t file_bytes(std::uint64_t buckets) {
  return ProofStore::kHeaderBytes + buckets * ProofStore::kBucketRecords * ProofStore::kRecordBytes;
}

/// The bytes of `record` (its stamp as given), checksummed with `rules_hash`.
RecordBytes encode_record(const ProofRecord& record, std::uint64_t rules_hash);

/// How a record's bytes read.
enum class RecordState : std::uint8_t {
  kEmpty,    ///< 64 zero bytes: a free slot.
  kDamaged,  ///< Not empty, and the checksum or a field check fails: a free slot, never read.
  kValid,    ///< A record; decoded.
};

/// Reads `bytes` for a board of `pits_per_side` pits per side into `out` when valid.
RecordState decode_record(const RecordBytes& bytes,
                          std::uint64_t rules_hash,
                          int pits_per_side,
                          ProofRecord& out);

/// Whether `record` can be stored for a board of `pits_per_side` pits per side (the checks
/// decode_record makes, but the checksum).
bool is_storable(const ProofRecord& record, int pits_per_side);

/// Reads every record of the file `fd` of `buckets` buckets, in order, 1 MiB at a time, and calls
/// `visit` with each one's state and (kValid) its record. False with errno set when a read fails.
bool scan_records(int fd,
                  std::uint64_t buckets,
                  std::uint64_t rules_hash,
                  int pits_per_side,
                  const std::function<void(RecordState, const ProofRecord&)>& visit);

/// Reads `n` bytes at `offset` of `fd`; false with errno set (EIO for a file that ends early).
bool read_at(int fd, std::byte* out, std::size_t n, std::uint64_t offset);

/// Writes `n` bytes at `offset` of `fd`; false with errno set (ENOSPC for a short write).
bool write_at(int fd, const std::byte* data, std::size_t n, std::uint64_t offset);

}  // namespace sowdb::proof_store_internal
