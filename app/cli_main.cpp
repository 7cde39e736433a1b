// graphormer-cli: argument parsing only; every command runs in core/jobs.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "chem/molecule.h"
#include "cli_args.h"
#include "jobs/bench_job.h"
#include "jobs/evaluate_job.h"
#include "jobs/explain_job.h"
#include "jobs/featurize_job.h"
#include "jobs/predict_job.h"
#include "jobs/train_job.h"

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
    "  predict [--model DIR|FILE] [--adapter FILE] --input FILE --output FILE.csv [--precision fp32|bf16|fp16|int8]\n"
    "          [--batch-size N] [--threads N] [--device cpu|cuda] [--convention official|hf]\n"
    "          [--spatial-pos-max N] [--no-bucketing] [--smiles-column C] [--id-column C] [--no-header]\n"
    "          [--sdf-id-property P] [--max-atoms N] [--atom-order canonical|as-written] [--memory-budget-mib M] [--quiet]\n"
    "      One CSV row per input row, in input order: row,id,smiles,canonical_smiles,status,<outputs>,message;\n"
    "      a run record (model SHA-256, settings, versions, counts) goes to FILE.csv.json.\n"
    "      Defaults: fp32, batch 32, the model's index convention (official if it names none) and its\n"
    "      spatial_pos_max. Models: model.safetensors, pytorch_model.bin (+ config.json) or a fairseq .pt;\n"
    "      without --model the bundled default model (xTB HOMO-LUMO gap, eV). --adapter applies a LoRA\n"
    "      adapter (from train --lora-rank) to --model; a train output directory with an adapter finds its base.\n"
    "\n"
    "  train --input FILE.csv --targets COL[,COL...] --output DIR [--model M | --preset slim|base|large]\n"
    "        [--layers N] [--dim N] [--heads N] [--ffn N] [--epochs N] [--batch-size N] [--lr X]\n"
    "        [--precision fp32|bf16|fp16] [--checkpoint-ratio R] [--loss l1|mse] [--seed N]\n"
    "        [--valid-fraction F] [--test-fraction F] [--patience N] [--freeze-layers K] [--reset-head]\n"
    "        [--resume] [--threads N] [--smiles-column C] [--split random|scaffold] [--lora-rank R]\n"
    "        [--lora-alpha A] [--warmup F] [--weight-decay X] [--clip-norm X] [--schedule cosine|linear]\n"
    "        [--units U[,U...]] [--description TEXT]\n"
    "      Trains (or, with --model, fine-tunes) on the file's targets (empty cells = missing), seeded\n"
    "      random or Bemis-Murcko scaffold split; writes DIR/model.safetensors (usable with predict\n"
    "      --model DIR), DIR/split.csv and best/last checkpoints for --resume. --lora-rank R fine-tunes\n"
    "      LoRA adapters on --model instead and writes the small DIR/adapter.safetensors. Prints one\n"
    "      line per epoch and the test MAE.\n"
    "\n"
    "  evaluate --input FILE.csv [--targets COL[,COL...]] [--model M] [--adapter FILE] [--split random|scaffold]\n"
    "           [--seed N] [--valid-fraction F] [--test-fraction F] [--precision P] [--batch-size N] [--threads N]\n"
    "      Validation and test MAE of the model next to three baselines fitted on the training subset\n"
    "      (mean; ridge on Morgan fingerprints; 5-NN Tanimoto), and test MAE by molecule size, on the\n"
    "      split train uses with the same options. Prints Markdown tables.\n"
    "\n"
    "  bench --input FILE [--model M] [--adapter FILE] [--modes LIST] [--workload inference|train] [--json FILE] [--csv FILE]\n"
    "        [--repeats N] [--warmup N] [--max-molecules N] [--batch-size N] [--threads N] [--device D]\n"
    "      Measures each mode on the file's molecules: median ms/molecule, molecules/s, peak tensor and\n"
    "      process memory, max and mean |prediction - FP32|. A mode is PRECISION[+ckpt=R][+bs=N], e.g.\n"
    "      fp32,bf16+ckpt=0.5,int8+bs=64 (default: fp32,bf16,fp32+ckpt=1,bf16+ckpt=1,int8). Checkpointing\n"
    "      changes memory only with --workload train (forward + backward, as in fine-tuning).\n"
    "\n"
    "  explain --input FILE --output atoms.csv [--model M] [--adapter FILE] [--method ig|gradxinput|rollout] [--steps N] [--tolerance T]\n"
    "          [--baseline mean|carbon|zero] [--target-index K] [--checkpoint-ratio R]\n"
    "          [--precision fp32|bf16|fp16] [--batch-size N] [--threads N] [--device D]\n"
    "      Per-atom attributions of the prediction: one row per atom (row,id,smiles,atom_index,element,\n"
    "      attribution; atom indices in the input SMILES' order) and atoms.csv.molecules.csv with the\n"
    "      prediction, baseline prediction, sum of attributions and the integrated-gradients completeness gap.\n"
    "      ig baselines: mean (each atom replaced by the molecule's average atom; default), carbon (each\n"
    "      heteroatom made a carbon in the same place: what it adds compared with carbon; carbons get 0),\n"
    "      zero. --steps: gradient evaluations per molecule on average (64), placed where the path is\n"
    "      steep; a molecule stops once |gap| <= T x |f(x) - f(baseline)| (--tolerance, 0.001; 0 spends\n"
    "      the whole budget) and leaves the rest to harder ones (up to 4x). The molecules CSV has ig_steps.\n"
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

