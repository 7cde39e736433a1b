#pragma once
// Reading a molecule file with numeric target columns for training and evaluation, and splitting
// it: the one path that `train` and `evaluate` share, so that both see the same molecules and,
// for the same split options, the same split.
#include <functional>
#include <map>
#include <unordered_map>
#include <string>
#include <vector>

#include "chem/featurize.h"
#include "data/record_reader.h"
#include "data/split.h"
#include "similarity/fingerprint.h"

namespace gs::jobs {

struct LabelledDataOptions {
  std::string input;
  std::vector<std::string> targets;  // column names (CSV) or SDF data items
  data::ReaderOptions reader;
  chem::FeaturizeOptions featurize;
  bool scaffolds = false;     // compute Bemis–Murcko scaffolds (scaffold split)
  bool fingerprints = false;  // compute Morgan fingerprints (baselines)
  // Set: rows for which it returns false keep their targets, fingerprint and scaffold but not their
  // graph (features unset), e.g. training rows when only the baselines are fitted on them.
  std::function<bool(int64_t row)> graph_needed;
  int fingerprint_radius = 2;
  int fingerprint_bits = 2048;
};

struct LabelledData {
  std::vector<chem::MoleculeRow> rows;                   // usable molecules (features set but see graph_needed), in file order
  std::vector<std::vector<float>> targets;               // per row, one per target; NaN = missing
  std::vector<std::string> scaffolds;                    // per row, when requested
  std::vector<similarity::BitFingerprint> fingerprints;  // per row, when requested
  int64_t rows_read = 0;
  std::map<std::string, int64_t> skipped;  // reason -> count (unreadable molecule, no target)
};

// Rows whose molecule cannot be read or whose targets are all missing are counted and skipped;
// a target cell that is empty or not a finite number is missing.
Result<LabelledData> readLabelled(const LabelledDataOptions& options);

// A split file's rows: input row number -> (id, subset).
using SplitFileRows = std::unordered_map<int64_t, std::pair<std::string, data::Subset>>;
Result<SplitFileRows> readSplitFile(const std::string& path);

// splitDataset over the usable rows (scaffolds computed when the split needs them), or the subsets
// of options.file: every usable row must be in it with the same id, or the split is refused.
// `split_file`: options.file already read (so that it is read once).
Result<std::vector<data::Subset>> splitLabelled(const LabelledData& data, const data::SplitOptions& options,
                                                const SplitFileRows* split_file = nullptr);

// Writes "row,id,subset" (1-based input row numbers) so that a split can be audited and reused.
Status writeSplitFile(const std::string& path, const LabelledData& data, const std::vector<data::Subset>& split);

}  // namespace gs::jobs
