#include "sowdb/analysis/generate_text.h"

#include <cstdio>
#include <string>

#include "sowdb/format/index.h"
#include "sowdb/probe/internal/count_text.h"

namespace sowdb {
namespace {

// printf into a string: these lines are the CLI's printf formats of old, kept byte for byte.
template <typename... Args>
std::string formatted(const char* format, Args... args) {
  const int size = std::snprintf(nullptr, 0, format, args...);
  std::string out(static_cast<std::size_t>(size > 0 ? size : 0), '\0');
  std::snprintf(out.data(), out.size() + 1, format, args...);
  return out;
}

using internal::count_text;

}  // namespace

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return formatted("%.1f %s", bytes, units[u]);
}

std::string layer_text(const gen::LayerReport& r) {
  const char* count = r.positions == 1 ? "position" : "positions";
  const auto positions = static_cast<unsigned long long>(r.positions);
  if (r.reused) {
    return formatted("layer %3d: %12llu %s, reused (%s on disk)",
                     r.stones,
                     positions,
                     count,
                     human_bytes(static_cast<double>(r.bytes_on_disk)).c_str());
  }
  return formatted(
      "layer %3d: %12llu %s, %8.2f s (solve %.2f, write %.2f), %7.2f M positions/s, %s on disk "
      "(%.3f bytes/position), peak RSS %s",
      r.stones,
      positions,
      count,
      r.seconds,
      r.solve_seconds,
      r.write_seconds,
      r.positions_per_s / 1e6,
      human_bytes(static_cast<double>(r.bytes_on_disk)).c_str(),
      static_cast<double>(r.bytes_on_disk) / static_cast<double>(r.positions),
      human_bytes(static_cast<double>(r.peak_rss_bytes)).c_str());
}

std::string summary_text(const GenerateSummary& s) {
  return formatted(
      "done: %s%s, layers 0..%d, %s, %.2f s solving and writing (solve %.2f, write %.2f), %s on "
      "disk, %s",
      s.variant.c_str(),
      s.objective == Objective::kCooperative ? " (co-operative)" : "",
      s.max_stones,
      count_text(s.positions, "position", "positions").c_str(),
      s.layer_seconds,
      s.solve_seconds,
      s.write_seconds,
      human_bytes(static_cast<double>(s.bytes_on_disk)).c_str(),
      count_text(s.threads, "thread", "threads").c_str());
}

std::string rebuild_text(int stones, const std::string& why) {
  return formatted("layer %3d: %s; solving it again", stones, why.c_str());
}

std::string ProgressText::update(int stones,
                                 const char* phase,
                                 double fraction,
                                 Clock::time_point now) {
  if (stones != stones_ || phase_ != phase) {
    stones_ = stones;
    phase_ = phase;
    start_ = now;
  } else if (fraction < fraction_ ||
             (now - drawn_ < std::chrono::milliseconds(200) && fraction < 1)) {
    return {};
  }
  fraction_ = fraction;
  drawn_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double positions = static_cast<double>(layer_size(pits_, stones));
  return formatted("  layer %3d: %-5s %5.1f%% of %.0f %s, %.2f M/s, ETA %.0f s   ",
                   stones,
                   phase,
                   100 * fraction,
                   positions,
                   positions == 1 ? "position" : "positions",
                   elapsed > 0 ? positions * fraction / elapsed / 1e6 : 0.0,
                   fraction > 0 ? elapsed * (1 - fraction) / fraction : 0.0);
}

}  // namespace sowdb