// --model M [--adapter A]; no --model = the bundled default model.
gs::bundle::ModelSource modelSource(const gs::app::CliArgs& args) { return {args.get("--model"), args.get("--adapter")}; }

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
                  {"--model", "--adapter", "--input", "--output", "--precision", "--batch-size", "--threads", "--device",
                   "--convention", "--spatial-pos-max", "--smiles-column", "--id-column", "--sdf-id-property",
                   "--max-atoms", "--atom-order", "--memory-budget-mib"},
                  {"--no-bucketing", "--no-header", "--quiet", "--verbose"}, &error))
    return fail(error);
  gs::jobs::PredictJobOptions options;
  options.model = modelSource(args);
  options.input = args.get("--input");
  options.output = args.get("--output");
  if (options.input.empty() || options.output.empty()) return fail("predict needs --input and --output");
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
  int budget_mib = 0;
  if (!args.getInt("--memory-budget-mib", 0, 0, 1 << 24, &budget_mib, &error)) return fail(error);
  if (budget_mib > 0) {
    session.memory_budget_bytes = int64_t{budget_mib} << 20;
    if (!args.has("--batch-size")) session.plan.max_batch_size = 4096;  // the budget sizes the batches
  }
  session.plan.bucketing = !args.has("--no-bucketing");
  if (!readAtomOrder(args, &options.featurize.atom_order)) return fail("--atom-order must be 'canonical' or 'as-written'");
  readCommonOptions(args, options.reader);
  gs::chem::setRdkitLogEcho(args.has("--verbose"));
  if (!args.has("--quiet"))
    options.progress = [](int64_t rows) { std::cerr << "predict: " << rows << " rows done\r" << std::flush; };
  auto summary = gs::jobs::runPredict(options);
  if (!summary.isOk()) return fail(summary.status().toString());
  for (const auto& note : summary->notes) std::cerr << "\nnote: " << note;
  if (summary->out_of_memory_retries > 0)
    std::cerr << "\nnote: " << summary->out_of_memory_retries << " batch(es) ran out of memory and were retried in halves";
  std::cerr << "\npredict: " << summary->rows << " rows in " << summary->seconds << " s";
  for (const auto& [name, count] : summary->by_status) std::cerr << ", " << count << " " << name;
  std::cerr << "\nmodel " << summary->model_path << (summary->adapter_path.empty() ? "" : " + " + summary->adapter_path);
  std::cerr << "\nwrote " << options.output << " and " << options.output << ".json\n";
  return 0;
}

bool getDouble(const gs::app::CliArgs& args, const std::string& flag, double lo, double hi, double* out,
               std::string* error) {
  if (!args.has(flag)) return true;
  char* end = nullptr;
  const std::string text = args.get(flag);
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !(v >= lo && v <= hi)) {
    *error = flag + " must be a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return false;
  }
  *out = v;
  return true;
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

// --split, --seed, --valid-fraction, --test-fraction (shared by train and evaluate).
bool readSplit(const gs::app::CliArgs& args, gs::data::SplitOptions* split, std::string* error) {
  auto kind = gs::data::parseSplitKind(args.get("--split", "random"));
  if (!kind.isOk()) {
    *error = kind.status().message();
    return false;
  }
  split->kind = kind.value();
  int seed = 0;
  if (!args.getInt("--seed", 0, 0, 1 << 30, &seed, error) ||
      !getDouble(args, "--valid-fraction", 0.0, 0.9, &split->valid_fraction, error) ||
      !getDouble(args, "--test-fraction", 0.0, 0.9, &split->test_fraction, error))
    return false;
  split->seed = static_cast<uint64_t>(seed);
  return true;
}

