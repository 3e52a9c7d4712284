#pragma once

// The seconds since a moment, for the analysis units' reports (one definition: their unity
// builds put several of them in one translation unit).

#include <chrono>

namespace sowdb::analysis_internal {

using Clock = std::chrono::steady_clock;

/// Seconds from `start` to now (steady clock). Thread safe.
inline double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace sowdb::analysis_internal
