// The API's state and the endpoints that need its lookup of a variant text (position, batch in
// position_api.cpp; variant in api.cpp), shared by api.cpp and position_api.cpp.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "answer_fields.h"
#include "search_jobs.h"
#include "sowdb/analysis/position_answer.h"
#include "sowdb/analysis/proof_store.h"
#include "sowdb/analysis/refusal.h"
#include "sowdb/gen/start_search.h"
#include "sowdb/probe/tables.h"
#include "sowdb/server/api.h"
#include "sowdb/server/metrics.h"
#include "sowdb/server/query.h"
#include "sowdb/server/response_cache.h"
#include "sowdb/server/status.h"

namespace sowdb::server {

/// A served set's tables opened again for searches, at the first search.
struct SearchTables {
  std::once_flag once;
  std::shared_ptr<const TableSet> set;  ///< Null when opening failed.
  /// Set once `set` is written: health reads `set` only then, without the once_flag.
  std::atomic<bool> opened{false};
  /// The values read whole for the searches (ApiOptions::search_memory_bytes), layers appearing
  /// as they are read; null when they do not fit. Written with `set`.
  std::shared_ptr<const gen::PreloadedValues> values;
};

/// The layers of one served set found damaged or missing: at start (check_layers_at_start) or
/// by a probe that failed on them. Layers are never taken off: a file mended under a running
/// server is read again, but health keeps reporting the damage until a restart.
struct LayerHealth {
  std::mutex mutex;
  std::set<int> damaged;
};

/// One served table set.
struct Served {
  std::shared_ptr<const TableSet> set;
  std::string variant;  // canonical text
  Objective objective = Objective::kCompetitive;
  /// Positions proved by search (competitive sets with ApiOptions::proofs_root); may be null.
  std::shared_ptr<ProofStore> proofs;
  /// The tables again, opened for searches with a block cache of their own (searches probe the
  /// same blocks again and again; lookups keep theirs).
  std::shared_ptr<SearchTables> search = std::make_shared<SearchTables>();
  /// The highest layer file in the directory at start (above a gap too); -1 for none.
  int top = -1;
  std::shared_ptr<LayerHealth> health = std::make_shared<LayerHealth>();
};

/// Checks every layer of `s` up to its highest file, cheaply (table_health.cpp): a gap, a
/// header that does not read, a file shorter than its header says, a value or seek table that
/// fails its checks (FORMAT.md checks 1..13 and 15; the whole-file checksum is left to the first
/// probe of the layer). Sets s.top, records what fails in s.health and returns one line each
/// for the terminal (they may name files).
std::vector<std::string> check_layers_at_start(Served& s);

// Numbers read of a board at most before its count is judged: a clear "expected 12, got 13"
// for a slip, a refusal for a flood.
inline constexpr std::size_t kMaxBoardItems = 64;
// A store larger than any game is as impossible as one of this size, and game_outcome says why.
inline constexpr int kMaxStoreValue = 1000000;

/// How a position is to be answered, beyond the position itself.
struct ReportOptions {
  int search_ms = 0;    ///< A search of up to this many ms above the tables (0: refused).
  bool follow = false;  ///< A search not ended by then goes on as a job (202).
  bool worths = true;   ///< Every move's worth (false: the value and a proved best move).
  int max_plies = -1;   ///< The principal line's length at most; -1: ApiOptions::max_plies.
};

/// What a position asked for became: a body, or a refusal's status and message.
struct Answered {
  int status = http_status(HttpSuccess::kOk);
  std::string error;                        // when there is no body
  std::shared_ptr<const std::string> body;  // the answer
  bool needs_probe = false;                 // not in the cache and may_probe was false
  bool bounds = false;  // a search's answer that is not exact: never kept, sent no-store
};

/// A refusal as a position's answer: its status and its message without the paths the client
/// never gave.
Answered refused(const Refusal& r);

/// A refusal as a response counted under `endpoint`.
Response refusal_response(const Refusal& r, Endpoint endpoint);

/// The `max_plies` of a request as text: a whole number, cut to `cap`. Returns false and a
/// one-line reason in `error` otherwise.
bool parse_max_plies(std::string_view text, int cap, int& out, std::string& error);

/// The message of a 413 for an answer over `bound` bytes: what to ask instead.
std::string too_large_message(std::size_t bound);

struct Api::Impl {
  explicit Impl(ApiOptions o) : options(std::move(o)), cache(options.cache_bytes) {}

