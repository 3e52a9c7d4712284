#include "sowdb/server/api.h"

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "api_impl.h"
#include "gzip.h"
#include "sowdb/analysis/table_description.h"
#include "sowdb/probe/table_directory.h"
#include "sowdb/probe/variant.h"
#include "sowdb/server/embedded_files.h"
#include "sowdb/server/query.h"
#include "sowdb/server/status.h"

namespace sowdb::server {
namespace {

// What the page needs to know of a served set's variant without parsing its text: the canonical
// text, the preset, the family, the board and the rules in words.
nlohmann::json variant_facts(const TableSet& set) {
  const Variant& v = set.variant();
  const Preset* preset = find_preset(v.preset);
  return nlohmann::json{
      {"variant", v.to_string()},
      {"preset", v.preset},
      {"description", preset != nullptr ? std::string(preset->description) : std::string()},
      {"family", std::string(to_string(set.rules().family))},
      {"rules", describe(set.rules())},
      {"pits_per_side", set.rules().pits_per_side},
      {"seeds_per_pit", v.seeds_per_pit},
      {"game_seeds", v.total_stones()},
  };
}

// The facts /api/v1/variants gives of one served table set; no filesystem path.
nlohmann::json table_info(const TableSet& set) {
  const TableDescription d = describe_tables(set);
  nlohmann::json info = variant_facts(set);
  info["objective"] = to_string(d.objective);
  info["layers"] = {{"min", 0}, {"max", d.max_stones}};
  info["positions"] = d.positions;
  info["bytes"] = d.bytes;
  return info;
}

}  // namespace

Response Api::error(int status, const std::string& message) {
  Response r;
  r.status = status;
  r.body = nlohmann::json{{"status", status}, {"error", message}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  r.cache_control = "no-store";
  return r;
}

Api::Api(std::vector<std::shared_ptr<const TableSet>> tables, ApiOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  if (tables.empty())
    throw std::invalid_argument("no table directory to serve");
  nlohmann::json list = nlohmann::json::array();
  std::map<std::string, nlohmann::json, std::less<>> by_variant;  // GET /api/v1/variant
  for (auto& set : tables) {
    Served s;
    s.variant = set->variant().to_string();
    s.objective = set->objective();
    for (const Served& other : impl_->served) {
      if (other.variant == s.variant && other.objective == s.objective) {
        throw std::invalid_argument(
            "two table directories hold " + s.variant + " " + to_string(s.objective) +
            " tables: " + other.set->directory().string() + " and " + set->directory().string());
      }
    }
    list.push_back(table_info(*set));
    nlohmann::json& one = by_variant[s.variant];
    if (one.is_null()) {
      one = variant_facts(*set);
      one["api"] = kApiVersion;
      one["tables"] = nlohmann::json::array();
    }
    one["tables"].push_back(list.back());
    const std::filesystem::path& proofs_root = impl_->options.proofs_root;
    if (!proofs_root.empty() && s.objective == Objective::kCompetitive) {
      // A store that cannot be used answers nothing and keeps nothing: searches go on without.
      s.proofs =
          std::make_shared<ProofStore>(proof_store_path(proofs_root, set->rules()), set->rules());
    }
    s.set = std::move(set);
    for (std::string& line : check_layers_at_start(s))
      impl_->start_warnings.push_back(std::move(line));
    impl_->served.push_back(std::move(s));
  }
  impl_->variants_body = nlohmann::json{{"api", kApiVersion}, {"tables", list}}.dump();
  for (const auto& [variant, body] : by_variant)
    impl_->variant_bodies.emplace(variant, body.dump());
}

Api::~Api() = default;

Metrics& Api::metrics() const {
  return impl_->metrics;
}

std::vector<std::string> Api::start_warnings() const {
  return impl_->start_warnings;
}

std::vector<std::string> Api::describe_tables() const {
  std::vector<std::string> out;
  for (const Served& s : impl_->served) {
    out.push_back(s.variant + " " + to_string(s.objective) + ", layers 0.." +
                  std::to_string(s.set->max_stones()));
  }
  return out;
}

namespace {

// The response to a refusal: its status from the one mapping (status.h).
template <typename Why>
Response error_response(Why why, const std::string& message) {
  return Api::error(http_status(why), message);
}

Response method_not_allowed(const Request& request, const char* allowed) {
  Response r = error_response(
      HttpRefusal::kMethodNotAllowed,
      "method " + printable(request.method) + " is not allowed here; use " + allowed);
  r.allow = allowed;
  return r;
}

// An embedded file, or not modified when the client holds it.
Response static_file(const Request& request, std::string_view path) {
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path != path)
      continue;
    Response r;
    r.endpoint = Endpoint::kStatic;
    r.etag = "\"" + std::string(f.etag) + "\"";
    // The page's files change with the binary: revalidate each time (cheap: not modified).
    r.cache_control = "no-cache";
    r.content_type = std::string(f.content_type);
    if (request.if_none_match == r.etag) {
      r.status = http_status(HttpSuccess::kNotModified);
      return r;
    }
    r.body = std::string(f.bytes);
    return r;
  }
  Response r = error_response(HttpRefusal::kNoSuchResource, "no such file: " + printable(path, 80));
  r.endpoint = Endpoint::kStatic;
  return r;
}

Response with_endpoint(Response r, Endpoint e) {
  r.endpoint = e;
  return r;
}

// The endpoint of `path` in the metrics: the paths answer() serves, kOther for the rest.
Endpoint endpoint_of_path(std::string_view path) {
  if (path == "/api/v1/position")
    return Endpoint::kPosition;
  if (path == "/api/v1/batch")
    return Endpoint::kBatch;
  if (path == "/api/v1/variants")
    return Endpoint::kVariants;
  if (path == "/api/v1/variant")
    return Endpoint::kVariant;
  if (path == "/api/v1/job")
    return Endpoint::kJob;
  if (path == "/api/v1/health")
    return Endpoint::kHealth;
  if (path == "/metrics")
    return Endpoint::kMetrics;
  if (path == "/" || path == "/index.html" || path.rfind("/static/", 0) == 0)
    return Endpoint::kStatic;
  return Endpoint::kOther;
}

Response json_ok(std::string body, Endpoint endpoint) {
  Response r;
  r.body = std::move(body);
  r.endpoint = endpoint;
  r.cache_control = "no-store";
  return r;
}

}  // namespace

