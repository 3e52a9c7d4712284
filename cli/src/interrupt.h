// Interrupting `sowdb gen` and `migrate` (Ctrl-C, SIGTERM, SIGHUP) cleanly: no temporary file
// left behind, one line saying what is complete, and the conventional exit code 128 + the
// signal. A closed output pipe is a failed write (exit 1), not a death by SIGPIPE.
#pragma once

#include <filesystem>

namespace sowdb::cli {

/// Installs handlers for SIGINT, SIGTERM and SIGHUP for a run writing the table directory `dir`:
/// on a signal, the handler removes the temporary files this process may be writing there (the
/// layer in progress and the manifest), prints one line on standard error and exits with
/// 128 + the signal number. Call once, before the run starts.
void catch_interrupts(const std::filesystem::path& dir);

/// Installs a handler for SIGPIPE: output to a closed pipe ends the program with exit code 1 and
/// `sowdb: error: writing standard output: Broken pipe` on standard error (after removing the
/// temporaries catch_interrupts knows of), instead of death by the signal (exit 141). Call once,
/// at the start of main.
void catch_broken_pipe();

/// Returns at once unless a handler installed by catch_interrupts or catch_broken_pipe has begun
/// to end the process on another thread; then never returns (that handler exits). Call before
/// reporting a failure: a write or rename that fails because the handler removed its temporary
/// is part of the interrupt, and its error would be a second, misleading line.
void await_ending_handler();

/// Records that layers 0..`complete` are written (-1: none yet), for the handler's line and for
/// the temporary it removes (that of layer complete + 1). Call from the thread running the job.
void interrupt_progress(int complete);

}  // namespace sowdb::cli
