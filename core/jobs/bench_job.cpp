#include "jobs/bench_job.h"

#include "jobs/output_check.h"
#include "model/loader.h"

namespace gs::jobs {

Result<BenchJobSummary> runBench(const BenchJobOptions& options) {
  BenchJobSummary summary;
  if (Status s = checkOutputs({options.json_path, options.csv_path}, {options.input}, options.model); !s.isOk()) return s;
  auto loaded = model::openModel(options.model);
  if (!loaded.isOk()) return loaded.status();
  summary.model_path = model::modelLabel(loaded.value());
  auto reader = data::openReader(options.input, options.reader);
  if (!reader.isOk()) return reader.status();
  chem::FeaturizeOptions fo = options.featurize;
  fo.multi_hop_max_dist = loaded->config.multi_hop_max_dist;
  std::vector<graph::Featurized> features;
  data::RawRecord record;
  while (reader.value()->next(record)) {
    ++summary.rows;
    auto row = chem::featurizeRecord(record, fo);
    if (row.features && row.num_atoms <= loaded->config.max_nodes) features.push_back(std::move(*row.features));
    if (options.max_molecules > 0 && static_cast<int64_t>(features.size()) >= options.max_molecules) break;
  }
  if (features.empty()) return Status(StatusCode::InvalidArgument, "no readable molecules in '" + options.input + "'");
  std::vector<const graph::Featurized*> mols;
  for (const auto& f : features) mols.push_back(&f);
  summary.molecules = static_cast<int64_t>(mols.size());
  auto results = engine::runComparison(loaded.value(), mols, options.compare, options.callbacks);
  if (!results.isOk()) return results.status();
  summary.results = std::move(results.value());
  if (!options.json_path.empty())
    if (Status s = engine::writeComparisonJson(options.json_path, summary.results); !s.isOk()) return s;
  if (!options.csv_path.empty())
    if (Status s = engine::writeComparisonCsv(options.csv_path, summary.results); !s.isOk()) return s;
  return summary;
}

}  // namespace gs::jobs
