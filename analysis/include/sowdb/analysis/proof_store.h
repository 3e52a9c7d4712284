// The proof store: positions proved by search, kept on disk so that a position proved once
// answers at once, in every front end (docs/PROOF_STORE.md is its normative file format).
//
// One file per rule set, of a fixed size chosen when it is created: a header and an
// open-addressing table of 64-byte records, each with its own checksum, so that a torn, damaged
// or half-written record is simply not found. A file whose header fails a check is set aside and
// a fresh one created, as solve's table cache repairs a damaged layer. Several processes may use
// one file at once without a lock: a record is believed only when its checksum holds, and every
// record a writer writes is whole and sound by itself. The store never throws for a failure of
// the system: an unwritable directory or a full disk makes it answer nothing and keep nothing,
// with the reason at hand (ProofStore::failure).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "sowdb/analysis/refusal.h"
#include "sowdb/format/rule_set.h"
#include "sowdb/probe/rules.h"

namespace sowdb {

/// The format version this library reads and writes (docs/PROOF_STORE.md, "Version").
inline constexpr std::uint32_t kProofStoreVersion = 1;

/// The default size of one rule set's file: 256 MiB, 4,194,240 records. WHY: about four million
/// proved positions, each the root of a search of thousands to millions of positions, at less
/// than half of what solve reads of its default table cache for a 6-pit game (548 MB, see
/// kStartCachePositions); the file is sparse and takes on disk only what has been written. Not
/// measured against a book yet: `sowdb book` should quote how much of it a book fills
/// (ProofStore::census).
inline constexpr std::uint64_t kProofStoreDefaultBytes = std::uint64_t{256} << 20;

/// The smallest capacity a store can have: its header and one bucket (4,352 bytes).
inline constexpr std::uint64_t kProofStoreMinBytes = 4096 + 4 * 64;

/// Proved bounds on a value, in seeds for the player to move: lower <= true value <= upper.
/// -128 as a lower bound and 127 as an upper bound are open ends (nothing proved that way), so a
/// value of -128 or 127 is never exact here; of() clamps wider bounds soundly.
struct ProofBounds {
  std::int8_t lower = -128;  ///< -128: no lower bound proved.
  std::int8_t upper = 127;   ///< 127: no upper bound proved.

  /// The bounds [lower, upper] (lower <= upper) clamped to -128..127: a bound beyond an end
  /// becomes that end (a lower bound of 130 reads "at least 127", an upper bound of 130 "none").
  static ProofBounds of(int lower, int upper) {
    const auto clamp = [](int v) {
      return static_cast<std::int8_t>(v < -128 ? -128 : v > 127 ? 127 : v);
    };
    return ProofBounds{clamp(lower), clamp(upper)};
  }
  /// Whether the bounds prove one value (neither of them an open end).
  bool exact() const { return lower == upper && lower != -128 && upper != 127; }
  bool operator==(const ProofBounds&) const = default;
};

/// What the store holds for one position: facts of the game, independent of the tables or the
/// search that proved them.
struct ProofRecord {
  /// The board, mover's pits first (pits 2P and beyond are 0): the key.
  Pits position{};
  /// Bounds on the position's value for the player to move (the seeds they gain from here on
  /// minus the opponent's, as the tables' values).
  ProofBounds value;
  /// The mover's pit (0..P-1) of a move proved best; -1: none proved.
  int best_pit = -1;
  /// Bounds on each of the mover's pits' worth (the gain of the move plus or minus its child's
  /// value, as Rules::worth); nullopt where nothing is known (or the pit is no legal move).
  std::array<std::optional<ProofBounds>, kMaxPitsPerSide> moves{};
  /// The work spent on the proof (positions searched): the store keeps the costlier proofs.
  std::uint64_t work = 0;
  /// Seconds since 1970 (UTC, modulo 2^32) when the record was last written; set by the store,
  /// ignored on the way in. Breaks ties of work in favour of the newer record.
  std::uint32_t stamp = 0;

