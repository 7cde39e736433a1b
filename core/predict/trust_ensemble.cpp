#include "predict/trust_ensemble.h"

#include <filesystem>

#include "engine/mirror_average.h"
#include "model/loader.h"

namespace gs::predict {
namespace fs = std::filesystem;

namespace {

Status trustError(const std::string& path, const std::string& what) {
  return {StatusCode::InvalidArgument, "trust file '" + path + "': " + what +
                                           " (retrain or recalibrate the model, or predict without trust: --no-trust)"};
}

// The member's weights (or adapter) SHA-256, as the trust file records it.
std::string memberSha(const model::LoadedModel& m) { return m.source.adapter.empty() ? m.sha256 : m.adapter_sha256; }

}  // namespace

TrustEnsemble::~TrustEnsemble() = default;

std::string TrustEnsemble::trustPath(const model::LoadedModel& model) {
  const std::string& file = model.source.adapter.empty() ? model.source.weights : model.source.adapter;
  return (fs::path(file).parent_path() / bundle::kTrustFile).string();
}

Result<std::unique_ptr<TrustEnsemble>> TrustEnsemble::open(const model::LoadedModel& model,
                                                           const engine::SessionOptions& options, std::string* note) {
  const std::string path = trustPath(model);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    if (note)
      *note = "the model has no trust data (" + std::string(bundle::kTrustFile) +
              "): interval and domain columns are empty";
    return std::unique_ptr<TrustEnsemble>();
  }
  auto data = bundle::readTrust(path);
  if (!data.isOk()) return data.status();
  if (data->model_sha256 != model.sha256 || data->adapter_sha256 != model.adapter_sha256)
    return trustError(path, "built for other weights (SHA-256 " + data->model_sha256.substr(0, 12) + ", these are " +
                                model.sha256.substr(0, 12) + ")");
  if (data->outputs != model.config.num_classes)
    return trustError(path, "has " + std::to_string(data->outputs) + " outputs, the model " +
                                std::to_string(model.config.num_classes));
  std::unique_ptr<TrustEnsemble> t(new TrustEnsemble(path, data.value()));
  const auto dir = fs::path(path).parent_path();
  for (size_t m = 0; m < data->members.size(); ++m) {
    auto member = model::openModel(bundle::ModelSource{(dir / data->members[m]).string(), ""});
    if (!member.isOk())
      return trustError(path, "ensemble member '" + data->members[m] + "': " + member.status().message());
    if (memberSha(member.value()) != data->member_sha256[m])
      return trustError(path, "ensemble member '" + data->members[m] + "' has changed");
    auto session = engine::InferenceSession::create(member.value(), options);
    if (!session.isOk()) return session.status();
    t->sessions_.push_back(std::move(session.value()));
  }
  return t;
}

void TrustEnsemble::apply(const std::vector<chem::MoleculeRow>& rows,
                          const std::vector<const graph::Featurized*>& molecules,
                          const std::vector<int>& prediction_of_row, const std::vector<engine::Prediction>& main,
                          double confidence, bool mirror_invariant, const engine::RunCallbacks& callbacks,
                          std::vector<PredictedRow>& out) const {
  engine::RunCallbacks quiet;
  quiet.cancelled = callbacks.cancelled;
  std::vector<std::vector<engine::Prediction>> member_predictions;
  for (const auto& s : sessions_)
    member_predictions.push_back(engine::predictForTargets(*s, mirror_invariant, molecules, quiet));
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!out[r].status.isOk() || prediction_of_row[r] < 0 || !rows[r].domain) continue;
    std::vector<std::vector<float>> values{out[r].values};
    for (const auto& mp : member_predictions) {
      const auto& p = mp[static_cast<size_t>(prediction_of_row[r])];
      if (p.status.isOk()) values.push_back(p.values);
    }
    const auto& own = main[static_cast<size_t>(prediction_of_row[r])];
    out[r].trust = assessor_.assess(*rows[r].domain, values, confidence, own.embedding);
  }
}

}  // namespace gs::predict