Response Api::Impl::variant(const Target& target) const {
  for (std::size_t i = 0; i < target.params.size(); ++i) {
    const std::string& name = target.params[i].first;
    if (name != "variant")
      return error_response(RefusalKind::kBadRequest,
                            "unknown parameter '" + printable(name) + "' (parameters: variant)");
    if (i > 0)
      return error_response(RefusalKind::kBadRequest, "parameter 'variant' given twice");
  }
  const std::string* text = find_param(target, "variant");
  if (text == nullptr)
    return error_response(RefusalKind::kBadRequest,
                          "missing parameter 'variant' (e.g. variant=oware)");
  Refusal refusal;
  const Served* s = find(*text, "", refusal);
  if (s == nullptr)
    return error_response(refusal.kind, refusal.message_without_paths());
  Response r = json_ok(variant_bodies.at(s->variant), Endpoint::kVariant);
  // What a served variant is does not change while the server runs, as a position's answer.
  r.cache_control = "public, max-age=86400";
  return r;
}

Endpoint Api::endpoint_of(std::string_view target) {
  Target parsed;
  std::string error;
  return parse_target(target, parsed, error) ? endpoint_of_path(parsed.path) : Endpoint::kOther;
}

std::string too_large_message(std::size_t bound) {
  return "the answer would be larger than " + std::to_string(bound) +
         " bytes (--max-answer-kb); ask for fewer positions, a shorter line (max_plies) or fewer "
         "keys (fields)";
}

namespace {

// Whether a request from `origin` may read the API's answers under `allowed` (--cors).
bool cors_allows(const std::string& allowed, std::string_view origin) {
  return !allowed.empty() && !origin.empty() && (allowed == "*" || origin == allowed);
}

// The CORS headers of an answer to `origin` under `allowed`.
void add_cors(Response& r, const std::string& allowed, std::string_view origin) {
  r.headers.emplace_back("Access-Control-Allow-Origin",
                         allowed == "*" ? std::string("*") : std::string(origin));
  if (allowed != "*")
    r.vary = r.vary.empty() ? "Origin" : r.vary + ", Origin";
}

// A preflight (OPTIONS on an API path) answered for `origin`: what a page may send.
Response preflight(Endpoint endpoint) {
  Response r;
  r.status = http_status(HttpSuccess::kNoContent);
  r.endpoint = endpoint;
  r.cache_control = "no-store";
  r.headers.emplace_back("Access-Control-Allow-Methods", "GET, HEAD, POST, DELETE");
  r.headers.emplace_back("Access-Control-Allow-Headers", "Content-Type");
  r.headers.emplace_back("Access-Control-Max-Age", "86400");
  return r;
}

}  // namespace

