#include "chem/rdkit_log.h"

#include <RDGeneral/RDLog.h>

#include <atomic>
#include <iostream>
#include <mutex>
#include <streambuf>

namespace gs::chem::detail {
namespace {

thread_local std::string t_log;
std::atomic<bool> g_echo{false};

// Unbuffered streambuf that appends to the writing thread's own buffer: RDKit logs from the thread
// that parses, so concurrent parsers never see each other's messages.
class ThreadLocalBuf final : public std::streambuf {
 protected:
  int_type overflow(int_type ch) override {
    if (ch != traits_type::eof()) {
      const char c = static_cast<char>(ch);
      xsputn(&c, 1);
    }
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    // Bounded: a 1 MB SMILES quoted in a message must not grow every thread's buffer by 1 MB.
    constexpr size_t kMaxLog = 4096;
    if (t_log.size() < kMaxLog) t_log.append(s, std::min(static_cast<size_t>(n), kMaxLog - t_log.size()));
    if (g_echo.load(std::memory_order_relaxed)) std::cerr.write(s, n);
    return n;
  }
};

std::string cleanMessage(const std::string& raw) {
  // Keep the last non-empty line, minus RDKit's "[hh:mm:ss] " timestamp.
  std::string best;
  size_t start = 0;
  while (start < raw.size()) {
    size_t end = raw.find('\n', start);
    if (end == std::string::npos) end = raw.size();
    std::string line = raw.substr(start, end - start);
    if (line.size() > 11 && line[0] == '[' && line[9] == ']') line = line.substr(11);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    const bool pointer_line = line.find_first_not_of(" ^") == std::string::npos;
    if (!line.empty() && !pointer_line && line.rfind("SMILES Parse Error: Failed parsing", 0) != 0) best = line;
    start = end + 1;
  }
  if (best.size() > 300) best = best.substr(0, 300) + "...";
  return best;
}

}  // namespace

void installLogCapture() {
  static std::once_flag once;
  std::call_once(once, [] {
    RDLog::InitLogs();
    // Immortal: RDKit's loggers flush dp_dest from their own static destructors, which may run
    // after ours, so the stream must outlive every static object.
    static std::ostream* const stream = new std::ostream(new ThreadLocalBuf);
    for (auto* log : {&rdErrorLog, &rdWarningLog, &rdInfoLog}) {
      if (*log) {
        (*log)->ClearTee();
        (*log)->dp_dest = stream;
        (*log)->df_owner = false;
      }
    }
  });
}

void clearCapturedLog() { t_log.clear(); }

std::string takeCapturedLog() {
  std::string msg = cleanMessage(t_log);
  t_log.clear();
  return msg;
}

void setLogEcho(bool echo) { g_echo.store(echo); }

}  // namespace gs::chem::detail
