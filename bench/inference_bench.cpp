// bench/inference: end-to-end molecules/s (featurization included) and peak tensor memory for the
// slim and base Graphormer (random weights) on RDKit's NCI molecules, for every precision, batch
// size and with/without length bucketing; plus large FP32/BF16 GEMMs timed in the same run so the
// model's achieved FLOP/s reads as a fraction of what this machine's matrix multiply can do.
// Each precision's predictions are compared with FP32's at the same batch setting (max and mean
// |Δ|, in the model's output units). "bf16-autocast" (or "fp16-autocast") runs 16-bit by LibTorch
// autocast over the fp32 weights instead of the 16-bit weight copies, for before/after figures.
// Batches follow the planner's defaults (token budgets) unless --no-token-budget.
// Prints a table; never fails on time.
//   bench_inference [--input FILE.smi] [--molecules N] [--threads N] [--models slim,base,default,w256]
//                   [--batches 1,8,32,128] [--precisions fp32,bf16,int8,bf16-autocast] [--repeats N]
//                   [--bucketing yes|no|both] [--no-token-budget 1] [--no-stable-rows 1]
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "chem/featurize.h"
#include "data/smi_reader.h"
#include "engine/inference_session.h"
#include "model/checkpoint.h"
#include "model/loader.h"
#include "tensor/collate.h"
#include "tensor/precision_dtype.h"
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
  std::string bucketing = "both";
  bool token_budget = true;
  std::vector<std::string> models{"slim", "base"}, batches{"1", "8", "32", "128"}, precisions{"fp32", "bf16", "int8"};
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--input")
      a.input = v;
    else if (k == "--molecules")
      a.molecules = std::stoi(v);
    else if (k == "--threads")
      a.threads = std::stoi(v);
    else if (k == "--repeats")
      a.repeats = std::stoi(v);
    else if (k == "--models")
      a.models = split(v);
    else if (k == "--batches")
      a.batches = split(v);
    else if (k == "--precisions")
      a.precisions = split(v);
    else if (k == "--bucketing")
      a.bucketing = v;
    else if (k == "--no-token-budget")
      a.token_budget = v == "0";
    else if (k == "--no-stable-rows")
      gs::model::setStableRowPadding(v == "0");
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

// Rate of a rows x n by n x n product through the model's own Linear layer (16-bit weight copies,
// or per-row int8), as the encoder's projections run it.
double linearRate(int64_t rows, int64_t n, gs::tensor::Precision p) {
  c10::InferenceMode guard;
  gs::model::Linear linear(n, n);
  linear->eval();
  std::string error;
  const auto& t = gs::tensor::traits(p);
  if (t.weights == gs::tensor::NumberFormat::Int8 && !linear->quantizeInt8(&error)) return 0;
  if (t.sixteen_bit) linear->setHalfWeights(gs::tensor::weightType(p));
  auto x = torch::randn({rows, n});
  linear(x);
  double best = 1e30;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = Clock::now();
    auto y = linear(x);
    best = std::min(best, seconds(t0, Clock::now()));
  }
  return 2.0 * rows * n * n / best;
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
  size_t batches = 0;
  std::vector<float> values;  // first output per molecule (NaN where a row failed)
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
    const auto predictions = session.predict(ptrs, cb);
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
      best.batches = plan.size();
      best.values.clear();
      for (const auto& p : predictions) best.values.push_back(p.status.isOk() ? p.values[0] : std::nanf(""));
    }
  }
  return best;
}

// "default": the bundled default model (trained weights); a preset name, or "wN" (the base
// architecture N wide, N/32 heads: the width at which INT8 starts to pay): random weights.
gs::Result<gs::model::LoadedModel> loadBenchModel(const std::string& name) {
  if (name == "default") return gs::model::openModel(gs::bundle::ModelSource{});
  auto config = gs::bundle::GraphormerConfig::preset(name.size() > 1 && name[0] == 'w' ? "base" : name);
  if (!config.isOk()) return config.status();
  if (name[0] == 'w') {
    const int width = std::atoi(name.c_str() + 1);
    if (width < 32 || width % 32 != 0)
      return gs::Status(gs::StatusCode::InvalidArgument, "wN: N must be a multiple of 32");
    config.value().embedding_dim = config.value().ffn_embedding_dim = width;
    config.value().num_attention_heads = width / 32;
  }
  gs::model::LoadedModel loaded;
  loaded.config = config.value();
  loaded.model = gs::model::Graphormer(loaded.config);
  loaded.model->initializeWeights(42);
  loaded.model->eval();
  return loaded;
}

struct GemmRates {
  double fp32, bf16, int8;
};

// Max and mean |a - b| over the rows both predicted.
std::pair<double, double> deltas(const std::vector<float>& a, const std::vector<float>& b) {
  double mx = 0, sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) continue;
    const double d = std::abs(static_cast<double>(a[i]) - b[i]);
    mx = std::max(mx, d);
    sum += d;
    ++n;
  }
  return {mx, n ? sum / double(n) : 0.0};
}

