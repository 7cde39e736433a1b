#pragma once
#include <istream>

#include "data/record_reader.h"

namespace gs::data {

// .smi: "SMILES [name...]" per line; lines starting with '#' are comments. Blank lines are rows
// (with an empty SMILES) so that output rows line up with input lines.
class SmiReader final : public RecordReader {
 public:
  explicit SmiReader(std::istream& in, int64_t first_row = 1);
  bool next(RawRecord& out) override;

 private:
  std::istream& in_;
  int64_t row_ = 0;
};

}  // namespace gs::data