  ApiOptions options;
  std::vector<Served> served;
  std::string variants_body;
  /// The answer of GET /api/v1/variant for each served variant, by its canonical text.
  std::map<std::string, std::string, std::less<>> variant_bodies;
  mutable ResponseCache cache;
  mutable Metrics metrics;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  /// The served set for `variant` and `objective` (empty: competitive if served, else
  /// co-operative), or nullptr with the refusal (kBadRequest, kUnknownVariant, kNotServed).
  const Served* find(std::string_view variant, std::string_view objective, Refusal& refusal) const;

  /// The served set of the canonical variant text and `objective` (as find), or nullptr.
  const Served* find_canonical(std::string_view canonical, std::string_view objective) const;

  /// Searches running now (at most options.search_slots), single requests' and jobs' alike.
  mutable std::atomic<int> searching{0};

  /// Bytes of ApiOptions::search_memory_bytes given to served sets' values so far.
  mutable std::atomic<std::uint64_t> search_memory_used{0};

  /// The report of `board` with `stores` in `s`, from the cache or (with `may_probe`) the tables;
  /// above the tables by a search as `how` says (ReportOptions).
  Answered report(const Served& s,
                  const std::vector<int>& board,
                  const std::vector<int>& stores,
                  bool may_probe,
                  const ReportOptions& how = {}) const;

  /// The tables of `s` opened for searches (at the first search), else the lookups' set; the
  /// first call also starts reading their values whole when they fit
  /// (ApiOptions::search_memory_bytes).
  const TableSet& search_tables(const Served& s) const;

  /// The budget of a search of the server's: one thread, its own transposition table, the
  /// values of `s` read whole so far (search_tables, called before), else the tables probed, the
  /// proof store of `s`.
  static SearchBudget search_budget(const Served& s, bool worths);

  /// The search of `board` (above the tables of `s`) within `search_ms` ms, on a search slot.
  Answer<PositionAnswer> search(const Served& s,
                                const PositionQuery& query,
                                int search_ms,
                                bool worths) const;

  /// The search of `query` as a job (joined when one runs for `key`), waited for up to
  /// `search_ms` ms: its answer when it ends by then, else 202 with its progress.
  Answered follow(const Served& s,
                  const PositionQuery& query,
                  const std::string& key,
                  int search_ms,
                  bool worths) const;

  /// A competitive report's answer body (the report's JSON with "api") and whether it holds
  /// bounds only.
  static Answered report_body(const PositionReport& r);

  /// Records the layers of `s` whose probes have failed (TableSet::layer_error), after a
  /// refusal that is the server's fault (table_health.cpp).
  void note_failure(const Served& s) const;

  /// The body of GET /api/v1/health (table_health.cpp): "ok", or "degraded" with the variant and
  /// layers of every damaged or missing layer, never a path.
  std::string health_body() const;

  /// Lines of check_layers_at_start for every set, for Api::start_warnings.
  std::vector<std::string> start_warnings;

  /// GET and DELETE /api/v1/job.
  Response job(const Target& target, bool remove) const;

  /// GET /api/v1/position.
  std::optional<Response> position(const Target& target, bool may_probe) const;

  /// GET /api/v1/variant (api.cpp): the canonical text and facts of a served variant.
  Response variant(const Target& target) const;

  /// POST /api/v1/batch (batch_api.cpp).
  Response batch(std::string_view body) const;

  /// The response to `request` before the bound on its size and its encoding (api.cpp).
  std::optional<Response> route(const Request& request, bool may_probe) const;

  /// Searches that outlive their request. Last: destroyed first, its threads joined while the
  /// served sets and the cache they use still stand.
  std::unique_ptr<SearchJobs> jobs = std::make_unique<SearchJobs>(searching,
                                                                  options.search_slots,
                                                                  options.max_job_seconds,
                                                                  options.job_idle_seconds,
                                                                  options.job_keep_seconds);
};

}  // namespace sowdb::server
