// bench/inference: end-to-end molecules/s (featurization included) and peak tensor memory for the
// slim and base Graphormer (random weights) on RDKit's NCI molecules, for every precision, batch
// size and with/without length bucketing; plus large FP32/BF16 GEMMs timed in the same run so the
// model's achieved FLOP/s reads as a fraction of what this machine's matrix multiply can do.
// Prints a table; never fails on time.
//   bench_inference [--input FILE.smi] [--molecules N] [--threads N] [--models slim,base,default]
//                   [--batches 1,8,32,128] [--precisions fp32,bf16,int8] [--repeats N]
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/checkpoint.h"
#include "model/loader.h"
#include "tensor/collate.h"
#include "chem/featurize.h"
#include "data/smi_reader.h"
#include "engine/inference_session.h"
#include "tensor/torch_compat.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

struct Args {
  std::string input = "/usr/share/RDKit/Data/NCI/first_5K.smi";
  int molecules = 512;
  int threads = 1;
  int repeats = 1;
  std::vector<std::string> models{"slim", "base"}, batches{"1", "8", "32", "128"}, precisions{"fp32", "bf16", "int8"};
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--input") a.input = v;
    else if (k == "--molecules") a.molecules = std::stoi(v);
    else if (k == "--threads") a.threads = std::stoi(v);
    else if (k == "--repeats") a.repeats = std::stoi(v);
    else if (k == "--models") a.models = split(v);
    else if (k == "--batches") a.batches = split(v);
    else if (k == "--precisions") a.precisions = split(v);
  }
  return a;
}

// GEMM rate of an n x n x n product in `dtype`, best of a few runs.
double gemmFlops(int64_t n, torch::ScalarType dtype) {
  c10::InferenceMode guard;
  auto a = torch::randn({n, n}).to(dtype), b = torch::randn({n, n}).to(dtype);
  torch::mm(a, b);  // warm-up (oneDNN kernel selection)
  double best = 1e30;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = Clock::now();
    auto c = torch::mm(a, b);
    best = std::min(best, seconds(t0, Clock::now()));
  }
  return 2.0 * n * n * n / best;
}

// FLOPs the encoder computes for one padded batch (projections, FFN, attention products, head).
double batchFlops(const gs::bundle::GraphormerConfig& c, int64_t b, int64_t tokens) {
  const double C = c.embedding_dim, F = c.ffn_embedding_dim, T = static_cast<double>(tokens);
  const double per_layer = 2.0 * b * T * (4 * C * C + 2 * C * F) + 4.0 * b * T * T * C;
  return c.num_hidden_layers * per_layer + 2.0 * b * (C * C + C * c.num_classes);
}

struct Molecules {
  std::vector<gs::data::RawRecord> records;
};

Molecules loadMolecules(const std::string& path, int n) {
  std::ifstream in(path);
  gs::data::SmiReader reader(in);
  Molecules m;
  gs::data::RawRecord r;
  while (static_cast<int>(m.records.size()) < n && reader.next(r)) {
    if (gs::chem::featurizeRecord(r).features) m.records.push_back(r);
  }
  return m;
}

struct RunResult {
  double molecules_per_s = 0, featurize_share = 0, flops_per_s = 0, padding = 0;
  int64_t peak_tensor = 0;
};

RunResult run(gs::engine::InferenceSession& session, const Molecules& mols, int repeats) {
  RunResult best;
  double best_time = 1e30;
  for (int rep = 0; rep < repeats; ++rep) {
    auto tracker = std::make_shared<gs::tensor::TensorMemoryTracker>();
    const auto t0 = Clock::now();
    std::vector<gs::chem::MoleculeRow> rows;
    rows.reserve(mols.records.size());
    for (const auto& r : mols.records) rows.push_back(gs::chem::featurizeRecord(r));
    const auto t1 = Clock::now();
    std::vector<const gs::graph::Featurized*> ptrs;
    std::vector<int> sizes;
    for (const auto& row : rows) {
      ptrs.push_back(&*row.features);
      sizes.push_back(row.features->numNodes());
    }
    gs::engine::RunCallbacks cb;
    cb.memory = tracker;
    session.predict(ptrs, cb);
    const auto t2 = Clock::now();
    const double total = seconds(t0, t2);
    if (total < best_time) {
      best_time = total;
      const auto plan = gs::data::planBatches(sizes, session.options().plan);
      double flops = 0;
      int64_t real = 0, padded = 0;
      for (const auto& batch : plan) {
        int n = 0;
        for (int i : batch) n = std::max(n, sizes[i]), real += sizes[i];
        padded += static_cast<int64_t>(batch.size()) * n;
        flops += batchFlops(session.model().config, static_cast<int64_t>(batch.size()), n + 1);
      }
      best.molecules_per_s = mols.records.size() / total;
      best.featurize_share = seconds(t0, t1) / total;
      best.flops_per_s = flops / seconds(t1, t2);
      best.padding = static_cast<double>(padded) / real;
      best.peak_tensor = tracker->peak();
    }
  }
  return best;
}

