// The proof store (analysis/include/sowdb/analysis/proof_store.h) against docs/PROOF_STORE.md:
// round trip, merging, the bound in bytes and the replacement, damaged records and headers,
// files of other rules or versions, two processes and several threads at once, and a store
// that cannot write.
#include "sowdb/analysis/proof_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "sowdb/analysis/start_solve.h"
#include "sowdb/format/xxhash64.h"
#include "sowdb/probe/manifest.h"
#include "test_support.h"

namespace sowdb {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

RuleSet kalah6() {
  RuleSet r;
  r.family = Family::kKalah;
  r.pits_per_side = 6;
  return r;
}

RuleSet oware6() {
  return RuleSet{};
}

constexpr std::uint64_t kBucketBytes = ProofStore::kBucketRecords * ProofStore::kRecordBytes;

// The capacity of `buckets` buckets.
std::uint64_t capacity_of(std::uint64_t buckets) {
  return ProofStore::kHeaderBytes + buckets * kBucketBytes;
}

// A 6-pit position numbered `n` (distinct for distinct n < 2^24).
Pits position_of(std::uint32_t n) {
  Pits p{};
  p[0] = static_cast<std::uint8_t>(n & 0xff);
  p[3] = static_cast<std::uint8_t>((n >> 8) & 0xff);
  p[7] = static_cast<std::uint8_t>((n >> 16) & 0xff);
  p[11] = 1;
  return p;
}

ProofRecord record_of(std::uint32_t n, std::uint64_t work) {
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
ProofRecord unstamped(ProofRecord r) {
  r.stamp = 0;
  return r;
}

std::vector<char> read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& file, const std::vector<char>& bytes) {
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

Opened open_store(const fs::path& file, const RuleSet& rules, std::uint64_t capacity) {
  Opened o;
  ProofStoreOptions options;
  options.capacity_bytes = capacity;
  options.on_event = [&o](const ProofStoreEvent& e) { o.events.push_back(e); };
  o.store = std::make_unique<ProofStore>(file, rules, options);
  return o;
}

TEST(ProofStore, PathBesideTheTableCacheOnePerRuleSet) {
  const fs::path root = "/cache/sowdb";
  const fs::path k = proof_store_path(root, kalah6());
  EXPECT_EQ(k.parent_path(), root / "proofs");
  EXPECT_EQ(k.filename().string(),
            start_cache_dir(root, kalah6()).filename().string() + ".sowproof");
  EXPECT_NE(k, proof_store_path(root, oware6()));
  EXPECT_NE(proof_rules_hash(kalah6()), proof_rules_hash(oware6()));
  RuleSet k_with_unused = kalah6();
  k_with_unused.grand_slam = GrandSlam::kNoCapture;  // Not a Kalah option: the same game.
  EXPECT_EQ(proof_rules_hash(k_with_unused), proof_rules_hash(kalah6()));
  EXPECT_EQ(proof_store_path("", kalah6()), fs::path());  // No cache root: no file.
  ProofStore none(proof_store_path("", kalah6()), kalah6());
  EXPECT_FALSE(none.readable());
  ASSERT_TRUE(none.failure());
  EXPECT_EQ(none.failure()->kind, RefusalKind::kIoFailure);
}

TEST(ProofStore, RoundTripAcrossOpens) {
  TempDir dir("proofs");
  const fs::path file = dir / "k.sowproof";
  const ProofRecord r = record_of(7, 1000);
  {
    Opened o = open_store(file, kalah6(), std::uint64_t{1} << 20);
    ASSERT_TRUE(o.saw(ProofStoreEvent::Kind::kCreated));
    ASSERT_TRUE(o.store->writable()) << o.store->failure()->message;
    EXPECT_EQ(o.store->capacity_bytes(), std::uint64_t{1} << 20);
    EXPECT_EQ(o.store->capacity_records(), ((std::uint64_t{1} << 20) - 4096) / 64);
    EXPECT_FALSE(o.store->lookup(r.position));
    EXPECT_EQ(o.store->store(r), ProofStoreResult::kAdded);
    const auto got = o.store->lookup(r.position);
    ASSERT_TRUE(got);
    EXPECT_EQ(unstamped(*got), r);
    EXPECT_NE(got->stamp, 0U);
  }
  EXPECT_EQ(fs::file_size(file), std::uint64_t{1} << 20);
  Opened again = open_store(file, kalah6(), kProofStoreDefaultBytes);
  ASSERT_TRUE(again.saw(ProofStoreEvent::Kind::kOpened));
  EXPECT_EQ(again.store->capacity_bytes(), std::uint64_t{1} << 20);  // Kept as created.
  const auto got = again.store->lookup(r.position);
  ASSERT_TRUE(got);
  EXPECT_EQ(unstamped(*got), r);
  EXPECT_FALSE(again.store->lookup(position_of(8)));
  EXPECT_EQ(again.store->stats().lookups, 2U);
  EXPECT_EQ(again.store->stats().hits, 1U);
  const ProofStoreCensus census = again.store->census();
  EXPECT_EQ(census.records, 1U);
  EXPECT_EQ(census.exact, 0U);
  EXPECT_EQ(census.empty, again.store->capacity_records() - 1);
}

TEST(ProofStore, CapacityRoundsDownToWholeBucketsAndRefusesTooLittle) {
  TempDir dir("proofs");
  Opened o = open_store(dir / "a.sowproof", kalah6(), capacity_of(3) + kBucketBytes - 1);
  EXPECT_EQ(o.store->capacity_bytes(), capacity_of(3));
  EXPECT_EQ(fs::file_size(dir / "a.sowproof"), capacity_of(3));
  Opened small = open_store(dir / "b.sowproof", kalah6(), kProofStoreMinBytes - 1);
  EXPECT_FALSE(small.store->readable());
  ASSERT_TRUE(small.store->failure());
  EXPECT_EQ(small.store->failure()->kind, RefusalKind::kBadRequest);
  EXPECT_TRUE(small.saw(ProofStoreEvent::Kind::kUnusable));
  EXPECT_FALSE(fs::exists(dir / "b.sowproof"));
}

TEST(ProofStore, MergeTightensAndAConflictKeepsTheNewer) {
  TempDir dir("proofs");
  Opened o = open_store(dir / "k.sowproof", kalah6(), capacity_of(4));
  ProofRecord a;
  a.position = position_of(1);
  a.value = {-5, 10};
  a.best_pit = 4;
  a.moves[0] = ProofBounds{-3, 3};
  a.work = 50;
  ASSERT_EQ(o.store->store(a), ProofStoreResult::kAdded);
  ProofRecord b;
  b.position = a.position;
  b.value = {0, 20};
  b.moves[0] = ProofBounds{-10, 2};
  b.moves[1] = ProofBounds{1, 1};
  b.work = 20;
  ASSERT_EQ(o.store->store(b), ProofStoreResult::kMerged);
  auto got = o.store->lookup(a.position);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->value, (ProofBounds{0, 10}));
  EXPECT_EQ(got->moves[0], (ProofBounds{-3, 2}));
  EXPECT_EQ(got->moves[1], (ProofBounds{1, 1}));
  EXPECT_FALSE(got->moves[2]);
  EXPECT_EQ(got->best_pit, 4);  // b proved no best move: a's stays.
  EXPECT_EQ(got->work, 50U);    // The costlier proof's work.

  ProofRecord c;
  c.position = a.position;
  c.value = {11, 12};  // Outside [0, 10]: one of the proofs is wrong.
  c.work = 1;
  EXPECT_EQ(o.store->store(c), ProofStoreResult::kConflict);
  got = o.store->lookup(a.position);
  ASSERT_TRUE(got);
  EXPECT_EQ(unstamped(*got), c);
  EXPECT_EQ(o.store->stats().conflicts, 1U);
}

TEST(ProofStore, RefusesWhatIsNotARecord) {
  TempDir dir("proofs");
  Opened o = open_store(dir / "k.sowproof", kalah6(), capacity_of(4));
  ProofRecord r = record_of(1, 1);
  r.value = {3, 2};
  EXPECT_EQ(o.store->store(r), ProofStoreResult::kInvalid);
  r = record_of(1, 1);
  r.position[12] = 1;  // Past the 12 pits of the board.
  EXPECT_EQ(o.store->store(r), ProofStoreResult::kInvalid);
  r = record_of(1, 1);
  r.best_pit = 6;
  EXPECT_EQ(o.store->store(r), ProofStoreResult::kInvalid);
  r = record_of(1, 1);
  r.moves[6] = ProofBounds{0, 0};
  EXPECT_EQ(o.store->store(r), ProofStoreResult::kInvalid);
  r = record_of(1, 1);
  r.moves[1] = ProofBounds{1, 0};
  EXPECT_EQ(o.store->store(r), ProofStoreResult::kInvalid);
  EXPECT_FALSE(o.store->lookup(r.position));
  EXPECT_EQ(o.store->store(record_of(1, 1)), ProofStoreResult::kAdded);
}

TEST(ProofStore, NeverGrowsAndKeepsTheCostlierProofs) {
  TempDir dir("proofs");
  const fs::path file = dir / "k.sowproof";
  constexpr std::uint64_t kBuckets = 8;
  Opened o = open_store(file, kalah6(), capacity_of(kBuckets));
  constexpr std::uint32_t kCount = 2000;
  std::vector<std::uint64_t> works(kCount);
  for (std::uint32_t i = 0; i < kCount; ++i)
    works[i] = 1000 + i;  // Distinct, so that the records kept are decided by work alone.
  std::shuffle(works.begin(), works.end(), std::mt19937_64(41));
  std::map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::uint32_t>>> by_bucket;
  const std::uint64_t hash = proof_rules_hash(kalah6());
  for (std::uint32_t i = 0; i < kCount; ++i) {
    const ProofStoreResult result = o.store->store(record_of(i, works[i]));
    ASSERT_NE(result, ProofStoreResult::kUnavailable);
    by_bucket[proof_bucket(hash, position_of(i), kBuckets)].emplace_back(works[i], i);
    if (i % 500 == 0) {
      EXPECT_EQ(fs::file_size(file), capacity_of(kBuckets));
    }
  }
  EXPECT_EQ(fs::file_size(file), capacity_of(kBuckets));
  ASSERT_EQ(by_bucket.size(), kBuckets);
  std::uint64_t found = 0;
  for (auto& [bucket, entries] : by_bucket) {
    std::sort(entries.rbegin(), entries.rend());
    ASSERT_GE(entries.size(), ProofStore::kBucketRecords);
    for (std::size_t k = 0; k < entries.size(); ++k) {
      const auto got = o.store->lookup(position_of(entries[k].second));
      EXPECT_EQ(got.has_value(), k < ProofStore::kBucketRecords)
          << "bucket " << bucket << " rank " << k << " work " << entries[k].first;
      if (got) {
        EXPECT_EQ(got->work, entries[k].first);
        ++found;
      }
    }
  }
  EXPECT_EQ(found, o.store->capacity_records());
  EXPECT_GT(o.store->stats().dropped, 0U);
  const ProofStoreCensus census = o.store->census();
  EXPECT_EQ(census.records, o.store->capacity_records());
  EXPECT_EQ(census.exact, 0U);
  EXPECT_EQ(census.damaged + census.empty, 0U);
}

TEST(ProofStore, ADamagedOrTornRecordIsNeverReturned) {
  TempDir dir("proofs");
  const fs::path file = dir / "k.sowproof";
  const ProofRecord a = record_of(1, 10);
  const ProofRecord b = record_of(2, 20);
  {
    Opened o = open_store(file, kalah6(), capacity_of(1));  // One bucket: a in slot 0, b in 1.
    ASSERT_EQ(o.store->store(a), ProofStoreResult::kAdded);
    ASSERT_EQ(o.store->store(b), ProofStoreResult::kAdded);
  }
  const std::vector<char> good = read_file(file);
  const std::size_t slot0 = ProofStore::kHeaderBytes;
  const std::size_t slot1 = slot0 + ProofStore::kRecordBytes;
  ASSERT_EQ(std::memcmp(&good[slot0], a.position.data(), kMaxPits), 0);
  for (std::size_t i = 0; i < ProofStore::kRecordBytes; ++i) {
    std::vector<char> bad = good;
    bad[slot0 + i] = static_cast<char>(bad[slot0 + i] ^ 0x21);
    write_file(file, bad);
    Opened o = open_store(file, kalah6(), capacity_of(1));
    ASSERT_TRUE(o.saw(ProofStoreEvent::Kind::kOpened)) << "byte " << i;
    EXPECT_FALSE(o.store->lookup(a.position)) << "byte " << i;
    EXPECT_TRUE(o.store->lookup(b.position)) << "byte " << i;
    EXPECT_EQ(o.store->stats().damaged, i < kMaxPits ? 0U : 1U) << "byte " << i;
  }
  // Torn: a's first half with b's second half, as two writers could leave it.
  std::vector<char> torn = good;
  std::memcpy(&torn[slot0 + 32], &good[slot1 + 32], 32);
  write_file(file, torn);
  Opened o = open_store(file, kalah6(), capacity_of(1));
  EXPECT_FALSE(o.store->lookup(a.position));
  EXPECT_EQ(o.store->stats().damaged, 1U);
  const ProofStoreCensus census = o.store->census();
  EXPECT_EQ(census.records, 1U);
  EXPECT_EQ(census.damaged, 1U);
  EXPECT_EQ(census.empty, 2U);
  // The damaged slot is free again.
  EXPECT_EQ(o.store->store(a), ProofStoreResult::kAdded);
  ASSERT_TRUE(o.store->lookup(a.position));
  EXPECT_EQ(unstamped(*o.store->lookup(a.position)), a);
}

TEST(ProofStore, ADamagedHeaderIsSetAsideAndRebuilt) {
  TempDir dir("proofs");
  const fs::path file = dir / "k.sowproof";
  const ProofRecord r = record_of(3, 30);
  {
    Opened o = open_store(file, kalah6(), capacity_of(16));
    ASSERT_EQ(o.store->store(r), ProofStoreResult::kAdded);
  }
  const std::vector<char> good = read_file(file);
  for (const std::size_t at : {0, 9, 25, 41, 60, 2000, 4090}) {
    std::vector<char> bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x01);
    write_file(file, bad);
    Opened o = open_store(file, kalah6(), capacity_of(32));
    ASSERT_TRUE(o.saw(ProofStoreEvent::Kind::kSetAside)) << "byte " << at;
    ASSERT_TRUE(o.saw(ProofStoreEvent::Kind::kCreated)) << "byte " << at;
    EXPECT_EQ(o.events.front().set_aside_as, fs::path(file.string() + ".bad"));
    EXPECT_FALSE(o.events.front().reason.empty());
    EXPECT_EQ(read_file(file.string() + ".bad"), bad);
    EXPECT_TRUE(o.store->writable());
    EXPECT_EQ(o.store->capacity_bytes(), capacity_of(32));
    EXPECT_EQ(fs::file_size(file), capacity_of(32));
    EXPECT_FALSE(o.store->lookup(r.position));
    EXPECT_EQ(o.store->store(r), ProofStoreResult::kAdded);
    EXPECT_TRUE(o.store->lookup(r.position));
  }
  write_file(file, good);  // The check above fails for the damage only.
  EXPECT_TRUE(open_store(file, kalah6(), capacity_of(16)).store->lookup(r.position));
}

