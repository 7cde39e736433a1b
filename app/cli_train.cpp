// graphormer-cli train, distill and calibrate: flags read into jobs::TrainJobOptions / CalibrateJobOptions.
#include <cmath>
#include <cstdlib>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "cli_args.h"
#include "cli_options.h"
#include "jobs/distill_job.h"
#include "jobs/train_job.h"
#include "jobs/trust_builder.h"

namespace gs::app {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
void onInterrupt(int) { g_interrupted = 1; }

// The model architecture of a fresh model: --preset, then --layers/--dim/--heads/--ffn.
bool readArchitecture(const CliArgs& args, bundle::GraphormerConfig* config, std::string* error) {
  auto preset = bundle::GraphormerConfig::preset(args.get("--preset", "slim"));
  if (!preset.isOk()) return *error = preset.status().message(), false;
  *config = preset.value();
  return args.getInt("--layers", config->num_hidden_layers, 1, 48, &config->num_hidden_layers, error) &&
         args.getInt("--dim", config->embedding_dim, 8, 4096, &config->embedding_dim, error) &&
         args.getInt("--heads", config->num_attention_heads, 1, 128, &config->num_attention_heads, error) &&
         args.getInt("--ffn", config->ffn_embedding_dim, 8, 16384, &config->ffn_embedding_dim, error);
}

bool readTrainOptions(const CliArgs& args, engine::TrainOptions* t, std::string* error) {
  if (!args.getInt("--epochs", 100, 1, 100000, &t->epochs, error) ||
      !args.getInt("--patience", 20, 0, 100000, &t->patience, error) ||
      !args.getInt("--freeze-layers", 0, 0, 48, &t->freeze_layers, error) ||
      !args.getDouble("--lr", 1e-7, 1.0, &t->learning_rate, error) ||
      !args.getDouble("--checkpoint-ratio", 0.0, 1.0, &t->checkpoint_ratio, error) ||
      !args.getInt("--lora-rank", 0, 0, 4096, &t->lora_rank, error) ||
      !args.getDouble("--lora-alpha", 0.0, 1e6, &t->lora_alpha, error) ||
      !args.getDouble("--warmup", 0.0, 1.0, &t->warmup_fraction, error) ||
      !args.getDouble("--weight-decay", 0.0, 10.0, &t->weight_decay, error) ||
      !args.getDouble("--clip-norm", 0.0, 1e6, &t->clip_norm, error))
    return false;
  auto schedule = engine::parseSchedule(args.get("--schedule", "cosine"));
  auto loss = engine::parseLoss(args.get("--loss", "l1"));
  if (!schedule.isOk() || !loss.isOk())
    return *error = (schedule.isOk() ? loss.status() : schedule.status()).message(), false;
  t->schedule = schedule.value();
  t->loss = loss.value();
  t->reset_head = args.has("--reset-head");
  t->resume = args.has("--resume");
  return true;
}

void printSummary(const jobs::TrainJobOptions& o, const jobs::TrainJobSummary& s) {
  std::cerr << "train: " << s.rows << " rows; " << s.train << " train, " << s.valid << " valid, " << s.calibration
            << " calibration, " << s.test << " test";
  for (const auto& [why, count] : s.skipped) std::cerr << "; skipped " << count << " " << why;
  std::cerr << "\nbest epoch " << s.training.best_epoch;
  for (size_t j = 0; j < o.targets.size(); ++j) {
    if (j < s.valid_mae.size()) std::cerr << "; " << o.targets[j] << " valid MAE " << s.valid_mae[j];
    if (j < s.test_mae.size()) std::cerr << ", test MAE " << s.test_mae[j];
  }
  if (!s.output_offset.empty()) {
    std::cerr << "\nre-centred on the validation fold (median error added):";
    for (size_t j = 0; j < o.targets.size() && j < s.output_offset.size(); ++j)
      std::cerr << (j ? ", " : " ") << o.targets[j] << " " << s.output_offset[j];
  }
  std::cerr << "\nwrote " << s.model_path << "\n";
  if (s.training.memory_retries > 0)
    std::cerr << "note: " << s.training.memory_retries
              << " step(s) ran out of memory and were retried; the run ended with "
              << "checkpoint ratio " << s.training.checkpoint_ratio << " and passes of "
              << (s.training.micro_batch > 0 ? std::to_string(s.training.micro_batch) : std::string("the whole batch"))
              << "\n";
  if (!s.trust_path.empty())
    std::cerr << "trust: " << s.calibration << " calibration molecules (90 % intervals need >= 9; coverage of one "
              << "calibration set scatters about +-" << std::sqrt(0.09 / double(std::max<int64_t>(1, s.calibration)))
              << "), ensemble of " << s.snapshots + 1 << ", sigma's distance share " << s.distance_share
              << ", 90 % multiplier " << s.q90 << "\nwrote " << s.trust_path << "\n";
  else
    std::cerr << "note: no calibration fold (--calibration-fraction 0): the model has no trust data\n";
}

// The flags train and distill share: the run's output, architecture, training options, split,
// snapshots, memory budget and model flags (device, precision, threads, batch size).
FlagSet trainJobFlags() {
  const FlagSet own{
      {"--output",      "--preset",        "--layers",    "--dim",         "--heads",            "--ffn",
       "--epochs",      "--lr",            "--checkpoint-ratio", "--loss",  "--patience",         "--freeze-layers",
       "--lora-rank",   "--lora-alpha",    "--warmup",    "--weight-decay", "--clip-norm",        "--schedule",
       "--description", "--snapshots",     "--snapshot-epochs", "--snapshot-lr", "--micro-batch"},
      {"--reset-head", "--resume", "--fit-precision", "--no-recenter"}};
  return own + modelFlags() + inputFlags() + splitFlags();
}

bool readTrainJob(const CliArgs& args, jobs::TrainJobOptions* o, gs::predict::PredictorOptions* po,
                  std::string* error) {
  ModelFlagRules rules;
  rules.gradients = true;
  auto& t = o->train;
  if (!readModelFlags(args, rules, po, error) || !readInputFlags(args, &o->reader, po, error) ||
      !readSplitFlags(args, &o->split, error) || !readArchitecture(args, &o->config, error) ||
      !readTrainOptions(args, &t, error) || !args.getInt("--snapshots", 5, 0, 100, &o->snapshots, error) ||
      !args.getInt("--snapshot-epochs", 2, 1, 1000, &o->snapshot_epochs, error) ||
      !args.getDouble("--snapshot-lr", 0.0, 1.0, &o->snapshot_lr, error))
    return false;
  o->output_dir = args.get("--output");
  if (args.has("--model") || args.has("--adapter")) o->model = po->model;
  t.device = po->session.device;
  t.threads = po->session.threads;
  t.precision = po->session.precision;
  int budget_mib = 0;
  if (!args.getInt("--batch-size", 32, 1, 65536, &t.batch_size, error) ||
      !args.getInt("--memory-budget-mib", 0, 0, 1 << 24, &budget_mib, error) ||
      !args.getInt("--micro-batch", 0, 0, 65536, &t.micro_batch, error))
    return false;
  o->memory_budget_mib = budget_mib;
  o->fit_precision = args.has("--fit-precision");
  o->recenter = !args.has("--no-recenter");
  if (o->fit_precision && budget_mib == 0)
    return *error = "--fit-precision chooses the precision that fits --memory-budget-mib: give a budget", false;
  t.seed = o->split.seed;
  o->init_seed = t.seed;
  o->featurize.parse = po->parse;
  o->featurize.atom_order = po->atom_order;
  o->description = args.get("--description");
  return true;
}

engine::TrainCallbacks consoleCallbacks() {
  engine::TrainCallbacks callbacks;
  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);
  callbacks.cancelled = [] { return g_interrupted != 0; };
  callbacks.note = [](const std::string& note) { std::cerr << note << "\n"; };
  callbacks.epoch_done = [](const engine::EpochReport& r) {
    if (r.snapshot > 0)
      std::cerr << "snapshot " << r.snapshot << ", epoch " << r.epoch << ": train loss " << r.train_loss << " ("
                << r.seconds << " s)\n";
    else
      std::cerr << "epoch " << r.epoch << ": train loss " << r.train_loss << ", valid MAE " << r.valid_mae << " ("
                << r.seconds << " s)" << (r.improved ? " *" : "") << "\n";
  };
  return callbacks;
}

