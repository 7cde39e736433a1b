#include "jobs/labelled_data.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fstream>
#include <unordered_map>

#include "chem/descriptors.h"
#include "common/atomic_file.h"
#include "data/csv_reader.h"
#include "data/csv_writer.h"
#include "similarity/butina.h"

namespace gs::jobs {
namespace {

float parseTarget(const std::string& text) {
  if (text.empty()) return std::nanf("");
  char* end = nullptr;
  const float v = std::strtof(text.c_str(), &end);
  return end && *end == '\0' && std::isfinite(v) ? v : std::nanf("");
}

// Column indices of the targets (-1 while not seen: an SD file's data items appear as it is read).
bool resolveTargets(const data::RecordReader& reader, const std::vector<std::string>& targets, std::vector<int>& cols) {
  const auto columns = reader.columns();
  bool all = true;
  for (size_t j = 0; j < targets.size(); ++j) {
    if (cols[j] >= 0) continue;
    auto it = std::find(columns.begin(), columns.end(), targets[j]);
    if (it != columns.end()) cols[j] = static_cast<int>(it - columns.begin());
    all = all && cols[j] >= 0;
  }
  return all;
}

Status unresolved(const std::vector<std::string>& targets, const std::vector<int>& cols, bool sdf) {
  for (size_t j = 0; j < targets.size(); ++j)
    if (cols[j] < 0)
      return Status(StatusCode::InvalidArgument,
                    sdf ? "no record has the data item '" + targets[j] + "'"
                        : "target column '" + targets[j] + "' is not in the file's header");
  return Status::ok();
}

}  // namespace

Result<LabelledData> readLabelled(const LabelledDataOptions& options) {
  if (options.targets.empty()) return Status(StatusCode::InvalidArgument, "name at least one target column");
  auto reader = data::openReader(options.input, options.reader);
  if (!reader.isOk()) return reader.status();
  const auto format = data::formatFromPath(options.input);
  const bool sdf = format.isOk() && data::formatInfo(format.value()).fields == data::FieldLayout::DataItems;
  std::vector<int> cols(options.targets.size(), -1);
  bool resolved = resolveTargets(*reader.value(), options.targets, cols);
  if (!resolved && !sdf) return unresolved(options.targets, cols, false);
  chem::FeaturizeOptions featurize = options.featurize;
  const bool need_mol = options.scaffolds || options.fingerprints;
  featurize.keep_molecule = featurize.keep_molecule || need_mol;
  LabelledData out;
  data::RawRecord record;
  while (reader.value()->next(record)) {
    ++out.rows_read;
    if (!resolved) resolved = resolveTargets(*reader.value(), options.targets, cols);
    auto row = chem::featurizeRecord(record, featurize);
    if (!row.features) {
      ++out.skipped[statusCodeName(row.status.code())];
      continue;
    }
    std::vector<float> y;
    for (int c : cols)
      y.push_back(c >= 0 && c < static_cast<int>(record.fields.size()) ? parseTarget(record.fields[c]) : std::nanf(""));
    if (std::all_of(y.begin(), y.end(), [](float v) { return std::isnan(v); })) {
      ++out.skipped["no_target"];
      continue;
    }
    if (options.scaffolds) out.scaffolds.push_back(chem::murckoScaffold(*row.mol));
    if (options.fingerprints)
      out.fingerprints.push_back(
          chem::morganFingerprint(*row.mol, options.fingerprint_radius, options.fingerprint_bits));
    if (!options.featurize.keep_molecule) row.mol.reset();
    if (options.graph_needed && !options.graph_needed(row.row)) row.features.reset();
    out.rows.push_back(std::move(row));
    out.targets.push_back(std::move(y));
  }
  if (!resolved) return unresolved(options.targets, cols, sdf);
  return out;
}

Result<SplitFileRows> readSplitFile(const std::string& path) {
  const auto fail = [&path](const std::string& why) {
    return Status(StatusCode::InvalidArgument, "split file '" + path + "': " + why);
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot be opened");
  data::ReaderOptions ro;
  ro.smiles_column = "subset";
  ro.id_column = "id";
  data::CsvReader reader(in, ro, ',');
  const auto columns = reader.columns();
  const auto row_col = std::find(columns.begin(), columns.end(), "row") - columns.begin();
  if (!reader.setupStatus().isOk() || row_col == static_cast<long>(columns.size()))
    return fail("not a split file (columns row, id, subset)");
  SplitFileRows subsets;
  data::RawRecord r;
  while (reader.next(r)) {
    char* end = nullptr;
    const bool whole = r.status.isOk() && static_cast<size_t>(row_col) < r.fields.size();
    const long long row = whole ? std::strtoll(r.fields[row_col].c_str(), &end, 10) : 0;
    auto subset = data::parseSubset(r.text);
    if (row <= 0 || *end != '\0' || !subset.isOk())
      return fail("line " + std::to_string(r.row + 1) + " is not 'row,id,subset'");
    subsets[row] = {r.id, subset.value()};
  }
  return subsets;
}

namespace {

Result<std::vector<data::Subset>> splitFromFile(const LabelledData& data, const std::string& path,
                                                const SplitFileRows* read) {
  Result<SplitFileRows> own = SplitFileRows{};
  if (!read) {
    own = readSplitFile(path);
    if (!own.isOk()) return own.status();
    read = &own.value();
  }
  const SplitFileRows* subsets = read;
  std::vector<data::Subset> split;
  for (const auto& m : data.rows) {
    auto it = subsets->find(m.row);
    const std::string where = "split file '" + path + "' ";
    if (it == subsets->end())
      return Status(StatusCode::InvalidArgument, where + "has no subset for input row " + std::to_string(m.row));
    if (it->second.first != m.id)
      return Status(StatusCode::InvalidArgument, where + "has row " + std::to_string(m.row) + " as '" +
                                                     it->second.first + "' but the input has '" + m.id +
                                                     "': the split belongs to another file");
    split.push_back(it->second.second);
  }
  return split;
}

}  // namespace

Result<std::vector<data::Subset>> splitLabelled(const LabelledData& data, const data::SplitOptions& options,
                                                const SplitFileRows* split_file) {
  if (!options.file.empty()) return splitFromFile(data, options.file, split_file);
  if (options.kind == data::SplitKind::Scaffold && data.scaffolds.size() != data.rows.size())
    return Status(StatusCode::Internal, "scaffolds were not computed for the scaffold split");
  if (options.kind != data::SplitKind::Cluster) return data::splitDataset(data.rows.size(), options, data.scaffolds);
  if (data.fingerprints.size() != data.rows.size())
    return Status(StatusCode::Internal, "fingerprints were not computed for the cluster split");
  std::vector<std::string> clusters;
  for (int c : similarity::butinaClusters(data.fingerprints, options.cluster_similarity))
    clusters.push_back(std::to_string(c));
  return data::splitDataset(data.rows.size(), options, clusters);
}

Status writeSplitFile(const std::string& path, const LabelledData& data, const std::vector<data::Subset>& split) {
  AtomicFile file(path);
  if (!file.isOpen()) return file.openStatus();
  data::CsvWriter csv(file.stream());
  csv.row({"row", "id", "subset"});
  for (size_t i = 0; i < data.rows.size() && i < split.size(); ++i)
    csv.row({std::to_string(data.rows[i].row), data.rows[i].id, data::subsetName(split[i])});
  return file.commit();
}

}  // namespace gs::jobs