// Writes `value` little-endian at `at` and the header's checksum again, as a writer of another
// version would.
void patch_header(std::vector<char>& bytes, std::size_t at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
  const std::uint64_t sum = xxh64(std::as_bytes(std::span(bytes.data(), 4088)));
  for (int i = 0; i < 8; ++i)
    bytes[4088 + i] = static_cast<char>((sum >> (8 * i)) & 0xff);
}

TEST(ProofStore, AFileOfOtherRulesVersionOrSizeIsSetAside) {
  TempDir dir("proofs");
  const fs::path file = dir / "x.sowproof";
  {
    Opened o = open_store(file, kalah6(), capacity_of(4));
    ASSERT_EQ(o.store->store(record_of(1, 1)), ProofStoreResult::kAdded);
  }
  const std::vector<char> kalah_file = read_file(file);
  Opened oware = open_store(file, oware6(), capacity_of(4));
  ASSERT_TRUE(oware.saw(ProofStoreEvent::Kind::kSetAside));
  EXPECT_NE(oware.events.front().reason.find("other rules"), std::string::npos)
      << oware.events.front().reason;
  EXPECT_FALSE(oware.store->lookup(position_of(1)));
  oware.store.reset();

  std::vector<char> v2 = kalah_file;
  patch_header(v2, 8, 2);
  write_file(file, v2);
  Opened o = open_store(file, kalah6(), capacity_of(4));
  ASSERT_TRUE(o.saw(ProofStoreEvent::Kind::kSetAside));
  EXPECT_NE(o.events.front().reason.find("format version 2"), std::string::npos)
      << o.events.front().reason;
  EXPECT_FALSE(o.store->lookup(position_of(1)));
  o.store.reset();

  std::vector<char> shorter(kalah_file.begin(), kalah_file.end() - kBucketBytes);
  write_file(file, shorter);
  o = open_store(file, kalah6(), capacity_of(4));
  ASSERT_TRUE(o.saw(ProofStoreEvent::Kind::kSetAside));
  EXPECT_FALSE(o.store->lookup(position_of(1)));
  o.store.reset();

  write_file(file, std::vector<char>{'n', 'o', 't'});
  o = open_store(file, kalah6(), capacity_of(4));
  ASSERT_TRUE(o.saw(ProofStoreEvent::Kind::kSetAside));
  EXPECT_TRUE(o.store->writable());
  o.store.reset();

  write_file(file, kalah_file);  // Undamaged, the same file is believed.
  o = open_store(file, kalah6(), capacity_of(4));
  EXPECT_TRUE(o.saw(ProofStoreEvent::Kind::kOpened));
  EXPECT_TRUE(o.store->lookup(position_of(1)));
}

