#pragma once
// Writes prediction rows to a stream as the output path's format says: CSV (the default), or, for
// an SD file name (data/file_format.h: .sdf, .sd, .mol, each optionally compressed), an SD file
// with one record per input row in input order: the structure from the canonical SMILES with 2D
// coordinates (an empty structure for a row that could not be read; a structure read from an SD
// file is redrawn, its own coordinates are not kept), its id as the title, and every column of the
// CSV (row, id, SMILES, status, each property with its interval and σ, domain, message, the user's
// kept columns) as a data item. `graphormer-cli predict --output FILE.sdf` and the app's export.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "predict/prediction_table.h"

namespace gs::predict {

class PredictionWriter {
 public:
  virtual ~PredictionWriter() = default;
  // One row: `fields` as predictionFields() plus the kept input columns, `row` for its structure.
  virtual void write(const std::vector<std::string>& fields, const PredictedRow& row) = 0;
};

// `header` names the fields every write() gets (a CSV writes it first).
std::unique_ptr<PredictionWriter> makePredictionWriter(std::ostream& out, const std::string& path,
                                                       std::vector<std::string> header);
bool writesSdFile(const std::string& path);

}  // namespace gs::predict
