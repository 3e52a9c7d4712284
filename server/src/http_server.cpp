// The transport, on Boost.Beast over Asio (docs/decisions/0011-http-library.md): a few I/O
// threads serve every connection asynchronously, so an idle keep-alive or a slow client holds
// no thread; requests that read tables run on a separate pool of workers so that a cold probe
// never stalls the connections of its I/O thread.
#include <utility>  // before Boost: Boost 1.74's Asio uses std::exchange without including it
// clang-format off
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
// clang-format on
#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "connection_table.h"
#include "sowdb/server/server.h"
#include "sowdb/server/status.h"
#include "work_scheduler.h"

namespace sowdb::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// The deadline of a connection waiting for a request while the table is three-quarters full.
constexpr std::chrono::milliseconds kPressedTimeout{2000};
// How long a refused connection is drained after its 503, and how many are answered at once.
constexpr std::chrono::milliseconds kRefusalLinger{1000};
constexpr std::size_t kMaxRefusing = 256;

// What every connection shares.
struct Shared {
  std::shared_ptr<const Api> api;
  ServerOptions options;
  WorkScheduler* workers = nullptr;
  std::optional<ConnectionTable> table;
  std::atomic<std::size_t> refusing{0};  // refused connections being answered 503

  void log(const std::string& line) const {
    if (options.log)
      options.log(line);
  }
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Shared& shared, std::string client)
      : stream_(std::move(socket)), shared_(shared), client_(std::move(client)) {
    shared_.api->metrics().connections(1);
  }
  ~Session() {
    shared_.table->busy(waiter_);
    shared_.table->release(client_);
    shared_.api->metrics().connections(-1);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(shared_.options.max_header_bytes));
    parser_->body_limit(shared_.options.max_body_bytes);
    // The whole request (headers and body) must arrive within the timeout: a client that
    // trickles bytes is cut off however steadily it trickles. When the table is filling, the
    // deadline is short: idle connections must not hold out new ones.
    stream_.expires_after(shared_.table->pressed()
                              ? std::min(shared_.options.read_timeout, kPressedTimeout)
                              : shared_.options.read_timeout);
    // Until its header has arrived, a full table may close this connection for a new one.
    if (!waiter_.close) {
      waiter_.owner = weak_from_this();
      waiter_.close = [](const std::shared_ptr<void>& owner) {
        auto self = std::static_pointer_cast<Session>(owner);
        asio::post(self->stream_.get_executor(), [self] { self->evict(); });
      };
    }
    waiting_ = true;
    shared_.table->idle(waiter_);
    http::async_read_header(
        stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
          self->on_header(ec);
        });
  }

 private:
  // A client that asks before sending its body (curl does above 1 KiB) is told to go on, or it
  // waits a second; a body the bound refuses was refused from the Content-Length already.
  // On this connection's executor, for a full table: closed unless a request has begun meanwhile.
  void evict() {
    if (!waiting_)
      return;
    shared_.api->metrics().idle_closed();
    beast::error_code ignored;
    stream_.socket().close(ignored);
  }

  void on_header(beast::error_code ec) {
    shared_.table->busy(waiter_);
    waiting_ = false;
    if (ec) {
      on_read(ec);
      return;
    }
    const auto expect = parser_->get().find(http::field::expect);
    if (expect != parser_->get().end() && beast::iequals(expect->value(), "100-continue")) {
      auto go_on = std::make_shared<http::response<http::empty_body>>(http::status::continue_,
                                                                      parser_->get().version());
      http::async_write(
          stream_, *go_on, [self = shared_from_this(), go_on](beast::error_code e, std::size_t) {
            if (!e)
              self->read_body();
          });
      return;
    }
    read_body();
  }

  void read_body() {
    http::async_read(
        stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
          self->on_read(ec);
        });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream) {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      return;
    }
    if (ec == http::error::body_limit) {
      send_error(
          HttpRefusal::kTooLarge,
          "request body larger than " + std::to_string(shared_.options.max_body_bytes) + " bytes");
      return;
    }
    if (ec == http::error::header_limit) {
      send_error(HttpRefusal::kTooLarge,
                 "request line and headers larger than " +
                     std::to_string(shared_.options.max_header_bytes) + " bytes");
      return;
    }
    if (ec && ec.category() == http::make_error_code(http::error::bad_target).category() &&
        ec != http::error::partial_message) {
      send_error(HttpRefusal::kMalformed, "malformed HTTP request: " + ec.message());
      return;
    }
    if (ec)
      return;  // timeout, reset, a partial message at close: nothing to answer
    handle();
  }

  void handle() {
    started_ = std::chrono::steady_clock::now();
    const auto& req = parser_->get();
    request_ = Request{std::string_view(req.method_string().data(), req.method_string().size()),
                       std::string_view(req.target().data(), req.target().size()),
                       std::string_view(req.body().data(), req.body().size()),
                       {}};
    const auto inm = req.find(http::field::if_none_match);
    if (inm != req.end())
      request_.if_none_match = std::string_view(inm->value().data(), inm->value().size());
    const auto origin = req.find(http::field::origin);
    if (origin != req.end())
      request_.origin = std::string_view(origin->value().data(), origin->value().size());
    const auto encodings = req.find(http::field::accept_encoding);
    if (encodings != req.end()) {
      request_.accept_encoding =
          std::string_view(encodings->value().data(), encodings->value().size());
    }
    std::optional<Response> r = shared_.api->answer(request_, false);
    if (r) {
      send(std::move(*r), false);
      return;
    }
    // Reading tables may take milliseconds (decoding blocks): off this I/O thread, in the queue
    // of its class, so that a single lookup never waits behind batches or searches.
    const Endpoint endpoint = Api::endpoint_of(request_.target);
    const WorkClass c = endpoint == Endpoint::kBatch ? WorkClass::kBatch
                        : request_.target.find("search_ms=") != std::string_view::npos
                            ? WorkClass::kSearch
                            : WorkClass::kLookup;
    Metrics& metrics = shared_.api->metrics();
    metrics.queued(static_cast<int>(c), 1);
    shared_.workers->post(c, [self = shared_from_this(), c, endpoint, &metrics] {
      metrics.queued(static_cast<int>(c), -1);
      if (self->shared_.options.on_work)
        self->shared_.options.on_work(endpoint);
      std::optional<Response> answer;
      try {
        answer = self->shared_.api->answer(self->request_, true);
      } catch (...) {
        // refusal_of: the one place an exception becomes a refusal; its path-free message.
        const Refusal why = refusal_of(std::current_exception());
        answer =
            Api::error(http_status(why.kind), "internal error: " + why.message_without_paths());
      }
      asio::post(self->stream_.get_executor(),
                 [self, a = std::move(*answer)]() mutable { self->send(std::move(a), false); });
    });
  }

  void send_error(HttpRefusal why, const std::string& message) {
    started_ = std::chrono::steady_clock::now();
    Response r = Api::error(http_status(why), message);
    // Counted where answer() would count the request (a batch body over the bound under batch).
    // Not only once the header is done: a Content-Length over the bound ends it early, and the
    // request line, read first, holds the target (empty before: kOther).
    if (parser_) {
      const auto target = parser_->get().target();
      r.endpoint = Api::endpoint_of(std::string_view(target.data(), target.size()));
    }
    send(std::move(r), true);
  }

  void send(Response r, bool close) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    shared_.api->metrics().record(r.endpoint, r.status, seconds);
    if (is_server_fault(r.status))
      shared_.log("error " + std::to_string(r.status) + ": " + std::string(r.payload()));
    for (const std::string& fault : r.faults)
      shared_.log(fault);
    const bool header_done = parser_ && parser_->is_header_done();
    keep_alive_ = !close && parser_ && parser_->is_done() && parser_->get().keep_alive();
    out_ = std::move(r);
    write_head(header_done ? parser_->get().version() : 11);
    const bool head = header_done && parser_->get().method() == http::verb::head;
    // HEAD: Content-Length still says what GET would send.
    const std::string_view body = head ? std::string_view() : out_.payload();
    stream_.expires_after(shared_.options.read_timeout);
    asio::async_write(
        stream_,
        std::array<asio::const_buffer, 2>{asio::buffer(head_),
                                          asio::buffer(body.data(), body.size())},
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_write(ec); });
  }

  // The status line and headers of out_ into head_, whose buffer each request reuses: Beast's
  // message and serializer cost a heap node per header field and most of the server's own CPU
  // on a cached answer. The headers are those Beast's keep_alive() and prepare_payload() set.
  void write_head(unsigned version) {
    const auto status = static_cast<http::status>(out_.status);
    head_.clear();
    head_ += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
    head_ += std::to_string(out_.status);
    head_ += ' ';
    const beast::string_view reason = http::obsolete_reason(status);
    head_.append(reason.data(), reason.size());
    head_ += "\r\nServer: sowdb\r\n";
    auto field = [this](std::string_view name, std::string_view value) {
      head_ += name;
      head_ += ": ";
      head_ += value;
      head_ += "\r\n";
    };
    if (has_body(out_.status))  // not for 204 and 304
      field("Content-Type", out_.content_type);
    if (!out_.etag.empty())
      field("ETag", out_.etag);
    if (!out_.cache_control.empty())
      field("Cache-Control", out_.cache_control);
    if (!out_.allow.empty())
      field("Allow", out_.allow);
    if (!out_.content_encoding.empty())
      field("Content-Encoding", out_.content_encoding);
    if (!out_.vary.empty())
      field("Vary", out_.vary);
    for (const auto& [name, value] : out_.headers)
      field(name, value);
    field("X-Content-Type-Options", "nosniff");
    if (version == 10 && keep_alive_)
      field("Connection", "keep-alive");
    else if (version != 10 && !keep_alive_)
      field("Connection", "close");
    // Informational, no-content and not-modified answers carry no body and no length.
    if (has_body(out_.status))
      field("Content-Length", std::to_string(out_.payload().size()));
    head_ += "\r\n";
  }

  void on_write(beast::error_code ec) {
    if (ec)
      return;
    out_ = {};  // a shared body goes back to the cache's sole ownership
    if (!keep_alive_) {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      drain();
      return;
    }
    read();
  }

  // After an answer that closes the connection (too large before the body was read, malformed),
  // reads and drops what the client still sends, up to kDrainBytes or the read timeout: closing a
  // socket with unread data resets it, and the client would lose the answer.
  void drain() {
    static constexpr std::size_t kDrainBytes = std::size_t{8} << 20;
    if (drained_ >= kDrainBytes)
      return;
    drain_buffer_.resize(16384);
    stream_.async_read_some(asio::buffer(drain_buffer_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->drained_ += n;
                              if (!ec)
                                self->drain();
                            });
  }

  beast::tcp_stream stream_;
  Shared& shared_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Response out_;      // the answer being written; its body stays alive until the write ends
  std::string head_;  // out_'s status line and headers
  bool keep_alive_ = false;
  Request request_;
  std::string client_;              // the client's address bytes (ConnectionTable)
  ConnectionTable::Waiter waiter_;  // its place among the connections waiting for a request
  bool waiting_ = false;            // on the executor: no request begun since read()
  std::chrono::steady_clock::time_point started_;
  std::vector<char> drain_buffer_;
  std::size_t drained_ = 0;
};

