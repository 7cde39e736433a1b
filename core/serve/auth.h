#pragma once
// API keys for the prediction server: one key per line in a file (blank lines and # comments
// ignored), sent as "Authorization: Bearer KEY". Keys are compared as SHA-256 digests in
// constant time, so the time to refuse a key says nothing about how much of it was right.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace gs::serve {

class KeySet {
 public:
  // A file that cannot be read, holds no key, or a key shorter than 16 characters is an error.
  static Result<KeySet> load(const std::string& path);
  static KeySet fromKeys(const std::vector<std::string>& keys);
  bool empty() const { return digests_.empty(); }
  // True when `authorization` is "Bearer <a key of this set>".
  bool accepts(std::string_view authorization) const;

 private:
  std::vector<std::string> digests_;  // hex SHA-256 of each key
};

}  // namespace gs::serve
