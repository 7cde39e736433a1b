#include "common/compression.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#ifdef GS_HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef GS_HAVE_BZIP2
#include <bzlib.h>
#endif
#ifdef GS_HAVE_ZSTD
#include <zstd.h>
#endif

namespace gs {
namespace {

constexpr size_t kBuffer = 1 << 17;

bool endsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  if (s.size() < n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != suffix[i]) return false;
  return true;
}

// The first suffix of each codec is the one outputs are named with.
const CodecSuffix kSuffixes[] = {{".gz", Codec::Gzip, true},
                                 {".gzip", Codec::Gzip, false},
                                 {".bz2", Codec::Bzip2, true},
                                 {".zst", Codec::Zstd, true},
                                 {".zstd", Codec::Zstd, false}};

// One codec's streaming decoder: consumes from `in` (advancing `used`), writes at most `cap` bytes.
class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual Status step(const char* in, size_t size, size_t& used, char* out, size_t cap, size_t& produced) = 0;
  // True between complete streams/members/frames (where the input may legitimately end).
  virtual bool atEnd() const = 0;
};

#ifdef GS_HAVE_ZLIB
class GzipDecoder final : public Decoder {
 public:
  GzipDecoder() { inflateInit2(&z_, 15 + 32); }  // gzip or zlib header, detected
  ~GzipDecoder() override { inflateEnd(&z_); }
  Status step(const char* in, size_t size, size_t& used, char* out, size_t cap, size_t& produced) override {
    if (ended_) {
      if (size == 0) return Status::ok();
      inflateReset(&z_);  // the next member of a multi-member file
      ended_ = false;
    }
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
    z_.avail_in = static_cast<uInt>(size);
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(cap);
    const int r = inflate(&z_, Z_NO_FLUSH);
    used = size - z_.avail_in;
    produced = cap - z_.avail_out;
    if (r == Z_STREAM_END)
      ended_ = true;
    else if (r != Z_OK && r != Z_BUF_ERROR)
      return {StatusCode::MalformedRecord, std::string("corrupt gzip data: ") + (z_.msg ? z_.msg : "inflate failed")};
    return Status::ok();
  }
  bool atEnd() const override { return ended_; }

 private:
  z_stream z_{};
  bool ended_ = false;
};
#endif

#ifdef GS_HAVE_BZIP2
class Bzip2Decoder final : public Decoder {
 public:
  Bzip2Decoder() { BZ2_bzDecompressInit(&b_, 0, 0); }
  ~Bzip2Decoder() override { BZ2_bzDecompressEnd(&b_); }
  Status step(const char* in, size_t size, size_t& used, char* out, size_t cap, size_t& produced) override {
    if (ended_) {
      if (size == 0) return Status::ok();
      BZ2_bzDecompressEnd(&b_);  // the next stream of a concatenated file
      b_ = bz_stream{};
      BZ2_bzDecompressInit(&b_, 0, 0);
      ended_ = false;
    }
    b_.next_in = const_cast<char*>(in);
    b_.avail_in = static_cast<unsigned>(size);
    b_.next_out = out;
    b_.avail_out = static_cast<unsigned>(cap);
    const int r = BZ2_bzDecompress(&b_);
    used = size - b_.avail_in;
    produced = cap - b_.avail_out;
    if (r == BZ_STREAM_END)
      ended_ = true;
    else if (r != BZ_OK)
      return {StatusCode::MalformedRecord, "corrupt bzip2 data (code " + std::to_string(r) + ")"};
    return Status::ok();
  }
  bool atEnd() const override { return ended_; }

 private:
  bz_stream b_{};
  bool ended_ = false;
};
#endif

