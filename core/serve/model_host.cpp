#include "serve/model_host.h"

#include <chrono>

#include "model/loader.h"

namespace gs::serve {
namespace {

// Molecules every new predictor runs before it is installed: the first batches of a session pay
// for allocator growth and kernel selection, which a client should never wait for.
const char* const kWarmup[] = {"CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "CN1CCC[C@H]1c1cccnc1",
                               "O=C(O)c1ccccc1OC(C)=O"};

Status warm(predict::Predictor& predictor) {
  std::vector<data::RawRecord> records;
  for (const char* smiles : kWarmup) {
    data::RawRecord r;
    r.row = static_cast<int64_t>(records.size()) + 1;
    r.id = "warmup";
    r.text = smiles;
    records.push_back(std::move(r));
  }
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& row : predictor.predict(records))
      if (!row.status.isOk())
        return Status(row.status.code(), "warm-up molecule " + row.input + ": " + row.status.message());
  return Status::ok();
}

ModelInfo describe(const predict::Predictor& p, const std::string& name) {
  const predict::RunRecord record = p.runRecord();
  ModelInfo info;
  info.name = name;
  info.sha256 = record.model_sha256;
  info.adapter_sha256 = record.adapter_sha256;
  info.precision = record.precision;
  info.device = record.device;
  const auto& metadata = p.model().metadata;
  for (int j = 0; j < p.numOutputs(); ++j) {
    info.outputs.push_back(metadata.outputName(j));
    info.units.push_back(j < static_cast<int>(metadata.target_units.size()) ? metadata.target_units[j] : "");
  }
  return info;
}

}  // namespace

ModelHost::ModelHost(predict::PredictorOptions options, std::string model_name, int workers)
    : options_(std::move(options)), name_(std::move(model_name)), workers_(workers) {}

Result<std::shared_ptr<Generation>> ModelHost::load(const predict::PredictorOptions& options) const {
  const auto start = std::chrono::steady_clock::now();
  auto loaded = model::openModel(options.model);
  if (!loaded.isOk()) return loaded.status();
  auto shared = std::make_shared<const model::LoadedModel>(std::move(loaded.value()));
  auto generation = std::make_shared<Generation>();
  for (int w = 0; w < workers_; ++w) {
    auto predictor = predict::Predictor::open(shared, options);
    if (!predictor.isOk()) return predictor.status();
    if (Status s = warm(*predictor.value()); !s.isOk()) return s;
    generation->predictors.push_back(std::move(predictor.value()));
  }
  const predict::Predictor& first = *generation->predictors.front();
  generation->info = describe(first, name_);
  generation->trust = first.trust() != nullptr;
  generation->trust_note = first.trustNote();
  generation->load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(mutex_);
  generation->number = ++loads_;
  return generation;
}

Status ModelHost::reload() {
  std::lock_guard<std::mutex> one_at_a_time(reload_mutex_);
  auto generation = load(options_);
  if (!generation.isOk()) return generation.status();
  install(std::move(generation.value()));
  return Status::ok();
}

std::shared_ptr<Generation> ModelHost::current() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return current_;
}

void ModelHost::install(std::shared_ptr<Generation> generation) {
  std::shared_ptr<Generation> old;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    old = std::move(current_);
    current_ = std::move(generation);
  }
  // `old` is released here, outside the lock; running batches still hold it.
}

}  // namespace gs::serve
