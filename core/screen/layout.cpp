#include "screen/layout.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>

namespace gs::screen {

std::string groupDir(const std::string& dir, const char* kind, int shard) {
  char group[16];
  std::snprintf(group, sizeof group, "%03d", shard / 1000);
  return dir + "/" + kind + "/" + group;
}

std::string receiptPath(const std::string& dir, int shard) {
  return groupDir(dir, "receipts", shard) + "/" + std::to_string(shard) + ".json";
}

std::string partReceiptPath(const std::string& dir, int shard, int64_t first_row) {
  return groupDir(dir, "receipts", shard) + "/" + std::to_string(shard) + ".part-" + std::to_string(first_row) +
         ".json";
}

std::string piecePath(const std::string& dir, int shard, int64_t first_row, const std::string& token,
                      const std::string& suffix) {
  return groupDir(dir, "shards", shard) + "/" + std::to_string(shard) + "." + std::to_string(first_row) + "." + token +
         suffix;
}

std::string attemptToken() {
  char host[256] = "host";
  ::gethostname(host, sizeof host - 1);
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return std::string(host) + "-" + std::to_string(::getpid()) + "-" + std::to_string(ns);
}

bool makeDirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != '/') continue;
    const std::string part = path.substr(0, i);
    if (::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST) return false;
  }
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace gs::screen
