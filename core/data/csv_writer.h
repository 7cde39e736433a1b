#pragma once
// RFC 4180 CSV output: fields with commas, quotes or line breaks are quoted, quotes doubled.
// Output is always valid UTF-8: bytes that are not (a broken input line) become U+FFFD, so the file
// opens in spreadsheets and CSV libraries.
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gs::data {

class CsvWriter {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}
  void row(const std::vector<std::string>& fields);
  static std::string escape(std::string_view field);
  static std::string validUtf8(std::string_view text);
  // Shortest text that reads back as the same float ("%.9g").
  static std::string number(float v);

 private:
  std::ostream& out_;
};

}  // namespace gs::data
