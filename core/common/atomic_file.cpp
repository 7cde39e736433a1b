#include "common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gs {

AtomicFile::AtomicFile(std::string path, bool binary)
    : path_(std::move(path)), temp_(path_ + ".tmp-" + std::to_string(::getpid())) {
  out_.open(temp_, binary ? std::ios::binary | std::ios::trunc : std::ios::trunc);
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  if (out_.is_open()) out_.close();
  std::remove(temp_.c_str());
}

Status AtomicFile::openStatus() const {
  if (out_.is_open()) return Status::ok();
  return {StatusCode::IoError, "cannot write '" + path_ + "': " + std::strerror(errno)};
}

Status AtomicFile::commit() {
  if (!out_.is_open()) return openStatus();
  out_.flush();
  const bool good = out_.good();
  out_.close();
  if (!good) return {StatusCode::IoError, "error writing '" + path_ + "' (disk full?)"};
  // Durable before it becomes visible: a crash after the rename never leaves a truncated file.
  if (const int fd = ::open(temp_.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced) return {StatusCode::IoError, "cannot sync '" + path_ + "' to disk: " + std::strerror(errno)};
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    return {StatusCode::IoError, "cannot rename onto '" + path_ + "': " + std::strerror(errno)};
  committed_ = true;
  return Status::ok();
}

}  // namespace gs
