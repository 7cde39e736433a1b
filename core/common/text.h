#pragma once
// Small string helpers shared across core (C++17 has no starts_with/ends_with).
#include <string_view>

namespace gs {

inline bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
inline bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace gs