// "default": the bundled default model (trained weights); a preset name: random weights.
gs::Result<gs::model::LoadedModel> loadBenchModel(const std::string& name) {
  if (name == "default") return gs::model::openModel(gs::bundle::ModelSource{});
  auto config = gs::bundle::GraphormerConfig::preset(name);
  if (!config.isOk()) return config.status();
  gs::model::LoadedModel loaded;
  loaded.config = config.value();
  loaded.model = gs::model::Graphormer(loaded.config);
  loaded.model->initializeWeights(42);
  loaded.model->eval();
  return loaded;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parseArgs(argc, argv);
  gs::compat::setThreads(args.threads);
  const Molecules mols = loadMolecules(args.input, args.molecules);
  if (mols.records.empty()) {
    std::fprintf(stderr, "no molecules read from %s\n", args.input.c_str());
    return 1;
  }
  const double fp32_gemm = gemmFlops(2048, torch::kFloat);
  const double bf16_gemm = gemmFlops(2048, torch::kBFloat16);
  std::printf("LibTorch %s, %d thread(s), %zu NCI molecules from %s\n", gs::compat::torchVersion().c_str(),
              at::get_num_threads(), mols.records.size(), args.input.c_str());
  std::printf("GEMM 2048^3: fp32 %.1f GFLOP/s, bf16 %.1f GFLOP/s (%.2fx)\n\n", fp32_gemm / 1e9, bf16_gemm / 1e9,
              bf16_gemm / fp32_gemm);
  std::printf("%-5s %-5s %5s %-8s %9s %9s %8s %10s %9s %8s\n", "model", "prec", "batch", "bucket", "mol/s",
              "feat%", "padding", "GFLOP/s", "%GEMM", "peakMiB");
  for (const auto& name : args.models) {
    auto loaded_model = loadBenchModel(name);
    if (!loaded_model.isOk()) {
      std::fprintf(stderr, "%s\n", loaded_model.status().message().c_str());
      return 1;
    }
    const gs::model::LoadedModel& loaded = loaded_model.value();
    for (const auto& prec : args.precisions) {
      const auto parsed = gs::tensor::parsePrecision(prec);
      if (!parsed.isOk()) continue;
      const gs::tensor::Precision p = parsed.value();
      for (bool bucketing : {true, false}) {
        for (const auto& batch : args.batches) {
          gs::engine::SessionOptions o;
          o.precision = p;
          o.threads = args.threads;
          o.plan.max_batch_size = std::stoi(batch);
          o.plan.bucketing = bucketing;
          auto session = gs::engine::InferenceSession::create(loaded, o);
          if (!session.isOk()) {
            std::printf("%-5s %-5s %5s: %s\n", name.c_str(), prec.c_str(), batch.c_str(), session.status().message().c_str());
            continue;
          }
          // warm-up: first-call kernel selection and allocator growth are not what a screen sees
          std::vector<gs::chem::MoleculeRow> warm;
          for (size_t i = 0; i < std::min<size_t>(mols.records.size(), std::stoul(batch)); ++i)
            warm.push_back(gs::chem::featurizeRecord(mols.records[i]));
          std::vector<const gs::graph::Featurized*> wp;
          for (const auto& w : warm) wp.push_back(&*w.features);
          session.value()->predict(wp);
          const RunResult r = run(*session.value(), mols, args.repeats);
          const double gemm = p == gs::tensor::Precision::BF16 ? bf16_gemm : fp32_gemm;
          std::printf("%-5s %-5s %5s %-8s %9.1f %8.1f%% %8.2f %10.1f %8.1f%% %8.1f\n", name.c_str(), prec.c_str(),
                      batch.c_str(), bucketing ? "yes" : "no", r.molecules_per_s, 100 * r.featurize_share, r.padding,
                      r.flops_per_s / 1e9, 100 * r.flops_per_s / gemm, r.peak_tensor / 1048576.0);
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
