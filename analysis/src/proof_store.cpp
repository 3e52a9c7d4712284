// The proof store's records: lookup, merge, replacement (docs/PROOF_STORE.md, "Record",
// "Hashing", "Replacement"). Opening the file is in proof_store_file.cpp, its bytes in
// proof_store_layout.cpp.
#include "sowdb/analysis/proof_store.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <span>
#include <system_error>
#include <vector>

#include "proof_store_layout.h"
#include "sowdb/analysis/start_solve.h"
#include "sowdb/format/xxhash64.h"
#include "sowdb/probe/manifest.h"

namespace sowdb {
namespace fs = std::filesystem;
using namespace proof_store_internal;

namespace {

std::uint32_t now_stamp() {
  return static_cast<std::uint32_t>(std::time(nullptr));
}

// The high 64 bits of a * b, without a 128-bit type (pedantic builds refuse __int128).
std::uint64_t multiply_high(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t a_lo = a & 0xffffffffU;
  const std::uint64_t a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xffffffffU;
  const std::uint64_t b_hi = b >> 32;
  const std::uint64_t lo_lo = a_lo * b_lo;
  const std::uint64_t hi_lo = a_hi * b_lo;
  const std::uint64_t lo_hi = a_lo * b_hi;
  const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffU) + lo_hi;
  return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
}

bool intersect(const ProofBounds& a, const ProofBounds& b, ProofBounds& out) {
  out = {std::max(a.lower, b.lower), std::min(a.upper, b.upper)};
  return out.lower <= out.upper;
}

// `newer` merged into `older`: bounds intersected, the newer best pit when it has one, the larger
// work. Bounds that do not intersect cannot both be proofs: one of them is a bug, and the newer
// record wins whole (`conflict` set), so that a fixed search overwrites what a broken one wrote.
ProofRecord merge(const ProofRecord& older, const ProofRecord& newer, bool& conflict) {
  ProofRecord out = newer;
  bool ok = intersect(older.value, newer.value, out.value);
  for (int i = 0; i < kMaxPitsPerSide; ++i) {
    if (older.moves[i] && newer.moves[i]) {
      ProofBounds b;
      ok = intersect(*older.moves[i], *newer.moves[i], b) && ok;
      out.moves[i] = b;
    } else if (older.moves[i]) {
      out.moves[i] = older.moves[i];
    }
  }
  if (out.best_pit < 0)
    out.best_pit = older.best_pit;
  out.work = std::max(older.work, newer.work);
  out.stamp = std::max(older.stamp, newer.stamp);
  conflict = !ok;
  return ok ? out : newer;
}

bool same_key(const std::byte* record, const Pits& position) {
  return std::memcmp(record, position.data(), kMaxPits) == 0;
}

}  // namespace

const char* to_string(ProofStoreResult result) noexcept {
  switch (result) {
    case ProofStoreResult::kAdded:
      return "added";
    case ProofStoreResult::kMerged:
      return "merged";
    case ProofStoreResult::kConflict:
      return "conflict";
    case ProofStoreResult::kReplaced:
      return "replaced";
    case ProofStoreResult::kDropped:
      return "dropped";
    case ProofStoreResult::kInvalid:
      return "invalid";
    case ProofStoreResult::kUnavailable:
      return "unavailable";
  }
  return "unknown";
}

fs::path proof_store_path(const fs::path& root, const RuleSet& rules) {
  if (root.empty())
    return {};
  return root / "proofs" / (start_cache_dir(root, rules).filename().string() + ".sowproof");
}

std::uint64_t proof_rules_hash(const RuleSet& rules) {
  const std::string text = describe(rules.normalised());
  return xxh64(std::as_bytes(std::span(text.data(), text.size())));
}

std::uint64_t proof_bucket(std::uint64_t rules_hash, const Pits& position, std::uint64_t buckets) {
  return multiply_high(xxh64(std::as_bytes(std::span(position)), rules_hash), buckets);
}

ProofStoreStats ProofStore::stats() const {
  return ProofStoreStats{lookups_.load(),
                         hits_.load(),
                         stores_.load(),
                         kept_.load(),
                         dropped_.load(),
                         conflicts_.load(),
                         damaged_.load()};
}

ProofStoreCensus ProofStore::census() {
  ProofStoreCensus c;
  if (!readable_)
    return c;
  const auto count = [&c](RecordState state, const ProofRecord& r) {
    c.empty += state == RecordState::kEmpty;
    c.damaged += state == RecordState::kDamaged;
    c.records += state == RecordState::kValid;
    c.exact += state == RecordState::kValid && r.value.exact();
  };
  if (scan_records(fd_, buckets_, rules_hash_, rules_.pits_per_side, count))
    return c;
  fail("cannot read a record: " + std::generic_category().message(errno), false);
  return ProofStoreCensus{};
}

bool ProofStore::for_each(const std::function<void(const ProofRecord&)>& visit) {
  if (!readable_)
    return false;
  const auto each = [&visit](RecordState state, const ProofRecord& r) {
    if (state == RecordState::kValid)
      visit(r);
  };
  if (scan_records(fd_, buckets_, rules_hash_, rules_.pits_per_side, each))
    return true;
  fail("cannot read a record: " + std::generic_category().message(errno), false);
  return false;
}

bool ProofStore::read_bucket(std::uint64_t bucket, Bucket& out) {
  if (read_at(fd_, out.data(), out.size(), kHeaderBytes + bucket * out.size()))
    return true;
  fail("cannot read a record: " + std::generic_category().message(errno), false);
  return false;
}

