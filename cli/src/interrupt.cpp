#include "interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <string>

#include "sowdb/probe/table_directory.h"

namespace sowdb::cli {
namespace {

// What the handler needs, formatted beforehand: a handler may only call async-signal-safe
// functions (unlink, write, _exit), so it formats nothing. Two copies: the job fills the one
// the handler is not reading, then publishes it.
struct Prepared {
  char line[256] = {};
  std::size_t line_size = 0;
  char layer_temp[4096] = {};
  char manifest_temp[4096] = {};
};
Prepared g_prepared[2];
std::atomic<int> g_current{0};
std::filesystem::path g_dir;
// Set by a handler that ends the process, before it removes anything: another thread may then
// fail on the temporary the handler removed, and that failure is no error to report.
std::atomic<int> g_ending{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handlers need a lock-free atomic");

void copy(char (&to)[4096], const std::string& from) {
  const std::size_t n = std::min(from.size(), sizeof to - 1);
  from.copy(to, n);
  to[n] = '\0';
}

// What both handlers that end the process do first (async-signal-safe): say it is ending, then
// remove the temporaries this process may be writing. Returns what the line may be written from.
const Prepared& end_and_remove_temporaries() noexcept {
  g_ending.store(1);
  const Prepared& p = g_prepared[g_current.load()];
  if (p.layer_temp[0] != '\0')
    ::unlink(p.layer_temp);
  if (p.manifest_temp[0] != '\0')
    ::unlink(p.manifest_temp);
  return p;
}

extern "C" void on_interrupt(int signal) {
  const Prepared& p = end_and_remove_temporaries();
  const ssize_t written = ::write(STDERR_FILENO, p.line, p.line_size);
  (void)written;  // nothing more can be done about a failed write here
  ::_exit(128 + signal);
}

// A write to a closed pipe (`sowdb ... | head -1`): a failure to write the output, exit 1 with
// one line (the exit code the README promises), not death by SIGPIPE (141). The temporaries of
// a run that writes tables go as on an interrupt.
extern "C" void on_broken_pipe(int) {
  end_and_remove_temporaries();
  static const char kLine[] = "sowdb: error: writing standard output: Broken pipe\n";
  const ssize_t written = ::write(STDERR_FILENO, kLine, sizeof kLine - 1);
  (void)written;  // stderr may be the closed pipe: nothing more can be done
  ::_exit(1);
}

}  // namespace

void catch_broken_pipe() {
  struct sigaction action = {};
  action.sa_handler = on_broken_pipe;
  sigemptyset(&action.sa_mask);
  sigaction(SIGPIPE, &action, nullptr);
}

void await_ending_handler() {
  if (g_ending.load() == 0)
    return;
  // The handler runs on another thread and ends the process with _exit; this thread waits.
  for (;;)
    ::pause();
}

void interrupt_progress(int complete) {
  const int next = 1 - g_current.load();
  Prepared& p = g_prepared[next];
  copy(p.layer_temp, (g_dir / temporary_name(layer_file_name(complete + 1), ::getpid())).string());
  copy(p.manifest_temp, (g_dir / temporary_name(kManifestName, ::getpid())).string());
  const std::string line =
      complete < 0    ? "sowdb: interrupted; no layer is complete yet, a rerun starts over\n"
      : complete == 0 ? "sowdb: interrupted; layer 0 is complete, a rerun continues\n"
                      : "sowdb: interrupted; layers 0.." + std::to_string(complete) +
                            " are complete, a rerun continues\n";
  p.line_size = std::min(line.size(), sizeof p.line);
  line.copy(p.line, p.line_size);
  g_current.store(next);
}

void catch_interrupts(const std::filesystem::path& dir) {
  g_dir = dir;
  interrupt_progress(-1);
  struct sigaction action = {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP})
    sigaction(signal, &action, nullptr);
}

}  // namespace sowdb::cli
