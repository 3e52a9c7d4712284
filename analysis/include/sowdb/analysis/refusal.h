// Refusals: the one vocabulary in which every user-facing action of `analysis/` says why it did
// not answer. A front end maps a refusal's kind once (the CLI to an exit code, the server to an
// HTTP status, Python to an exception class) and shows its message; it never classifies a
// failure by reading the message.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

#include "sowdb/probe/tables.h"

namespace sowdb {

/// Why an action did not answer. Set where the cause is detected; stable names (to_string) for
/// JSON and logs. The C API's statuses, the Python exception classes and the CLI's exit codes
/// are each one mapping of these (docs/CLI.md, docs/API.md, docs/LIBRARY.md).
enum class RefusalKind : std::uint8_t {
  kBadRequest,      ///< An argument of the request is out of range or malformed (not a position).
  kBadPosition,     ///< Not a position of the board: pit count, a pit > 255, > 255 seeds.
  kBadStores,       ///< Stores that the game cannot hold, with this board or with any.
  kUnknownVariant,  ///< The variant text names no rule system.
  kNotServed,       ///< A rule system (and objective) for which no tables are at hand.
  kTooManySeeds,    ///< More seeds than the tables hold (Refusal::seeds, Refusal::max_seeds).
  kMissingTable,    ///< A layer file the answer needs is missing (Refusal::layer).
  kCorruptTable,    ///< A layer file failed a check or a read (Refusal::layer).
  kUnusableTables,  ///< A table directory that cannot be opened or used (Refusal::open_cause).
  kGameOver,        ///< The position has no legal move, where a move was asked for.
  kIllegalMove,     ///< A move that is not legal in the position.
  kWrongObjective,  ///< The tables hold the other objective (competitive or co-operative).
  kUnreachable,     ///< Co-operative: no joint line reaches the difference asked for.
  kBusy,            ///< Another writer holds the table directory.
  kInterrupted,     ///< Stopped on request (a signal, a cancel flag) before the answer.
  kIoFailure,       ///< The system failed the work on the way (a full disk, a write error).
  kInternal,        ///< An unexpected failure (out of memory, a broken invariant).
};

/// Every kind, in declaration order (for the front ends' mapping tests).
inline constexpr RefusalKind kRefusalKinds[] = {
    RefusalKind::kBadRequest,
    RefusalKind::kBadPosition,
    RefusalKind::kBadStores,
    RefusalKind::kUnknownVariant,
    RefusalKind::kNotServed,
    RefusalKind::kTooManySeeds,
    RefusalKind::kMissingTable,
    RefusalKind::kCorruptTable,
    RefusalKind::kUnusableTables,
    RefusalKind::kGameOver,
    RefusalKind::kIllegalMove,
    RefusalKind::kWrongObjective,
    RefusalKind::kUnreachable,
    RefusalKind::kBusy,
    RefusalKind::kInterrupted,
    RefusalKind::kIoFailure,
    RefusalKind::kInternal,
};

/// The kind's stable name in snake case ("bad_position", "too_many_seeds", ...). Never null.
/// Thread safe.
const char* to_string(RefusalKind kind) noexcept;

/// Whether the kind is bad input refused before any work (the request, the position, the
/// variant, the tables asked for), as opposed to a failure met while working.
bool is_bad_input(RefusalKind kind) noexcept;

/// A refusal: its kind, the cause in one line in the project's words (naming the file or the
/// value at fault as the caller gave it, never a remedy that names a front end's flags), and the
/// facts a front end needs for its remedy.
struct Refusal {
  Refusal() = default;
  /// A refusal of `kind` for the cause `message`, without facts.
  Refusal(RefusalKind k, std::string m) : kind(k), message(std::move(m)) {}

  RefusalKind kind = RefusalKind::kInternal;
  std::string message;  ///< The cause, one line.
  int layer = -1;       ///< The layer at fault (kMissingTable, kCorruptTable); -1: none.
  int seeds = -1;       ///< Seeds on the board of the position asked about; -1: none.
  int max_seeds = -1;   ///< The top layer of the tables asked (kTooManySeeds); -1: none.
  /// Why a directory was refused (kUnusableTables from TableSet::open).
  std::optional<OpenError> open_cause;
  /// The message without the file paths the caller did not give (for a server, whose clients
  /// never named the directory): the layer file's name instead of its path. Empty: `message`
  /// holds no path.
  std::string public_message;

  /// public_message when set, else message.
  const std::string& message_without_paths() const {
    return public_message.empty() ? message : public_message;
  }
};

/// The exception form of a refusal, for calls whose answer is not a value (jobs that report
/// through callbacks) and across thread pools. what() is the refusal's message.
class Refused : public std::runtime_error {
 public:
  explicit Refused(Refusal refusal)
      : std::runtime_error(refusal.message), refusal_(std::move(refusal)) {}
  Refused(RefusalKind kind, const std::string& message) : Refused(Refusal{kind, message}) {}
  /// The refusal.
  const Refusal& refusal() const noexcept { return refusal_; }

 private:
  Refusal refusal_;
};

/// An answer or a refusal: what every `analysis/` call that answers a question returns.
template <typename T>
class Answer {
 public:
  Answer(T value) : state_(std::move(value)) {}            // NOLINT(google-explicit-constructor)
  Answer(Refusal refusal) : state_(std::move(refusal)) {}  // NOLINT(google-explicit-constructor)
  /// Whether it holds an answer.
  bool ok() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  /// The answer. Precondition: ok().
  const T& value() const& { return std::get<0>(state_); }
  T& value() & { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  /// The refusal. Precondition: !ok().
  const Refusal& refusal() const { return std::get<1>(state_); }
  /// The answer, or throws Refused with the refusal.
  const T& value_or_throw() const {
    if (!ok())
      throw Refused(refusal());
    return value();
  }

 private:
  std::variant<T, Refusal> state_;
};

/// The refusal of a failed probe of `position` in `set`: the kind of `status` and
/// TableSet::explain's message, with the layer, seeds and top layer filled in. `status` must not
/// be kOk. Thread safe as TableSet's probes (the failed layer is the calling thread's).
Refusal refusal_of(ProbeStatus status, const TableSet& set, const Pits& position);

/// The kind of a failed probe's status (kOk, which is no failure, gives kInternal).
RefusalKind kind_of(ProbeStatus status) noexcept;

/// The refusal an exception thrown by the libraries stands for, by its type (Refused,
/// TableSetError, gen::InvalidRequest and its kinds, gen::Stopped, gen::DirectoryBusy,
/// TableError, std::filesystem::filesystem_error, std::bad_alloc, ...): the one place where a
/// library's exception becomes a refusal. Any other std::exception is kInternal. `error` must
/// not be null. Thread safe.
Refusal refusal_of(const std::exception_ptr& error);

}  // namespace sowdb