// Little-endian fields of `bytes`, read as docs/PROOF_STORE.md lays them out.
std::uint64_t le(const std::vector<char>& bytes, std::size_t at, int size) {
  std::uint64_t v = 0;
  for (int i = 0; i < size; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

// The file's bytes read by this test alone from the spec's tables, not by the library.
TEST(ProofStore, TheFileIsTheOneTheSpecDescribes) {
  TempDir dir("proofs");
  const fs::path file = dir / "k.sowproof";
  constexpr std::uint64_t kBuckets = 5;
  ProofRecord r = record_of(9, 0x0102030405060708ULL);
  r.best_pit = -1;
  r.moves[5] = ProofBounds{-128, 127};
  {
    Opened o = open_store(file, kalah6(), capacity_of(kBuckets));
    ASSERT_EQ(o.store->store(r), ProofStoreResult::kAdded);
  }
  const std::vector<char> f = read_file(file);
  ASSERT_EQ(f.size(), 4096 + 256 * kBuckets);
  const std::string rules = describe(kalah6());
  EXPECT_EQ(std::string(f.data(), 8), "SOWPROOF");
  EXPECT_EQ(le(f, 8, 4), 1U);
  EXPECT_EQ(le(f, 12, 4), 4096U);
  EXPECT_EQ(le(f, 16, 4), 64U);
  EXPECT_EQ(le(f, 20, 4), 4U);
  EXPECT_EQ(le(f, 24, 8), kBuckets);
  EXPECT_EQ(le(f, 32, 8), f.size());
  const std::uint64_t rules_hash = xxh64(std::as_bytes(std::span(rules.data(), rules.size())));
  EXPECT_EQ(le(f, 40, 8), rules_hash);
  EXPECT_EQ(rules_hash, proof_rules_hash(kalah6()));
  EXPECT_EQ(le(f, 48, 4), rules.size());
  EXPECT_EQ(le(f, 52, 4), 0U);
  EXPECT_EQ(std::string(&f[56], rules.size()), rules);
  EXPECT_TRUE(std::all_of(&f[56 + rules.size()], &f[4088], [](char c) { return c == 0; }));
  EXPECT_EQ(le(f, 4088, 8), xxh64(std::as_bytes(std::span(f.data(), 4088))));

  // The bucket: the high half of XXH64(position, rules_hash) times the bucket count.
  __extension__ using Wide = unsigned __int128;
  const std::uint64_t h = xxh64(std::as_bytes(std::span(r.position)), rules_hash);
  const auto bucket = static_cast<std::uint64_t>((Wide{h} * kBuckets) >> 64);
  EXPECT_EQ(proof_bucket(rules_hash, r.position, kBuckets), bucket);
  for (std::uint64_t b = 0; b < kBuckets; ++b) {
    const bool ours = b == bucket;
    const std::size_t at = 4096 + 256 * b;
    EXPECT_EQ(std::all_of(&f[at], &f[at + 256], [](char c) { return c == 0; }), !ours) << b;
  }
  const std::size_t at = 4096 + 256 * bucket;  // Slot 0 of its bucket.
  EXPECT_EQ(std::memcmp(&f[at], r.position.data(), 16), 0);
  EXPECT_EQ(le(f, at + 16, 8), r.work);
  EXPECT_NE(le(f, at + 24, 4), 0U);  // The stamp.
  EXPECT_EQ(static_cast<std::int8_t>(f[at + 28]), -3);
  EXPECT_EQ(static_cast<std::int8_t>(f[at + 29]), 5);
  EXPECT_EQ(le(f, at + 30, 1), 255U);       // No best pit.
  EXPECT_EQ(le(f, at + 31, 1), 0b100101U);  // Pits 0, 2 and 5.
  const std::int8_t moves[16] = {-10, -2, 0, 0, 5, 5, 0, 0, 0, 0, -128, 127, 0, 0, 0, 0};
  EXPECT_EQ(std::memcmp(&f[at + 32], moves, 16), 0);
  EXPECT_EQ(le(f, at + 48, 8), 0U);
  EXPECT_EQ(le(f, at + 56, 8), xxh64(std::as_bytes(std::span(&f[at], 56)), rules_hash));
}

// What every writer of the hammering tests writes for key `k`: bounds that always contain
// truth(k), per move too, tighter or looser at random, so that every merge of them does, while a
// record mixed from two keys almost never would.
int truth(std::uint32_t k) {
  return static_cast<int>(k % 61) - 30;
}
int move_truth(std::uint32_t k, int pit) {
  return static_cast<int>((k * 7 + pit * 13) % 41) - 20;
}

ProofRecord hammer_record(std::uint32_t k, std::mt19937& rng) {
  std::uniform_int_distribution<int> slack(0, 4);
  ProofRecord r;
  r.position = position_of(k);
  r.value = {static_cast<std::int8_t>(truth(k) - slack(rng)),
             static_cast<std::int8_t>(truth(k) + slack(rng))};
  r.best_pit = static_cast<int>(k % 6);
  for (int pit = 0; pit < 6; ++pit) {
    r.moves[pit] = ProofBounds{static_cast<std::int8_t>(move_truth(k, pit) - slack(rng)),
                               static_cast<std::int8_t>(move_truth(k, pit) + slack(rng))};
  }
  r.work =
      std::uint64_t{k} * 1000000 + std::uniform_int_distribution<std::uint64_t>(0, 999999)(rng);
  return r;
}

// Empty when `r`, found for key k, is what writers of k wrote (merged); else what is wrong.
std::string check_hammered(std::uint32_t k, const ProofRecord& r) {
  const auto within = [](const ProofBounds& b, int t) {
    return b.lower <= t && t <= b.upper && b.lower >= t - 4 && b.upper <= t + 4;
  };
  if (r.position != position_of(k))
    return "another position";
  if (!within(r.value, truth(k)))
    return "value bounds";
  if (r.best_pit != static_cast<int>(k % 6) || r.work / 1000000 != k)
    return "best pit or work";
  for (int pit = 0; pit < kMaxPitsPerSide; ++pit) {
    if (pit < 6 ? !r.moves[pit] || !within(*r.moves[pit], move_truth(k, pit)) : !!r.moves[pit])
      return "move " + std::to_string(pit);
  }
  return {};
}

constexpr std::uint32_t kHammerKeys = 300;
constexpr std::uint64_t kHammerBuckets = 32;  // 128 records for 300 keys: replacement too.

// Stores and looks up `rounds` times; the number of faults (a wrong record, a refused store).
int hammer(ProofStore& store, unsigned seed, int rounds) {
  std::mt19937 rng(seed);
  int faults = 0;
  for (int i = 0; i < rounds; ++i) {
    const auto k = static_cast<std::uint32_t>(rng() % kHammerKeys);
    const ProofStoreResult result = store.store(hammer_record(k, rng));
    faults += result == ProofStoreResult::kUnavailable || result == ProofStoreResult::kInvalid ||
              result == ProofStoreResult::kConflict;
    const auto q = static_cast<std::uint32_t>(rng() % kHammerKeys);
    if (const auto got = store.lookup(position_of(q)))
      faults += !check_hammered(q, *got).empty();
  }
  return faults;
}

// Every key of the file holds what its writers wrote; returns how many keys are found.
int check_every_key(ProofStore& store) {
  int found = 0;
  for (std::uint32_t k = 0; k < kHammerKeys; ++k) {
    if (const auto got = store.lookup(position_of(k))) {
      ++found;
      EXPECT_EQ(check_hammered(k, *got), "") << "key " << k;
    }
  }
  return found;
}

TEST(ProofStore, TwoProcessesAtOnceNeverLeaveAWrongRecord) {
  TempDir dir("proofs");
  const fs::path file = dir / "proofs" / "k.sowproof";  // Both processes create it.
  std::vector<pid_t> children;
  for (unsigned w = 0; w < 2; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ProofStoreOptions options;
      options.capacity_bytes = capacity_of(kHammerBuckets);
      ProofStore store(file, kalah6(), options);
      if (!store.writable())
        ::_exit(100);
      const int faults = hammer(store, 1000 + w, 20000);
      ::_exit(faults == 0 ? 0 : std::min(faults, 99));
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "faults (100: could not open)";
  }
  Opened o = open_store(file, kalah6(), capacity_of(kHammerBuckets));
  ASSERT_TRUE(o.saw(ProofStoreEvent::Kind::kOpened));
  EXPECT_EQ(fs::file_size(file), capacity_of(kHammerBuckets));
  EXPECT_GT(check_every_key(*o.store), 64);
  EXPECT_FALSE(fs::exists(file.string() + ".bad"));
}

// Writes torn and damaged records over random slots of `file`, `rounds` times, as crashes and a
// broken writer would: a record cut at a random byte and finished with another's bytes, or one
// with a byte flipped. 0 when done; else the step that failed.
int vandalise(const fs::path& file, unsigned seed, int rounds) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return 100;
  std::mt19937 rng(seed);
  const auto slot = [&] {
    return static_cast<off_t>(4096 + 64 * (rng() % (kHammerBuckets * ProofStore::kBucketRecords)));
  };
  for (int i = 0; i < rounds; ++i) {
    char a[64];
    char b[64];
    if (::pread(fd, a, 64, slot()) != 64 || ::pread(fd, b, 64, slot()) != 64)
      return 101;
    if (rng() % 2 == 0) {
      const std::size_t cut = 1 + rng() % 63;
      std::memcpy(a + cut, b + cut, 64 - cut);
    } else {
      a[rng() % 64] ^= static_cast<char>(1 + rng() % 255);
    }
    if (::pwrite(fd, a, 64, slot()) != 64)
      return 102;
  }
  ::close(fd);
  return 0;
}

TEST(ProofStore, TornAndDamagedWritesFromAnotherProcessAreNeverRead) {
  TempDir dir("proofs");
  const fs::path file = dir / "k.sowproof";
  ASSERT_TRUE(open_store(file, kalah6(), capacity_of(kHammerBuckets)).store->writable());
  std::vector<pid_t> children;
  for (int w = 0; w < 2; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0 && w == 0) {
      ProofStore store(file, kalah6());
      ::_exit(store.writable() ? std::min(hammer(store, 77, 20000), 99) : 100);
    }
    if (pid == 0)
      ::_exit(vandalise(file, 78, 20000));
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "faults (100 and up: could not open, read or write)";
  }
  Opened o = open_store(file, kalah6(), capacity_of(kHammerBuckets));
  ASSERT_TRUE(o.saw(ProofStoreEvent::Kind::kOpened));
  EXPECT_GT(check_every_key(*o.store), 0);
  const ProofStoreCensus census = o.store->census();
  EXPECT_EQ(census.records + census.damaged + census.empty, o.store->capacity_records());
}