int trainCommand(int argc, char** argv) {
  gs::app::CliArgs args;
  std::string error;
  if (!args.parse(argc, argv, 2,
                  {"--input", "--targets", "--output", "--model", "--preset", "--layers", "--dim", "--heads", "--ffn",
                   "--epochs", "--batch-size", "--lr", "--precision", "--checkpoint-ratio", "--loss", "--seed",
                   "--valid-fraction", "--test-fraction", "--patience", "--freeze-layers", "--threads",
                   "--smiles-column", "--id-column", "--split", "--lora-rank", "--lora-alpha", "--warmup",
                   "--weight-decay", "--clip-norm", "--schedule", "--units", "--description"},
                  {"--reset-head", "--resume", "--no-header"}, &error))
    return fail(error);
  gs::jobs::TrainJobOptions o;
  o.input = args.get("--input");
  o.output_dir = args.get("--output");
  o.targets = splitList(args.get("--targets"));
  if (args.has("--model")) o.model = modelSource(args);
  if (o.input.empty() || o.output_dir.empty() || o.targets.empty())
    return fail("train needs --input, --targets and --output");
  auto preset = gs::model::GraphormerConfig::preset(args.get("--preset", "slim"));
  if (!preset.isOk()) return fail(preset.status().message());
  o.config = preset.value();
  auto& t = o.train;
  if (!args.getInt("--layers", o.config.num_hidden_layers, 1, 48, &o.config.num_hidden_layers, &error) ||
      !args.getInt("--dim", o.config.embedding_dim, 8, 4096, &o.config.embedding_dim, &error) ||
      !args.getInt("--heads", o.config.num_attention_heads, 1, 128, &o.config.num_attention_heads, &error) ||
      !args.getInt("--ffn", o.config.ffn_embedding_dim, 8, 16384, &o.config.ffn_embedding_dim, &error) ||
      !args.getInt("--epochs", 100, 1, 100000, &t.epochs, &error) ||
      !args.getInt("--batch-size", 32, 1, 4096, &t.batch_size, &error) ||
      !args.getInt("--patience", 20, 0, 100000, &t.patience, &error) ||
      !args.getInt("--freeze-layers", 0, 0, 48, &t.freeze_layers, &error) ||
      !args.getInt("--threads", 0, 0, 1024, &t.threads, &error) ||
      !getDouble(args, "--lr", 1e-7, 1.0, &t.learning_rate, &error) ||
      !getDouble(args, "--checkpoint-ratio", 0.0, 1.0, &t.checkpoint_ratio, &error) ||
      !args.getInt("--lora-rank", 0, 0, 4096, &t.lora_rank, &error) ||
      !getDouble(args, "--lora-alpha", 0.0, 1e6, &t.lora_alpha, &error) ||
      !getDouble(args, "--warmup", 0.0, 1.0, &t.warmup_fraction, &error) ||
      !getDouble(args, "--weight-decay", 0.0, 10.0, &t.weight_decay, &error) ||
      !getDouble(args, "--clip-norm", 0.0, 1e6, &t.clip_norm, &error) ||
      !readSplit(args, &o.split, &error))
    return fail(error);
  const std::string schedule = args.get("--schedule", "cosine");
  if (schedule != "cosine" && schedule != "linear") return fail("--schedule must be cosine or linear");
  t.schedule = schedule == "cosine" ? gs::engine::TrainOptions::Schedule::Cosine : gs::engine::TrainOptions::Schedule::Linear;
  t.seed = o.split.seed;
  o.init_seed = t.seed;
  if (!gs::engine::parsePrecision(args.get("--precision", "fp32"), &t.precision) || t.precision == gs::engine::Precision::INT8)
    return fail("--precision must be fp32, bf16 or fp16");
  const std::string loss = args.get("--loss", "l1");
  if (loss != "l1" && loss != "mse") return fail("--loss must be l1 or mse");
  t.loss = loss == "l1" ? gs::engine::TrainOptions::Loss::L1 : gs::engine::TrainOptions::Loss::MSE;
  o.target_units = splitList(args.get("--units"));
  o.description = args.get("--description");
  t.reset_head = args.has("--reset-head");
  t.resume = args.has("--resume");
  readCommonOptions(args, o.reader);
  o.callbacks.epoch_done = [](const gs::engine::EpochReport& r) {
    std::cerr << "epoch " << r.epoch << ": train loss " << r.train_loss << ", valid MAE " << r.valid_mae << " ("
              << r.seconds << " s)" << (r.improved ? " *" : "") << "\n";
  };
  auto summary = gs::jobs::runTrain(o);
  if (!summary.isOk()) return fail(summary.status().toString());
  std::cerr << "train: " << summary->rows << " rows; " << summary->train << " train, " << summary->valid << " valid, "
            << summary->test << " test";
  for (const auto& [why, count] : summary->skipped) std::cerr << "; skipped " << count << " " << why;
  std::cerr << "\nbest epoch " << summary->training.best_epoch;
  for (size_t j = 0; j < o.targets.size(); ++j) {
    if (j < summary->valid_mae.size()) std::cerr << "; " << o.targets[j] << " valid MAE " << summary->valid_mae[j];
    if (j < summary->test_mae.size()) std::cerr << ", test MAE " << summary->test_mae[j];
  }
  std::cerr << "\nwrote " << summary->model_path << "\n";
  return 0;
}

