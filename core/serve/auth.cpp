#include "serve/auth.h"

#include <cctype>
#include <fstream>

#include "common/sha256.h"

namespace gs::serve {
namespace {

std::string digest(std::string_view key) {
  Sha256 h;
  h.update(key.data(), key.size());
  return h.hexDigest();
}

// Equal-length strings compared without an early exit.
bool constantTimeEqual(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<KeySet> KeySet::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status(StatusCode::IoError, "cannot read the key file " + path);
  std::vector<std::string> keys;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string_view key = trim(line);
    if (key.empty() || key.front() == '#') continue;
    if (key.size() < 16)
      return Status(StatusCode::InvalidArgument,
                    path + " line " + std::to_string(number) + ": a key must have at least 16 characters");
    if (key.find_first_of(" \t") != std::string_view::npos)
      return Status(StatusCode::InvalidArgument, path + " line " + std::to_string(number) + ": a key has no spaces");
    keys.emplace_back(key);
  }
  if (keys.empty()) return Status(StatusCode::InvalidArgument, path + " holds no key");
  return fromKeys(keys);
}

KeySet KeySet::fromKeys(const std::vector<std::string>& keys) {
  KeySet set;
  for (const std::string& k : keys) set.digests_.push_back(digest(k));
  return set;
}

bool KeySet::accepts(std::string_view authorization) const {
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.size() <= kScheme.size()) return false;
  for (size_t i = 0; i < kScheme.size(); ++i)  // the scheme is case-insensitive (RFC 9110)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) !=
        std::tolower(static_cast<unsigned char>(kScheme[i])))
      return false;
  const std::string d = digest(trim(authorization.substr(kScheme.size())));
  bool found = false;
  for (const std::string& known : digests_) found = constantTimeEqual(d, known) || found;  // no early exit
  return found;
}

}  // namespace gs::serve
