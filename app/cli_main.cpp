// graphormer-cli: argument parsing only; every command runs in core/jobs.
#include <cstring>
#include <iostream>
#include <string>

#include "chem/molecule.h"
#include "cli_args.h"
#include "jobs/featurize_job.h"
#include "jobs/predict_job.h"

namespace {

const char* kUsage =
    "usage: graphormer-cli <command> [options]\n"
    "\n"
    "commands:\n"
    "  featurize --input FILE [--convention official|hf] [--json] [--smiles-column C] [--id-column C]\n"
    "            [--no-header] [--sdf-id-property P] [--max-atoms N] [--multi-hop-max-dist N] [--verbose]\n"
    "            [--atom-order canonical|as-written]\n"
    "      Per input row: status, atom and bond counts, longest shortest path; with --json one JSON\n"
    "      object per row with the OGB features and Graphormer encodings (reference field names).\n"
    "\n"
    "  predict --model DIR|FILE --input FILE --output FILE.csv [--precision fp32|bf16|fp16|int8]\n"
    "          [--batch-size N] [--threads N] [--device cpu|cuda] [--convention official|hf]\n"
    "          [--spatial-pos-max N] [--no-bucketing] [--smiles-column C] [--id-column C] [--no-header]\n"
    "          [--sdf-id-property P] [--max-atoms N] [--atom-order canonical|as-written] [--quiet]\n"
    "      One CSV row per input row, in input order: row,id,smiles,canonical_smiles,status,<outputs>,message;\n"
    "      a run record (model SHA-256, settings, versions, counts) goes to FILE.csv.json.\n"
    "      Defaults: fp32, batch 32, the model's index convention (official if it names none) and its\n"
    "      spatial_pos_max. Models: model.safetensors, pytorch_model.bin (+ config.json) or a fairseq .pt.\n"
    "\n"
    "--atom-order: chirality tags and the choice among equally short paths depend on the order a SMILES\n"
    "writes the atoms in. 'canonical' (default) renumbers atoms canonically first, so every SMILES of a\n"
    "molecule gives the same result; 'as-written' keeps the input order, as OGB and the Python Graphormer do.\n"
    "\n"
    "Input formats by extension: .smi (SMILES [name]), .csv/.tsv (header row; SMILES column\n"
    "auto-detected or --smiles-column NAME|#INDEX), .sdf (ID from the title or --sdf-id-property).\n";

int fail(const std::string& message) {
  std::cerr << "graphormer-cli: " << message << "\n";
  return 2;
}

bool readAtomOrder(const gs::app::CliArgs& args, gs::chem::AtomOrder* out) {
  const std::string c = args.get("--atom-order", "canonical");
  if (c == "canonical") *out = gs::chem::AtomOrder::Canonical;
  else if (c == "as-written") *out = gs::chem::AtomOrder::AsWritten;
  else return false;
  return true;
}

void readCommonOptions(const gs::app::CliArgs& args, gs::data::ReaderOptions& reader) {
  reader.smiles_column = args.get("--smiles-column");
  reader.id_column = args.get("--id-column");
  reader.csv_header = !args.has("--no-header");
  reader.sdf_id_property = args.get("--sdf-id-property");
}

int featurizeCommand(int argc, char** argv) {
  gs::app::CliArgs args;
  std::string error;
  if (!args.parse(argc, argv, 2,
                  {"--input", "--convention", "--smiles-column", "--id-column", "--sdf-id-property",
                   "--max-atoms", "--multi-hop-max-dist", "--atom-order"},
                  {"--json", "--no-header", "--verbose"}, &error))
    return fail(error);
  gs::jobs::FeaturizeJobOptions options;
  options.input = args.get("--input");
  if (options.input.empty()) return fail("featurize needs --input FILE");
  if (!gs::data::parseConvention(args.get("--convention", "official"), &options.convention))
    return fail("--convention must be 'official' or 'hf'");
  if (!args.getInt("--max-atoms", 512, 1, 100000, &options.featurize.parse.max_atoms, &error) ||
      !args.getInt("--multi-hop-max-dist", 5, 0, 510, &options.featurize.multi_hop_max_dist, &error))
    return fail(error);
  options.json = args.has("--json");
  if (!readAtomOrder(args, &options.featurize.atom_order)) return fail("--atom-order must be 'canonical' or 'as-written'");
  readCommonOptions(args, options.reader);
  gs::chem::setRdkitLogEcho(args.has("--verbose"));
  std::ios::sync_with_stdio(false);
  auto summary = gs::jobs::runFeaturize(options, std::cout);
  std::cout.flush();
  if (!summary.isOk()) return fail(summary.status().toString());
  std::cerr << "featurize: " << summary->rows << " rows";
  for (const auto& [name, count] : summary->by_status) std::cerr << ", " << count << " " << name;
  std::cerr << "\n";
  return 0;
}

int predictCommand(int argc, char** argv) {
  gs::app::CliArgs args;
  std::string error;
  if (!args.parse(argc, argv, 2,
                  {"--model", "--input", "--output", "--precision", "--batch-size", "--threads", "--device",
                   "--convention", "--spatial-pos-max", "--smiles-column", "--id-column", "--sdf-id-property",
                   "--max-atoms", "--atom-order"},
                  {"--no-bucketing", "--no-header", "--quiet", "--verbose"}, &error))
    return fail(error);
  gs::jobs::PredictJobOptions options;
  options.model = args.get("--model");
  options.input = args.get("--input");
  options.output = args.get("--output");
  if (options.model.empty() || options.input.empty() || options.output.empty())
    return fail("predict needs --model, --input and --output");
  auto& session = options.session;
  if (!gs::engine::parsePrecision(args.get("--precision", "fp32"), &session.precision))
    return fail("--precision must be fp32, bf16, fp16 or int8");
  session.device = args.get("--device", "cpu");
  if (args.has("--convention")) {
    gs::data::Convention convention{};
    if (!gs::data::parseConvention(args.get("--convention"), &convention))
      return fail("--convention must be 'official' or 'hf'");
    session.convention = convention;
  }
  int spatial_pos_max = 0;
  if (!args.getInt("--batch-size", 32, 1, 65536, &session.plan.max_batch_size, &error) ||
      !args.getInt("--threads", 0, 0, 1024, &session.threads, &error) ||
      !args.getInt("--spatial-pos-max", 0, 0, 100000, &spatial_pos_max, &error) ||
      !args.getInt("--max-atoms", 512, 1, 100000, &options.featurize.parse.max_atoms, &error))
    return fail(error);
  if (args.has("--spatial-pos-max")) session.spatial_pos_max = spatial_pos_max;
  session.plan.bucketing = !args.has("--no-bucketing");
  if (!readAtomOrder(args, &options.featurize.atom_order)) return fail("--atom-order must be 'canonical' or 'as-written'");
  readCommonOptions(args, options.reader);
  gs::chem::setRdkitLogEcho(args.has("--verbose"));
  if (!args.has("--quiet"))
    options.progress = [](int64_t rows) { std::cerr << "predict: " << rows << " rows done\r" << std::flush; };
  auto summary = gs::jobs::runPredict(options);
  if (!summary.isOk()) return fail(summary.status().toString());
  for (const auto& note : summary->notes) std::cerr << "\nnote: " << note;
  std::cerr << "\npredict: " << summary->rows << " rows in " << summary->seconds << " s";
  for (const auto& [name, count] : summary->by_status) std::cerr << ", " << count << " " << name;
  std::cerr << "\nwrote " << options.output << " and " << options.output << ".json\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "featurize") return featurizeCommand(argc, argv);
  if (command == "predict") return predictCommand(argc, argv);
  return fail("unknown command '" + command + "'\n" + kUsage);
}
