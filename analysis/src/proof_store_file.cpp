// Opening a proof store's file: adopting a valid one, setting a bad one aside, creating a fresh
// one so that no process ever sees a file without its whole header (docs/PROOF_STORE.md,
// "Opening"). The records' reads and writes are in proof_store.cpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

#include "proof_store_layout.h"
#include "sowdb/analysis/proof_store.h"
#include "sowdb/format/xxhash64.h"
#include "sowdb/probe/manifest.h"

namespace sowdb {
namespace fs = std::filesystem;
using namespace proof_store_internal;

namespace {

std::string error_text(int error) {
  return std::generic_category().message(error);
}

// A name no other process or thread uses, beside `file` (so that link() stays on its file
// system).
fs::path temporary_of(const fs::path& file) {
  static std::atomic<unsigned> counter{0};
  return file.string() + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(counter.fetch_add(1));
}

}  // namespace

enum class ProofStore::Adopted : std::uint8_t { kOk, kBad, kIoError };
enum class ProofStore::Created : std::uint8_t { kCreated, kExists, kFailed };

ProofStore::ProofStore(fs::path file, const RuleSet& rules, const ProofStoreOptions& options)
    : path_(std::move(file)),
      rules_(rules.normalised()),
      rules_text_(describe(rules_)),
      rules_hash_(proof_rules_hash(rules_)) {
  open(options);
}

ProofStore::~ProofStore() {
  if (fd_ >= 0)
    ::close(fd_);
}

void ProofStore::fail(const std::string& why, bool keep_reading) {
  fail(RefusalKind::kIoFailure, why, keep_reading);
}

void ProofStore::fail(RefusalKind kind, const std::string& why, bool keep_reading) {
  std::lock_guard lock(failure_mutex_);
  writable_ = false;
  if (!keep_reading)
    readable_ = false;
  if (!failure_)
    failure_ = Refusal{kind, "proof store " + path_.string() + ": " + why};
}

std::optional<Refusal> ProofStore::failure() const {
  std::lock_guard lock(failure_mutex_);
  return failure_;
}

// The loop runs again when the file changed under it: another process created it between our
// open() and our create, or set it aside, or we set it aside ourselves. Four rounds cover a
// set-aside and a race with one other process; more means something keeps replacing the file.
void ProofStore::open(const ProofStoreOptions& options) {
  // Every reason names the file, as failure()'s message does.
  const auto tell = [&](ProofStoreEvent::Kind kind, const std::string& why, fs::path aside = {}) {
    if (options.on_event) {
      options.on_event(
          ProofStoreEvent{kind,
                          path_,
                          why.empty() ? why : "proof store " + path_.string() + ": " + why,
                          std::move(aside)});
    }
  };
  // The failure's cause without the "proof store PATH: " that fail() put before it.
  const auto cause = [this] {
    const std::string m = failure()->message;
    return m.substr(std::min(m.size(), ("proof store " + path_.string() + ": ").size()));
  };
  const auto unusable = [&](RefusalKind kind, const std::string& why) {
    fail(kind, why, false);
    tell(ProofStoreEvent::Kind::kUnusable, cause());
  };
  if (path_.empty()) {
    unusable(RefusalKind::kIoFailure, "no file (no cache directory)");
    return;
  }
  if (options.capacity_bytes < kProofStoreMinBytes) {
    unusable(RefusalKind::kBadRequest,
             "a capacity of " + std::to_string(options.capacity_bytes) +
                 " bytes, below the least (" + std::to_string(kProofStoreMinBytes) + ")");
    return;
  }
  const std::uint64_t buckets =
      (options.capacity_bytes - kHeaderBytes) / (kBucketRecords * kRecordBytes);
  if (!path_.parent_path().empty()) {
    std::error_code ec;
    fs::create_directories(path_.parent_path(), ec);
    if (ec) {
      unusable(RefusalKind::kIoFailure,
               "cannot create the directory " + path_.parent_path().string() + ": " + ec.message());
      return;
    }
  }
  for (int round = 0; round < 4; ++round) {
    bool rw = true;
    int fd = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    int open_error = errno;
    if (fd < 0 && (open_error == EACCES || open_error == EROFS || open_error == EPERM)) {
      rw = false;
      fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0) {
      if (errno != ENOENT) {
        unusable(RefusalKind::kIoFailure, "cannot open it: " + error_text(errno));
        return;
      }
      std::string why;
      switch (create_fresh(buckets, why)) {
        case Created::kCreated:
          tell(ProofStoreEvent::Kind::kCreated, "");
          return;
        case Created::kExists:
          continue;
        case Created::kFailed:
          unusable(RefusalKind::kIoFailure, why);
          return;
      }
    }
    std::string why;
    const Adopted adopted = adopt(fd, rw, why);
    if (adopted == Adopted::kOk && rw) {
      if (options.resize && buckets != buckets_) {
        const bool resized = resize_to(buckets, why);
        tell(resized ? ProofStoreEvent::Kind::kResized : ProofStoreEvent::Kind::kOpened, why);
        return;
      }
      tell(ProofStoreEvent::Kind::kOpened, "");
      return;
    }
    if (adopted == Adopted::kOk) {
      fail("read only (" + error_text(open_error) + "): stores keep nothing", true);
      tell(ProofStoreEvent::Kind::kReadOnly, cause());
      return;
    }
    if (adopted == Adopted::kIoError || !rw) {
      ::close(fd);
      unusable(RefusalKind::kIoFailure,
               rw ? why : why + ", and it cannot be set aside (read only)");
      return;
    }
    if (!set_aside(fd, why, tell))
      return;
  }
  unusable(RefusalKind::kIoFailure, "other processes keep replacing the file");
}

// Renames the bad file open as `fd` (unless another process already replaced it) and closes fd.
bool ProofStore::set_aside(int fd, const std::string& why, const EventSink& tell) {
  struct stat ours {};
  struct stat there {};
  const bool same = ::fstat(fd, &ours) == 0 && ::stat(path_.c_str(), &there) == 0 &&
                    ours.st_dev == there.st_dev && ours.st_ino == there.st_ino;
  ::close(fd);
  if (!same)
    return true;  // Someone set it aside already: open what is there now.
  const fs::path aside = path_.string() + ".bad";
  if (::rename(path_.c_str(), aside.c_str()) != 0 && errno != ENOENT) {
    const std::string cause = why + ", and it cannot be set aside: " + error_text(errno);
    fail(RefusalKind::kIoFailure, cause, false);
    tell(ProofStoreEvent::Kind::kUnusable, cause, {});
    return false;
  }
  tell(ProofStoreEvent::Kind::kSetAside, why, aside);
  return true;
}

// The new file is a store of its own under a temporary name, filled through store() (so the
// replacement rule picks what fits) and renamed over the old one: no process ever sees it half
// filled. Its records' stamps become the time of the rebuild.
bool ProofStore::resize_to(std::uint64_t buckets, std::string& report) {
  const fs::path temp = temporary_of(path_);
  ProofStoreOptions options;
  options.capacity_bytes = file_bytes(buckets);
  ProofStore fresh(temp, rules_, options);
  bool stored = fresh.writable();
  const auto carry = [&](RecordState state, const ProofRecord& r) {
    if (state == RecordState::kValid && stored)
      stored = fresh.store(r) != ProofStoreResult::kUnavailable;
  };
  const bool scanned = scan_records(fd_, buckets_, rules_hash_, rules_.pits_per_side, carry);
  if (!scanned || !stored || ::rename(temp.c_str(), path_.c_str()) != 0) {
    report = "kept its size of " + std::to_string(file_bytes_) + " bytes: " +
             (!scanned  ? "cannot read it: " + error_text(errno)
              : !stored ? fresh.failure()->message
                        : "cannot rename " + temp.string() + ": " + error_text(errno));
    ::unlink(temp.c_str());
    return false;
  }
  report = "from " + std::to_string(file_bytes_) + " to " + std::to_string(fresh.file_bytes_) +
           " bytes, " + std::to_string(fresh.census().records) + " records carried over";
  ::close(fd_);
  fd_ = std::exchange(fresh.fd_, -1);
  buckets_ = fresh.buckets_;
  file_bytes_ = fresh.file_bytes_;
  return true;
}

ProofStore::Adopted ProofStore::adopt(int fd, bool rw, std::string& why) {
  struct stat st {};
  HeaderBytes header{};
  if (::fstat(fd, &st) != 0) {
    why = "cannot read its size: " + error_text(errno);
    return Adopted::kIoError;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < kHeaderBytes) {
    why = "a file of " + std::to_string(size) + " bytes, shorter than a header";
    return Adopted::kBad;
  }
  if (!read_at(fd, header.data(), header.size(), 0)) {
    why = "cannot read its header: " + error_text(errno);
    return Adopted::kIoError;
  }
  HeaderFields found;
  why = check_header(header, size, HeaderFields{0, rules_hash_, rules_text_}, found);
  if (!why.empty())
    return Adopted::kBad;
  fd_ = fd;
  buckets_ = found.buckets;
  file_bytes_ = size;
  readable_ = true;
  writable_ = rw;
  return Adopted::kOk;
}

// The fresh file is written whole under a temporary name and published with link(), which
// fails when the name exists: two processes creating the store at once end up sharing the
// first one's file, and none ever opens a file without its header. Where the file system has
// no hard links, rename() publishes it (a race then only loses the other process's records).
ProofStore::Created ProofStore::create_fresh(std::uint64_t buckets, std::string& why) {
  const fs::path temp = temporary_of(path_);
  const int fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    why = "cannot create " + temp.string() + ": " + error_text(errno);
    return Created::kFailed;
  }
  const auto give_up = [&](const std::string& what) {
    why = what + ": " + error_text(errno);
    ::close(fd);
    ::unlink(temp.c_str());
    return Created::kFailed;
  };
  const HeaderBytes header = encode_header(HeaderFields{buckets, rules_hash_, rules_text_});
  if (!write_at(fd, header.data(), header.size(), 0))
    return give_up("cannot write the header of " + temp.string());
  if (::ftruncate(fd, static_cast<off_t>(file_bytes(buckets))) != 0)
    return give_up("cannot size " + temp.string());
  if (::fsync(fd) != 0)
    return give_up("cannot sync " + temp.string());
  if (::link(temp.c_str(), path_.c_str()) != 0) {
    if (errno == EEXIST) {
      ::close(fd);
      ::unlink(temp.c_str());
      return Created::kExists;
    }
    if (::rename(temp.c_str(), path_.c_str()) != 0)
      return give_up("cannot rename " + temp.string());
  } else {
    ::unlink(temp.c_str());
  }
  fd_ = fd;
  buckets_ = buckets;
  file_bytes_ = file_bytes(buckets);
  readable_ = true;
  writable_ = true;
  return Created::kCreated;
}

}  // namespace sowdb