int interrupted(const std::string& command, const std::string& dir) {
  std::cerr << command << ": interrupted; the run's state is in " << dir
            << ": the same command with --resume continues it\n";
  return 130;
}

// The teacher's split.csv when the user named no split: the student is then tested on molecules
// the teacher never trained on.
void teacherSplitByDefault(const CliArgs& args, const std::string& teacher, jobs::TrainJobOptions* o) {
  if (args.has("--split") || args.has("--split-file")) return;
  auto resolved = bundle::resolveModel(bundle::ModelSource{teacher, {}});
  if (!resolved.isOk()) return;
  const auto split = std::filesystem::path(resolved->weights).parent_path() / "split.csv";
  std::error_code ec;
  if (!std::filesystem::exists(split, ec)) return;
  o->split.file = split.string();
  std::cerr << "distill: using the teacher's split " << o->split.file << " (give --split or --split-file to change)\n";
}

}  // namespace

int trainCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  gs::predict::PredictorOptions po;
  jobs::TrainJobOptions o;
  if (!parseFlags(args, argc, argv, trainJobFlags() + FlagSet{{"--input", "--targets", "--units"}, {"--mirror-invariant"}},
                  &error) ||
      !readTrainJob(args, &o, &po, &error))
    return fail(error);
  o.input = args.get("--input");
  o.targets = splitList(args.get("--targets"));
  if (o.input.empty() || o.output_dir.empty() || o.targets.empty())
    return fail("train needs --input, --targets and --output");
  o.target_units = splitList(args.get("--units"));
  o.mirror_invariant = args.has("--mirror-invariant");
  auto summary = jobs::runTrain(o, consoleCallbacks());
  if (!summary.isOk()) return fail(summary.status().toString());
  if (summary->training.cancelled) return interrupted("train", o.output_dir);
  printSummary(o, summary.value());
  return 0;
}