#ifdef GS_HAVE_ZSTD
class ZstdDecoder final : public Decoder {
 public:
  ZstdDecoder() : d_(ZSTD_createDStream()) { ZSTD_initDStream(d_); }
  ~ZstdDecoder() override { ZSTD_freeDStream(d_); }
  Status step(const char* in, size_t size, size_t& used, char* out, size_t cap, size_t& produced) override {
    ZSTD_inBuffer input{in, size, 0};
    ZSTD_outBuffer output{out, cap, 0};
    const size_t r = ZSTD_decompressStream(d_, &output, &input);
    used = input.pos;
    produced = output.pos;
    if (ZSTD_isError(r))
      return {StatusCode::MalformedRecord, std::string("corrupt zstd data: ") + ZSTD_getErrorName(r)};
    if (r == 0)
      ended_ = true;
    else if (used > 0 || produced > 0)
      ended_ = false;
    return Status::ok();
  }
  bool atEnd() const override { return ended_; }

 private:
  ZSTD_DStream* d_;
  bool ended_ = true;  // no frame started yet
};
#endif

std::unique_ptr<Decoder> makeDecoder(Codec codec) {
  switch (codec) {
#ifdef GS_HAVE_ZLIB
    case Codec::Gzip: return std::make_unique<GzipDecoder>();
#endif
#ifdef GS_HAVE_BZIP2
    case Codec::Bzip2: return std::make_unique<Bzip2Decoder>();
#endif
#ifdef GS_HAVE_ZSTD
    case Codec::Zstd: return std::make_unique<ZstdDecoder>();
#endif
    default: return nullptr;
  }
}

// Reads a file descriptor through a Decoder.
class DecompressBuf final : public std::streambuf {
 public:
  DecompressBuf(int fd, Codec codec, std::unique_ptr<Decoder> decoder)
      : fd_(fd), codec_(codec), decoder_(std::move(decoder)), in_(kBuffer), out_(kBuffer) {}
  ~DecompressBuf() override { ::close(fd_); }
  Status error() const { return error_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (!error_.isOk()) return traits_type::eof();
    for (int idle = 0; idle < 4;) {
      if (in_pos_ == in_len_ && !in_eof_ && !refill()) return traits_type::eof();
      size_t used = 0, produced = 0;
      if (Status s = decoder_->step(in_.data() + in_pos_, in_len_ - in_pos_, used, out_.data(), out_.size(), produced);
          !s.isOk())
        return fail(s.message());
      in_pos_ += used;
      consumed_ += static_cast<int64_t>(used);
      if (produced > 0) {
        setg(out_.data(), out_.data(), out_.data() + produced);
        return traits_type::to_int_type(*gptr());
      }
      if (in_pos_ == in_len_ && in_eof_) {
        if (!decoder_->atEnd())
          return fail(std::string("truncated ") + codecName(codec_) +
                      " data (the file ends inside a compressed stream)");
        return traits_type::eof();
      }
      idle = used == 0 ? idle + 1 : 0;
    }
    return fail(std::string("corrupt ") + codecName(codec_) + " data (the decoder cannot go on)");
  }

 private:
  bool refill() {
    ssize_t n;
    do n = ::read(fd_, in_.data(), in_.size());
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      fail(std::string("read error: ") + std::strerror(errno));
      return false;
    }
    in_pos_ = 0;
    in_len_ = static_cast<size_t>(n);
    in_eof_ = n == 0;
    return true;
  }
  int_type fail(const std::string& why) {
    error_ = {StatusCode::MalformedRecord, why + " at compressed byte " + std::to_string(consumed_)};
    return traits_type::eof();
  }

  int fd_;
  Codec codec_;
  std::unique_ptr<Decoder> decoder_;
  std::vector<char> in_, out_;
  size_t in_pos_ = 0, in_len_ = 0;
  bool in_eof_ = false;
  int64_t consumed_ = 0;
  Status error_;
};

// One codec's streaming encoder: compresses `size` bytes (or finishes) and hands output to `emit`.
class Encoder {
 public:
  virtual ~Encoder() = default;
  virtual bool write(const char* data, size_t size, bool finish, std::ostream& sink) = 0;
};