std::optional<Response> Api::answer(const Request& request, bool may_probe) const {
  const std::string& cors = impl_->options.cors_origin;
  const bool cross = cors_allows(cors, request.origin);
  if (cross && request.method == "OPTIONS") {
    const Endpoint endpoint = endpoint_of(request.target);
    if (endpoint != Endpoint::kStatic && endpoint != Endpoint::kOther) {
      Response r = preflight(endpoint);
      add_cors(r, cors, request.origin);
      return r;
    }
  }
  std::optional<Response> r = impl_->route(request, may_probe);
  if (!r)
    return r;
  if (r->payload().size() > impl_->options.max_answer_bytes) {
    const Endpoint endpoint = r->endpoint;
    r = error_response(HttpRefusal::kTooLarge, too_large_message(impl_->options.max_answer_bytes));
    r->endpoint = endpoint;
  }
  // The page's files carry an ETag of their bytes; the API's answers alone are compressed.
  if (r->endpoint == Endpoint::kStatic)
    return r;
  r->vary = "Accept-Encoding";
  if (cross)
    add_cors(*r, cors, request.origin);
  if (has_body(r->status) && r->payload().size() >= kGzipMinBytes &&
      accepts_gzip(request.accept_encoding)) {
    if (std::optional<std::string> packed = gzip(r->payload())) {
      r->body = std::move(*packed);
      r->shared_body.reset();
      r->content_encoding = "gzip";
    }
  }
  return r;
}

std::optional<Response> Api::Impl::route(const Request& request, bool may_probe) const {
  Target target;
  std::string error;
  if (!parse_target(request.target, target, error))
    return error_response(HttpRefusal::kMalformed, "malformed request target: " + error);
  const std::string& path = target.path;
  const Endpoint endpoint = endpoint_of_path(path);
  // HEAD is GET without the body (RFC 9110): the transport drops the body, keeps its length.
  const bool get = request.method == "GET" || request.method == "HEAD";
  if (endpoint == Endpoint::kPosition) {
    if (!get)
      return with_endpoint(method_not_allowed(request, "GET, HEAD"), endpoint);
    return position(target, may_probe);
  }
  if (endpoint == Endpoint::kBatch) {
    if (request.method != "POST")
      return with_endpoint(method_not_allowed(request, "POST"), endpoint);
    if (!may_probe)
      return std::nullopt;
    return batch(request.body);
  }
  if (endpoint == Endpoint::kVariants) {
    if (!get)
      return with_endpoint(method_not_allowed(request, "GET, HEAD"), endpoint);
    return json_ok(variants_body, endpoint);
  }
  if (endpoint == Endpoint::kVariant) {
    if (!get)
      return with_endpoint(method_not_allowed(request, "GET, HEAD"), endpoint);
    return with_endpoint(variant(target), endpoint);
  }
  if (endpoint == Endpoint::kJob) {
    if (!get && request.method != "DELETE")
      return with_endpoint(method_not_allowed(request, "GET, HEAD, DELETE"), endpoint);
    return job(target, request.method == "DELETE");
  }
  if (endpoint == Endpoint::kHealth) {
    if (!get)
      return with_endpoint(method_not_allowed(request, "GET, HEAD"), endpoint);
    return json_ok(health_body(), Endpoint::kHealth);
  }
  if (endpoint == Endpoint::kMetrics) {
    if (!get)
      return with_endpoint(method_not_allowed(request, "GET, HEAD"), endpoint);
    Response r = json_ok(metrics.text(cache.stats()), Endpoint::kMetrics);
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    return r;
  }
  if (endpoint == Endpoint::kStatic) {
    if (!get)
      return with_endpoint(method_not_allowed(request, "GET, HEAD"), endpoint);
    // Every position is a permalink: / with any query string is the page.
    const bool page = path == "/" || path == "/index.html";
    return static_file(request,
                       page ? std::string_view("index.html") : std::string_view(path).substr(8));
  }
  if (path.rfind("/api/", 0) == 0) {
    return error_response(HttpRefusal::kNoSuchResource,
                          "no such endpoint: " + printable(path, 80) +
                              " (endpoints: /api/v1/position, /api/v1/batch, /api/v1/variants, "
                              "/api/v1/variant, /api/v1/job, /api/v1/health, /metrics)");
  }
  return error_response(HttpRefusal::kNoSuchResource, "no such page: " + printable(path, 80));
}

}  // namespace sowdb::server