// Every precision at one batch setting; FP32 first, as the reference of the |Δ| columns.
void benchBatchSetting(const gs::model::LoadedModel& loaded, const std::string& name, const Molecules& mols,
                       const Args& args, bool bucketing, int batch, const GemmRates& gemm) {
  std::vector<std::string> precisions{"fp32"};
  for (const auto& p : args.precisions)
    if (p != "fp32") precisions.push_back(p);
  std::vector<float> reference;
  for (const auto& prec : precisions) {
    const bool autocast = prec.size() > 9 && prec.compare(prec.size() - 9, 9, "-autocast") == 0;
    const auto parsed = gs::tensor::parsePrecision(autocast ? prec.substr(0, prec.size() - 9) : prec);
    if (!parsed.isOk()) continue;
    const gs::tensor::Precision p = parsed.value();
    gs::engine::SessionOptions o;
    o.precision = p;
    o.autocast = autocast;
    o.threads = args.threads;
    o.plan.max_batch_size = batch;
    o.plan.bucketing = bucketing;
    if (!args.token_budget) o.plan.max_padded_nodes = o.plan.max_attention_cells = 0;
    auto session = gs::engine::InferenceSession::create(loaded, o);
    if (!session.isOk()) {
      std::printf("%-7s %-13s %5d: %s\n", name.c_str(), prec.c_str(), batch, session.status().message().c_str());
      continue;
    }
    // warm-up: first-call kernel selection and allocator growth are not what a screen sees
    std::vector<gs::chem::MoleculeRow> warm;
    for (size_t i = 0; i < std::min<size_t>(mols.records.size(), static_cast<size_t>(batch)); ++i)
      warm.push_back(gs::chem::featurizeRecord(mols.records[i]));
    std::vector<const gs::graph::Featurized*> wp;
    for (const auto& w : warm) wp.push_back(&*w.features);
    session.value()->predict(wp);
    const RunResult r = run(*session.value(), mols, args.repeats);
    if (reference.empty()) reference = r.values;
    const auto [max_d, mean_d] = deltas(r.values, reference);
    const auto& row = gs::tensor::traits(p);
    const double rate = row.sixteen_bit                                  ? gemm.bf16
                        : row.products == gs::tensor::NumberFormat::Int8 ? gemm.int8
                                                                         : gemm.fp32;
    std::printf("%-7s %-13s %5d %-6s %7zu %9.1f %5.1f%% %8.2f %9.1f %6.1f%% %8.1f %9.2e %9.2e\n", name.c_str(),
                prec.c_str(), batch, bucketing ? "yes" : "no", r.batches, r.molecules_per_s, 100 * r.featurize_share,
                r.padding, r.flops_per_s / 1e9, 100 * r.flops_per_s / rate, r.peak_tensor / 1048576.0, max_d, mean_d);
    std::fflush(stdout);
  }
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
  // The base model's projection shape (about 1,000 rows per batch, 768 wide) through the model's
  // Linear: the rate its products can reach; INT8's %GEMM column is against this one.
  const double fp32_linear = linearRate(1024, 768, gs::tensor::Precision::FP32);
  const double bf16_linear = linearRate(1024, 768, gs::tensor::Precision::BF16);
  const double int8_gemm = linearRate(1024, 768, gs::tensor::Precision::INT8);
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf("LibTorch %s, %d thread(s), %zu NCI molecules from %s, OPENBLAS_CORETYPE=%s\n",
              gs::compat::torchVersion().c_str(), at::get_num_threads(), mols.records.size(), args.input.c_str(),
              coretype ? coretype : "(unset)");
  std::printf("GEMM 2048^3: fp32 %.1f GFLOP/s, bf16 %.1f GFLOP/s (%.2fx)\n", fp32_gemm / 1e9, bf16_gemm / 1e9,
              bf16_gemm / fp32_gemm);
  std::printf("Linear 1024x768x768: fp32 %.1f, bf16 %.1f (%.2fx), int8 %.1f GOP/s (%.2fx)\n\n", fp32_linear / 1e9,
              bf16_linear / 1e9, bf16_linear / fp32_linear, int8_gemm / 1e9, int8_gemm / fp32_linear);
  std::printf("%-7s %-13s %5s %-6s %7s %9s %6s %8s %9s %7s %8s %9s %9s\n", "model", "prec", "batch", "bucket",
              "batches", "mol/s", "feat%", "padding", "GFLOP/s", "%GEMM", "peakMiB", "max|d|", "mean|d|");
  const std::vector<bool> bucketings = args.bucketing == "yes"  ? std::vector<bool>{true}
                                       : args.bucketing == "no" ? std::vector<bool>{false}
                                                                : std::vector<bool>{true, false};
  for (const auto& name : args.models) {
    auto loaded_model = loadBenchModel(name);
    if (!loaded_model.isOk()) {
      std::fprintf(stderr, "%s\n", loaded_model.status().message().c_str());
      return 1;
    }
    for (bool bucketing : bucketings)
      for (const auto& batch : args.batches)
        benchBatchSetting(loaded_model.value(), name, mols, args, bucketing, std::stoi(batch),
                          {fp32_gemm, bf16_gemm, int8_gemm});
  }
  return 0;
}
