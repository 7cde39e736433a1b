// bench/train: time and peak tensor memory of one training step (forward + backward + AdamW) for
// the slim and base Graphormer (random weights) on NCI molecules, by batch size, precision (FP32,
// BF16 autocast) and activation-checkpoint ratio. Prints a table; never fails on time.
//   bench_train [--input FILE.smi] [--models slim,base] [--batches 8,32] [--ratios 0,0.5,1]
//               [--precisions fp32,bf16] [--steps N] [--threads N]
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "chem/featurize.h"
#include "data/smi_reader.h"
#include "engine/activation_checkpoint.h"
#include "tensor/memory_probe.h"
#include "tensor/precision.h"
#include "tensor/precision_dtype.h"
#include "tensor/torch_compat.h"

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string input = "/usr/share/RDKit/Data/NCI/first_5K.smi";
  std::vector<std::string> models{"slim", "base"}, batches{"8", "32"}, ratios{"0", "0.5", "1"},
      precisions{"fp32", "bf16"};
  int steps = 3, threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--input")
      input = v;
    else if (k == "--models")
      models = split(v);
    else if (k == "--batches")
      batches = split(v);
    else if (k == "--ratios")
      ratios = split(v);
    else if (k == "--precisions")
      precisions = split(v);
    else if (k == "--steps")
      steps = std::stoi(v);
    else if (k == "--threads")
      threads = std::stoi(v);
  }
  gs::compat::setThreads(threads);
  std::ifstream in(input);
  gs::data::SmiReader reader(in);
  std::vector<gs::chem::MoleculeRow> rows;
  gs::data::RawRecord r;
  while (rows.size() < 512 && reader.next(r)) {
    auto row = gs::chem::featurizeRecord(r);
    if (row.features) rows.push_back(std::move(row));
  }
  std::printf("LibTorch %s, %d thread(s), molecules in NCI order from %s, %d timed steps after 1 warm-up\n\n",
              gs::compat::torchVersion().c_str(), threads, input.c_str(), steps);
  std::printf("%-5s %-5s %5s %5s %10s %10s\n", "model", "prec", "batch", "ratio", "ms/step", "peakMiB");
  for (const auto& name : models) {
    auto config = gs::bundle::GraphormerConfig::preset(name).value();
    config.dropout = 0.1;
    for (const auto& prec : precisions) {
      const auto parsed = gs::tensor::parsePrecision(prec);
      if (!parsed.isOk()) continue;
      const gs::tensor::Precision p = parsed.value();
      for (const auto& batch_text : batches) {
        const size_t batch = std::stoul(batch_text);
        for (const auto& ratio_text : ratios) {
          const double ratio = std::stod(ratio_text);
          gs::model::Graphormer model(config);
          model->initializeWeights(1);
          model->train();
          torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-4));
          const auto runner = gs::engine::checkpointRunner(config.num_hidden_layers, ratio);
          auto tracker = std::make_shared<gs::tensor::TensorMemoryTracker>();
          double total = 0;
          for (int s = 0; s <= steps; ++s) {
            std::vector<const gs::graph::Featurized*> mols;
            for (size_t i = 0; i < batch; ++i) mols.push_back(&*rows[(s * batch + i) % rows.size()].features);
            const auto collated = gs::tensor::collate(mols, {});
            if (s == 1) tracker->resetPeak();
            const auto t0 = std::chrono::steady_clock::now();
            {
              gs::tensor::TensorMemoryScope scope(tracker);
              opt.zero_grad();
              torch::Tensor out;
              {
                gs::compat::AutocastGuard guard(c10::DeviceType::CPU, gs::tensor::productType(p),
                                                gs::tensor::traits(p).sixteen_bit);
                out = model->forward(collated, runner);
              }
              out.to(torch::kFloat).abs().mean().backward();
              opt.step();
            }
            if (s > 0)
              total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          }
          std::printf("%-5s %-5s %5zu %5.2f %10.1f %10.1f\n", name.c_str(), prec.c_str(), batch, ratio, total / steps,
                      tracker->peak() / 1048576.0);
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