bool ProofStore::write_record(std::uint64_t bucket,
                              std::uint64_t index,
                              const ProofRecord* record) {
  const RecordBytes bytes = record ? encode_record(*record, rules_hash_) : RecordBytes{};
  const std::uint64_t at = kHeaderBytes + (bucket * kBucketRecords + index) * kRecordBytes;
  if (write_at(fd_, bytes.data(), bytes.size(), at))
    return true;
  fail("cannot write a record: " + std::generic_category().message(errno), false);
  return false;
}

std::optional<ProofRecord> ProofStore::lookup(const Pits& position) {
  ++lookups_;
  if (!readable_)
    return std::nullopt;
  const std::uint64_t bucket = proof_bucket(rules_hash_, position, buckets_);
  Bucket raw;
  if (!read_bucket(bucket, raw))
    return std::nullopt;
  std::optional<ProofRecord> found;
  for (std::uint64_t i = 0; i < kBucketRecords; ++i) {
    RecordBytes bytes;
    std::memcpy(bytes.data(), raw.data() + i * kRecordBytes, kRecordBytes);
    if (!same_key(bytes.data(), position))
      continue;
    ProofRecord r;
    const RecordState state = decode_record(bytes, rules_hash_, rules_.pits_per_side, r);
    if (state == RecordState::kDamaged)
      ++damaged_;
    if (state != RecordState::kValid)
      continue;
    // Two records of one position: two processes added it at once (see the spec's
    // "Concurrency"); both are proofs, so their merge is.
    bool conflict = false;
    if (!found)
      found = r;
    else
      found = r.stamp >= found->stamp ? merge(*found, r, conflict) : merge(r, *found, conflict);
  }
  if (found)
    ++hits_;
  return found;
}

ProofStoreResult ProofStore::store(const ProofRecord& record) {
  ++stores_;
  if (!is_storable(record, rules_.pits_per_side))
    return ProofStoreResult::kInvalid;
  if (!writable_)
    return ProofStoreResult::kUnavailable;
  const std::uint64_t bucket = proof_bucket(rules_hash_, record.position, buckets_);
  ProofStoreResult result;
  {
    std::lock_guard lock(bucket_mutex_[bucket % bucket_mutex_.size()]);
    result = place(bucket, record);
  }
  switch (result) {
    case ProofStoreResult::kConflict:
      ++conflicts_;
      [[fallthrough]];
    case ProofStoreResult::kAdded:
    case ProofStoreResult::kMerged:
    case ProofStoreResult::kReplaced:
      ++kept_;
      break;
    case ProofStoreResult::kDropped:
      ++dropped_;
      break;
    default:
      break;
  }
  return result;
}

ProofStoreResult ProofStore::place(std::uint64_t bucket, const ProofRecord& record) {
  Bucket raw;
  if (!read_bucket(bucket, raw))
    return ProofStoreResult::kUnavailable;
  std::array<ProofRecord, kBucketRecords> held;
  std::array<bool, kBucketRecords> valid{};
  std::vector<std::uint64_t> same;
  for (std::uint64_t i = 0; i < kBucketRecords; ++i) {
    RecordBytes bytes;
    std::memcpy(bytes.data(), raw.data() + i * kRecordBytes, kRecordBytes);
    valid[i] =
        decode_record(bytes, rules_hash_, rules_.pits_per_side, held[i]) == RecordState::kValid;
    if (valid[i] && held[i].position == record.position)
      same.push_back(i);
  }
  ProofRecord incoming = record;
  incoming.stamp = now_stamp();
  if (!same.empty()) {
    // Older records first, so that a conflict among them also leaves the newest.
    std::sort(same.begin(), same.end(), [&](std::uint64_t a, std::uint64_t b) {
      return held[a].stamp < held[b].stamp;
    });
    ProofRecord merged = held[same[0]];
    bool conflict = false;  // Only the incoming record's: two stored ones are both this file's.
    for (std::size_t k = 1; k < same.size(); ++k)
      merged = merge(merged, held[same[k]], conflict);
    merged = merge(merged, incoming, conflict);
    merged.stamp = incoming.stamp;
    const std::uint64_t keep = *std::min_element(same.begin(), same.end());
    if (!write_record(bucket, keep, &merged))
      return ProofStoreResult::kUnavailable;
    for (const std::uint64_t i : same) {
      if (i != keep && !write_record(bucket, i, nullptr))
        return ProofStoreResult::kUnavailable;
    }
    return conflict ? ProofStoreResult::kConflict : ProofStoreResult::kMerged;
  }
  for (std::uint64_t i = 0; i < kBucketRecords; ++i) {
    if (!valid[i])
      return write_record(bucket, i, &incoming) ? ProofStoreResult::kAdded
                                                : ProofStoreResult::kUnavailable;
  }
  std::uint64_t victim = 0;
  for (std::uint64_t i = 1; i < kBucketRecords; ++i) {
    const ProofRecord& a = held[i];
    const ProofRecord& v = held[victim];
    if (a.work < v.work || (a.work == v.work && a.stamp < v.stamp))
      victim = i;
  }
  const ProofRecord& v = held[victim];
  if (incoming.work < v.work || (incoming.work == v.work && incoming.stamp < v.stamp))
    return ProofStoreResult::kDropped;
  return write_record(bucket, victim, &incoming) ? ProofStoreResult::kReplaced
                                                 : ProofStoreResult::kUnavailable;
}

}  // namespace sowdb
