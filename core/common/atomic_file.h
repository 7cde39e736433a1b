#pragma once
// Writes a file so that readers see either the old content or the complete new content: data goes
// to "<path>.tmp-<pid>" in the same directory, is flushed, then renamed over <path>. A failed or
// abandoned write leaves <path> untouched and removes the temporary file.
#include <fstream>
#include <string>

#include "common/status.h"

namespace gs {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path, bool binary = false);
  ~AtomicFile();  // discards unless commit() succeeded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  bool isOpen() const { return out_.is_open(); }
  Status openStatus() const;
  std::ostream& stream() { return out_; }
  Status commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, temp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace gs
