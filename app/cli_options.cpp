#include "cli_options.h"

#include <iostream>

#include "chem/molecule.h"

namespace gs::app {

FlagSet operator+(FlagSet a, const FlagSet& b) {
  a.valued.insert(b.valued.begin(), b.valued.end());
  a.switches.insert(b.switches.begin(), b.switches.end());
  return a;
}

bool parseFlags(CliArgs& args, int argc, char** argv, const FlagSet& flags, std::string* error) {
  return args.parse(argc, argv, 2, flags.valued, flags.switches, error);
}

FlagSet modelFlags() {
  return {{"--model", "--adapter", "--device", "--precision", "--threads", "--batch-size", "--memory-budget-mib"}, {}};
}

FlagSet inputFlags() {
  return {{"--smiles-column", "--id-column", "--sdf-id-property", "--max-atoms", "--atom-order", "--delimiter"},
          {"--no-header", "--verbose"}};
}

FlagSet collationFlags() { return {{"--convention", "--spatial-pos-max"}, {"--no-bucketing"}}; }

FlagSet splitFlags() {
  return {
      {"--split", "--split-file", "--seed", "--valid-fraction", "--test-fraction", "--calibration-fraction", "--cluster-similarity"},
      {}};
}

FlagSet trustFlags() { return {{"--confidence"}, {"--no-trust", "--strip-salts"}}; }

bool readTrustFlags(const CliArgs& args, predict::PredictorOptions* out, std::string* error) {
  out->trust = !args.has("--no-trust");
  out->strip_salts = args.has("--strip-salts");
  if (!args.getDouble("--confidence", 0.01, 0.999, &out->confidence, error)) return false;
  return true;
}

bool readModelFlags(const CliArgs& args, const ModelFlagRules& rules, predict::PredictorOptions* out,
                    std::string* error) {
  auto& s = out->session;
  out->model = {args.get("--model"), args.get("--adapter")};
  s.device = args.get("--device", "cpu");
  auto precision = tensor::parsePrecision(args.get("--precision", "fp32"));
  if (!precision.isOk()) return *error = "--precision: " + precision.status().message(), false;
  if (const auto& t = tensor::traits(precision.value()); rules.gradients && !t.trains)
    return *error = std::string("--precision ") + t.name + " is for inference only (" + t.training_note + "): use " +
                    tensor::precisionChoices(true),
           false;
  s.precision = precision.value();
  int budget_mib = 0;
  if (!args.getInt("--threads", 0, 0, 1024, &s.threads, error) ||
      !args.getInt("--batch-size", rules.default_batch_size, 1, 65536, &s.plan.max_batch_size, error) ||
      !args.getInt("--memory-budget-mib", 0, 0, 1 << 24, &budget_mib, error))
    return false;
  if (budget_mib > 0 && !rules.memory_budget) return *error = "--memory-budget-mib: " + rules.budget_note, false;
  predict::setMemoryBudget(s, budget_mib,
                           args.has("--batch-size") ? std::optional<int>(s.plan.max_batch_size) : std::nullopt);
  return true;
}

bool readInputFlags(const CliArgs& args, data::ReaderOptions* reader, predict::PredictorOptions* out,
                    std::string* error) {
  reader->smiles_column = args.get("--smiles-column");
  reader->id_column = args.get("--id-column");
  reader->csv_header = !args.has("--no-header");
  reader->sdf_id_property = args.get("--sdf-id-property");
  const std::string delimiter = args.get("--delimiter");
  if (delimiter == "tab" || delimiter == "\\t")
    reader->csv_delimiter = '\t';
  else if (delimiter.size() == 1 && (delimiter == "," || delimiter == ";" || delimiter == "|"))
    reader->csv_delimiter = delimiter[0];
  else if (!delimiter.empty())
    return *error = "--delimiter: expected ',', ';', '|' or 'tab', got '" + delimiter + "'", false;
  if (!args.getInt("--max-atoms", 512, 1, 100000, &out->parse.max_atoms, error)) return false;
  auto order = chem::parseAtomOrder(args.get("--atom-order", "canonical"));
  if (!order.isOk()) return *error = "--atom-order: " + order.status().message(), false;
  out->atom_order = order.value();
  chem::setRdkitLogEcho(args.has("--verbose"));
  return true;
}

bool readCollationFlags(const CliArgs& args, engine::SessionOptions* out, std::string* error) {
  if (args.has("--convention")) {
    auto convention = graph::parseConvention(args.get("--convention"));
    if (!convention.isOk()) return *error = "--convention: " + convention.status().message(), false;
    out->convention = convention.value();
  }
  int spatial_pos_max = 0;
  if (!args.getInt("--spatial-pos-max", 0, 1, 100000, &spatial_pos_max, error)) return false;
  if (args.has("--spatial-pos-max")) out->spatial_pos_max = spatial_pos_max;
  out->plan.bucketing = !args.has("--no-bucketing");
  return true;
}

bool readSplitFlags(const CliArgs& args, data::SplitOptions* split, std::string* error) {
  auto kind = data::parseSplitKind(args.get("--split", "random"));
  if (!kind.isOk()) return *error = kind.status().message(), false;
  split->kind = kind.value();
  int seed = 0;
  if (!args.getInt("--seed", 0, 0, 1 << 30, &seed, error) ||
      !args.getDouble("--valid-fraction", 0.0, 0.9, &split->valid_fraction, error) ||
      !args.getDouble("--test-fraction", 0.0, 0.9, &split->test_fraction, error) ||
      !args.getDouble("--calibration-fraction", 0.0, 0.9, &split->calib_fraction, error) ||
      !args.getDouble("--cluster-similarity", 0.05, 1.0, &split->cluster_similarity, error))
    return false;
  split->seed = static_cast<uint64_t>(seed);
  split->file = args.get("--split-file");
  return true;
}

int fail(const std::string& message) {
  std::cerr << "graphormer-cli: " << message << "\n";
  return 2;
}

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace gs::app