#ifdef GS_HAVE_ZLIB
class GzipEncoder final : public Encoder {
 public:
  GzipEncoder() { deflateInit2(&z_, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY); }
  ~GzipEncoder() override { deflateEnd(&z_); }
  bool write(const char* data, size_t size, bool finish, std::ostream& sink) override {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z_.avail_in = static_cast<uInt>(size);
    char out[kBuffer];
    int r;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(out);
      z_.avail_out = sizeof out;
      r = deflate(&z_, finish ? Z_FINISH : Z_NO_FLUSH);
      sink.write(out, static_cast<std::streamsize>(sizeof out - z_.avail_out));
    } while (z_.avail_in > 0 || (finish && r == Z_OK) || z_.avail_out == 0);
    return r != Z_STREAM_ERROR && sink.good();
  }

 private:
  z_stream z_{};
};
#endif

#ifdef GS_HAVE_BZIP2
class Bzip2Encoder final : public Encoder {
 public:
  Bzip2Encoder() { BZ2_bzCompressInit(&b_, 9, 0, 30); }
  ~Bzip2Encoder() override { BZ2_bzCompressEnd(&b_); }
  bool write(const char* data, size_t size, bool finish, std::ostream& sink) override {
    b_.next_in = const_cast<char*>(data);
    b_.avail_in = static_cast<unsigned>(size);
    char out[kBuffer];
    int r;
    do {
      b_.next_out = out;
      b_.avail_out = sizeof out;
      r = BZ2_bzCompress(&b_, finish ? BZ_FINISH : BZ_RUN);
      sink.write(out, static_cast<std::streamsize>(sizeof out - b_.avail_out));
    } while (r >= 0 && (b_.avail_in > 0 || (finish && r != BZ_STREAM_END)));
    return r >= 0 && sink.good();
  }

 private:
  bz_stream b_{};
};
#endif

#ifdef GS_HAVE_ZSTD
class ZstdEncoder final : public Encoder {
 public:
  ZstdEncoder() : c_(ZSTD_createCCtx()) {}
  ~ZstdEncoder() override { ZSTD_freeCCtx(c_); }
  bool write(const char* data, size_t size, bool finish, std::ostream& sink) override {
    ZSTD_inBuffer in{data, size, 0};
    char out[kBuffer];
    size_t remaining;
    do {
      ZSTD_outBuffer o{out, sizeof out, 0};
      remaining = ZSTD_compressStream2(c_, &o, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(remaining)) return false;
      sink.write(out, static_cast<std::streamsize>(o.pos));
    } while (finish ? remaining != 0 : in.pos < in.size);
    return sink.good();
  }

 private:
  ZSTD_CCtx* c_;
};
#endif

std::unique_ptr<Encoder> makeEncoder(Codec codec) {
  switch (codec) {
#ifdef GS_HAVE_ZLIB
    case Codec::Gzip: return std::make_unique<GzipEncoder>();
#endif
#ifdef GS_HAVE_BZIP2
    case Codec::Bzip2: return std::make_unique<Bzip2Encoder>();
#endif
#ifdef GS_HAVE_ZSTD
    case Codec::Zstd: return std::make_unique<ZstdEncoder>();
#endif
    default: return nullptr;
  }
}

class CompressBuf final : public std::streambuf {
 public:
  CompressBuf(std::ostream& sink, std::unique_ptr<Encoder> encoder)
      : sink_(sink), encoder_(std::move(encoder)), buffer_(kBuffer) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  bool finish() {
    if (finished_) return ok_;
    finished_ = true;
    ok_ = drain(true) && ok_;
    sink_.flush();
    return ok_ && sink_.good();
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain(false)) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  int sync() override { return drain(false) ? 0 : -1; }

 private:
  bool drain(bool finish) {
    const size_t n = static_cast<size_t>(pptr() - pbase());
    if (encoder_)
      ok_ = encoder_->write(pbase(), n, finish, sink_) && ok_;
    else
      ok_ = static_cast<bool>(sink_.write(pbase(), static_cast<std::streamsize>(n))) && ok_;
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return ok_;
  }
  std::ostream& sink_;
  std::unique_ptr<Encoder> encoder_;
  std::vector<char> buffer_;
  bool ok_ = true, finished_ = false;
};

}  // namespace

