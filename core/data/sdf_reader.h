#pragma once
#include <istream>
#include <string>

#include "data/record_reader.h"

namespace gs::data {

// SD files: records end at a "$$$$" line; the molblock runs up to "M  END", data items follow.
// The ID is the title line, or the data item named by ReaderOptions::sdf_id_property. A broken
// record reaches the parser as it is and gets its own status; the next record is unaffected.
class SdfReader final : public RecordReader {
 public:
  SdfReader(std::istream& in, const ReaderOptions& options);
  bool next(RawRecord& out) override;

 private:
  std::istream& in_;
  std::string id_property_;
  int64_t row_ = 0;
};

}  // namespace gs::data
