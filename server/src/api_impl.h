// The API's state and the endpoints that need its lookup of a variant text (position, batch in
// position_api.cpp; variant in api.cpp), shared by api.cpp and position_api.cpp.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sowdb/analysis/refusal.h"
#include "sowdb/probe/tables.h"
#include "sowdb/server/api.h"
#include "sowdb/server/metrics.h"
#include "sowdb/server/query.h"
#include "sowdb/server/response_cache.h"
#include "sowdb/server/status.h"

namespace sowdb::server {

/// One served table set.
struct Served {
  std::shared_ptr<const TableSet> set;
  std::string variant;  // canonical text
  Objective objective = Objective::kCompetitive;
};

/// What a position asked for became: a body, or a refusal's status and message.
struct Answered {
  int status = http_status(HttpSuccess::kOk);
  std::string error;                        // when there is no body
  std::shared_ptr<const std::string> body;  // the answer
  bool needs_probe = false;                 // not in the cache and may_probe was false
};

struct Api::Impl {
  explicit Impl(const ApiOptions& o) : options(o), cache(o.cache_bytes) {}

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

  /// The report of `board` with `stores` in `s`, from the cache or (with `may_probe`) the tables.
  Answered report(const Served& s,
                  const std::vector<int>& board,
                  const std::vector<int>& stores,
                  bool may_probe) const;

  /// GET /api/v1/position.
  std::optional<Response> position(const Target& target, bool may_probe) const;

  /// GET /api/v1/variant (api.cpp): the canonical text and facts of a served variant.
  Response variant(const Target& target) const;

  /// POST /api/v1/batch.
  Response batch(std::string_view body) const;
};

}  // namespace sowdb::server
