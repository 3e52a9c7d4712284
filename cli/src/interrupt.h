// Interrupting `sowdb gen` (Ctrl-C, SIGTERM, SIGHUP) cleanly: no temporary file left behind, one
// line saying what is complete, and the conventional exit code 128 + the signal.
#pragma once

#include <filesystem>

namespace sowdb::cli {

/// Installs handlers for SIGINT, SIGTERM and SIGHUP for a run writing the table directory `dir`:
/// on a signal, the handler removes the temporary files this process may be writing there (the
/// layer in progress and the manifest), prints one line on standard error and exits with
/// 128 + the signal number. Call once, before the run starts.
void catch_interrupts(const std::filesystem::path& dir);

/// Records that layers 0..`complete` are written (-1: none yet), for the handler's line and for
/// the temporary it removes (that of layer complete + 1). Call from the thread running the job.
void interrupt_progress(int complete);

}  // namespace sowdb::cli