// A connection refused at accept (the table full of requests in flight, or its address at its
// cap): it is told so, 503 with Retry-After, without its request being read; then what it sends
// is drained for a moment, since closing with unread data would reset the answer away.
class RefusedConnection : public std::enable_shared_from_this<RefusedConnection> {
 public:
  RefusedConnection(tcp::socket socket, Shared& shared, std::string answer)
      : stream_(std::move(socket)), shared_(shared), answer_(std::move(answer)) {}
  ~RefusedConnection() { shared_.refusing.fetch_sub(1); }
  RefusedConnection(const RefusedConnection&) = delete;
  RefusedConnection& operator=(const RefusedConnection&) = delete;

  void start() {
    stream_.expires_after(kRefusalLinger);
    asio::async_write(stream_,
                      asio::buffer(answer_),
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec)
                          return;
                        beast::error_code ignored;
                        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                        self->drain();
                      });
  }

 private:
  void drain() {
    stream_.async_read_some(asio::buffer(buffer_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (!ec)
                                self->drain();
                            });
  }

  beast::tcp_stream stream_;
  Shared& shared_;
  std::string answer_;
  std::array<char, 4096> buffer_{};
};

// The whole answer to a refused connection: 503, Retry-After, a JSON body saying why.
std::string refusal_text(const std::string& why) {
  const Response r = Api::error(http_status(HttpRefusal::kUnavailable), why);
  return "HTTP/1.1 503 Service Unavailable\r\nServer: sowdb\r\nContent-Type: " + r.content_type +
         "\r\nCache-Control: no-store\r\nRetry-After: 1\r\nConnection: close\r\n"
         "Content-Length: " +
         std::to_string(r.body.size()) + "\r\n\r\n" + r.body;
}

}  // namespace

