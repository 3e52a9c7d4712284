#include "exit_code.h"

#include <cstdio>

namespace sowdb::cli {

int exit_code(RefusalKind kind) noexcept {
  if (kind == RefusalKind::kInterrupted)
    return 130;
  // Bad input refused before any work, else a failure while working (docs/CLI.md).
  return is_bad_input(kind) ? 2 : 1;
}

int report_failure(const std::exception_ptr& error) {
  const Refusal r = refusal_of(error);
  std::fprintf(stderr, "sowdb: error: %s\n", r.message.c_str());
  return exit_code(r.kind);
}

}  // namespace sowdb::cli
