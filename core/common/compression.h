#pragma once
// Transparent compression for molecule files and outputs: gzip (zlib), bzip2 and zstd, streamed.
// Inputs are recognised by their magic bytes (a ".smi" that is really gzip is read as gzip);
// outputs by their name (".csv.gz", ".csv.bz2", ".csv.zst"). Concatenated gzip members, bzip2
// streams and zstd frames read as one stream, so ordered compressed pieces can be joined with
// `cat` (screening merges shard outputs that way). Corrupt or truncated compressed data ends the
// stream early and error() says why and where. A codec missing at build time gives a clear error.
#include <cstdint>
#include <istream>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "common/status.h"

namespace gs {

enum class Codec { None, Gzip, Bzip2, Zstd };

const char* codecName(Codec codec);
bool codecAvailable(Codec codec);
// The file name suffixes of compressed files (".gz", ".gzip", ".bz2", ".zst", ".zstd"); `usual`
// marks the one outputs are named with and help texts name.
struct CodecSuffix {
  const char* suffix;
  Codec codec;
  bool usual;
};
std::vector<CodecSuffix> codecSuffixes();
// From the name's last suffix: .gz/.gzip, .bz2, .zst/.zstd; None otherwise.
Codec codecFromPath(const std::string& path);
// `path` without its compression suffix ("lib.smi.gz" -> "lib.smi").
std::string withoutCodecSuffix(const std::string& path);
// From the first bytes of a file (None when they are no known magic).
Codec sniffCodec(const unsigned char* data, size_t size);

// A file opened for reading, decompressed when its content is compressed.
class InputFile : public std::istream {
 public:
  static Result<std::unique_ptr<InputFile>> open(const std::string& path);
  ~InputFile() override;
  Codec codec() const { return codec_; }
  // Not ok when reading stopped before the end of the data (corrupt or truncated compressed data,
  // a read error): the rows before it were read, the rest are missing.
  Status error() const;

 private:
  InputFile(std::unique_ptr<std::streambuf> buf, Codec codec);
  std::unique_ptr<std::streambuf> buf_;
  Codec codec_;
};

// Compresses what is written into `sink` (not owned, e.g. an AtomicFile's stream); with
// Codec::None it passes bytes through. finish() writes the trailer and flushes; the destructor
// finishes if it was not called (errors then go unreported).
class CompressingStream : public std::ostream {
 public:
  CompressingStream(std::ostream& sink, Codec codec);
  ~CompressingStream() override;
  Status finish();

 private:
  std::unique_ptr<std::streambuf> buf_;
};

}  // namespace gs
