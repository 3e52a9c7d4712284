#include "search_interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>

namespace sowdb::cli {
namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handler needs a lock-free atomic");

extern "C" void on_search_interrupt(int signal) {
  int none = 0;
  if (g_signal.compare_exchange_strong(none, signal))
    return;  // the search polls the flag, stops and prints what it proved
  static const char kLine[] = "sowdb: interrupted again; stopping without the bounds\n";
  const ssize_t written = ::write(STDERR_FILENO, kLine, sizeof kLine - 1);
  (void)written;  // nothing more can be done about a failed write here
  ::_exit(128 + signal);
}

}  // namespace

void stop_on_interrupts() {
  struct sigaction action = {};
  action.sa_handler = on_search_interrupt;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP})
    sigaction(signal, &action, nullptr);
}

int interrupt_signal() noexcept {
  return g_signal.load(std::memory_order_relaxed);
}

int interrupted_exit(const char* what) {
  const int signal = interrupt_signal();
  if (signal == 0)
    return 0;
  std::fflush(stdout);
  std::fprintf(stderr, "sowdb: interrupted by %s%s\n", signal_name(signal), what);
  return 128 + signal;
}

const char* signal_name(int signal) noexcept {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

}  // namespace sowdb::cli
