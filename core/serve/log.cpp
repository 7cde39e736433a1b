#include "serve/log.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <mutex>
#include <sstream>

namespace gs::serve {
namespace {

std::string timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms));
  return buf;
}

}  // namespace

void logLine(const char* level, const char* event, const std::function<void(JsonWriter&)>& fields) {
  std::ostringstream line;
  JsonWriter w(line);
  w.beginObject().field("ts", timestamp()).field("level", level).field("event", event);
  if (fields) fields(w);
  w.endObject();
  line << '\n';
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::cerr << line.str() << std::flush;
}

}  // namespace gs::serve
