// graphormer-cli: argument parsing only; every command runs in core/jobs, flag groups are read
// in cli_options.cpp.
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli_args.h"
#include "cli_options.h"
#include "data/file_format.h"
#include "jobs/bench_job.h"
#include "jobs/bench_report.h"
#include "jobs/evaluate_job.h"
#include "jobs/explain_job.h"
#include "jobs/featurize_job.h"
#include "jobs/predict_job.h"
#include "tensor/precision.h"
#include "version.h"

namespace {
using gs::app::fail;

const char* kUsage =
    "usage: graphormer-cli <command> [options]\n"
    "       graphormer-cli --version | --help\n"
    "Molecular property prediction with Graphormer, a graph transformer: predicts, trains, evaluates,\n"
    "explains, benchmarks, screens libraries on clusters and serves predictions over HTTP.\n"
    "\n"
    "commands:\n"
    "  featurize --input FILE [--convention official|hf] [--json] [--multi-hop-max-dist N] [INPUT OPTIONS]\n"
    "      Per input row: status, atom and bond counts, longest shortest path; with --json one JSON\n"
    "      object per row with the OGB features and Graphormer encodings (reference field names).\n"
    "\n"
    "  Inputs: the formats listed under 'Input formats' below, each also compressed ({compression}:\n"
    "      recognised by content). An output named *.csv.gz, *.csv.zst or *.csv.bz2 is written compressed.\n"
    "\n"
    "  screen plan --input FILE|GLOB[,...] --out DIR [MODEL OPTIONS] [INPUT OPTIONS] [TRUST OPTIONS]\n"
    "              [--shard-minutes M (5) | --shard-rows N | --shards N] [--output-codec gz|zst|bz2|none]\n"
    "              [--chunk-rows N (512; shards are whole chunks; predict with the same N writes the same bytes)]\n"
    "  screen run DIR [--local N | --shard I | --slurm-array --blocks FILE | --mpi] [--device D] [--max-attempts 3]\n"
    "  screen submit DIR --slurm [--shards-per-task N] [--throttle K] [--local N] [--no-merge] [--dry-run]\n"
    "              [--merge-args '--top 1000 --by COL'] [-- SBATCH OPTIONS]\n"
    "  screen status DIR [--processes N]\n"
    "  screen merge DIR [--output FILE.csv.gz] [--top K] [--by COL[,COL]] [--ascending] [--where 'COL<X[,...]']\n"
    "              [--hits PREFIX] [--no-sdf] [--no-sqlite]\n"
    "  mpirun -np N graphormer-screen-mpi DIR [--local N] [--worker PATH]: rank 0 hands out shards\n"
    "      Screening of large libraries on a cluster (docs/SCREENING.md): an immutable plan of shards (byte\n"
    "      ranges of the original files, whole compressed files), shards run as supervised child processes\n"
    "      with receipts (re-running resumes; SIGUSR1/SIGTERM commit and exit 0; a shard that crashes 3 times\n"
    "      is bisected to the rows that crash it), merge verifies every receipt and writes what predict writes.\n"
    "\n"
    "  serve [MODEL OPTIONS] [TRUST OPTIONS] [--listen 127.0.0.1:8080] [--workers N] [--name NAME]\n"
    "        [--api-keys FILE] [--admin-keys FILE] [--max-queue-delay-ms 2] [--max-batch-atoms 2048]\n"
    "        [--queue-molecules 20000] [--timeout-ms 60000] [--drain-timeout 30] [--port-file FILE]\n"
    "      A prediction server (docs/SERVING.md): POST /v1/predict, the KServe v2 subset (/v2/...),\n"
    "      GET /v1/status and /metrics. Requests are batched across clients by atom cost; SIGTERM drains,\n"
    "      SIGHUP reloads the model beside the current one. --batch-size caps molecules per batch (64).\n"
    "\n"
    "  predict --input FILE --output FILE.csv|FILE.sdf [MODEL OPTIONS] [INPUT OPTIONS] [TRUST OPTIONS]\n"
    "          [--convention official|hf] [--spatial-pos-max N] [--no-bucketing] [--drop-input-columns] [--quiet]\n"
    "          [--chunk-rows N (512: rows read, batched and written together)]\n"
    "      One CSV row per input row, in input order: row,id,smiles,canonical_smiles,status,<outputs>,\n"
    "      <output>_lower,<output>_upper,<output>_sigma per output,domain,domain_reasons,nn_similarity,message,\n"
    "      then the input's other columns (CSV columns, SD data items; 'input_' prefixed on a name clash)\n"
    "      unless --drop-input-columns. FILE.sdf (or .sd, compressed too): an SD file instead, one record per\n"
    "      input row in order, the structure in 2D from the canonical SMILES (none for unreadable rows) and\n"
    "      every column above as a data item;\n"
    "      a run record (model SHA-256, settings, versions, counts, trust) goes to FILE.csv.json.\n"
    "      Defaults: the model's index convention (official if it names none) and its spatial_pos_max.\n"
    "\n"
    "  train --input FILE.csv --targets COL[,COL...] --output DIR [MODEL OPTIONS] [--preset slim|base|large]\n"
    "        [--layers N] [--dim N] [--heads N] [--ffn N] [--epochs N] [--lr X]\n"
    "        [--checkpoint-ratio R] [--loss l1|mse] [SPLIT OPTIONS] [--patience N] [--freeze-layers K] [--reset-head]\n"
    "        [--resume] [--lora-rank R] [--lora-alpha A] [--warmup F] [--weight-decay X] [--clip-norm X]\n"
    "        [--micro-batch N] [--memory-budget-mib N [--fit-precision]]\n"
    "        [--schedule cosine|linear] [--units U[,U...]] [--description TEXT] [--mirror-invariant] [--no-recenter]\n"
    "        [INPUT OPTIONS]\n"
    "      Trains (or, with --model, fine-tunes) on the file's targets (empty cells = missing; other targets\n"
    "      than the model's get a new head on its encoder), seeded\n"
    "      random or Bemis-Murcko scaffold split; writes DIR/model.safetensors (usable with predict\n"
    "      --model DIR), DIR/split.csv and best/last checkpoints for --resume. --lora-rank R fine-tunes\n"
    "      LoRA adapters on --model instead and writes the small DIR/adapter.safetensors. Prints one\n"
    "      line per epoch and the test MAE. Precision {training precisions}. --micro-batch N runs each\n"
    "      batch in passes of N molecules (gradients accumulated: same batch, less memory). --memory-budget-mib\n"
    "      probes a few steps first and picks the micro-batch and checkpoint ratio (with --fit-precision also\n"
    "      the precision) that fit the budget in the least time; an out-of-memory step is retried with more\n"
    "      checkpointing or smaller passes. Cancelled (Ctrl-C) or killed runs continue with --resume.\n"
    "      Trust: a calibration fold (--calibration-fraction, 0.1) is held out of training and early stopping;\n"
    "      --snapshots K (5) further cycles of --snapshot-epochs E (2) at --snapshot-lr X (half --lr) save a\n"
    "      snapshot ensemble in DIR/snapshots/; DIR/trust.safetensors then holds the interval calibration,\n"
    "      the applicability domain and the training molecules (see docs/TRUST.md).\n"
    "      --mirror-invariant records that the targets are the same for a molecule and its mirror image\n"
    "      (a gap, logP, TPSA): predictions of chiral molecules are then averaged with their mirror image.\n"
    "      Each output (and snapshot) is re-centred on the validation fold: its median error there is added\n"
    "      to it (with >= 50 labelled validation molecules; --no-recenter leaves the outputs as trained).\n"
    "\n"
    "  distill --teacher MODEL --labels FILE.csv --output DIR [--input FILE[,FILE...]] [--label-weight W[,OUTPUT=W]]\n"
    "          [--holdout-similarity S] [--teacher-threads N] [train's architecture, training, split, memory\n"
    "          and MODEL OPTIONS]\n"
    "      Trains a student (usually smaller and faster) on the teacher's predictions of every output for the\n"
    "      labelled file's training molecules and the molecules of --input (any format predict reads, e.g. a\n"
    "      larger unlabelled set): target = (1-W) x teacher + W x label where a label exists. Validation, test\n"
    "      and trust use the true labels; the split is the teacher's split.csv unless --split/--split-file is\n"
    "      given. Unlabelled molecules already in the labelled file, repeated, or with Tanimoto >= S (the\n"
    "      split's --cluster-similarity, 0.65) to a validation, calibration or test molecule are left out.\n"
    "      The teacher's predictions are kept in DIR/teacher.csv; --resume reuses them (same targets).\n"
    "\n"
    "  evaluate --input FILE.csv [--targets COL[,COL...]] [MODEL OPTIONS] [SPLIT OPTIONS] [INPUT OPTIONS]\n"
    "      Validation and test MAE of the model next to three baselines fitted on the training subset\n"
    "      (mean; ridge on Morgan fingerprints; 5-NN Tanimoto), and test MAE by molecule size, on the\n"
    "      split train uses with the same options. Without --model: the baselines only. Prints Markdown tables;\n"
    "      with a model that has trust data also interval coverage and width at 80/90 % next to a\n"
    "      constant-width baseline, Spearman and AUROC of sigma, retention, miscalibration area, and MAE\n"
    "      inside vs outside the applicability domain, on the test molecules.\n"
    "\n"
    "  calibrate --model DIR --input FILE.csv [--targets COL[,COL...]] [--recenter] [SPLIT OPTIONS] [INPUT OPTIONS]\n"
    "      Rebuilds DIR/trust.safetensors from the file, split as train split it (give the same split\n"
    "      options), with the snapshots in DIR/snapshots/. --recenter first re-centres the model and each\n"
    "      snapshot on the validation fold as train does (rewrites their weights files' metadata).\n"
    "  calibrate --model DIR --series FILE.csv --output NEWDIR [--targets COL[,COL...]] [INPUT OPTIONS]\n"
    "      Intervals calibrated on your own labelled series (20+ labels per output): NEWDIR is a copy of\n"
    "      DIR whose conformal scores come from the series (σ, domain and model unchanged; DIR untouched).\n"
    "\n"
    "  bench --input FILE [MODEL OPTIONS] [--modes LIST] [--workload inference|train] [--json FILE] [--csv FILE]\n"
    "        [--repeats N] [--warmup N] [--max-molecules N] [--quiet] [INPUT OPTIONS]\n"
    "      Measures each mode on the file's molecules: median ms/molecule, molecules/s, peak tensor and\n"
    "      process memory, max and mean |prediction - FP32|. A mode is PRECISION[+ckpt=R][+bs=N], e.g.\n"
    "      fp32,bf16+ckpt=0.5,int8+bs=64 (default: fp32,bf16,fp32+ckpt=1,bf16+ckpt=1,int8, or the one\n"
    "      --precision given; N defaults to --batch-size). Checkpointing changes memory only with\n"
    "      --workload train (forward + backward, as in fine-tuning). No memory budget (modes fix the batch).\n"
    "\n"
    "  explain --input FILE --output atoms.csv [MODEL OPTIONS] [--method ig|gradxinput|rollout] [--steps N]\n"
    "          [--tolerance T] [--baseline mean|carbon|zero] [--target-index K] [--checkpoint-ratio R] [--quiet]\n"
    "          [INPUT OPTIONS]\n"
    "      Per-atom attributions of the prediction: one row per atom (row,id,smiles,atom_index,element,\n"
    "      attribution; atom indices in the input SMILES' order) and atoms.csv.molecules.csv with the\n"
    "      prediction, baseline prediction, sum of attributions and the integrated-gradients completeness gap.\n"
    "      ig baselines: mean (each atom replaced by the molecule's average atom; default), carbon (each\n"
    "      heteroatom made a carbon in the same place: what it adds compared with carbon; carbons get 0),\n"
    "      zero. --steps: gradient evaluations per molecule on average (64), placed where the path is\n"
    "      steep; a molecule stops once |gap| <= T x |f(x) - f(baseline)| (--tolerance, 0.001; 0 spends\n"
    "      the whole budget) and leaves the rest to harder ones (up to 4x). The molecules CSV has ig_steps.\n"
    "      Batch size 16 by default; precision {training precisions}; no memory budget.\n"
    "\n"
    "MODEL OPTIONS (predict, evaluate, bench, explain, train):\n"
    "  --model DIR|FILE     model.safetensors, pytorch_model.bin (+ config.json), a fairseq .pt, or a train\n"
    "                       output directory; default: the bundled model (xTB HOMO-LUMO gap, eV)\n"
    "  --adapter FILE       a LoRA adapter (train --lora-rank) applied to --model; a train output directory\n"
    "                       holding an adapter finds its base model itself\n"
    "  --device cpu|cuda|cuda:N   --precision {precisions}   --threads N (0 = one per core)\n"
    "  --batch-size N       at most N molecules per batch (32; explain 16); batches are also cut at 1024 padded\n"
    "                       atoms and 32768 atom pairs, so batches of large molecules hold fewer\n"
    "  --memory-budget-mib M  predict and evaluate: size batches so that their peak tensor memory stays\n"
    "                       under M MiB (a memory model fitted on probe batches); --batch-size then caps them\n"
    "\n"
    "INPUT OPTIONS: --smiles-column C|#INDEX  --id-column C  --no-header  --sdf-id-property P  --max-atoms N\n"
    "  --delimiter ,|;|tab|'|' (CSV/TSV; default: detected from the first line)\n"
    "  --atom-order canonical|as-written  --verbose (RDKit's own messages)\n"
    "SPLIT OPTIONS (train, evaluate, calibrate): --split random|scaffold|cluster  --seed N  --valid-fraction F (0.1)\n"
    "  --test-fraction F (0.1)  --calibration-fraction F (0.1)  --cluster-similarity S (Butina clusters at\n"
    "  Tanimoto >= S on Morgan fingerprints, 0.65)  --split-file FILE (the subsets a run wrote, e.g. a model's\n"
    "  split.csv: row, id, subset; the split options then only describe it)\n"
    "TRUST OPTIONS (predict, evaluate): --confidence C (interval level, 0.9)  --no-trust (plain predictions,\n"
    "  empty trust columns)  --strip-salts (predict the largest organic fragment of a salt or mixture;\n"
    "  off by default: the domain flags multi-fragment inputs instead of changing them)\n"
    "\n"
    "--atom-order: chirality tags and the choice among equally short paths depend on the order a SMILES\n"
    "writes the atoms in. 'canonical' (default) renumbers atoms canonically first, so every SMILES of a\n"
    "molecule gives the same result; 'as-written' keeps the input order, as OGB and the Python Graphormer do.\n"
    "\n"
    "Input formats by extension (each also compressed: {compression}); --smiles-column NAME|#INDEX,\n"
    "--id-column and --sdf-id-property choose columns where the automatic choice is wrong:\n"
    "{formats}";

using gs::app::CliArgs;
using gs::app::FlagSet;

int featurizeCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  gs::predict::PredictorOptions po;
  gs::jobs::FeaturizeJobOptions options;
  if (!gs::app::parseFlags(
          args, argc, argv,
          FlagSet{{"--input", "--convention", "--multi-hop-max-dist"}, {"--json"}} + gs::app::inputFlags(), &error) ||
      !gs::app::readInputFlags(args, &options.reader, &po, &error) ||
      !args.getInt("--multi-hop-max-dist", 5, 0, 510, &options.featurize.multi_hop_max_dist, &error))
    return fail(error);
  options.input = args.get("--input");
  if (options.input.empty()) return fail("featurize needs --input FILE");
  auto convention = gs::graph::parseConvention(args.get("--convention", "official"));
  if (!convention.isOk()) return fail("--convention: " + convention.status().message());
  options.convention = convention.value();
  options.featurize.parse = po.parse;
  options.featurize.atom_order = po.atom_order;
  options.json = args.has("--json");
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
  CliArgs args;
  std::string error;
  gs::jobs::PredictJobOptions options;
  const FlagSet flags = FlagSet{{"--input", "--output", "--chunk-rows"}, {"--quiet", "--drop-input-columns"}} +
                        gs::app::modelFlags() + gs::app::inputFlags() + gs::app::collationFlags() +
                        gs::app::trustFlags();
  if (!gs::app::parseFlags(args, argc, argv, flags, &error) ||
      !gs::app::readModelFlags(args, {}, &options.predictor, &error) ||
      !gs::app::readTrustFlags(args, &options.predictor, &error) ||
      !gs::app::readInputFlags(args, &options.reader, &options.predictor, &error) ||
      !gs::app::readCollationFlags(args, &options.predictor.session, &error) ||
      !args.getInt("--chunk-rows", gs::predict::kChunkRows, 1, 1 << 20, &options.chunk_rows, &error))
    return fail(error);
  options.input = args.get("--input");
  options.output = args.get("--output");
  if (options.input.empty() || options.output.empty()) return fail("predict needs --input and --output");
  options.keep_input_columns = !args.has("--drop-input-columns");
  gs::jobs::PredictCallbacks callbacks;
  if (!args.has("--quiet"))
    callbacks.progress = [](int64_t rows) { std::cerr << "predict: " << rows << " rows done\r" << std::flush; };
  auto summary = gs::jobs::runPredict(options, callbacks);
  if (!summary.isOk()) return fail(summary.status().toString());
  const auto& record = summary->record;
  for (const auto& note : summary->notes) std::cerr << "\nnote: " << note;
  if (!record.trust_note.empty())
    std::cerr << "\nnote: " << record.trust_note;
  else
    std::cerr << "\ntrust: " << record.confidence * 100 << " % intervals from " << record.calibration_rows
              << " calibration molecules, ensemble of " << record.trust_members + 1 << " (" << record.trust_path << ")";
  if (record.out_of_memory_retries > 0)
    std::cerr << "\nnote: " << record.out_of_memory_retries
              << " batch(es) ran out of memory and were retried in halves";
  std::cerr << "\npredict: " << summary->rows << " rows in " << summary->seconds << " s";
  for (const auto& [name, count] : summary->by_status) std::cerr << ", " << count << " " << name;
  std::cerr << "\nmodel " << record.model_path << (record.adapter_path.empty() ? "" : " + " + record.adapter_path);
  std::cerr << "\nwrote " << options.output << " and " << options.output << ".json\n";
  return 0;
}

int evaluateCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  gs::jobs::EvaluateJobOptions o;
  const FlagSet flags = FlagSet{{"--input", "--targets"}, {}} + gs::app::modelFlags() + gs::app::inputFlags() +
                        gs::app::splitFlags() + gs::app::trustFlags();
  if (!gs::app::parseFlags(args, argc, argv, flags, &error) ||
      !gs::app::readModelFlags(args, {}, &o.predictor, &error) ||
      !gs::app::readTrustFlags(args, &o.predictor, &error) ||
      !gs::app::readInputFlags(args, &o.reader, &o.predictor, &error) ||
      !gs::app::readSplitFlags(args, &o.split, &error))
    return fail(error);
  o.input = args.get("--input");
  o.targets = gs::app::splitList(args.get("--targets"));
  o.with_model = args.has("--model") || args.has("--adapter");
  if (o.input.empty()) return fail("evaluate needs --input");
  if (!o.with_model && o.targets.empty()) return fail("evaluate needs --targets (or a --model that names them)");
  auto report = gs::jobs::runEvaluate(o);
  if (!report.isOk()) return fail(report.status().toString());
  std::cout << gs::jobs::formatReport(report.value());
  return 0;
}

int benchCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  gs::jobs::BenchJobOptions o;
  gs::app::ModelFlagRules rules;
  rules.memory_budget = false;
  rules.budget_note = "bench measures fixed batch sizes (--modes ...+bs=N)";
  int max_molecules = 0;
  const FlagSet own{{"--input", "--modes", "--workload", "--json", "--csv", "--repeats", "--warmup", "--max-molecules"},
                    {"--quiet"}};
  if (!gs::app::parseFlags(args, argc, argv, own + gs::app::modelFlags() + gs::app::inputFlags(), &error) ||
      !gs::app::readModelFlags(args, rules, &o.predictor, &error) ||
      !gs::app::readInputFlags(args, &o.reader, &o.predictor, &error) ||
      !args.getInt("--repeats", 3, 1, 1000, &o.compare.repeats, &error) ||
      !args.getInt("--warmup", 1, 0, 1000, &o.compare.warmup, &error) ||
      !args.getInt("--max-molecules", 0, 0, 100000000, &max_molecules, &error))
    return fail(error);
  o.input = args.get("--input");
  o.json_path = args.get("--json");
  o.csv_path = args.get("--csv");
  o.max_molecules = max_molecules;
  if (o.input.empty()) return fail("bench needs --input");
  auto workload = gs::engine::parseWorkload(args.get("--workload", "inference"));
  if (!workload.isOk()) return fail(workload.status().message());
  o.compare.workload = workload.value();
  const int batch = o.predictor.session.plan.max_batch_size;
  auto modes = args.has("--modes") ? gs::engine::parseModes(args.get("--modes"), batch)
               : args.has("--precision")
                   ? gs::Result<std::vector<gs::engine::CompareMode>>({{o.predictor.session.precision, 0.0, batch, {}}})
                   : gs::engine::presetModes(batch);
  if (!modes.isOk()) return fail(modes.status().message());
  o.compare.modes = modes.value();
  o.predictor.session.precision = gs::tensor::Precision::FP32;  // each mode sets its own
  gs::engine::CompareCallbacks callbacks;
  if (!args.has("--quiet"))
    callbacks.mode_started = [](int k, int n, const std::string& label) {
      std::cerr << "bench: mode " << k + 1 << "/" << n << " " << label << "\n";
    };
  auto summary = gs::jobs::runBench(o, callbacks);
  if (!summary.isOk()) return fail(summary.status().toString());
  std::cout << "model " << summary->model_path << "; " << summary->molecules << " molecules of " << summary->rows
            << " rows; workload " << gs::engine::workloadName(o.compare.workload) << "; median of " << o.compare.repeats
            << " after " << o.compare.warmup << " warm-up\n"
            << gs::jobs::formatComparison(summary->results, summary->outputs);
  return 0;
}

