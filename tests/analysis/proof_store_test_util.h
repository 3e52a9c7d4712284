// What the proof store's tests share (proof_store_test.cpp, proof_store_concurrency_test.cpp):
// rule sets, positions and records numbered, the file's bytes, a store opened with its events.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

#include "sowdb/analysis/proof_store.h"

namespace sowdb::proof_test {

namespace fs = std::filesystem;

inline RuleSet kalah6() {
  RuleSet r;
  r.family = Family::kKalah;
  r.pits_per_side = 6;
  return r;
}

inline RuleSet oware6() {
  return RuleSet{};
}

inline constexpr std::uint64_t kBucketBytes = ProofStore::kBucketRecords * ProofStore::kRecordBytes;

// The capacity of `buckets` buckets.
inline std::uint64_t capacity_of(std::uint64_t buckets) {
  return ProofStore::kHeaderBytes + buckets * kBucketBytes;
}

// A 6-pit position numbered `n` (distinct for distinct n < 2^24).
inline Pits position_of(std::uint32_t n) {
  Pits p{};
  p[0] = static_cast<std::uint8_t>(n & 0xff);
  p[3] = static_cast<std::uint8_t>((n >> 8) & 0xff);
  p[7] = static_cast<std::uint8_t>((n >> 16) & 0xff);
  p[11] = 1;
  return p;
}

inline ProofRecord record_of(std::uint32_t n, std::uint64_t work) {
  ProofRecord r;
  r.position = position_of(n);
  r.value = {-3, 5};
  r.best_pit = 2;
  r.moves[0] = ProofBounds{-10, -2};
  r.moves[2] = ProofBounds{5, 5};
  r.work = work;
  return r;
}

// `r` without the stamp the store sets, for comparisons.
inline ProofRecord unstamped(ProofRecord r) {
  r.stamp = 0;
  return r;
}

inline std::vector<char> read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const fs::path& file, const std::vector<char>& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The events of opening `file`.
struct Opened {
  std::unique_ptr<ProofStore> store;
  std::vector<ProofStoreEvent> events;

  bool saw(ProofStoreEvent::Kind kind) const {
    return std::any_of(
        events.begin(), events.end(), [&](const ProofStoreEvent& e) { return e.kind == kind; });
  }
};

inline Opened open_store(const fs::path& file, const RuleSet& rules, std::uint64_t capacity) {
  Opened o;
  ProofStoreOptions options;
  options.capacity_bytes = capacity;
  options.on_event = [&o](const ProofStoreEvent& e) { o.events.push_back(e); };
  o.store = std::make_unique<ProofStore>(file, rules, options);
  return o;
}

}  // namespace sowdb::proof_test
