// The GPU check: builds without RDKit (Graphormer::Tensor only), so it runs on a GPU machine that
// has only PyTorch's LibTorch. It reads molecules featurized elsewhere (`graphormer-cli featurize
// --json`, one JSON object per line: node_feat, edge_index, edge_attr), encodes them here, and runs
// engine::runComparison on the device: inference in FP32/BF16/FP16 at several batch sizes and a
// training step (forward + backward) in each precision at checkpoint ratios 0, 0.5 and 1. Writes
// molecules/s, peak CUDA memory, device memory and |Δ| against FP32 per mode as JSON.
//
//   gpu_check --model DIR --molecules FILE.jsonl --out RESULT.json [--device cuda] [--max N]
//             [--inference-batches 32,128,512] [--train-batch 64] [--repeats 3]
// bench/gpu-check.sh does the whole round trip (featurize here, build and run there).
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/json_value.h"
#include "common/json_writer.h"
#include "engine/compare.h"
#include "graph/graph_encoding.h"
#include "model/loader.h"
#include "tensor/torch_compat.h"

namespace {

using gs::JsonValue;

struct Args {
  std::string model, molecules, out, device = "cuda";
  int max = 2000, train_batch = 64, repeats = 3;
  std::vector<int> inference_batches{32, 128, 512};
};

bool parseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--model")
      a->model = v;
    else if (k == "--molecules")
      a->molecules = v;
    else if (k == "--out")
      a->out = v;
    else if (k == "--device")
      a->device = v;
    else if (k == "--max")
      a->max = std::atoi(v.c_str());
    else if (k == "--train-batch")
      a->train_batch = std::atoi(v.c_str());
    else if (k == "--repeats")
      a->repeats = std::atoi(v.c_str());
    else if (k == "--inference-batches") {
      a->inference_batches.clear();
      std::stringstream s(v);
      for (std::string b; std::getline(s, b, ',');) a->inference_batches.push_back(std::atoi(b.c_str()));
    } else
      return std::cerr << "gpu_check: unknown flag " << k << "\n", false;
  }
  if (a->molecules.empty() || a->out.empty()) return std::cerr << "gpu_check: need --molecules and --out\n", false;
  return true;
}

// One featurize --json line as a MolGraph; false for rows that were not ok.
bool readGraph(const JsonValue& row, gs::graph::MolGraph* g) {
  const JsonValue* status = row.find("status");
  if (!status || !status->isString() || status->asString() != "ok") return false;
  const JsonValue* nodes = row.find("node_feat");
  const JsonValue* index = row.find("edge_index");
  const JsonValue* attr = row.find("edge_attr");
  if (!nodes || !index || !attr || index->items().size() != 2) return false;
  g->num_nodes = static_cast<int>(nodes->items().size());
  for (const JsonValue& n : nodes->items())
    for (const JsonValue& v : n.items()) g->node_feat.push_back(static_cast<int16_t>(v.asInteger()));
  for (const JsonValue& v : index->items()[0].items()) g->edge_src.push_back(static_cast<int32_t>(v.asInteger()));
  for (const JsonValue& v : index->items()[1].items()) g->edge_dst.push_back(static_cast<int32_t>(v.asInteger()));
  for (const JsonValue& e : attr->items())
    for (const JsonValue& v : e.items()) g->edge_attr.push_back(static_cast<int16_t>(v.asInteger()));
  return g->num_nodes > 0 && g->node_feat.size() == static_cast<size_t>(g->num_nodes) * gs::graph::kAtomFeatures;
}

