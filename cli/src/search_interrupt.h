// Interrupting a search (`sowdb solve`) so that its work is not lost: the first SIGINT, SIGTERM
// or SIGHUP asks the search to stop, and the command prints the bounds proved so far before it
// exits with 128 + the signal; a second signal ends the process at once, unless it is the same
// signal within a quarter of a second (one interruption delivered twice, as timeout(1) does).
#pragma once

namespace sowdb::cli {

/// Installs the handlers (replacing catch_interrupts' for the rest of the process). Call from
/// the main thread once no table is being written.
void stop_on_interrupts();

/// The first signal received since stop_on_interrupts(), 0 if none. Thread safe.
int interrupt_signal() noexcept;

/// "SIGINT", "SIGTERM", "SIGHUP" or "a signal". Never null.
const char* signal_name(int signal) noexcept;

/// The end of a command whose work a signal stopped softly: 0 when none came; else, once the
/// answer is printed, flushes standard output, says on standard error which signal and `what`
/// became of the work ("; the bounds proved so far are printed"; empty: nothing), and returns
/// 128 + the signal, the exit status.
int interrupted_exit(const char* what);

}  // namespace sowdb::cli
