// bench/memory_fit: fitting a training run to a memory budget (engine/train_memory.h). For the
// bundled default model and a base-size model (random weights), on NCI molecules with RDKit's TPSA
// values: per budget, the settings chosen from the probe passes, the predicted peak, and the
// measured peak and time of one real training epoch with them (Trainer::fit, tensor memory of the
// training thread plus the weights); next to what a user gets by keeping batch 32 in one pass
// without checkpointing. Prints a Markdown table; never fails on time or memory.
//   bench_memory_fit [--molecules N] [--models default,base] [--budgets F,F,F] [--threads N]
//   (budgets as fractions of the predicted peak of batch 32 in one pass without checkpointing;
//   "min": 1.25 x the smallest setting's predicted peak)
#include <torch/torch.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "chem/featurize.h"
#include "engine/train_memory.h"
#include "model/loader.h"
#include "tensor/memory_probe.h"
#include "tensor/torch_compat.h"

namespace {

using gs::engine::TrainExample;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

gs::model::LoadedModel modelNamed(const std::string& name) {
  if (name == "default") return std::move(gs::model::openModel(gs::bundle::ModelSource{}).value());
  gs::model::LoadedModel m;
  m.config = gs::bundle::GraphormerConfig::preset(name).value();
  m.model = gs::model::Graphormer(m.config);
  m.model->initializeWeights(1);
  return m;
}

struct Measured {
  double seconds = 0, peak_mib = 0;
};

// Three epochs with `o` on a fresh copy of the model: the faster of the second and third (the
// first pays for LibTorch's first use of each shape) and the peak of all (tensor memory above the
// start + weights).
Measured epoch(const gs::model::LoadedModel& base, const std::vector<TrainExample>& train, gs::engine::TrainOptions o) {
  gs::model::LoadedModel m = base;
  m.model = gs::model::Graphormer(base.model->copyAs(torch::kFloat, torch::kCPU));
  int64_t weights = 0;
  for (const auto& p : m.model->parameters()) weights += p.numel() * 4;
  auto tracker = std::make_shared<gs::tensor::TensorMemoryTracker>();
  gs::tensor::TensorMemoryScope scope(tracker);
  tracker->resetPeak();
  const int64_t start = tracker->current();
  o.epochs = 3;
  o.patience = 0;
  gs::engine::Trainer trainer(std::move(m), o);
  auto s = trainer.fit(train, {});
  if (!s.isOk() || s->epochs.size() != 3) {
    std::fprintf(stderr, "training failed: %s\n", s.isOk() ? "fewer than three epochs" : s.status().toString().c_str());
    return {};
  }
  return {std::min(s->epochs[1].seconds, s->epochs[2].seconds), double(tracker->peak() - start + weights) / 1048576.0};
}

}  // namespace

int main(int argc, char** argv) {
  int molecules = 512, threads = 2;
  std::vector<std::string> models{"default", "base"}, budgets{"0.75", "0.3", "min"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--molecules")
      molecules = std::stoi(v);
    else if (k == "--models")
      models = split(v);
    else if (k == "--budgets")
      budgets = split(v);
    else if (k == "--threads")
      threads = std::stoi(v);
  }
  gs::compat::setThreads(threads);
  std::printf(
      "LibTorch %s, %d thread(s), %d NCI molecules (first_5k.tpsa.csv), per row: the faster of epochs 2 and 3 (seconds) and the peak of all three, batch 32, fp32 only\n\n",
      gs::compat::torchVersion().c_str(), threads, molecules);
  std::printf(
      "| model | budget MiB | chosen | predicted MiB | measured peak MiB | epoch s | batch 32, one pass, ratio 0: peak MiB / epoch s |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const auto& name : models) {
    const auto model = modelNamed(name);
    std::ifstream in("/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv");
    std::vector<gs::chem::MoleculeRow> rows;
    std::vector<float> tpsa;
    const auto fo = gs::chem::FeaturizeOptions::forModel(model.config, {}, gs::chem::AtomOrder::Canonical);
    for (std::string line; static_cast<int>(rows.size()) < molecules && std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      gs::data::RawRecord r;
      r.text = line.substr(0, line.rfind(','));
      auto row = gs::chem::featurizeRecord(r, fo);
      if (!row.features) continue;
      rows.push_back(std::move(row));
      tpsa.push_back(std::stof(line.substr(line.rfind(',') + 1)));
    }
    std::vector<TrainExample> train;
    for (size_t i = 0; i < rows.size(); ++i)
      train.push_back({&*rows[i].features, std::vector<float>(model.config.num_classes, tpsa[i])});
    gs::engine::TrainOptions o;
    o.batch_size = 32;
    o.collate.multi_hop_max_dist = model.config.multi_hop_max_dist;
    gs::engine::MemoryFitOptions fit;
    fit.budget_bytes = int64_t(1) << 45;
    const auto wide = gs::engine::fitTrainingToMemory(model, train, o, fit).value();
    const Measured plain = epoch(model, train, o);
    for (const auto& f : budgets) {
      double smallest = wide.unconstrained.predicted_bytes;
      for (const auto& c : wide.candidates) smallest = std::min(smallest, c.predicted_bytes);
      fit.budget_bytes = int64_t(f == "min" ? 1.25 * smallest : std::stod(f) * wide.unconstrained.predicted_bytes);
      auto chosen = gs::engine::fitTrainingToMemory(model, train, o, fit);
      if (!chosen.isOk()) {
        std::printf("| %s | %.0f | %s | | | | |\n", name.c_str(), fit.budget_bytes / 1048576.0,
                    chosen.status().message().c_str());
        continue;
      }
      auto run = o;
      chosen->applyTo(run);
      const Measured m = epoch(model, train, run);
      const auto& c = chosen->chosen;
      std::printf(
          "| %s | %.0f | passes of %d, ratio %.2f, %s (probes %.1f s) | %.0f | %.0f%s | %.1f | %.0f / %.1f (%.2fx time) |\n",
          name.c_str(), fit.budget_bytes / 1048576.0, c.micro_batch, c.checkpoint_ratio,
          gs::tensor::precisionName(c.precision), chosen->probe_seconds, c.predicted_bytes / 1048576.0, m.peak_mib,
          m.peak_mib * 1048576.0 > double(fit.budget_bytes) ? " (over)" : "", m.seconds, plain.peak_mib, plain.seconds,
          m.seconds / plain.seconds);
      std::fflush(stdout);
    }
  }
  return 0;
}
