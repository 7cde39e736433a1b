#include "serve/http_server.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <random>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "serve/log.h"

namespace gs::serve {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

std::string text(beast::string_view s) { return std::string(s.data(), s.size()); }

bool wellFormedId(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' && c != ':') return false;
  return true;
}

std::string newRequestId() {
  static const uint64_t prefix = std::random_device{}();
  static std::atomic<uint64_t> counter{0};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08llx-%llu", static_cast<unsigned long long>(prefix & 0xffffffffu),
                static_cast<unsigned long long>(++counter));
  return buf;
}

HttpRequest headOf(const http::request<http::string_body>& req, const std::string& remote) {
  HttpRequest r;
  r.method = text(req.method_string());
  r.target = text(req.target());
  r.remote = remote;
  for (const auto& field : req) {
    std::string name = text(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers.emplace_back(std::move(name), text(field.value()));
  }
  const std::string& id = r.header("x-request-id");
  r.request_id = wellFormedId(id) ? id : newRequestId();
  return r;
}

struct Shared {
  Service& service;
  const HttpLimits& limits;
  Metrics& metrics;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, Shared shared) : stream_(std::move(socket)), shared_(shared) {
    beast::error_code ec;
    const auto endpoint = stream_.socket().remote_endpoint(ec);
    if (!ec) remote_ = endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
    shared_.service.connections.fetch_add(1);
  }
  ~Session() { shared_.service.connections.fetch_sub(1); }

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->readHeader(true); });
  }

 private:
  void readHeader(bool first) {
    parser_.emplace();
    parser_->header_limit(shared_.limits.max_header_bytes);
    parser_->body_limit(static_cast<uint64_t>(shared_.limits.max_body_bytes));
    stream_.expires_after(first ? shared_.limits.header_timeout : shared_.limits.keep_alive_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::onHeader, shared_from_this()));
  }

  void onHeader(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == net::error::operation_aborted)
      return close();
    request_ = HttpRequest{};
    request_.remote = remote_;
    request_.request_id = newRequestId();
    if (ec == http::error::header_limit)
      return send(Service::error(431, "the request header is larger than " +
                                          std::to_string(shared_.limits.max_header_bytes) + " bytes"),
                  true);
    if (ec == http::error::body_limit)  // a declared Content-Length over the limit, caught with the header
      return send(
          Service::error(413, "the body is larger than " + std::to_string(shared_.limits.max_body_bytes) + " bytes"),
          true);
    if (ec) return send(Service::error(400, "malformed HTTP request: " + ec.message()), true);
    started_ = std::chrono::steady_clock::now();
    request_ = headOf(parser_->get(), remote_);
    keep_alive_ = parser_->get().keep_alive();
    const auto length = parser_->content_length();
    if (auto refused = shared_.service.check(request_, length ? std::optional<uint64_t>(*length) : std::nullopt))
      return send(std::move(*refused), !parser_->is_done());  // an unread body: close after answering
    if (parser_->is_done()) return onBody({}, 0);
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) return sendContinue();
    readBody();
  }

  void sendContinue() {
    auto res = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
    stream_.expires_after(shared_.limits.write_timeout);
    http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      self->readBody();
    });
  }

  void readBody() {
    stream_.expires_after(shared_.limits.body_timeout);
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::onBody, shared_from_this()));
  }

  void onBody(beast::error_code ec, std::size_t) {
    if (ec == http::error::body_limit)
      return send(
          Service::error(413, "the body is larger than " + std::to_string(shared_.limits.max_body_bytes) + " bytes"),
          true);
    if (ec) return close();  // timeout (the stream is already closed), reset, or a broken chunked body
    request_.body = std::move(parser_->get().body());
    stream_.expires_never();
    auto self = shared_from_this();
    job_ = shared_.service.handle(request_, [self](HttpResponse response) {
      // Counted from here, so a drain never sees a response between its job and its write.
      self->shared_.service.responses_in_write.fetch_add(1);
      net::post(self->stream_.get_executor(), [self, r = std::move(response)]() mutable {
        self->send(std::move(r), false);
        self->shared_.service.responses_in_write.fetch_sub(1);
      });
    });
    if (job_) watchForHangUp();
  }

  // While the prediction runs: a readable socket with nothing to read is a client that left.
  void watchForHangUp() {
    stream_.socket().async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->job_) return;
      beast::error_code e;
      const std::size_t available = self->stream_.socket().available(e);
      if (!e && available > 0) return;  // a pipelined request: read after this response
      self->job_->cancelled = true;
      logLine("info", "client_left", [&](JsonWriter& w) { w.field("request_id", self->request_.request_id); });
      self->job_.reset();
    });
  }

  void send(HttpResponse r, bool close_after) {
    job_.reset();
    beast::error_code ignored;
    stream_.socket().cancel(ignored);  // the hang-up watch
    auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(r.status), 11);
    res->set(http::field::content_type, r.content_type);
    res->set("X-Request-Id", request_.request_id);
    for (const auto& [name, value] : r.headers) res->set(name, value);
    res->keep_alive(keep_alive_ && !close_after && !r.close);
    res->body() = std::move(r.body);
    res->prepare_payload();
    logRequest(r);
    stream_.expires_after(shared_.limits.write_timeout);
    shared_.service.responses_in_write.fetch_add(1);
    http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
      self->shared_.service.responses_in_write.fetch_sub(1);
      if (ec || !res->keep_alive()) return self->close();
      self->readHeader(false);
    });
  }

  void logRequest(const HttpResponse& r) {
    shared_.metrics.countRequest(route(request_.path()).name, r.status);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    logLine(r.status >= 500 ? "error" : "info", "request", [&](JsonWriter& w) {
      w.field("request_id", request_.request_id).field("remote", remote_).field("method", request_.method);
      w.field("path", request_.path().substr(0, 200)).field("status", r.status).field("molecules", r.molecules);
      w.field("seconds", seconds);
    });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.close();
  }

  beast::tcp_stream stream_;
  Shared shared_;  // by value: a session may outlive the server object (destroyed with the I/O context)
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  HttpRequest request_;
  bool keep_alive_ = true;
  std::string remote_;
  std::shared_ptr<Job> job_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace

struct HttpServer::Impl {
  Impl(net::io_context& io, Shared shared)
      : io(io), shared(shared), acceptor(net::make_strand(io)), pause(acceptor.get_executor()) {}
  net::io_context& io;
  Shared shared;
  tcp::acceptor acceptor;
  net::steady_timer pause;  // after an accept error (e.g. out of file descriptors): no busy loop
  std::atomic<bool> accepting{false};

  void accept() {
    acceptor.async_accept(net::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
      if (!accepting) return;
      if (!ec) {
        admit(std::move(socket));
        return accept();
      }
      shared.metrics.countRejection("accept_error");
      pause.expires_after(std::chrono::milliseconds(50));
      pause.async_wait([this](beast::error_code) {
        if (accepting) accept();
      });
    });
  }

  void admit(tcp::socket socket) {
    if (shared.service.connections.load() >= shared.limits.max_connections) {
      shared.metrics.countRejection("connections");
      static const std::string kBody = "{\"error\":\"too many connections; retry later\",\"status\":503}";
      static const std::string kBusy =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
          "Retry-After: 1\r\nContent-Length: " +
          std::to_string(kBody.size()) + "\r\n\r\n" + kBody;
      beast::error_code ec;
      socket.non_blocking(true, ec);
      socket.send(net::buffer(kBusy), 0, ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);
      return;
    }
    std::make_shared<Session>(std::move(socket), shared)->start();
  }
};

HttpServer::HttpServer(net::io_context& io, Service& service, const HttpLimits& limits, Metrics& metrics)
    : impl_(std::make_unique<Impl>(io, Shared{service, limits, metrics})) {}

HttpServer::~HttpServer() = default;

Result<int> HttpServer::listen(const std::string& host, int port) {
  beast::error_code ec;
  const auto address = net::ip::make_address(host, ec);
  if (ec) return Status(StatusCode::InvalidArgument, "cannot listen on \"" + host + "\": not an IP address");
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  auto& a = impl_->acceptor;
  a.open(endpoint.protocol(), ec);
  if (!ec) a.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    return Status(StatusCode::IoError, "cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message());
  return static_cast<int>(a.local_endpoint().port());
}

void HttpServer::startAccepting() {
  impl_->accepting = true;
  net::dispatch(impl_->acceptor.get_executor(), [this] { impl_->accept(); });
}

void HttpServer::stopAccepting() {
  impl_->accepting = false;
  net::dispatch(impl_->acceptor.get_executor(), [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
    impl_->pause.cancel();
  });
}

}  // namespace gs::serve
