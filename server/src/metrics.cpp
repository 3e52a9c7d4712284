#include "sowdb/server/metrics.h"

#include <cstdio>

namespace sowdb::server {

const char* to_string(Endpoint e) noexcept {
  switch (e) {
    case Endpoint::kPosition:
      return "position";
    case Endpoint::kBatch:
      return "batch";
    case Endpoint::kVariants:
      return "variants";
    case Endpoint::kVariant:
      return "variant";
    case Endpoint::kJob:
      return "job";
    case Endpoint::kHealth:
      return "health";
    case Endpoint::kMetrics:
      return "metrics";
    case Endpoint::kStatic:
      return "static";
    case Endpoint::kOther:
      break;
  }
  return "other";
}

std::size_t Metrics::status_slot(int status) noexcept {
  for (std::size_t i = 0; i + 1 < kCountedStatuses.size(); ++i) {
    if (kCountedStatuses[i] == status)
      return i;
  }
  return kCountedStatuses.size() - 1;
}

void Metrics::record(Endpoint endpoint, int status, double seconds) noexcept {
  requests_[static_cast<std::size_t>(endpoint)][status_slot(status)].fetch_add(
      1, std::memory_order_relaxed);
  std::size_t b = 0;
  while (b < kBuckets.size() && seconds > kBuckets[b])
    ++b;
  buckets_[b].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_micros_.fetch_add(static_cast<std::uint64_t>(seconds * 1e6), std::memory_order_relaxed);
}

void Metrics::queued(int work_class, int delta) noexcept {
  if (work_class >= 0 && work_class < static_cast<int>(queued_.size()))
    queued_[static_cast<std::size_t>(work_class)].fetch_add(delta, std::memory_order_relaxed);
}

void Metrics::connections(int delta) noexcept {
  connections_.fetch_add(delta, std::memory_order_relaxed);
}

void Metrics::connection_refused(bool client_cap) noexcept {
  (client_cap ? refused_client_cap_ : refused_full_).fetch_add(1, std::memory_order_relaxed);
}

void Metrics::idle_closed() noexcept {
  idle_closed_.fetch_add(1, std::memory_order_relaxed);
}

std::string Metrics::text(const ResponseCache::Stats& cache) const {
  std::string out;
  char line[256];
  auto add = [&](const char* format, auto... args) {
    std::snprintf(line, sizeof line, format, args...);
    out += line;
  };
  out +=
      "# HELP sowdb_http_requests_total HTTP requests answered, by endpoint and status.\n"
      "# TYPE sowdb_http_requests_total counter\n";
  for (int e = 0; e < kEndpointCount; ++e) {
    for (std::size_t s = 0; s < kCountedStatuses.size(); ++s) {
      const std::uint64_t n = requests_[e][s].load(std::memory_order_relaxed);
      if (n == 0)
        continue;
      const std::string status =
          kCountedStatuses[s] == 0 ? "other" : std::to_string(kCountedStatuses[s]);
      add("sowdb_http_requests_total{endpoint=\"%s\",status=\"%s\"} %llu\n",
          to_string(static_cast<Endpoint>(e)),
          status.c_str(),
          static_cast<unsigned long long>(n));
    }
  }
  out +=
      "# HELP sowdb_http_request_duration_seconds Time from a request read to its response "
      "queued.\n"
      "# TYPE sowdb_http_request_duration_seconds histogram\n";
  std::uint64_t cumulative = 0;
  for (std::size_t b = 0; b <= kBuckets.size(); ++b) {
    cumulative += buckets_[b].load(std::memory_order_relaxed);
    if (b < kBuckets.size()) {
      add("sowdb_http_request_duration_seconds_bucket{le=\"%g\"} %llu\n",
          kBuckets[b],
          static_cast<unsigned long long>(cumulative));
    } else {
      add("sowdb_http_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n",
          static_cast<unsigned long long>(cumulative));
    }
  }
  add("sowdb_http_request_duration_seconds_sum %.6f\n",
      static_cast<double>(sum_micros_.load(std::memory_order_relaxed)) / 1e6);
  add("sowdb_http_request_duration_seconds_count %llu\n",
      static_cast<unsigned long long>(count_.load(std::memory_order_relaxed)));
  auto counter = [&](const char* name, const char* type, const char* help, double v) {
    add("# HELP %s %s\n# TYPE %s %s\n%s %.0f\n", name, help, name, type, name, v);
  };
  counter("sowdb_cache_hits_total",
          "counter",
          "Responses answered from the cache.",
          static_cast<double>(cache.hits));
  counter("sowdb_cache_misses_total",
          "counter",
          "Responses not in the cache.",
          static_cast<double>(cache.misses));
  counter("sowdb_cache_evictions_total",
          "counter",
          "Entries dropped to stay within the bound.",
          static_cast<double>(cache.evictions));
  counter("sowdb_cache_bytes", "gauge", "Bytes the cache holds.", static_cast<double>(cache.bytes));
  counter("sowdb_cache_entries",
          "gauge",
          "Responses the cache holds.",
          static_cast<double>(cache.entries));
  counter("sowdb_cache_capacity_bytes",
          "gauge",
          "The cache's bound.",
          static_cast<double>(cache.capacity));
  out +=
      "# HELP sowdb_work_queue_depth Requests waiting for a worker, by class (single lookups are "
      "taken first, then batches, then searches).\n"
      "# TYPE sowdb_work_queue_depth gauge\n";
  static constexpr const char* kClasses[] = {"lookup", "batch", "search"};
  for (std::size_t c = 0; c < queued_.size(); ++c) {
    add("sowdb_work_queue_depth{class=\"%s\"} %lld\n",
        kClasses[c],
        static_cast<long long>(queued_[c].load(std::memory_order_relaxed)));
  }
  counter("sowdb_connections_open",
          "gauge",
          "Connections open now.",
          static_cast<double>(connections_.load(std::memory_order_relaxed)));
  out +=
      "# HELP sowdb_connections_refused_total Connections answered 503 at accept: the table full "
      "of busy connections, or the client's address at its cap.\n"
      "# TYPE sowdb_connections_refused_total counter\n";
  add("sowdb_connections_refused_total{reason=\"full\"} %llu\n",
      static_cast<unsigned long long>(refused_full_.load(std::memory_order_relaxed)));
  add("sowdb_connections_refused_total{reason=\"client_cap\"} %llu\n",
      static_cast<unsigned long long>(refused_client_cap_.load(std::memory_order_relaxed)));
  counter("sowdb_idle_connections_closed_total",
          "counter",
          "Connections waiting for a request closed to make room for a new one.",
          static_cast<double>(idle_closed_.load(std::memory_order_relaxed)));
  return out;
}

}  // namespace sowdb::server
