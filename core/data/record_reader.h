#pragma once
// Streaming readers for the formats of data/file_format.h. Each yields one RawRecord per input row, in file
// order, holding only the current record in memory. A malformed row yields a record with a
// status, never an exception, and reading continues with the next row.
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "data/file_format.h"
#include "data/record.h"

namespace gs::data {

struct ReaderOptions {
  // CSV: column holding SMILES / IDs, by header name (case-insensitive) or 0-based index
  // ("#2"). Empty: auto-detect (smiles, smi, canonical_smiles / id, name, title), else column 0
  // and the row number.
  std::string smiles_column;
  std::string id_column;
  bool csv_header = true;  // false: no header row, columns by index only
  // '\0': detected from the first line (the most frequent of ',', ';' and tab outside quotes;
  // a tie or none: ',' for .csv, tab for .tsv); CXSMILES files: tab, or space without a tab.
  char csv_delimiter = '\0';
  std::string sdf_id_property;  // SDF: take the ID from this data item instead of the title
  // SDF: the data items that are columns, in this order, from the first record on (a header can
  // then be written before reading; scanSdfItems lists a file's). Empty: every item, as first seen.
  std::vector<std::string> sdf_items;
  int64_t first_row = 1;  // number of the first record read (a reader over part of a file)
};

class RecordReader {
 public:
  virtual ~RecordReader() = default;
  // False at end of input.
  virtual bool next(RawRecord& out) = 0;
  // Names of the fields of a record (CSV columns, SD data items; empty for .smi).
  virtual std::vector<std::string> columns() const { return {}; }
  // Indices into columns() of the user's other data: every column except the SMILES and ID
  // columns (SDF: every data item except the one the ID comes from). Kept next to predictions.
  virtual std::vector<int> otherColumns() const { return {}; }
  // Not ok when the input stopped early (corrupt or truncated compressed data, a read error): the
  // records before it were read, the rest are missing. Checked after next() returned false.
  virtual Status inputError() const { return Status::ok(); }
};

std::unique_ptr<RecordReader> makeReader(FileFormat format, std::istream& in, const ReaderOptions& options = {});
// Opens the file and picks the reader from its extension; the reader owns the stream. Compressed
// files (gzip, bzip2, zstd: recognised by content) are decompressed while reading.
Result<std::unique_ptr<RecordReader>> openReader(const std::string& path, const ReaderOptions& options = {});
// The names of every data item in an SD file, in order of first appearance (reads the whole file).
Result<std::vector<std::string>> scanSdfItems(const std::string& path, const ReaderOptions& options = {});
// The delimiter of a delimited text line: the most frequent of ',', ';' and tab outside double
// quotes; `fallback` on a tie with it or when none occurs.
char detectDelimiter(const std::string& line, char fallback);

}  // namespace gs::data
