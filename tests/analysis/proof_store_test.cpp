// The proof store (analysis/include/sowdb/analysis/proof_store.h) against docs/PROOF_STORE.md,
// one process at a time: round trip, merging, the bound in bytes and the replacement, damaged
// records and headers, files of other rules or versions, the bytes as the spec lays them out.
// Processes and threads at once, and a store that cannot write: proof_store_concurrency_test.cpp.
#include "sowdb/analysis/proof_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "proof_store_test_util.h"
#include "sowdb/analysis/start_solve.h"
#include "sowdb/format/xxhash64.h"
#include "sowdb/probe/manifest.h"
#include "test_support.h"

namespace sowdb {
namespace {

using namespace proof_test;
using test::TempDir;

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

TEST(ProofStore, AResizeCarriesTheRecordsOverTheCostlierWhenFewerFit) {
  TempDir dir("proofs");
  const fs::path file = dir / "k.sowproof";
  { open_store(file, kalah6(), capacity_of(16)); }
  {
    Opened o = open_store(file, kalah6(), capacity_of(16));
    for (std::uint32_t i = 0; i < 20; ++i)
      ASSERT_EQ(o.store->store(record_of(i, 100 + i)), ProofStoreResult::kAdded);
  }
  ProofStoreOptions grow;
  grow.capacity_bytes = capacity_of(64);
  grow.resize = true;
  std::vector<ProofStoreEvent> events;
  grow.on_event = [&](const ProofStoreEvent& e) { events.push_back(e); };
  {
    ProofStore store(file, kalah6(), grow);
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].kind, ProofStoreEvent::Kind::kResized);
    EXPECT_NE(events[0].reason.find("20 records"), std::string::npos) << events[0].reason;
    EXPECT_EQ(store.capacity_bytes(), capacity_of(64));
    EXPECT_EQ(fs::file_size(file), capacity_of(64));
    for (std::uint32_t i = 0; i < 20; ++i) {
      const auto got = store.lookup(position_of(i));
      ASSERT_TRUE(got) << i;
      EXPECT_EQ(unstamped(*got), record_of(i, 100 + i));
    }
    EXPECT_EQ(store.store(record_of(99, 1)), ProofStoreResult::kAdded);
    EXPECT_TRUE(store.lookup(position_of(99)));
  }
  // Without resize, the size stays.
  EXPECT_EQ(open_store(file, kalah6(), capacity_of(1)).store->capacity_bytes(), capacity_of(64));
  // Shrunk to one bucket: the four costliest remain.
  ProofStoreOptions shrink;
  shrink.capacity_bytes = capacity_of(1);
  shrink.resize = true;
  ProofStore store(file, kalah6(), shrink);
  EXPECT_EQ(fs::file_size(file), capacity_of(1));
  for (std::uint32_t i = 0; i < 20; ++i)
    EXPECT_EQ(store.lookup(position_of(i)).has_value(), i >= 16) << i;
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

TEST(ProofStore, BoundsClampSoundlyAndTheEndsAreOpen) {
  EXPECT_EQ(ProofBounds::of(-3, 5), (ProofBounds{-3, 5}));
  EXPECT_EQ(ProofBounds::of(-200, 130), (ProofBounds{-128, 127}));
  EXPECT_EQ(ProofBounds::of(130, 140), (ProofBounds{127, 127}));  // At least 127.
  EXPECT_TRUE(ProofBounds::of(126, 126).exact());
  EXPECT_TRUE(ProofBounds::of(-127, -127).exact());
  EXPECT_FALSE(ProofBounds::of(130, 130).exact());
  EXPECT_FALSE(ProofBounds::of(-130, -130).exact());
  EXPECT_FALSE(ProofBounds{}.exact());
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
    EXPECT_NE(o.events.front().reason.find(file.string() + ": "), std::string::npos)
        << o.events.front().reason;
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
    // Pointers, not &f[...]: the last bucket ends at f.size(), past the last index.
    const char* bucket_bytes = f.data() + at;
    EXPECT_EQ(std::all_of(bucket_bytes, bucket_bytes + 256, [](char c) { return c == 0; }), !ours)
        << b;
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

}  // namespace
}  // namespace sowdb
