#pragma once
#include <istream>
#include <string>
#include <vector>

#include "data/record_reader.h"

namespace gs::data {

// RFC 4180 CSV (or TSV): quoted fields with "" escapes and embedded newlines, CRLF or LF line
// ends, a header row naming the columns. A row with fewer fields than the SMILES/ID columns need,
// extra non-empty fields, or an unterminated quote yields a MalformedRecord status.
class CsvReader final : public RecordReader {
 public:
  // `delimiter` '\0': detected from the first line (detectDelimiter), `fallback` when unclear.
  // `cxsmiles`: a vendor's CXSMILES table: tab-separated, or space-separated when the first line
  // has no tab, and a "|...|" field after the SMILES is its CXSMILES extension (joined back to it).
  CsvReader(std::istream& in, const ReaderOptions& options, char delimiter, char fallback = ',', bool cxsmiles = false);
  bool next(RawRecord& out) override;
  std::vector<std::string> columns() const override { return header_; }
  std::vector<int> otherColumns() const override;
  char delimiter() const { return delim_; }
  // Status of the column selection (e.g. the requested SMILES column is not in the header).
  const Status& setupStatus() const { return setup_; }

 private:
  // Reads one logical row; false at EOF. Sets *unterminated when EOF hit inside quotes.
  bool readRow(std::vector<std::string>& fields, bool* unterminated);
  int resolveColumn(const std::string& spec, const char* const* auto_names, int fallback);
  void joinCxExtensions(std::vector<std::string>& fields) const;

  std::istream& in_;
  char delim_;
  bool cxsmiles_ = false;
  std::string pending_;  // the first line, read to detect the delimiter
  bool has_pending_ = false;
  std::vector<std::string> header_;
  int smiles_col_ = 0;
  int id_col_ = -1;
  int64_t row_ = 0;
  Status setup_;
};

}  // namespace gs::data