TEST(ProofStore, ThreadsOfOneProcessShareAStore) {
  TempDir dir("proofs");
  Opened o = open_store(dir / "k.sowproof", kalah6(), capacity_of(kHammerBuckets));
  std::vector<int> faults(4, 0);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < faults.size(); ++t)
    threads.emplace_back([&, t] { faults[t] = hammer(*o.store, 7 + t, 5000); });
  for (std::thread& t : threads)
    t.join();
  for (const int f : faults)
    EXPECT_EQ(f, 0);
  EXPECT_GT(check_every_key(*o.store), 64);
  EXPECT_EQ(o.store->stats().conflicts, 0U);
}

TEST(ProofStore, AnUnwritableDirectoryAnswersNothingAndKeepsNothing) {
  TempDir dir("proofs");
  write_file(dir / "plain", {'x'});  // A file where the directory should be.
  const fs::path file = dir / "plain" / "proofs" / "k.sowproof";
  Opened o = open_store(file, kalah6(), capacity_of(4));
  EXPECT_TRUE(o.saw(ProofStoreEvent::Kind::kUnusable));
  EXPECT_FALSE(o.store->readable());
  EXPECT_FALSE(o.store->writable());
  ASSERT_TRUE(o.store->failure());
  EXPECT_EQ(o.store->failure()->kind, RefusalKind::kIoFailure);
  EXPECT_NE(o.store->failure()->message.find((dir / "plain").string()), std::string::npos)
      << o.store->failure()->message;
  EXPECT_EQ(o.store->store(record_of(1, 1)), ProofStoreResult::kUnavailable);
  EXPECT_FALSE(o.store->lookup(position_of(1)));
  EXPECT_EQ(o.store->capacity_bytes(), 0U);
}

