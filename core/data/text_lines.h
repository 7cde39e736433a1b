#pragma once
// Line reading shared by the readers: strips a trailing '\r' (CRLF files) and tells whether the
// last line read was terminated, so a final newline does not produce an extra empty row.
#include <istream>
#include <string>

namespace gs::data::detail {

inline bool readLine(std::istream& in, std::string& line) {
  if (!std::getline(in, line)) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

inline bool isBlank(const std::string& s) {
  return s.find_first_not_of(" \t\r\n") == std::string::npos;
}

}  // namespace gs::data::detail