bool readAttribution(const CliArgs& args, gs::engine::AttributionOptions* a, std::string* error) {
  auto method = gs::engine::parseAttributionMethod(args.get("--method", "ig"));
  if (!method.isOk()) return *error = method.status().message(), false;
  a->method = method.value();
  auto baseline = gs::engine::parseBaseline(args.get("--baseline", "mean"));
  if (!baseline.isOk()) return *error = "--baseline: " + baseline.status().message(), false;
  a->baseline = baseline.value();
  return args.getInt("--steps", 64, 3, 100000, &a->steps, error) &&
         args.getDouble("--tolerance", 0.0, 1.0, &a->tolerance, error) &&
         args.getInt("--target-index", 0, 0, 4096, &a->output, error) &&
         args.getDouble("--checkpoint-ratio", 0.0, 1.0, &a->checkpoint_ratio, error);
}

int explainCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  gs::jobs::ExplainJobOptions o;
  auto& a = o.attribution;
  gs::app::ModelFlagRules rules;
  rules.default_batch_size = 16;
  rules.memory_budget = false;
  rules.gradients = true;
  rules.budget_note = "explain sizes its batches with --batch-size";
  const FlagSet own{{"--input", "--output", "--method", "--steps", "--tolerance", "--baseline", "--target-index",
                     "--checkpoint-ratio"},
                    {"--quiet"}};
  if (!gs::app::parseFlags(args, argc, argv, own + gs::app::modelFlags() + gs::app::inputFlags(), &error) ||
      !gs::app::readModelFlags(args, rules, &o.predictor, &error) ||
      !gs::app::readInputFlags(args, &o.reader, &o.predictor, &error) || !readAttribution(args, &a, &error))
    return fail(error);
  o.input = args.get("--input");
  o.output = args.get("--output");
  if (o.input.empty() || o.output.empty()) return fail("explain needs --input and --output");
  a.precision = o.predictor.session.precision;
  a.batch_size = o.predictor.session.plan.max_batch_size;
  gs::engine::AttributionCallbacks callbacks;
  if (!args.has("--quiet"))
    callbacks.progress = [](int64_t done, int64_t total) {
      std::cerr << "explain: " << done << "/" << total << " molecules\r" << std::flush;
    };
  auto summary = gs::jobs::runExplain(o, callbacks);
  if (!summary.isOk()) return fail(summary.status().toString());
  std::cerr << "\nexplain: " << summary->explained << " of " << summary->rows << " molecules ("
            << gs::engine::attributionMethodName(a.method) << ", target " << summary->target << ") in "
            << summary->seconds << " s; peak tensor memory " << summary->peak_tensor_bytes / 1048576.0 << " MiB";
  if (a.method == gs::engine::AttributionMethod::IntegratedGradients)
    std::cerr << "; worst completeness gap " << 100 * summary->max_relative_gap << " % of f(x) - f(baseline)";
  std::cerr << "\nwrote " << o.output << " and " << o.output << ".molecules.csv\n";
  return 0;
}

