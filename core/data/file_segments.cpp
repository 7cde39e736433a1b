#include "data/file_segments.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <streambuf>

#include "common/sha256.h"

namespace gs::data {

class SegmentStream::Buf final : public std::streambuf {
 public:
  Buf(int fd, std::vector<Segment> segments) : fd_(fd), segments_(std::move(segments)), buffer_(1 << 17) {
    if (!segments_.empty()) file_offset_ = segments_[0].offset;
  }
  ~Buf() override { ::close(fd_); }
  int64_t position() const { return file_offset_ + (gptr() - eback()); }
  Status error() const { return error_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    file_offset_ += egptr() - eback();
    while (index_ < segments_.size()) {
      const Segment& s = segments_[index_];
      const int64_t left = s.length < 0 ? static_cast<int64_t>(buffer_.size()) : s.offset + s.length - file_offset_;
      if (left > 0) {
        const size_t want = static_cast<size_t>(std::min<int64_t>(left, static_cast<int64_t>(buffer_.size())));
        ssize_t n;
        do n = ::pread(fd_, buffer_.data(), want, file_offset_);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
          error_ = {StatusCode::IoError, std::string("read error: ") + std::strerror(errno)};
          setg(buffer_.data(), buffer_.data(), buffer_.data());
          return traits_type::eof();
        }
        if (n > 0) {
          setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
          return traits_type::to_int_type(*gptr());
        }
        if (s.length >= 0) {
          error_ = {StatusCode::IoError,
                    "the file is shorter than planned (ends at byte " + std::to_string(file_offset_) + ")"};
          setg(buffer_.data(), buffer_.data(), buffer_.data());
          return traits_type::eof();
        }
      }
      if (++index_ < segments_.size()) file_offset_ = segments_[index_].offset;
    }
    setg(buffer_.data(), buffer_.data(), buffer_.data());
    return traits_type::eof();
  }

 private:
  int fd_;
  std::vector<Segment> segments_;
  std::vector<char> buffer_;
  size_t index_ = 0;
  int64_t file_offset_ = 0;  // of eback()
  Status error_;
};

SegmentStream::SegmentStream(std::unique_ptr<Buf> buf) : std::istream(buf.get()), buf_(std::move(buf)) {}
SegmentStream::~SegmentStream() = default;

Result<std::unique_ptr<SegmentStream>> SegmentStream::open(const std::string& path, std::vector<Segment> segments) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status{StatusCode::IoError, "cannot open " + path + ": " + std::strerror(errno)};
  return std::unique_ptr<SegmentStream>(new SegmentStream(std::make_unique<Buf>(fd, std::move(segments))));
}

int64_t SegmentStream::position() const { return buf_->position(); }
Status SegmentStream::error() const { return buf_->error(); }

Result<std::string> rangeSha256(const std::string& path, int64_t begin, int64_t end) {
  auto in = SegmentStream::open(path, {{begin, end - begin}});
  if (!in.isOk()) return in.status();
  Sha256 h;
  std::vector<char> buf(1 << 16);
  while (in.value()->read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.value()->gcount() > 0)
    h.update(buf.data(), static_cast<size_t>(in.value()->gcount()));
  if (Status s = in.value()->error(); !s.isOk()) return s;
  return h.hexDigest();
}

}  // namespace gs::data