const char* codecName(Codec codec) {
  switch (codec) {
    case Codec::Gzip: return "gzip";
    case Codec::Bzip2: return "bzip2";
    case Codec::Zstd: return "zstd";
    case Codec::None: break;
  }
  return "none";
}

bool codecAvailable(Codec codec) { return codec == Codec::None || makeDecoder(codec) != nullptr; }

Codec codecFromPath(const std::string& path) {
  for (const auto& s : kSuffixes)
    if (endsWith(path, s.suffix)) return s.codec;
  return Codec::None;
}

std::string withoutCodecSuffix(const std::string& path) {
  for (const auto& s : kSuffixes)
    if (endsWith(path, s.suffix)) return path.substr(0, path.size() - std::strlen(s.suffix));
  return path;
}

std::vector<CodecSuffix> codecSuffixes() { return {std::begin(kSuffixes), std::end(kSuffixes)}; }

Codec sniffCodec(const unsigned char* d, size_t n) {
  if (n >= 2 && d[0] == 0x1f && d[1] == 0x8b) return Codec::Gzip;
  if (n >= 4 && d[0] == 'B' && d[1] == 'Z' && d[2] == 'h' && d[3] >= '1' && d[3] <= '9') return Codec::Bzip2;
  if (n >= 4 && d[0] == 0x28 && d[1] == 0xb5 && d[2] == 0x2f && d[3] == 0xfd) return Codec::Zstd;
  return Codec::None;
}

InputFile::InputFile(std::unique_ptr<std::streambuf> buf, Codec codec)
    : std::istream(buf.get()), buf_(std::move(buf)), codec_(codec) {}

InputFile::~InputFile() = default;

Result<std::unique_ptr<InputFile>> InputFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status{StatusCode::IoError, "cannot open " + path + ": " + std::strerror(errno)};
  unsigned char magic[4] = {0, 0, 0, 0};
  const ssize_t n = ::pread(fd, magic, sizeof magic, 0);
  const Codec codec = sniffCodec(magic, n > 0 ? static_cast<size_t>(n) : 0);
  if (codec == Codec::None) {
    ::close(fd);
    auto file = std::make_unique<std::filebuf>();
    if (!file->open(path, std::ios::in | std::ios::binary)) return Status{StatusCode::IoError, "cannot open " + path};
    return std::unique_ptr<InputFile>(new InputFile(std::move(file), codec));
  }
  auto decoder = makeDecoder(codec);
  if (!decoder) {
    ::close(fd);
    return Status{
        StatusCode::InvalidArgument,
        path + " is " + codecName(codec) + "-compressed, and this build has no " + codecName(codec) + " support"};
  }
  return std::unique_ptr<InputFile>(
      new InputFile(std::make_unique<DecompressBuf>(fd, codec, std::move(decoder)), codec));
}

Status InputFile::error() const {
  if (auto* d = dynamic_cast<const DecompressBuf*>(buf_.get())) return d->error();
  return Status::ok();
}

CompressingStream::CompressingStream(std::ostream& sink, Codec codec)
    : std::ostream(nullptr), buf_(std::make_unique<CompressBuf>(sink, makeEncoder(codec))) {
  rdbuf(buf_.get());
  if (codec != Codec::None && !makeEncoder(codec)) setstate(std::ios::badbit);
}

CompressingStream::~CompressingStream() { static_cast<CompressBuf*>(buf_.get())->finish(); }

Status CompressingStream::finish() {
  if (!good())
    return {StatusCode::IoError, "cannot write compressed output (codec missing in this build, or a write error)"};
  if (!static_cast<CompressBuf*>(buf_.get())->finish())
    return {StatusCode::IoError, "error writing compressed output (disk full?)"};
  return Status::ok();
}

}  // namespace gs