int evaluateCommand(int argc, char** argv) {
  gs::app::CliArgs args;
  std::string error;
  if (!args.parse(argc, argv, 2,
                  {"--input", "--targets", "--model", "--adapter", "--split", "--seed", "--valid-fraction",
                   "--test-fraction", "--precision", "--batch-size", "--threads", "--smiles-column", "--id-column"},
                  {"--no-header"}, &error))
    return fail(error);
  gs::jobs::EvaluateJobOptions o;
  o.input = args.get("--input");
  o.targets = splitList(args.get("--targets"));
  if (args.has("--model") || args.has("--adapter")) o.model = modelSource(args);
  if (o.input.empty()) return fail("evaluate needs --input");
  if (!o.model && o.targets.empty()) return fail("evaluate needs --targets (or a --model that names them)");
  if (!readSplit(args, &o.split, &error) ||
      !args.getInt("--batch-size", 32, 1, 65536, &o.session.plan.max_batch_size, &error) ||
      !args.getInt("--threads", 0, 0, 1024, &o.session.threads, &error))
    return fail(error);
  if (!gs::engine::parsePrecision(args.get("--precision", "fp32"), &o.session.precision))
    return fail("--precision must be fp32, bf16, fp16 or int8");
  readCommonOptions(args, o.reader);
  auto report = gs::jobs::runEvaluate(o);
  if (!report.isOk()) return fail(report.status().toString());
  std::cout << gs::jobs::formatReport(report.value());
  return 0;
}

int benchCommand(int argc, char** argv) {
  gs::app::CliArgs args;
  std::string error;
  if (!args.parse(argc, argv, 2,
                  {"--input", "--model", "--adapter", "--modes", "--workload", "--json", "--csv", "--repeats", "--warmup",
                   "--max-molecules", "--batch-size", "--threads", "--device", "--smiles-column", "--id-column"},
                  {"--no-header", "--quiet"}, &error))
    return fail(error);
  gs::jobs::BenchJobOptions o;
  o.input = args.get("--input");
  o.model = modelSource(args);
  o.json_path = args.get("--json");
  o.csv_path = args.get("--csv");
  if (o.input.empty()) return fail("bench needs --input");
  int batch = 32, max_molecules = 0;
  if (!args.getInt("--batch-size", 32, 1, 65536, &batch, &error) ||
      !args.getInt("--repeats", 3, 1, 1000, &o.compare.repeats, &error) ||
      !args.getInt("--warmup", 1, 0, 1000, &o.compare.warmup, &error) ||
      !args.getInt("--max-molecules", 0, 0, 100000000, &max_molecules, &error) ||
      !args.getInt("--threads", 0, 0, 1024, &o.compare.threads, &error))
    return fail(error);
  o.max_molecules = max_molecules;
  o.compare.device = args.get("--device", "cpu");
  auto workload = gs::engine::parseWorkload(args.get("--workload", "inference"));
  if (!workload.isOk()) return fail(workload.status().message());
  o.compare.workload = workload.value();
  if (args.has("--modes")) {
    auto modes = gs::engine::parseModes(args.get("--modes"), batch);
    if (!modes.isOk()) return fail(modes.status().message());
    o.compare.modes = modes.value();
  } else {
    o.compare.modes = gs::engine::presetModes(batch);
  }
  readCommonOptions(args, o.reader);
  if (!args.has("--quiet"))
    o.callbacks.mode_started = [](int k, int n, const std::string& label) {
      std::cerr << "bench: mode " << k + 1 << "/" << n << " " << label << "\n";
    };
  auto summary = gs::jobs::runBench(o);
  if (!summary.isOk()) return fail(summary.status().toString());
  std::cout << "model " << summary->model_path << "; " << summary->molecules << " molecules of " << summary->rows
            << " rows; workload " << gs::engine::workloadName(o.compare.workload) << "; median of " << o.compare.repeats
            << " after " << o.compare.warmup << " warm-up\n"
            << gs::engine::formatComparison(summary->results);
  return 0;
}

