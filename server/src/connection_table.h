// Who holds the server's connections: the bound on all of them and on those of one client
// address, and the connections waiting for a request, which a new one may push out when the
// table is full (docs/API.md, "Fair service").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace sowdb::server {

/// The connection table. THREAD SAFETY every member from any thread.
class ConnectionTable {
 public:
  /// At most `max_connections` connections (beyond them, an idle one is closed for a new one),
  /// at most `per_client` from one address.
  ConnectionTable(std::size_t max_connections, std::size_t per_client)
      : max_(max_connections), per_client_cap_(per_client) {}

  /// What admit() decided.
  enum class Admit { kYes, kFull, kClientCap };

  /// Counts a new connection from `client` (an address's bytes) when there is room, closing the
  /// longest idle connection to make it when the table is full. kFull: full and none idle;
  /// kClientCap: `client` holds its cap. A kYes must be matched by one release(client).
  Admit admit(const std::string& client);
  /// The end of a connection admitted from `client`.
  void release(const std::string& client);

  /// Whether the table is three-quarters full or more: idle connections then get short
  /// deadlines.
  bool pressed() const;
  /// Connections open now.
  std::size_t open() const;

  /// Registers a connection waiting for a request; `close` closes it (called at most once, from
  /// the thread that evicts it, without the table's lock). Returns its id, never 0.
  std::uint64_t idle(std::function<void()> close);
  /// The connection `id` is no longer waiting (a request arrived, or it ended); 0 is ignored.
  void busy(std::uint64_t id);

 private:
  mutable std::mutex mutex_;
  std::size_t max_;
  std::size_t per_client_cap_;
  std::size_t open_ = 0;
  std::map<std::string, std::size_t> per_client_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, std::function<void()>> idle_;  // oldest (smallest id) first
};

}  // namespace sowdb::server
