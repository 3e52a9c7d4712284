// The proof store (analysis/include/sowdb/analysis/proof_store.h) shared: two processes writing
// one file at once, another process tearing and damaging its records, threads of one process,
// and what a store does when the system refuses it (no directory, a read-only file, a full disk).
// docs/PROOF_STORE.md, "Concurrency" and "Opening".
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "proof_store_test_util.h"
#include "sowdb/analysis/proof_store.h"
#include "test_support.h"

namespace sowdb {
namespace {

using namespace proof_test;
using test::TempDir;

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
// `hits`, when given, counts the lookups that found a record.
int hammer(ProofStore& store, unsigned seed, int rounds, int* hits = nullptr) {
  std::mt19937 rng(seed);
  int faults = 0;
  for (int i = 0; i < rounds; ++i) {
    const auto k = static_cast<std::uint32_t>(rng() % kHammerKeys);
    const ProofStoreResult result = store.store(hammer_record(k, rng));
    faults += result == ProofStoreResult::kUnavailable || result == ProofStoreResult::kInvalid ||
              result == ProofStoreResult::kConflict;
    // The key just stored (found unless another writer got there first) and one at random.
    for (const auto q : {k, static_cast<std::uint32_t>(rng() % kHammerKeys)}) {
      if (const auto got = store.lookup(position_of(q))) {
        faults += !check_hammered(q, *got).empty();
        if (hits)
          ++*hits;
      }
    }
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
      int hits = 0;
      const int faults = store.writable() ? std::min(hammer(store, 77, 20000, &hits), 99) : 100;
      std::ofstream(dir / "hits") << hits;
      ::_exit(faults);
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
  // The writer found records while the file was being damaged (so the checks above saw some):
  // the vandal spoils one slot of 128 a round, so that a record is found right after it is
  // stored at least once in 20000 rounds is all but certain.
  int hits = 0;
  std::ifstream(dir / "hits") >> hits;
  EXPECT_GT(hits, 0);
  // What is left is right (the vandal may outlast the writer and spoil all of it: no count).
  Opened o = open_store(file, kalah6(), capacity_of(kHammerBuckets));
  ASSERT_TRUE(o.saw(ProofStoreEvent::Kind::kOpened));
  check_every_key(*o.store);
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
  ASSERT_TRUE(o.saw(ProofStoreEvent::Kind::kUnusable));
  EXPECT_EQ(o.events.back().reason, o.store->failure()->message);
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
