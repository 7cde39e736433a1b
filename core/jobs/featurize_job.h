#pragma once
// `graphormer-cli featurize`: reads a molecule file and reports, per input row, its status and
// graph sizes, or (json) the full feature tensors under the reference fixture's field names.
#include <map>
#include <ostream>
#include <string>

#include "chem/featurize.h"
#include "data/record_reader.h"
#include "graph/convention.h"

namespace gs::jobs {

struct FeaturizeJobOptions {
  std::string input;
  data::ReaderOptions reader;
  chem::FeaturizeOptions featurize;
  graph::Convention convention = graph::Convention::Official;
  bool json = false;
};

struct JobSummary {
  int64_t rows = 0;
  std::map<std::string, int64_t> by_status;  // status name -> count
};

// Writes one line per row to out; returns the summary, or an error if the input cannot be opened.
Result<JobSummary> runFeaturize(const FeaturizeJobOptions& options, std::ostream& out);

// One JSON object (no newline) for a row, fixture field names; hf_* always in the HF convention.
void writeFeatureJson(const chem::MoleculeRow& row, graph::Convention convention, std::ostream& out);

}  // namespace gs::jobs
