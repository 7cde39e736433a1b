#pragma once
// SHA-256 (FIPS 180-4) for run records: which exact model file produced a prediction.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace gs {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  std::string hexDigest();  // finalises; call once

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

// Hex digest of a whole file, streamed.
Result<std::string> sha256File(const std::string& path);

}  // namespace gs