  bool operator==(const ProofRecord&) const = default;
};

/// What ProofStore::store did with a record.
enum class ProofStoreResult : std::uint8_t {
  kAdded,        ///< Written into a free (or damaged) slot.
  kMerged,       ///< Merged into the record of the same position: bounds intersected.
  kConflict,     ///< The bounds did not intersect (a bug signal): the newer record replaced the
                 ///< stored one and ProofStoreStats::conflicts counts it.
  kReplaced,     ///< Written over the cheapest record of its bucket (a different position).
  kDropped,      ///< Not kept: every record of its bucket is a costlier proof.
  kInvalid,      ///< Not kept: not a record (a pit past the board, bounds with lower > upper, a
                 ///< best pit or a move past the mover's pits).
  kUnavailable,  ///< Not kept: the store is unusable or read-only (ProofStore::failure).
};

/// The stable name of a result ("added", "merged", ...). Never null. Thread safe.
const char* to_string(ProofStoreResult result) noexcept;

/// Counts since the store was opened (this process only).
struct ProofStoreStats {
  std::uint64_t lookups = 0;    ///< Calls of lookup.
  std::uint64_t hits = 0;       ///< Lookups that found the position.
  std::uint64_t stores = 0;     ///< Calls of store.
  std::uint64_t kept = 0;       ///< Stores that wrote (added, merged, conflict, replaced).
  std::uint64_t dropped = 0;    ///< Stores dropped for costlier proofs.
  std::uint64_t conflicts = 0;  ///< Stores whose bounds contradicted the stored ones.
  std::uint64_t damaged = 0;    ///< Records of the position asked that failed their checksum.
};

/// What the file holds, record by record (ProofStore::census).
struct ProofStoreCensus {
  std::uint64_t records = 0;  ///< Valid records (a position stored twice counts twice).
  std::uint64_t exact = 0;    ///< Of them, those whose value is proved exact.
  std::uint64_t damaged = 0;  ///< Slots that are neither empty nor valid.
  std::uint64_t empty = 0;    ///< Free slots.
};

/// What happened to the file when a store was opened, for ProofStoreOptions::on_event.
struct ProofStoreEvent {
  enum class Kind : std::uint8_t {
    kOpened,    ///< An existing file of the rule set was opened.
    kCreated,   ///< A fresh file was created (none was there).
    kSetAside,  ///< A file failed a check (`reason`) and was renamed to `set_aside_as`; a fresh
                ///< one replaces it.
    kReadOnly,  ///< The file can only be read (`reason`): lookups answer, stores keep nothing.
    kUnusable,  ///< The store answers nothing and keeps nothing (`reason`, see failure()).
    kResized,   ///< ProofStoreOptions::resize: the file was rebuilt at the size asked, its
                ///< records carried over (`reason` says from and to what size, how many).
  };
  Kind kind = Kind::kOpened;
  std::filesystem::path path;  ///< The store's file.
  /// Why, one line naming the file; empty for kOpened and kCreated (but for a resize that
  /// failed: kOpened then says why the file kept its size).
  std::string reason;
  std::filesystem::path set_aside_as;  ///< kSetAside: where the bad file went.
};

/// How a store is opened.
struct ProofStoreOptions {
  /// The file's size in bytes when it is created (rounded down to whole buckets; at least
  /// kProofStoreMinBytes). An existing valid file keeps the size it was created with, unless
  /// `resize`.
  std::uint64_t capacity_bytes = kProofStoreDefaultBytes;
  /// Rebuild an existing file of another size at `capacity_bytes`, carrying its records over
  /// (the costlier ones where fewer fit). Processes that have the old file open keep using it,
  /// and what they store then is lost; so only a caller that asked for a size (a flag) sets it,
  /// never a default. When the rebuild fails the old file is used as it is (kOpened).
  bool resize = false;
  /// Told what happened to the file while opening (from the opening thread). May be empty.
  std::function<void(const ProofStoreEvent&)> on_event;
};

/// The store's file of `rules` under the cache root `root` (start_cache_root()):
/// ROOT/proofs/NAME.sowproof, NAME as start_cache_dir names the rule set's table directory.
/// Empty when `root` is (no cache: a ProofStore of an empty path is unusable). Thread safe.
std::filesystem::path proof_store_path(const std::filesystem::path& root, const RuleSet& rules);

/// XXH64 of describe(rules.normalised()): the rule set's hash in the header and the seed of every
/// record's checksum. Thread safe.
std::uint64_t proof_rules_hash(const RuleSet& rules);

/// The bucket of `position` in a table of `buckets` buckets (docs/PROOF_STORE.md, "Hashing").
/// `buckets` must be at least 1. Thread safe.
std::uint64_t proof_bucket(std::uint64_t rules_hash, const Pits& position, std::uint64_t buckets);

/// One rule set's proof store. Every member is thread safe; any number of processes may open the
/// same file at once.
class ProofStore {
 public:
  /// Opens `file` for `rules` (creating its directory and the file when missing; setting aside
  /// and replacing a file that fails a check of its header, size, version or rules), usually
  /// proof_store_path(start_cache_root(), rules). Never throws but std::bad_alloc: a failure
  /// (an empty path too) makes the store unusable (failure() says why).
  ProofStore(std::filesystem::path file,
             const RuleSet& rules,
             const ProofStoreOptions& options = {});
  ~ProofStore();
  ProofStore(const ProofStore&) = delete;
  ProofStore& operator=(const ProofStore&) = delete;

