// Fair service (docs/API.md, "Fair service"): the workers take single lookups before batches, and
// batches never hold every worker, so a single position is answered while every batch worker is
// held (by the test hook ServerOptions::on_work); /metrics shows the batch waiting. Over a real
// server on a loopback port of its own choosing.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "generated_tables.h"
#include "sowdb/probe/tables.h"
#include "sowdb/server/api.h"
#include "sowdb/server/server.h"

namespace sowdb::server {
namespace {

// A guard against a hang, never a measure: every wait below ends long before it when the
// server works.
constexpr auto kGuard = std::chrono::seconds(60);

// A new connection to 127.0.0.1:`port` (receives time out after 60 s, a guard); -1 on failure.
int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  timeval tv{};
  tv.tv_sec = 60;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// One request on a new connection (Connection: close); the whole response, or "" on failure.
std::string round_trip(int port, const std::string& request) {
  const int fd = connect_loopback(port);
  if (fd < 0)
    return "";
  std::string out;
  if (::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size())) {
    char buf[65536];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
      out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string get(int port, const std::string& target) {
  return round_trip(port, "GET " + target + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
}

std::string post(int port, const std::string& target, const std::string& body) {
  return round_trip(port,
                    "POST " + target +
                        " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                        "Content-Type: application/json\r\nContent-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + body);
}

// Whether the server closed `fd` without a byte (recv sees the end; a timeout is not an end).
bool closed_by_server(int fd) {
  char c = 0;
  return ::recv(fd, &c, 1, 0) == 0;
}

int status_of(const std::string& response) {
  return response.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(response.substr(9, 3)) : 0;
}

// Holds every batch that reaches a worker until released.
struct BatchGate {
  std::mutex mutex;
  std::condition_variable changed;
  int held = 0;
  bool open = false;

  void on_work(Endpoint e) {
    if (e != Endpoint::kBatch)
      return;
    std::unique_lock lock(mutex);
    ++held;
    changed.notify_all();
    changed.wait_for(lock, kGuard, [this] { return open; });
  }
  bool wait_held(int n) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, kGuard, [&] { return held >= n; });
  }
  void release() {
    const std::lock_guard lock(mutex);
    open = true;
    changed.notify_all();
  }
};

TEST(FairService, SingleLookupAnsweredWhileEveryBatchWorkerIsHeld) {
  const auto api = std::make_shared<const Api>(
      std::vector<std::shared_ptr<const TableSet>>{
          TableSet::open(test::generated_dir({"oware/3x2", 8}))},
      ApiOptions{});
  BatchGate gate;
  ServerOptions options;
  options.port = 0;
  options.io_threads = 1;
  options.workers = 3;  // batches hold at most 2 of them
  options.on_work = [&gate](Endpoint e) { gate.on_work(e); };
  Server server(api, options);
  const int port = server.port();
  const std::string body =
      R"({"variant": "oware/3x2", "positions": [{"board": [1, 0, 2, 0, 1, 1]}]})";
  std::vector<std::string> batches(3);
  std::vector<std::thread> clients;
  for (std::string& out : batches)
    clients.emplace_back([&out, port, &body] { out = post(port, "/api/v1/batch", body); });
  ASSERT_TRUE(gate.wait_held(2)) << "two batches never reached a worker";
  // The third batch waits in the queue: /metrics says so (asked until it has arrived; a
  // bounded number of requests, no sleep).
  const std::string queued = "sowdb_work_queue_depth{class=\"batch\"} 1\n";
  std::string metrics;
  for (int i = 0; i < 20000 && metrics.find(queued) == std::string::npos; ++i)
    metrics = get(port, "/metrics");
  EXPECT_NE(metrics.find(queued), std::string::npos) << metrics;
  // Two batch workers held, a third batch queued: the single lookup (not in the cache: it
  // needs a worker) is answered all the same.
  const std::string single =
      get(port, "/api/v1/position?variant=oware/3x2&board=2,1,0,1,1,2&stores=1,1");
  {
    const std::lock_guard lock(gate.mutex);
    EXPECT_EQ(gate.held, 2) << "a third batch took the lookups' worker";
  }
  gate.release();
  for (std::thread& t : clients)
    t.join();
  EXPECT_EQ(status_of(single), 200) << single.substr(0, 300);
  for (const std::string& b : batches)
    EXPECT_EQ(status_of(b), 200) << b.substr(0, 300);
  server.stop();
}

// A table full of idle connections: each new request pushes out the connection that has waited
// longest, which sees its end, and is answered. Two I/O threads, so that evictions cross threads.
TEST(FairService, IdleConnectionsGiveWayOldestFirst) {
  const auto api = std::make_shared<const Api>(
      std::vector<std::shared_ptr<const TableSet>>{
          TableSet::open(test::generated_dir({"oware/3x2", 8}))},
      ApiOptions{});
  ServerOptions options;
  options.port = 0;
  options.io_threads = 2;
  options.max_connections = 4;
  Server server(api, options);
  const int port = server.port();
  std::vector<int> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(connect_loopback(port));  // an idle client: sends nothing
    ASSERT_GE(idle.back(), 0);
  }
  constexpr int kRounds = 24;
  for (int round = 0; round < kRounds; ++round) {
    EXPECT_EQ(status_of(get(port, "/api/v1/health")), 200) << "round " << round;
    // The oldest idle connection made room (a later connection may have taken another's).
    EXPECT_TRUE(closed_by_server(idle.front())) << "round " << round;
    ::close(idle.front());
    idle.erase(idle.begin());
    while (idle.size() < 4) {
      idle.push_back(connect_loopback(port));  // an idle client: sends nothing
      ASSERT_GE(idle.back(), 0);
    }
  }
  const std::string metrics = get(port, "/metrics");
  const std::string counter = "\nsowdb_idle_connections_closed_total ";
  const std::size_t at = metrics.find(counter);
  ASSERT_NE(at, std::string::npos) << metrics;
  EXPECT_GE(std::stod(metrics.substr(at + counter.size())), kRounds);
  for (const int fd : idle)
    ::close(fd);
  server.stop();
}

}  // namespace
}  // namespace sowdb::server
