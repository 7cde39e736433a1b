#include "serve/http_types.h"

namespace gs::serve {

const std::string& HttpRequest::header(const std::string& lower_name) const {
  static const std::string kNone;
  for (const auto& [name, value] : headers)
    if (name == lower_name) return value;
  return kNone;
}

std::string HttpRequest::path() const { return target.substr(0, target.find('?')); }

const char* reasonPhrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

}  // namespace gs::serve
