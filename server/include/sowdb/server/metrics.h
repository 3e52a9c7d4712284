// The server's counters in Prometheus text: requests by endpoint and status, a latency
// histogram, the response cache.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "sowdb/server/response_cache.h"
#include "sowdb/server/status.h"

namespace sowdb::server {

/// The endpoints counted apart (Response::endpoint).
enum class Endpoint : std::uint8_t {
  kPosition,
  kBatch,
  kVariants,
  kVariant,  ///< GET /api/v1/variant: one variant text read.
  kJob,      ///< GET and DELETE /api/v1/job: a search job followed or cancelled.
  kHealth,
  kMetrics,
  kStatic,
  kOther,
};
inline constexpr int kEndpointCount = 9;

/// "position", "batch", ...: the endpoint label.
const char* to_string(Endpoint e) noexcept;

/// Request counters. THREAD SAFETY record and text may be called from any threads at once.
class Metrics {
 public:
  /// Upper bounds of the latency buckets, seconds.
  static constexpr std::array<double, 12> kBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5};

  /// Counts one answered request of `endpoint` with `status` that took `seconds`.
  void record(Endpoint endpoint, int status, double seconds) noexcept;

  /// Counts `delta` (+1 queued, -1 taken) requests waiting for a worker in the queue of work
  /// class `work_class` (0 single lookups, 1 batches, 2 searches).
  void queued(int work_class, int delta) noexcept;

  /// Counts a connection opened (+1) or closed (-1).
  void connections(int delta) noexcept;
  /// Counts a connection refused with 503 at accept: its address at its cap (`client_cap`), or
  /// the table full of connections busy with requests.
  void connection_refused(bool client_cap) noexcept;
  /// Counts an idle connection closed to make room for a new one.
  void idle_closed() noexcept;

  /// Everything in the Prometheus text format (version 0.0.4), with `cache`'s counters.
  std::string text(const ResponseCache::Stats& cache) const;

 private:
  static std::size_t status_slot(int status) noexcept;

  std::array<std::array<std::atomic<std::uint64_t>, kCountedStatuses.size()>, kEndpointCount>
      requests_{};
  std::array<std::atomic<std::uint64_t>, kBuckets.size() + 1> buckets_{};  // last: +Inf
  std::atomic<std::uint64_t> count_{0};
  std::atomic<std::uint64_t> sum_micros_{0};
  std::array<std::atomic<std::int64_t>, 3> queued_{};
  std::atomic<std::int64_t> connections_{0};
  std::atomic<std::uint64_t> refused_full_{0};
  std::atomic<std::uint64_t> refused_client_cap_{0};
  std::atomic<std::uint64_t> idle_closed_{0};
};

}  // namespace sowdb::server
