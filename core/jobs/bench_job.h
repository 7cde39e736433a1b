#pragma once
// `graphormer-cli bench` and the app's Compare tab: featurize a molecule file (or take featurized
// molecules) and measure each optimisation mode on them with engine::runComparison.
#include <string>
#include <vector>

#include "bundle/model_source.h"
#include "chem/featurize.h"
#include "data/record_reader.h"
#include "engine/compare.h"

namespace gs::jobs {

struct BenchJobOptions {
  bundle::ModelSource model;  // "" = the bundled default model; adapters as for predict
  std::string input;
  data::ReaderOptions reader;
  chem::FeaturizeOptions featurize;
  engine::CompareOptions compare;
  int64_t max_molecules = 0;  // > 0: the first N readable molecules only
  std::string json_path, csv_path;  // written when set
  engine::CompareCallbacks callbacks;
};

struct BenchJobSummary {
  std::string model_path;
  int64_t rows = 0, molecules = 0;  // rows read, molecules measured
  std::vector<engine::ModeResult> results;
};

Result<BenchJobSummary> runBench(const BenchJobOptions& options);

}  // namespace gs::jobs
