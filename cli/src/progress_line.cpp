#include "progress_line.h"

#include <cstdio>

#include "sowdb/format/index.h"

namespace sowdb::cli {

void ProgressLine::show(int stones, const char* phase, double fraction) {
  const auto now = std::chrono::steady_clock::now();
  if (stones != stones_ || phase_ != phase) {
    stones_ = stones;
    phase_ = phase;
    start_ = now;
  } else if (fraction < fraction_ ||
             (now - drawn_ < std::chrono::milliseconds(200) && fraction < 1)) {
    return;
  }
  fraction_ = fraction;
  drawn_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double positions = static_cast<double>(layer_size(pits_, stones));
  std::fprintf(stderr,
               "\r  layer %3d: %-5s %5.1f%% of %.0f %s, %.2f M/s, ETA %.0f s   ",
               stones,
               phase,
               100 * fraction,
               positions,
               positions == 1 ? "position" : "positions",
               elapsed > 0 ? positions * fraction / elapsed / 1e6 : 0.0,
               fraction > 0 ? elapsed * (1 - fraction) / fraction : 0.0);
  std::fflush(stderr);
}

void ProgressLine::clear() {
  std::fprintf(stderr, "\r%80s\r", "");
}

}  // namespace sowdb::cli