// kUsage with the names the tables hold filled in.
std::string usage() {
  std::string out = kUsage;
  auto fill = [&out](const std::string& key, const std::string& value) {
    for (size_t at; (at = out.find(key)) != std::string::npos;) out.replace(at, key.size(), value);
  };
  std::string names;
  for (const auto& t : gs::tensor::precisionTable()) names += (names.empty() ? "" : "|") + std::string(t.name);
  fill("{precisions}", names);
  fill("{training precisions}", gs::tensor::precisionChoices(true));
  std::string formats;
  for (const auto& f : gs::data::fileFormats()) {
    std::string extensions;
    for (const auto& e : gs::data::extensionsOf(f)) extensions += (extensions.empty() ? "." : " .") + e;
    formats += "  " + extensions + std::string(extensions.size() < 22 ? 22 - extensions.size() : 1, ' ') +
               f.description + "\n";
  }
  fill("{formats}", formats);
  fill("{compression}", gs::data::compressionList());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::cout << usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "--version" || command == "-v") {
    std::cout << gs::app::versionText("graphormer-cli", "Qt: not used (the desktop app is graphormer-studio)");
    return 0;
  }
  if (command == "featurize") return featurizeCommand(argc, argv);
  if (command == "predict") return predictCommand(argc, argv);
  if (command == "train") return gs::app::trainCommand(argc, argv);
  if (command == "evaluate") return evaluateCommand(argc, argv);
  if (command == "calibrate") return gs::app::calibrateCommand(argc, argv);
  if (command == "distill") return gs::app::distillCommand(argc, argv);
  if (command == "bench") return benchCommand(argc, argv);
  if (command == "explain") return explainCommand(argc, argv);
  if (command == "screen") return gs::app::screenCommand(argc, argv);
  if (command == "serve") return gs::app::serveCommand(argc, argv);
  return fail("unknown command '" + command + "'\n" + usage());
}