  /// What the store holds for `position` (every valid record of it in its bucket, merged), or
  /// nullopt: not stored, damaged, or the store is unusable.
  std::optional<ProofRecord> lookup(const Pits& position);

  /// Merges `record` into the store (docs/PROOF_STORE.md, "Replacement"): bounds are intersected
  /// with what is stored for the position, else it takes a free slot of its bucket or the
  /// cheapest record's (least work, then oldest), unless that one cost more. A write that fails
  /// makes the store unusable (failure()); never throws but std::bad_alloc.
  ProofStoreResult store(const ProofRecord& record);

  /// Whether lookups may answer (the file is open and its header was valid).
  bool readable() const { return readable_.load(); }
  /// Whether stores may keep records.
  bool writable() const { return writable_.load(); }
  /// Why the store answers nothing or keeps nothing (a kIoFailure refusal naming the file, or
  /// kBadRequest for a capacity below kProofStoreMinBytes); nullopt while it is fully usable.
  std::optional<Refusal> failure() const;

  /// The store's file.
  const std::filesystem::path& path() const { return path_; }
  /// The file's size in bytes (0 when unusable): header and records, never more.
  std::uint64_t capacity_bytes() const { return file_bytes_; }
  /// Records the file holds room for.
  std::uint64_t capacity_records() const { return buckets_ * kBucketRecords; }
  /// Counts since opening.
  ProofStoreStats stats() const;
  /// Reads the whole file and counts its records (for a book's size, a report). Other processes
  /// may write meanwhile: the counts are of the moment each bucket was read. An unusable store, or
  /// one whose read fails (it then becomes unusable), gives zeros.
  ProofStoreCensus census();
  /// Calls `visit` with every valid record of the file, bucket by bucket (a position stored in
  /// two records twice), from the calling thread. Other processes may write meanwhile: each
  /// bucket is as it was when read. Returns false when the store is unusable or the read fails
  /// (the store then becomes unusable). Added 2026-11-30 (issue 44).
  bool for_each(const std::function<void(const ProofRecord&)>& visit);

  static constexpr std::uint64_t kHeaderBytes = 4096;
  static constexpr std::uint64_t kRecordBytes = 64;
  static constexpr std::uint64_t kBucketRecords = 4;

 private:
  using Bucket = std::array<std::byte, kBucketRecords * kRecordBytes>;
  using EventSink =
      std::function<void(ProofStoreEvent::Kind, const std::string&, std::filesystem::path)>;
  enum class Adopted : std::uint8_t;
  enum class Created : std::uint8_t;
  void open(const ProofStoreOptions& options);
  Adopted adopt(int fd, bool rw, std::string& why);
  Created create_fresh(std::uint64_t buckets, std::string& why);
  bool set_aside(int fd, const std::string& why, const EventSink& tell);
  bool resize_to(std::uint64_t buckets, std::string& report);
  void fail(const std::string& why, bool keep_reading);
  void fail(RefusalKind kind, const std::string& why, bool keep_reading);
  bool read_bucket(std::uint64_t bucket, Bucket& out);
  bool write_record(std::uint64_t bucket, std::uint64_t index, const ProofRecord* record);
  ProofStoreResult place(std::uint64_t bucket, const ProofRecord& record);

  std::filesystem::path path_;
  RuleSet rules_;
  std::string rules_text_;
  std::uint64_t rules_hash_ = 0;
  int fd_ = -1;
  std::uint64_t buckets_ = 0;
  std::uint64_t file_bytes_ = 0;
  std::atomic<bool> readable_{false};
  std::atomic<bool> writable_{false};
  mutable std::mutex failure_mutex_;
  std::optional<Refusal> failure_;
  // A store is a read-modify-write of one bucket: stores of the same bucket from this process
  // go one at a time (other processes may still interleave; see the spec's "Concurrency").
  std::array<std::mutex, 64> bucket_mutex_;
  std::atomic<std::uint64_t> lookups_{0}, hits_{0}, stores_{0}, kept_{0}, dropped_{0},
      conflicts_{0}, damaged_{0};
};

}  // namespace sowdb