int explainCommand(int argc, char** argv) {
  gs::app::CliArgs args;
  std::string error;
  if (!args.parse(argc, argv, 2,
                  {"--input", "--output", "--model", "--adapter", "--method", "--steps", "--tolerance", "--baseline", "--target-index",
                   "--checkpoint-ratio", "--precision", "--batch-size", "--threads", "--device", "--smiles-column",
                   "--id-column", "--atom-order"},
                  {"--no-header", "--quiet"}, &error))
    return fail(error);
  gs::jobs::ExplainJobOptions o;
  o.input = args.get("--input");
  o.output = args.get("--output");
  o.model = modelSource(args);
  if (o.input.empty() || o.output.empty()) return fail("explain needs --input and --output");
  auto& a = o.attribution;
  auto method = gs::engine::parseAttributionMethod(args.get("--method", "ig"));
  if (!method.isOk()) return fail(method.status().message());
  a.method = method.value();
  if (!args.getInt("--steps", 64, 3, 100000, &a.steps, &error) ||
      !getDouble(args, "--tolerance", 0.0, 1.0, &a.tolerance, &error) ||
      !args.getInt("--target-index", 0, 0, 4096, &a.output, &error) ||
      !args.getInt("--batch-size", 16, 1, 65536, &a.batch_size, &error) ||
      !args.getInt("--threads", 0, 0, 1024, &a.threads, &error) ||
      !getDouble(args, "--checkpoint-ratio", 0.0, 1.0, &a.checkpoint_ratio, &error))
    return fail(error);
  if (!gs::engine::parsePrecision(args.get("--precision", "fp32"), &a.precision) || a.precision == gs::engine::Precision::INT8)
    return fail("--precision must be fp32, bf16 or fp16 (int8 weights have no gradients)");
  auto baseline = gs::engine::parseBaseline(args.get("--baseline", "mean"));
  if (!baseline.isOk()) return fail("--baseline: " + baseline.status().message());
  a.baseline = baseline.value();
  a.device = args.get("--device", "cpu");
  if (!readAtomOrder(args, &o.featurize.atom_order)) return fail("--atom-order must be 'canonical' or 'as-written'");
  readCommonOptions(args, o.reader);
  if (!args.has("--quiet"))
    o.callbacks.progress = [](int64_t done, int64_t total) { std::cerr << "explain: " << done << "/" << total << " molecules\r" << std::flush; };
  auto summary = gs::jobs::runExplain(o);
  if (!summary.isOk()) return fail(summary.status().toString());
  std::cerr << "\nexplain: " << summary->explained << " of " << summary->rows << " molecules (" << gs::engine::attributionMethodName(a.method)
            << ", target " << summary->target << ") in " << summary->seconds << " s; peak tensor memory "
            << summary->peak_tensor_bytes / 1048576.0 << " MiB";
  if (a.method == gs::engine::AttributionMethod::IntegratedGradients)
    std::cerr << "; worst completeness gap " << 100 * summary->max_relative_gap << " % of f(x) - f(baseline)";
  std::cerr << "\nwrote " << o.output << " and " << o.output << ".molecules.csv\n";
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
  if (command == "train") return trainCommand(argc, argv);
  if (command == "evaluate") return evaluateCommand(argc, argv);
  if (command == "bench") return benchCommand(argc, argv);
  if (command == "explain") return explainCommand(argc, argv);
  return fail("unknown command '" + command + "'\n" + kUsage);
}
