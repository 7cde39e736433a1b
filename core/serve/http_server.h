#pragma once
// Connections: Boost.Beast over Asio, asynchronous, on a few I/O threads. Per connection: the
// header is read under a size limit and a timeout and checked by the Service before any body
// byte is read (413/415/401/... then close); the body is read under its own limit and timeout;
// while a prediction runs the socket is watched, and a client that hangs up has its job
// cancelled; responses are written under a timeout. Connections beyond the cap get 503.
#include <atomic>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>

#include "common/status.h"
#include "serve/service.h"

namespace gs::serve {

class HttpServer {
 public:
  HttpServer(boost::asio::io_context& io, Service& service, const HttpLimits& limits, Metrics& metrics);
  ~HttpServer();
  // Binds and listens; returns the bound port (useful with port 0).
  Result<int> listen(const std::string& host, int port);
  void startAccepting();
  void stopAccepting();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gs::serve