// Declaration order is destruction order reversed: the workers' queued tasks and then the
// context's handlers hold sessions, whose sockets need the context and whose destructors count
// down `shared`.
struct Server::Impl {
  // The concurrency hint: with one I/O thread Asio's scheduler takes fewer locks.
  explicit Impl(int io_threads) : ioc(std::max(io_threads, 1)) {}

  Shared shared;
  asio::io_context ioc;
  std::optional<WorkScheduler> workers;
  tcp::acceptor acceptor{ioc};
  asio::steady_timer retry{ioc};
  std::vector<std::thread> threads;
  int port = 0;
  std::string url;
  bool stopped = false;

  // A new connection into the table, or refused with 503.
  void admit(tcp::socket s) {
    beast::error_code ec;
    const asio::ip::address address = s.remote_endpoint(ec).address();
    std::string client;
    if (address.is_v4()) {
      const auto bytes = address.to_v4().to_bytes();
      client.assign(bytes.begin(), bytes.end());
    } else {
      const auto bytes = address.to_v6().to_bytes();
      client.assign(bytes.begin(), bytes.end());
    }
    const ConnectionTable::Admit admitted = shared.table->admit(client);
    if (admitted == ConnectionTable::Admit::kYes) {
      std::make_shared<Session>(std::move(s), shared, std::move(client))->read();
      return;
    }
    const bool cap = admitted == ConnectionTable::Admit::kClientCap;
    shared.api->metrics().connection_refused(cap);
    // Answering costs a socket a moment longer: beyond a bound of them, a plain close.
    if (shared.refusing.fetch_add(1) >= kMaxRefusing) {
      shared.refusing.fetch_sub(1);
      s.close(ec);
      return;
    }
    const std::string why =
        cap ? "too many connections from your address (at most " +
                  std::to_string(shared.options.max_connections_per_client) +
                  "); close some, or retry after 1 s"
            : "the server is full (" + std::to_string(shared.options.max_connections) +
                  " connections, every one busy with a request); retry after 1 s";
    std::make_shared<RefusedConnection>(std::move(s), shared, refusal_text(why))->start();
  }