// --label-weight W[,OUTPUT=W...]: the weight of the true labels, for every output or by name.
bool readLabelWeights(const CliArgs& args, jobs::DistillJobOptions* d, std::string* error) {
  for (const auto& item : splitList(args.get("--label-weight"))) {
    const auto eq = item.find('=');
    const std::string text = eq == std::string::npos ? item : item.substr(eq + 1);
    char* end = nullptr;
    const double w = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(w >= 0 && w <= 1)) {
      *error = "--label-weight: '" + item + "' is not a weight in [0, 1] (W or OUTPUT=W, comma-separated)";
      return false;
    }
    if (eq == std::string::npos)
      d->label_weight = w;
    else
      d->label_weight_of.emplace_back(item.substr(0, eq), w);
  }
  return true;
}

int distillCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  gs::predict::PredictorOptions po;
  jobs::DistillJobOptions d;
  auto& o = d.student;
  const FlagSet own{{"--teacher", "--input", "--labels", "--label-weight", "--holdout-similarity", "--teacher-threads"},
                    {}};
  if (!parseFlags(args, argc, argv, trainJobFlags() + own, &error) || !readTrainJob(args, &o, &po, &error) ||
      !readLabelWeights(args, &d, &error) ||
      !args.getDouble("--holdout-similarity", 0.0, 2.0, &d.holdout_similarity, &error) ||
      !args.getInt("--teacher-threads", 0, 0, 4096, &d.teacher_threads, &error))
    return fail(error);
  d.teacher.path = args.get("--teacher");
  d.unlabelled = splitList(args.get("--input"));
  d.unlabelled_reader = o.reader;
  o.input = args.get("--labels");
  if (!args.has("--teacher") || o.input.empty() || o.output_dir.empty())
    return fail("distill needs --teacher MODEL, --labels FILE.csv (the true labels) and --output DIR");
  teacherSplitByDefault(args, d.teacher.path, &o);
  auto summary = jobs::runDistill(d, consoleCallbacks());
  if (!summary.isOk() && summary.status().code() == StatusCode::Cancelled) return interrupted("distill", o.output_dir);
  if (!summary.isOk()) return fail(summary.status().toString());
  if (summary->student.training.cancelled) return interrupted("distill", o.output_dir);
  std::cerr << "distill: teacher labelled " << summary->teacher_predicted << " molecules in "
            << summary->teacher_seconds << " s (" << summary->teacher_cached << " from its cache); "
            << summary->added << " unlabelled molecules added\n";
  for (size_t j = 0; j < summary->targets.size() && j < summary->teacher_test_mae.size(); ++j)
    std::cerr << summary->targets[j] << ": teacher test MAE " << summary->teacher_test_mae[j] << "\n";
  o.targets = summary->targets;
  printSummary(o, summary->student);
  return 0;
}