std::vector<gs::graph::Featurized> readMolecules(const Args& a, int max_hops) {
  std::ifstream in(a.molecules);
  std::vector<gs::graph::Featurized> out;
  for (std::string line; std::getline(in, line) && static_cast<int>(out.size()) < a.max;) {
    auto row = JsonValue::parse(line);
    gs::graph::Featurized f;
    if (!row.isOk() || !readGraph(row.value(), &f.graph)) continue;
    f.enc = gs::graph::encodeGraph(f.graph, max_hops);
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<gs::engine::CompareMode> modes(const Args& a, bool cuda) {
  using gs::tensor::Precision;
  std::vector<gs::engine::CompareMode> m;
  const std::vector<Precision> precisions =
      cuda ? std::vector<Precision>{Precision::FP32, Precision::BF16, Precision::FP16}
           : std::vector<Precision>{Precision::FP32, Precision::BF16};
  for (int b : a.inference_batches)
    for (Precision p : precisions) m.push_back({p, 0.0, b, {}});
  return m;
}

std::vector<gs::engine::CompareMode> trainModes(const Args& a, bool cuda) {
  using gs::tensor::Precision;
  std::vector<gs::engine::CompareMode> m;
  for (Precision p : cuda ? std::vector<Precision>{Precision::FP32, Precision::BF16, Precision::FP16}
                          : std::vector<Precision>{Precision::FP32, Precision::BF16})
    for (double ratio : {0.0, 0.5, 1.0}) m.push_back({p, ratio, a.train_batch, {}});
  return m;
}

void writeResults(gs::JsonWriter& w, const std::vector<gs::engine::ModeResult>& results) {
  w.beginArray();
  for (const auto& r : results) {
    w.beginObject().field("mode", r.mode.label()).field("workload", gs::engine::workloadName(r.workload));
    w.field("precision", gs::tensor::precisionName(r.mode.precision))
        .field("checkpoint_ratio", r.mode.checkpoint_ratio);
    w.field("batch_size", r.mode.batch_size).field("status", r.status.toString()).field("molecules", r.molecules);
    w.field("molecules_per_s", r.molecules_per_s).field("ms_per_molecule", r.ms_per_molecule);
    w.field("peak_cuda_allocated_bytes", r.peak_cuda_allocated_bytes)
        .field("peak_device_used_bytes", r.peak_device_used_bytes);
    w.field("peak_tensor_bytes", r.peak_tensor_bytes).field("max_abs_delta", r.max_abs_delta);
    w.field("mean_abs_delta", r.mean_abs_delta).endObject();
  }
  w.endArray();
}

gs::Result<std::vector<gs::engine::ModeResult>> run(const gs::model::LoadedModel& model,
                                                    const std::vector<const gs::graph::Featurized*>& mols,
                                                    std::vector<gs::engine::CompareMode> m,
                                                    gs::engine::Workload workload, const Args& a) {
  gs::engine::CompareOptions o;
  o.modes = std::move(m);
  o.workload = workload;
  o.device = a.device;
  o.repeats = a.repeats;
  gs::engine::CompareCallbacks cb;
  cb.mode_done = [](const gs::engine::ModeResult& r) {
    std::cerr << "gpu_check: " << gs::engine::workloadName(r.workload) << " " << r.mode.label() << ": "
              << (r.status.isOk() ? std::to_string(r.molecules_per_s) + " molecules/s, peak CUDA " +
                                        std::to_string(r.peak_cuda_allocated_bytes >> 20) + " MiB"
                                  : r.status.toString())
              << "\n";
  };
  return gs::engine::runComparison(model, mols, o, cb);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parseArgs(argc, argv, &a)) return 2;
  auto model = gs::model::openModel(gs::bundle::ModelSource{a.model, ""});
  if (!model.isOk()) return std::cerr << "gpu_check: " << model.status().toString() << "\n", 1;
  const auto molecules = readMolecules(a, model->config.multi_hop_max_dist);
  std::vector<const gs::graph::Featurized*> ptrs;
  for (const auto& m : molecules) ptrs.push_back(&m);
  if (ptrs.empty()) return std::cerr << "gpu_check: no molecules read from " << a.molecules << "\n", 1;
  const bool cuda = a.device.rfind("cuda", 0) == 0;
  std::cerr << "gpu_check: " << ptrs.size() << " molecules, LibTorch " << gs::compat::torchVersion()
            << ", CUDA devices " << gs::compat::cudaDeviceCount() << "\n";
  const auto start = std::chrono::steady_clock::now();
  auto inference = run(model.value(), ptrs, modes(a, cuda), gs::engine::Workload::Inference, a);
  auto train = run(model.value(), ptrs, trainModes(a, cuda), gs::engine::Workload::Train, a);
  std::ofstream out(a.out);
  gs::JsonWriter w(out);
  w.beginObject().field("libtorch", gs::compat::torchVersion()).field("device", a.device);
  w.field("cuda_devices", gs::compat::cudaDeviceCount()).field("molecules", static_cast<int64_t>(ptrs.size()));
  w.field("seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  w.key("inference");
  if (inference.isOk())
    writeResults(w, inference.value());
  else
    w.value(inference.status().toString());
  w.key("train");
  if (train.isOk())
    writeResults(w, train.value());
  else
    w.value(train.status().toString());
  w.endObject();
  out << "\n";
  return inference.isOk() && train.isOk() ? 0 : 1;
}
