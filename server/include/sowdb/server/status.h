// The server's one mapping to HTTP status codes: of the refusals of analysis/ (a position the
// tables cannot answer, an unknown variant, ...), of HTTP's own refusals (a path that does not
// exist, a method, a body over its bound) and of the answers that are not refusals. No other
// file of the server writes a status code (docs/API.md lists them).
#pragma once

#include <array>
#include <cstdint>

#include "sowdb/analysis/refusal.h"

namespace sowdb::server {

/// Why the server refused a request at the level of HTTP, before any question reached the
/// analysis library.
enum class HttpRefusal : std::uint8_t {
  kMalformed,         ///< A request, target, query or body that does not parse.
  kNoSuchResource,    ///< No such endpoint, page or file.
  kMethodNotAllowed,  ///< A method the path does not take (the Allow header says which).
  kTooLarge,          ///< A body, header or batch over its bound.
  kInternal,          ///< An exception escaped the API: the server's fault.
  kUnavailable,       ///< The server cannot take the request now.
};

/// The answers that are not refusals.
enum class HttpSuccess : std::uint8_t {
  kOk,           ///< The answer.
  kNotModified,  ///< A static file the client holds (If-None-Match).
  kAccepted,     ///< A search job runs on: its progress now, its answer when it ends.
  kNoContent,    ///< A CORS preflight (OPTIONS) answered: the headers say what is allowed.
};

/// The status of an answer.
constexpr int http_status(HttpSuccess s) noexcept {
  switch (s) {
    case HttpSuccess::kNotModified:
      return 304;
    case HttpSuccess::kAccepted:
      return 202;
    case HttpSuccess::kNoContent:
      return 204;
    case HttpSuccess::kOk:
      break;
  }
  return 200;
}

/// The status of HTTP's own refusal `r`.
constexpr int http_status(HttpRefusal r) noexcept {
  switch (r) {
    case HttpRefusal::kMalformed:
      return 400;
    case HttpRefusal::kNoSuchResource:
      return 404;
    case HttpRefusal::kMethodNotAllowed:
      return 405;
    case HttpRefusal::kTooLarge:
      return 413;
    case HttpRefusal::kInternal:
      return 500;
    case HttpRefusal::kUnavailable:
      return 503;
  }
  return 500;
}

/// The status of a refusal of `kind`: 400 for a request or position that is malformed, 404 for a
/// variant that is unknown or not served, 422 for a well-formed question the tables cannot
/// answer (too many seeds, stores the game cannot hold, ...), 500 for the server's own failure (a
/// damaged or missing layer it serves), 503 when it cannot take the request now.
constexpr int http_status(RefusalKind kind) noexcept {
  switch (kind) {
    case RefusalKind::kBadRequest:
    case RefusalKind::kBadPosition:
      return 400;
    case RefusalKind::kUnknownVariant:
    case RefusalKind::kNotServed:
      return 404;
    case RefusalKind::kBadStores:
    case RefusalKind::kTooManySeeds:
    case RefusalKind::kGameOver:
    case RefusalKind::kIllegalMove:
    case RefusalKind::kWrongObjective:
    case RefusalKind::kUnreachable:
      return 422;
    case RefusalKind::kBusy:
    case RefusalKind::kInterrupted:
      return 503;
    case RefusalKind::kMissingTable:
    case RefusalKind::kCorruptTable:
    case RefusalKind::kUnusableTables:
    case RefusalKind::kIoFailure:
    case RefusalKind::kInternal:
      return 500;
  }
  return 500;
}

/// Whether a response of `status` is the server's fault (logged as an error).
constexpr bool is_server_fault(int status) noexcept {
  return status >= 500;
}

/// Whether `status` is an answer with a body of its own (not 1xx, 204 or 304).
constexpr bool has_body(int status) noexcept {
  return status >= 200 && status != 204 && status != 304;
}

/// The statuses the metrics count one by one (every status the mappings above give), then 0 for
/// any other.
inline constexpr std::array<int, 12> kCountedStatuses = {
    200, 202, 204, 304, 400, 404, 405, 413, 422, 500, 503, 0};

}  // namespace sowdb::server
