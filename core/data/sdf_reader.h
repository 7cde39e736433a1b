#pragma once
#include <istream>
#include <string>

#include "data/record_reader.h"

namespace gs::data {

// SD files: records end at a "$$$$" line; the molblock runs up to "M  END", data items follow.
// The ID is the title line, or the data item named by ReaderOptions::sdf_id_property. A broken
// record reaches the parser as it is and gets its own status; the next record is unaffected.
// Data items are columns: columns() lists every item name seen so far (in order of first
// appearance, so it grows while reading) and a record's `fields` hold its values by that index
// ("" where the record lacks the item; a multi-line value joined with newlines).
class SdfReader final : public RecordReader {
 public:
  SdfReader(std::istream& in, const ReaderOptions& options);
  bool next(RawRecord& out) override;
  std::vector<std::string> columns() const override { return columns_; }
  std::vector<int> otherColumns() const override;

 private:
  void setItem(RawRecord& out, const std::string& name, const std::string& line);
  std::istream& in_;
  std::string id_property_;
  std::vector<std::string> columns_;
  bool fixed_columns_ = false;  // ReaderOptions::sdf_items given: other items are not columns
  int64_t row_ = 0;
};

}  // namespace gs::data