TEST(ProofStore, AReadOnlyFileAnswersButKeepsNothing) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root writes to a read-only file";
  TempDir dir("proofs");
  const fs::path file = dir / "k.sowproof";
  {
    Opened o = open_store(file, kalah6(), capacity_of(4));
    ASSERT_EQ(o.store->store(record_of(1, 1)), ProofStoreResult::kAdded);
  }
  fs::permissions(file, fs::perms::owner_read);
  Opened o = open_store(file, kalah6(), capacity_of(4));
  EXPECT_TRUE(o.saw(ProofStoreEvent::Kind::kReadOnly));
  EXPECT_TRUE(o.store->lookup(position_of(1)));
  EXPECT_EQ(o.store->store(record_of(2, 1)), ProofStoreResult::kUnavailable);
  ASSERT_TRUE(o.store->failure());
  EXPECT_EQ(o.store->failure()->kind, RefusalKind::kIoFailure);
}

// Runs `body` in a child process whose files may not grow past `limit` bytes (as a full disk
// would refuse them); returns its exit status.
template <typename Body>
int with_file_limit(rlim_t limit, Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit rl{limit, limit};
    if (::setrlimit(RLIMIT_FSIZE, &rl) != 0)
      ::_exit(100);
    ::_exit(body());
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
    return -1;
  return WEXITSTATUS(status);
}

