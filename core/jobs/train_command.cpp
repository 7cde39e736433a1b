#include "jobs/train_command.h"

#include <cstdio>
#include <cstdlib>

#include "chem/featurize.h"

namespace gs::jobs {
namespace {

// The shortest decimal that reads back as the same double.
std::string number(double v) {
  char buf[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& item : items) s += (s.empty() ? "" : ",") + item;
  return s;
}

class Args {
 public:
  void add(const std::string& flag, const std::string& value) {
    out.push_back(flag);
    out.push_back(value);
  }
  void add(const std::string& flag, double value) { add(flag, number(value)); }
  void add(const std::string& flag, int value) { add(flag, std::to_string(value)); }
  void addIf(bool on, const std::string& flag) {
    if (on) out.push_back(flag);
  }
  std::vector<std::string> out{"train"};
};

void modelArguments(const TrainJobOptions& o, Args& a) {
  if (o.model) {
    a.out.push_back("--model=" + o.model->path);  // "--model=" = the bundled model
    if (!o.model->adapter.empty()) a.add("--adapter", o.model->adapter);
    return;
  }
  a.add("--layers", o.config.num_hidden_layers);
  a.add("--dim", o.config.embedding_dim);
  a.add("--heads", o.config.num_attention_heads);
  a.add("--ffn", o.config.ffn_embedding_dim);
}

void trainingArguments(const engine::TrainOptions& t, Args& a) {
  a.add("--epochs", t.epochs);
  a.add("--batch-size", t.batch_size);
  if (t.micro_batch > 0 && t.micro_batch < t.batch_size) a.add("--micro-batch", t.micro_batch);
  a.add("--lr", t.learning_rate);
  a.add("--weight-decay", t.weight_decay);
  a.add("--warmup", t.warmup_fraction);
  a.add("--schedule", std::string(engine::scheduleName(t.schedule)));
  a.add("--loss", std::string(engine::lossName(t.loss)));
  a.add("--clip-norm", t.clip_norm);
  a.add("--patience", t.patience);
  a.add("--precision", std::string(tensor::precisionName(t.precision)));
  a.add("--checkpoint-ratio", t.checkpoint_ratio);
  if (t.freeze_layers > 0) a.add("--freeze-layers", t.freeze_layers);
  a.addIf(t.reset_head, "--reset-head");
  if (t.lora_rank > 0) {
    a.add("--lora-rank", t.lora_rank);
    if (t.lora_alpha > 0) a.add("--lora-alpha", t.lora_alpha);
  }
  a.add("--device", t.device);
  if (t.threads > 0) a.add("--threads", t.threads);
}

void splitArguments(const data::SplitOptions& s, Args& a) {
  a.add("--split", std::string(data::splitKindName(s.kind)));
  a.add("--seed", std::to_string(s.seed));
  a.add("--valid-fraction", s.valid_fraction);
  a.add("--test-fraction", s.test_fraction);
  a.add("--calibration-fraction", s.calib_fraction);
  if (s.kind == data::SplitKind::Cluster) a.add("--cluster-similarity", s.cluster_similarity);
}

void inputArguments(const TrainJobOptions& o, Args& a) {
  if (!o.reader.smiles_column.empty()) a.add("--smiles-column", o.reader.smiles_column);
  if (!o.reader.id_column.empty()) a.add("--id-column", o.reader.id_column);
  if (!o.reader.sdf_id_property.empty()) a.add("--sdf-id-property", o.reader.sdf_id_property);
  a.addIf(!o.reader.csv_header, "--no-header");
  a.add("--max-atoms", o.featurize.parse.max_atoms);
  a.add("--atom-order", std::string(chem::atomOrderName(o.featurize.atom_order)));
}

}  // namespace

std::vector<std::string> trainCommandArguments(const TrainJobOptions& o) {
  Args a;
  a.add("--input", o.input);
  a.add("--targets", joined(o.targets));
  a.add("--output", o.output_dir);
  if (!o.target_units.empty()) a.add("--units", joined(o.target_units));
  if (!o.description.empty()) a.add("--description", o.description);
  a.addIf(o.mirror_invariant, "--mirror-invariant");
  inputArguments(o, a);
  modelArguments(o, a);
  trainingArguments(o.train, a);
  splitArguments(o.split, a);
  a.add("--snapshots", o.snapshots);
  a.add("--snapshot-epochs", o.snapshot_epochs);
  if (o.snapshot_lr > 0) a.add("--snapshot-lr", o.snapshot_lr);
  return a.out;
}

std::string shellCommand(const std::string& program, const std::vector<std::string>& arguments) {
  std::string line = program;
  for (const auto& arg : arguments) {
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_./=,:+@%") == std::string::npos;
    if (plain) {
      line += " " + arg;
      continue;
    }
    std::string quoted = "'";
    for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += " " + quoted + "'";
  }
  return line;
}

}  // namespace gs::jobs