namespace {

int seriesCommand(const CliArgs& args, const jobs::CalibrateJobOptions& c) {
  jobs::SeriesCalibrationOptions o;
  o.model_dir = c.model_dir;
  o.input = args.get("--series");
  o.output_dir = args.get("--output");
  o.targets = c.targets;
  o.reader = c.reader;
  o.predictor = c.predictor;
  auto s = jobs::runSeriesCalibration(o);
  if (!s.isOk()) return fail(s.status().toString());
  std::cerr << "calibrate --series: " << s->rows << " molecules; 90 % multiplier per output (labelled, before -> after):";
  for (size_t j = 0; j < s->outputs.size(); ++j) {
    std::cerr << "\n  " << s->outputs[j] << ": " << s->labelled[j] << " labelled, " << s->before[j] << " -> " << s->after[j];
    if (s->labelled[j] < s->minimum)
      std::cerr << " (kept: fewer than " << s->minimum << " labels)";
  }
  std::cerr << "\nwrote " << s->path << " (the model's files copied beside it)\n";
  return 0;
}

}  // namespace

int calibrateCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  jobs::CalibrateJobOptions o;
  const FlagSet flags = FlagSet{{"--input", "--targets", "--series", "--output"}, {"--recenter"}} + modelFlags() +
                        inputFlags() + splitFlags();
  if (!parseFlags(args, argc, argv, flags, &error) || !readModelFlags(args, {}, &o.predictor, &error) ||
      !readInputFlags(args, &o.reader, &o.predictor, &error) || !readSplitFlags(args, &o.split, &error))
    return fail(error);
  o.model_dir = args.get("--model");
  o.input = args.get("--input");
  o.targets = splitList(args.get("--targets"));
  o.recenter = args.has("--recenter");
  if (args.has("--series")) {
    if (o.model_dir.empty() || !o.input.empty() || o.recenter)
      return fail("calibrate --series FILE needs --model DIR and --output DIR, and takes no --input or --recenter");
    return seriesCommand(args, o);
  }
  if (o.model_dir.empty() || o.input.empty())
    return fail("calibrate needs --model DIR (a train output directory) and --input");
  auto summary = jobs::runCalibrate(o);
  if (!summary.isOk()) return fail(summary.status().toString());
  std::cerr << "calibrate: " << summary->reference << " reference (training) molecules, " << summary->valid
            << " validation, " << summary->calibration << " calibration; ensemble of " << summary->members + 1
            << ", sigma's distance share " << summary->distance_share << ", 90 % multiplier " << summary->q90;
  for (size_t j = 0; j < summary->output_offset.size(); ++j)
    std::cerr << (j ? ", " : "\nre-centred; output offsets now ") << summary->output_offset[j];
  std::cerr << "\nwrote " << summary->path << "\n";
  return 0;
}

}  // namespace gs::app
