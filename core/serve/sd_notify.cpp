#include "serve/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace gs::serve {

bool sdNotify(const std::string& state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  if (!path || !*path) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const size_t length = std::strlen(path);
  if (length >= sizeof addr.sun_path || (path[0] != '/' && path[0] != '@')) return false;
  std::memcpy(addr.sun_path, path, length);
  if (path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const auto size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + length);
  const ssize_t sent =
      ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&addr), size);
  ::close(fd);
  return sent == static_cast<ssize_t>(state.size());
}

std::chrono::microseconds watchdogPeriod() {
  const char* usec = std::getenv("WATCHDOG_USEC");
  if (!usec) return std::chrono::microseconds(0);
  if (const char* pid = std::getenv("WATCHDOG_PID"); pid && std::atol(pid) != static_cast<long>(::getpid()))
    return std::chrono::microseconds(0);
  const long long v = std::atoll(usec);
  return std::chrono::microseconds(v > 0 ? v : 0);
}

std::string monotonicUsec() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return "MONOTONIC_USEC=" + std::to_string(static_cast<long long>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000);
}

}  // namespace gs::serve