TEST(ProofStore, AFullDiskDegradesToNothing) {
  TempDir dir("proofs");
  const fs::path file = dir / "k.sowproof";
  // Creating it fails: the file cannot take its size.
  EXPECT_EQ(with_file_limit(8192,
                            [&] {
                              ProofStoreOptions options;
                              options.capacity_bytes = capacity_of(64);
                              ProofStore store(file, kalah6(), options);
                              const auto f = store.failure();
                              return !store.readable() && f && f->kind == RefusalKind::kIoFailure &&
                                             store.store(record_of(1, 1)) ==
                                                 ProofStoreResult::kUnavailable
                                         ? 0
                                         : 1;
                            }),
            0);
  EXPECT_FALSE(fs::exists(file));
  // Writing fails once a record falls past the limit: the store stops answering.
  { open_store(file, kalah6(), capacity_of(64)); }
  EXPECT_EQ(with_file_limit(
                8192,
                [&] {
                  ProofStoreOptions options;
                  ProofStore store(file, kalah6(), options);
                  if (!store.writable())
                    return 2;
                  std::uint32_t n = 0;
                  while (n < 1000 && store.store(record_of(n, 1)) != ProofStoreResult::kUnavailable)
                    ++n;
                  const auto f = store.failure();
                  return n < 1000 && !store.readable() && !store.writable() && f &&
                                 f->kind == RefusalKind::kIoFailure && !store.lookup(position_of(0))
                             ? 0
                             : 1;
                }),
            0);
  EXPECT_EQ(fs::file_size(file), capacity_of(64));
}

}  // namespace
}  // namespace sowdb
