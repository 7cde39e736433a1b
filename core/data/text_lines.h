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

// Consumes a UTF-8 byte-order mark at the current position (the start of a file); anything else is
// left unread.
inline void skipBom(std::istream& in) {
  static const unsigned char kBom[3] = {0xEF, 0xBB, 0xBF};
  std::streambuf* buf = in.rdbuf();
  int matched = 0;
  while (matched < 3 && buf->sgetc() == kBom[matched]) {
    buf->sbumpc();
    ++matched;
  }
  if (matched < 3)
    while (matched-- > 0) buf->sungetc();
}

inline bool isBlank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

}  // namespace gs::data::detail