  void accept() {
    // One I/O thread runs every handler in turn: a strand per connection would only cost.
    const auto executor = shared.options.io_threads > 1
                              ? asio::any_io_executor(asio::make_strand(ioc))
                              : asio::any_io_executor(ioc.get_executor());
    acceptor.async_accept(executor, [this](beast::error_code ec, tcp::socket s) {
      if (ec == asio::error::operation_aborted)
        return;
      if (ec) {
        // Out of descriptors, most likely: wait a moment rather than spin.
        shared.log("accept: " + ec.message());
        retry.expires_after(std::chrono::milliseconds(50));
        retry.async_wait([this](beast::error_code e) {
          if (!e)
            accept();
        });
        return;
      }
      admit(std::move(s));
      accept();
    });
  }
};

Server::Server(std::shared_ptr<const Api> api, ServerOptions options)
    : impl_(std::make_unique<Impl>(options.io_threads)) {
  if (options.io_threads < 1 || options.workers < 1)
    throw std::invalid_argument("the server needs at least one I/O thread and one worker");
  if (options.port < 0 || options.port > 65535)
    throw std::invalid_argument("port " + std::to_string(options.port) + " is not 0..65535");
  Impl& m = *impl_;
  m.shared.api = std::move(api);
  m.shared.options = std::move(options);
  const ServerOptions& o = m.shared.options;
  m.shared.table.emplace(o.max_connections, std::max<std::size_t>(o.max_connections_per_client, 1));
  beast::error_code ec;
  const asio::ip::address address = asio::ip::make_address(o.bind, ec);
  if (ec)
    throw std::invalid_argument(o.bind + " is not an IP address (" + ec.message() + ")");
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(o.port));
  const std::string where = o.bind + ":" + std::to_string(o.port);
  if (m.acceptor.open(endpoint.protocol(), ec) ||
      m.acceptor.set_option(asio::socket_base::reuse_address(true), ec) ||
      m.acceptor.bind(endpoint, ec) ||
      m.acceptor.listen(asio::socket_base::max_listen_connections, ec)) {
    throw std::runtime_error("cannot listen on " + where + ": " + ec.message());
  }
  m.port = m.acceptor.local_endpoint().port();
  m.url = "http://" + (address.is_v6() ? "[" + o.bind + "]" : o.bind) + ":" +
          std::to_string(m.port) + "/";
  m.workers.emplace(o.workers, o.batch_workers > 0 ? o.batch_workers : o.workers - 1);
  m.shared.workers = &*m.workers;
  m.accept();
  for (int i = 0; i < o.io_threads; ++i)
    m.threads.emplace_back([&m] { m.ioc.run(); });
}

Server::~Server() {
  stop();
}

int Server::port() const noexcept {
  return impl_->port;
}

std::string Server::url() const {
  return impl_->url;
}

void Server::stop() {
  Impl& m = *impl_;
  if (m.stopped)
    return;
  m.stopped = true;
  asio::post(m.ioc, [&m] {
    beast::error_code ignored;
    m.acceptor.close(ignored);
    m.retry.cancel();
  });
  // Workers first: a probe in flight posts its answer to the I/O context, which must still
  // exist; the context then drops every connection when it stops.
  m.workers->stop();
  m.ioc.stop();
  for (std::thread& t : m.threads)
    t.join();
}

}  // namespace sowdb::server
