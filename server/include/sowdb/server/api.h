// The HTTP API of `sowdb serve` apart from the transport: a request (method, target, body) in,
// a response (status, type, body) out. Every position answer is the analysis library's report
// JSON (report_json.h) plus "api": 1, so it equals `sowdb probe --json`. docs/API.md is the
// reference.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sowdb/probe/tables.h"
#include "sowdb/server/metrics.h"
#include "sowdb/server/response_cache.h"

namespace sowdb::server {

/// The API version in every path (/api/v1/...) and in every JSON answer ("api": 1).
inline constexpr int kApiVersion = 1;

/// Bounds and sizes of the API.
struct ApiOptions {
  std::size_t cache_bytes = std::size_t{64} << 20;    ///< Response cache bound.
  std::size_t max_batch = 1000;                       ///< Positions in one batch request.
  std::size_t max_body_bytes = std::size_t{1} << 20;  ///< A request body (the batch).
  /// Principal line length, as `sowdb probe`'s default --max-plies; a request's `max_plies`
  /// asks for less (more is cut to this).
  int max_plies = 1000;
  /// The largest answer body (before compression) the API builds: a larger one is refused
  /// with 413 rather than sent cut short. A batch stops building its answer when it passes this.
  std::size_t max_answer_bytes = std::size_t{32} << 20;
  /// The longest search a position request may ask for (`search_ms`); more is cut to this.
  int max_search_ms = 10000;
  /// Searches running at once (each on one of the transport's worker threads); a position that
  /// needs a search while they all run is refused as busy (503). WHY one: a search keeps its
  /// thread for up to max_search_ms, and the other workers must stay free for lookups.
  int search_slots = 1;
  /// The values of the served sets read whole for the searches, in bytes over every set at
  /// most: a set's values are read in a thread of their own from its first search on (the
  /// searches meanwhile probe the tables) when they fit in what is left of this and in a
  /// search's own bound (gen::kPreloadBytes, or a quarter of the memory); 0: never, every
  /// search probes the tables. Kept until the server ends.
  std::uint64_t search_memory_bytes = std::uint64_t{1} << 30;
  /// The longest a followed search (`follow=1`) runs on as a job after its request, in seconds.
  double max_job_seconds = 300;
  /// A job nobody has asked about (GET /api/v1/job) for this long stops, in seconds.
  double job_idle_seconds = 10;
  /// How long an ended job's answer stays to be asked for, in seconds.
  double job_keep_seconds = 60;
  /// The root of the proof stores (proof_store_path: ROOT/proofs/NAME.sowproof, one per rule
  /// set): positions proved by search are read and kept there. Empty: no store.
  std::filesystem::path proofs_root;
  /// The origin of pages on other sites allowed to call the API (CORS), e.g.
  /// "https://example.org", or "*" for any; empty (the default): none. When set, an API answer
  /// to a request from that origin carries Access-Control-Allow-Origin, and a preflight
  /// (OPTIONS on an API path) is answered 204 with the methods and headers allowed.
  std::string cors_origin;
};

/// A request as the transport read it.
struct Request {
  std::string_view method;                ///< "GET", "POST", ...
  std::string_view target;                ///< Path and query, as sent.
  std::string_view body;                  ///< The body (POST).
  std::string_view if_none_match;         ///< The If-None-Match header, or empty.
  std::string_view accept_encoding = {};  ///< The Accept-Encoding header, or empty.
  std::string_view origin = {};           ///< The Origin header, or empty.
};

/// Answers of the API (not the page's files) at least this long are sent gzip-compressed when
/// the request accepts gzip; shorter ones gain too little to be worth the CPU.
inline constexpr std::size_t kGzipMinBytes = 1024;

/// A response for the transport to send.
struct Response {
  int status = http_status(HttpSuccess::kOk);
  std::string content_type = "application/json";
  std::string body;  ///< The body, unless shared_body is set.
  /// When set, the body, shared with the response cache rather than copied (`body` is empty).
  std::shared_ptr<const std::string> shared_body;
  std::string etag;              ///< When set: the ETag header (quoted).
  std::string cache_control;     ///< When set: the Cache-Control header.
  std::string allow;             ///< For a method not allowed: the Allow header.
  std::string content_encoding;  ///< When set: the Content-Encoding header ("gzip").
  std::string vary;              ///< When set: the Vary header ("Accept-Encoding").
  /// Further headers (CORS), name and value, in order.
  std::vector<std::pair<std::string, std::string>> headers;
  Endpoint endpoint = Endpoint::kOther;
  /// Server faults behind this response that its status does not show (a batch position's
  /// server fault), one line each, for the transport to log.
  std::vector<std::string> faults;

  /// The body to send: `*shared_body` when set, else `body`. Valid while the response lives.
  std::string_view payload() const noexcept { return shared_body ? *shared_body : body; }
};

/// The API over a fixed list of table sets.
/// THREAD SAFETY answer may be called from any number of threads at once (TableSet's probes
/// are thread safe; the cache and the metrics lock or use atomics).
class Api {
 public:
  /// Serves `tables`, each named by its variant and objective. ERRORS throws
  /// std::invalid_argument when two sets have the same variant and objective, or none is given.
  Api(std::vector<std::shared_ptr<const TableSet>> tables, ApiOptions options);
  ~Api();
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  /// The response to `request`. With `may_probe` false, returns nullopt instead of reading
  /// tables (a position not in the cache, a batch): the transport then calls again with
  /// `may_probe` true off its I/O threads. An answer over ApiOptions::max_answer_bytes is a
  /// 413; an API answer of at least kGzipMinBytes is gzip-compressed when the request's
  /// Accept-Encoding admits it (every API answer then carries Vary: Accept-Encoding). Never
  /// throws except std::bad_alloc.
  std::optional<Response> answer(const Request& request, bool may_probe) const;

  /// The counters the transport records into and /metrics prints.
  Metrics& metrics() const;

  /// One line per served table set ("oware/6x4 competitive, layers 0..20"), for the log.
  std::vector<std::string> describe_tables() const;

  /// What the check of every layer at construction found: one line per layer that is missing
  /// or damaged (a gap below the highest layer file, a header that does not read, a truncated
  /// file, a value or seek table that fails its checks), naming its file, for the terminal;
  /// empty when every layer passed. GET /api/v1/health then reports "degraded" (without the
  /// files). The whole-file checksum is left to a layer's first probe, whose failure health
  /// reports from then on.
  std::vector<std::string> start_warnings() const;

  /// The endpoint a request for `target` (path and query, as sent) is counted under in the
  /// metrics, as answer() classifies it; kOther for a target that does not parse. For answers
  /// the transport makes itself (a body over the bound: too large).
  static Endpoint endpoint_of(std::string_view target);

  /// {"status": status, "error": message} as a response.
  static Response error(int status, const std::string& message);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sowdb::server
