#include "sowdb/analysis/refusal.h"

#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>

#include "sowdb/format/table_file.h"
#include "sowdb/gen/directory_lock.h"
#include "sowdb/gen/generate.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/internal/count_text.h"

namespace sowdb {
namespace {

// `text` with every "DIR/" of the table directory `dir` removed, so that a layer file is named
// by its name alone.
std::string without_directory(std::string text, const std::filesystem::path& dir) {
  if (dir.empty())
    return text;
  for (const std::string& prefix : {(dir / "").string(), dir.string()}) {
    for (std::size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at))
      text.erase(at, prefix.size());
  }
  return text;
}

RefusalKind kind_of(TableError::Code code) {
  switch (code) {
    case TableError::Code::kIo:
      return RefusalKind::kIoFailure;
    case TableError::Code::kInvalidArgument:
      return RefusalKind::kBadRequest;
    default:
      return RefusalKind::kCorruptTable;
  }
}

}  // namespace

const char* to_string(RefusalKind kind) noexcept {
  switch (kind) {
    case RefusalKind::kBadRequest:
      return "bad_request";
    case RefusalKind::kBadPosition:
      return "bad_position";
    case RefusalKind::kBadStores:
      return "bad_stores";
    case RefusalKind::kUnknownVariant:
      return "unknown_variant";
    case RefusalKind::kNotServed:
      return "not_served";
    case RefusalKind::kTooManySeeds:
      return "too_many_seeds";
    case RefusalKind::kMissingTable:
      return "missing_table";
    case RefusalKind::kCorruptTable:
      return "corrupt_table";
    case RefusalKind::kUnusableTables:
      return "unusable_tables";
    case RefusalKind::kGameOver:
      return "game_over";
    case RefusalKind::kIllegalMove:
      return "illegal_move";
    case RefusalKind::kWrongObjective:
      return "wrong_objective";
    case RefusalKind::kUnreachable:
      return "unreachable";
    case RefusalKind::kBusy:
      return "busy";
    case RefusalKind::kInterrupted:
      return "interrupted";
    case RefusalKind::kIoFailure:
      return "io_failure";
    case RefusalKind::kInternal:
      return "internal";
  }
  return "internal";
}

bool is_bad_input(RefusalKind kind) noexcept {
  switch (kind) {
    case RefusalKind::kBadRequest:
    case RefusalKind::kBadPosition:
    case RefusalKind::kBadStores:
    case RefusalKind::kUnknownVariant:
    case RefusalKind::kNotServed:
    case RefusalKind::kTooManySeeds:
    case RefusalKind::kUnusableTables:
    case RefusalKind::kGameOver:
    case RefusalKind::kIllegalMove:
    case RefusalKind::kWrongObjective:
      return true;
    default:
      return false;
  }
}

RefusalKind kind_of(ProbeStatus status) noexcept {
  switch (status) {
    case ProbeStatus::kBadPosition:
      return RefusalKind::kBadPosition;
    case ProbeStatus::kTooManyStones:
      return RefusalKind::kTooManySeeds;
    case ProbeStatus::kMissingTable:
      return RefusalKind::kMissingTable;
    case ProbeStatus::kCorruptTable:
      return RefusalKind::kCorruptTable;
    case ProbeStatus::kGameOver:
      return RefusalKind::kGameOver;
    case ProbeStatus::kWrongObjective:
      return RefusalKind::kWrongObjective;
    case ProbeStatus::kUnreachable:
      return RefusalKind::kUnreachable;
    case ProbeStatus::kOk:
      break;
  }
  return RefusalKind::kInternal;
}

Refusal refusal_of(ProbeStatus status, const TableSet& set, const Pits& position) {
  Refusal r;
  r.kind = kind_of(status);
  r.message = set.explain(status, position);
  const std::string bare = without_directory(r.message, set.directory());
  if (bare != r.message)
    r.public_message = bare;
  int seeds = 0;
  for (const auto p : position)
    seeds += p;
  r.seeds = seeds;
  if (status == ProbeStatus::kTooManyStones) {
    r.max_seeds = set.max_stones();
    // explain() names the directory; a client of tables served to it never named one.
    r.public_message = "position has " + internal::count_text(seeds, "seed", "seeds") + "; the " +
                       set.variant().to_string() + " tables served hold up to " +
                       std::to_string(r.max_seeds);
  }
  if (status == ProbeStatus::kMissingTable || status == ProbeStatus::kCorruptTable)
    r.layer = set.failed_layer(position);
  return r;
}

Refusal refusal_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Refused& e) {
    return e.refusal();
  } catch (const TableSetError& e) {
    Refusal r{RefusalKind::kUnusableTables, e.what()};
    r.open_cause = e.cause();
    return r;
  } catch (const gen::Stopped& e) {
    return {RefusalKind::kInterrupted, e.what()};
  } catch (const gen::DirectoryBusy& e) {
    return {RefusalKind::kBusy, e.what()};
  } catch (const gen::NeedsCompleteTables& e) {
    // A request no search answers (complete tables would): refused before any work.
    Refusal r{RefusalKind::kBadRequest, e.what()};
    r.seeds = e.stones;
    return r;
  } catch (const gen::InvalidRequest& e) {
    return {RefusalKind::kBadRequest, e.what()};
  } catch (const TableError& e) {
    return {kind_of(e.code()), e.what()};
  } catch (const std::filesystem::filesystem_error& e) {
    return {RefusalKind::kIoFailure, e.what()};
  } catch (const std::bad_alloc&) {
    return {RefusalKind::kInternal, "out of memory"};
  } catch (const std::invalid_argument& e) {
    return {RefusalKind::kBadRequest, e.what()};
  } catch (const std::runtime_error& e) {
    // The libraries' failures on the way (a write, a read, a rename) are runtime_errors.
    return {RefusalKind::kIoFailure, e.what()};
  } catch (const std::exception& e) {
    return {RefusalKind::kInternal, e.what()};
  } catch (...) {
    return {RefusalKind::kInternal, "an unknown failure"};
  }
}

}  // namespace sowdb
