// The command line's one mapping of refusals (sowdb/analysis/refusal.h) to exit codes, and the
// line it prints for one.
#pragma once

#include <exception>
#include <string>

#include "sowdb/analysis/refusal.h"

namespace sowdb::cli {

/// The exit code of a refusal of `kind` (docs/CLI.md, "Conventions"): 2 for bad input refused
/// before any work, 1 for a failure while working, 130 for an interruption that reached the
/// program (a signal handled by catch_interrupts exits with 128 + its number before this).
int exit_code(RefusalKind kind) noexcept;

/// The refusal `error` stands for (refusal_of), with the remedy the program adds for its kind
/// where one names its commands; then prints `sowdb: error: MESSAGE` on stderr and returns the
/// exit code. The program's one handler of failures: main calls it for every exception.
int report_failure(const std::exception_ptr& error);

}  // namespace sowdb::cli
