#pragma once
// Measures what each optimisation mode really does on the user's molecules: one molecule set run
// under a list of modes (precision x activation-checkpoint ratio x batch size) for a workload
// (pure inference, or forward + backward as in fine-tuning), with warm-up and repeats. Per mode:
// median ms per molecule, molecules/s, peak memory from the probes (tensor allocator and process
// RSS on the CPU; CUDA allocator and device on a GPU), and max / mean |prediction - FP32|.
//
// Thread-safety: one thread runs a comparison; callbacks run on it.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "graph/featurized.h"
#include "tensor/memory_probe.h"
#include "tensor/precision.h"

namespace gs::model {
struct LoadedModel;
}

namespace gs::engine {

enum class Workload { Inference, Train };
const char* workloadName(Workload w);
Result<Workload> parseWorkload(const std::string& name);

struct CompareMode {
  tensor::Precision precision = tensor::Precision::FP32;
  double checkpoint_ratio = 0.0;
  int batch_size = 32;
  // Another model to run instead of the one compared ("" = that one): a bundled model's name or a
  // path (CompareOptions::models holds it loaded). Its |Δ| is then the difference between the two
  // models' predictions, in each output's unit.
  std::string model;
  std::string label() const;  // "bf16+ckpt=0.5+bs=64", "+@fast" for another model
  // The same in words, for people: "BF16 mixed precision · 50 % of layers recomputed · batch 64".
  std::string description(const char* separator = " · ") const;
};

// "fp32,bf16+ckpt=0.5,int8+bs=64,bf16@fast": PRECISION[+ckpt=R][+bs=N][@MODEL], comma-separated;
// N defaults to `default_batch`.
Result<std::vector<CompareMode>> parseModes(const std::string& list, int default_batch = 32);
// The four classic modes (FP32, mixed precision, checkpointing, both) plus INT8.
std::vector<CompareMode> presetModes(int batch_size = 32);
// FP32 and BF16 of each model named (the "models" preset: e.g. the bundled accurate and fast).
std::vector<CompareMode> modelModes(const std::vector<std::string>& models, int batch_size = 32);

struct CompareOptions {
  std::vector<CompareMode> modes;
  Workload workload = Workload::Inference;
  int warmup = 1;   // untimed passes per mode
  int repeats = 3;  // timed passes; the median is reported
  std::string device = "cpu";
  int threads = 0;
  // The other models the modes name (CompareMode::model), loaded; each must predict the same outputs.
  std::map<std::string, std::shared_ptr<const model::LoadedModel>> models;
};

struct ModeResult {
  CompareMode mode;
  Workload workload = Workload::Inference;
  Status status;  // not ok: the mode cannot run here (the reason), nothing measured
  int64_t molecules = 0;
  double ms_per_molecule = 0, molecules_per_s = 0;
  int64_t peak_tensor_bytes = -1;  // allocator high-water mark above the level before the mode
  int64_t peak_rss_bytes = -1;     // process peak RSS while the mode ran (VmHWM reset per mode)
  int64_t peak_cuda_allocated_bytes = -1, peak_device_used_bytes = -1;
  // Against FP32 inference at the same batch size (so batching itself costs nothing), in output units.
  // Over every output (mixed units when the model has several), and per output in its own unit.
  double max_abs_delta = 0, mean_abs_delta = 0;
  std::vector<double> output_max_abs_delta, output_mean_abs_delta;
  std::vector<double> trace_seconds;        // per batch of the last timed pass: when it ended
  std::vector<int64_t> trace_tensor_bytes;  // and its peak tensor memory
};

struct CompareCallbacks {
  std::function<void(int mode_index, int modes, const std::string& label)> mode_started;
  std::function<void(const ModeResult&)> mode_done;
  std::function<bool()> cancelled;
  std::shared_ptr<tensor::TensorMemoryTracker> memory;  // live tensor bytes (e.g. for a chart)
};

// Runs every mode on `molecules` through sessions on `model` (which is never modified: int8 and
// the train workload run on copies of the weights). Modes that cannot run on the device get a
// status and no figures.
Result<std::vector<ModeResult>> runComparison(const model::LoadedModel& model,
                                              const std::vector<const graph::Featurized*>& molecules,
                                              const CompareOptions& options, const CompareCallbacks& callbacks = {});

}  // namespace gs::engine
