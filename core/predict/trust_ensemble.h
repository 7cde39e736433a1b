#pragma once
// A model's trust data opened for prediction: the assessor (predict/trust.h) and one inference
// session per ensemble member (the snapshots stored beside the weights), created with the same
// options as the model's own session. The Predictor owns one when the model has trust data.
// LibTorch-free header.
#include <memory>
#include <string>
#include <vector>

#include "chem/featurize.h"
#include "engine/inference_session.h"
#include "predict/prediction_table.h"
#include "predict/trust.h"

namespace gs::model {
struct LoadedModel;
}

namespace gs::predict {

class TrustEnsemble {
 public:
  // The trust file of a loaded model: <directory of the adapter, else of the weights>/trust.safetensors.
  static std::string trustPath(const model::LoadedModel& model);
  // Null (and `note` says why) when the model has no trust file; an error when the file is
  // corrupt, built for other weights, or a member is missing or changed.
  static Result<std::unique_ptr<TrustEnsemble>> open(const model::LoadedModel& model,
                                                     const engine::SessionOptions& options, std::string* note);
  ~TrustEnsemble();

  // Fills out[r].trust for every row predicted ok: the members predict the same molecules (averaged
  // with their mirror images when the targets are mirror-invariant, as the main model's are).
  // `main`: the model's own predictions of `molecules` (their embeddings feed the latent distance).
  void apply(const std::vector<chem::MoleculeRow>& rows, const std::vector<const graph::Featurized*>& molecules,
             const std::vector<int>& prediction_of_row, const std::vector<engine::Prediction>& main, double confidence,
             bool mirror_invariant, const engine::RunCallbacks& callbacks, std::vector<PredictedRow>& out) const;

  const TrustAssessor& assessor() const { return assessor_; }
  const std::string& path() const { return path_; }
  int members() const { return static_cast<int>(sessions_.size()); }

 private:
  TrustEnsemble(std::string path, bundle::TrustData data) : path_(std::move(path)), assessor_(std::move(data)) {}
  std::string path_;
  TrustAssessor assessor_;
  std::vector<std::unique_ptr<engine::InferenceSession>> sessions_;
};

}  // namespace gs::predict
