#include "exit_code.h"

#include <cstdio>

namespace sowdb::cli {

int exit_code(RefusalKind kind) noexcept {
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
      return 2;
    case RefusalKind::kInterrupted:
      return 130;
    case RefusalKind::kMissingTable:
    case RefusalKind::kCorruptTable:
    case RefusalKind::kUnreachable:
    case RefusalKind::kBusy:
    case RefusalKind::kIoFailure:
    case RefusalKind::kInternal:
      return 1;
  }
  return 1;
}

int report_failure(const std::exception_ptr& error) {
  const Refusal r = refusal_of(error);
  std::fprintf(stderr, "sowdb: error: %s\n", r.message.c_str());
  return exit_code(r.kind);
}

}  // namespace sowdb::cli
