#pragma once
// A plain (uncompressed) file read through a list of byte segments as one stream, knowing the
// file offset of the next byte it hands out. Screening reads a shard as [header] + [begin, end) of
// the original file without splitting it, and plans shards by the offsets where records end.
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace gs::data {

struct Segment {
  int64_t offset = 0;
  int64_t length = -1;  // -1: to the end of the file
};

class SegmentStream : public std::istream {
 public:
  static Result<std::unique_ptr<SegmentStream>> open(const std::string& path, std::vector<Segment> segments);
  ~SegmentStream() override;
  // File offset of the next unread byte (the end of the last segment once everything was read).
  int64_t position() const;
  // Not ok after a read error.
  Status error() const;

 private:
  class Buf;
  explicit SegmentStream(std::unique_ptr<Buf> buf);
  std::unique_ptr<Buf> buf_;
};

// SHA-256 of the bytes [begin, end) of a file.
Result<std::string> rangeSha256(const std::string& path, int64_t begin, int64_t end);

}  // namespace gs::data
