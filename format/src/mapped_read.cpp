// File mappings and SIGBUS-safe copies out of them (mapped_read.h).
#include "mapped_read.h"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <csetjmp>
#include <csignal>
#include <cstring>
#include <limits>
#include <mutex>

#include "table_common.h"

namespace sowdb::table_internal {

namespace {

// The copy in progress on this thread: where the fault may fall and where to go back to.
struct Guard {
  sigjmp_buf back;
  const char* first;
  const char* end;
};

// Plain pointer (no constructor), read by the signal handler. Initial-exec: static TLS, so that
// reading it in a handler on a thread that never copied allocates nothing (a dynamic TLS block
// of a library loaded with dlopen may be allocated on first use).
__attribute__((tls_model("initial-exec"))) thread_local Guard* tl_guard = nullptr;

struct sigaction g_previous;
std::once_flag g_installed;

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const Guard* g = tl_guard;
  const char* at = info ? static_cast<const char*>(info->si_addr) : nullptr;
  if (g && at >= g->first && at < g->end)
    siglongjmp(const_cast<Guard*>(g)->back, 1);
  // Not a fault of ours: what the process had before.
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction) {
    g_previous.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
    return;
  }
  // The default action: returning repeats the faulting access, which then ends the process.
  std::signal(SIGBUS, SIG_DFL);
  if (info == nullptr || info->si_code <= 0)
    std::raise(SIGBUS);  // sent, not a fault: it would not repeat
}

void install_handler() {
  struct sigaction act {};
  act.sa_sigaction = on_sigbus;
  sigemptyset(&act.sa_mask);
  // SA_NODEFER: the jump back leaves SIGBUS unblocked without saving and restoring the signal
  // mask (a system call each) around every copy.
  act.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGBUS, &act, &g_previous);
}

}  // namespace

FileMap::FileMap(int fd, std::uint64_t size, const std::string& name) {
  if (size == 0 || size > std::numeric_limits<std::size_t>::max())
    fail(Code::kIo, name, "cannot map " + count_text(size, "byte", "bytes"));
  std::call_once(g_installed, install_handler);
  void* p = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    fail(Code::kIo, name, "cannot map the file: " + errno_text(errno));
  data_ = static_cast<const std::byte*>(p);
  size_ = static_cast<std::size_t>(size);
}

FileMap::~FileMap() {
  ::munmap(const_cast<std::byte*>(data_), size_);
}

bool copy_from_map(void* to, const void* from, std::size_t n) noexcept {
  Guard g;
  g.first = static_cast<const char*>(from);
  g.end = g.first + n;
  if (sigsetjmp(g.back, 0) != 0) {
    tl_guard = nullptr;
    return false;
  }
  tl_guard = &g;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  std::memcpy(to, from, n);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  tl_guard = nullptr;
  return true;
}

}  // namespace sowdb::table_internal
