#pragma once
// HTTP messages as plain data between the connection code (Boost.Beast, http_server.cpp) and the
// service (service.h), so routing, limits and auth are tested without a socket.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gs::serve {

struct HttpRequest {
  std::string method, target, body;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-case
  std::string remote;
  std::string request_id;  // the client's X-Request-Id when it is well-formed, else one made up
  // "" when absent.
  const std::string& header(const std::string& lower_name) const;
  // The path without the query string.
  std::string path() const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool close = false;     // close the connection after this response
  int64_t molecules = 0;  // for the access log
};

const char* reasonPhrase(int status);

}  // namespace gs::serve
