// The HTTP transport of `sowdb serve`: connections, keep-alive, timeouts and size limits around
// an Api. Never prints or exits; what it has to say goes to ServerOptions::log.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "sowdb/server/api.h"

namespace sowdb::server {

/// How the server listens and what it accepts.
struct ServerOptions {
  std::string bind = "127.0.0.1";  ///< Address to listen on (IPv4 or IPv6 literal).
  int port = 8080;                 ///< 0: any free port (Server::port says which).
  int io_threads = 2;              ///< Threads reading requests and writing responses.
  int workers = 2;  ///< Threads reading tables (positions not in the cache, batches).
  /// Workers batches may hold at once; 0: all workers but one (at least 1), so that a single
  /// position always finds a worker. Work is taken by class: single lookups first, then
  /// batches, then searches (a position with search_ms).
  int batch_workers = 0;
  /// A request must arrive whole within this time of the previous response (or of the
  /// connection's start), or the connection is closed: the defence against slow clients.
  std::chrono::milliseconds read_timeout{10000};
  std::size_t max_header_bytes = 8192;  ///< Request line and headers.
  std::size_t max_body_bytes = std::size_t{1}
                               << 20;  ///< A body beyond this is refused as too large.
  /// Connections at most. A new one beyond them closes the connection that has waited longest
  /// for a request; when none waits (every one busy with a request), the new one is answered
  /// 503 with Retry-After. From three-quarters full, a connection waiting for a request gets at
  /// most 2 s (not read_timeout).
  std::size_t max_connections = 4096;
  /// Connections from one client address at most; more are answered 503 with Retry-After.
  std::size_t max_connections_per_client = 64;
  /// A test hook: called on a worker, before it answers, with the endpoint of the request it
  /// took (a test holds workers here to see who else is served). Empty in a real server.
  std::function<void(Endpoint)> on_work;
  /// Receives one line per event worth a log (start, errors); may be empty. Called from the
  /// server's threads.
  std::function<void(const std::string&)> log;
};

/// A running server. THREAD SAFETY port() and url() from any thread; stop() from one.
class Server {
 public:
  /// Listens on options.bind:options.port and serves `api` until stop() or destruction.
  /// ERRORS throws std::runtime_error naming the address when it cannot listen (a port in use,
  /// no permission), and std::invalid_argument for a bind address that is not an IP address
  /// and options out of range.
  Server(std::shared_ptr<const Api> api, ServerOptions options);
  /// Stops (as stop()).
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The port listened on.
  int port() const noexcept;
  /// "http://ADDRESS:PORT/" (an IPv6 address in brackets).
  std::string url() const;
  /// Stops accepting, closes every connection and joins the threads; idempotent.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sowdb::server
