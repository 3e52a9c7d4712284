#include "search_interrupt.h"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>

namespace sowdb::cli {
namespace {

std::atomic<int> g_signal{0};
std::atomic<long long> g_first_ns{0};  // CLOCK_MONOTONIC of the first signal
static_assert(std::atomic<int>::is_always_lock_free, "the handler needs a lock-free atomic");
static_assert(std::atomic<long long>::is_always_lock_free, "the handler needs a lock-free atomic");

// A signal this soon after the first of the same kind is the same interruption delivered
// twice: timeout(1) sends its signal to the command and then to the command's process group
// (3 of 40 `timeout -s TERM T sowdb solve` runs lost their bounds so, 2026-11-30). A person
// who presses Ctrl-C twice does it further apart.
constexpr long long kSameSignalNs = 250'000'000;

long long monotonic_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe (POSIX)
  return static_cast<long long>(t.tv_sec) * 1'000'000'000LL + t.tv_nsec;
}

extern "C" void on_search_interrupt(int signal) {
  const long long now = monotonic_ns();
  int none = 0;
  if (g_signal.compare_exchange_strong(none, signal)) {
    g_first_ns.store(now);
    return;  // the search polls the flag, stops and prints what it proved
  }
  if (none == signal && now - g_first_ns.load() < kSameSignalNs)
    return;
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
