// Who holds the server's connections: the bound on all of them and on those of one client
// address, and the connections waiting for a request, which a new one may push out when the
// table is full (docs/API.md, "Fair service").
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace sowdb::server {

/// The connection table. THREAD SAFETY every member from any thread.
class ConnectionTable {
 public:
  /// A connection's place in the list of those waiting for a request. The connection owns it,
  /// fills `owner` and `close` once, and leaves the list (busy()) before it is destroyed; the
  /// table links it without allocating, since every request passes through idle() and busy().
  struct Waiter {
    /// The connection, locked by an eviction so that it lives until `close` has run.
    std::weak_ptr<void> owner;
    /// Closes the connection `owner` (called at most once per eviction, without the table's
    /// lock, from the thread that evicts it).
    void (*close)(const std::shared_ptr<void>& owner) = nullptr;

   private:
    friend class ConnectionTable;
    Waiter* prev_ = nullptr;
    Waiter* next_ = nullptr;
    bool linked_ = false;
  };

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
  /// deadlines. Lock-free: asked on every request.
  bool pressed() const { return open_.load(std::memory_order_relaxed) * 4 >= max_ * 3; }
  /// Connections open now.
  std::size_t open() const { return open_.load(std::memory_order_relaxed); }

  /// `w` waits for a request from now on (appended to the list: the oldest waiter goes first).
  /// Idempotent while linked.
  void idle(Waiter& w);
  /// `w` no longer waits (a request arrived, or the connection ends); a waiter not in the list
  /// (evicted meanwhile, or never idle) is ignored.
  void busy(Waiter& w);

 private:
  // The oldest waiter whose connection is alive, unlinked, with its owner locked; or nullptr.
  // Called with the lock held.
  Waiter* take_oldest(std::shared_ptr<void>& owner);
  void unlink(Waiter& w);

  mutable std::mutex mutex_;
  std::size_t max_;
  std::size_t per_client_cap_;
  std::atomic<std::size_t> open_{0};  // written under mutex_, read without it
  std::map<std::string, std::size_t> per_client_;
  Waiter* head_ = nullptr;  // the longest waiting
  Waiter* tail_ = nullptr;
};

}  // namespace sowdb::server
