#pragma once
// Reference predictors a trained model must beat, on Morgan bit fingerprints:
//   mean:  the mean training target;
//   ridge: ridge regression on the fingerprint bits (intercept unpenalised), its strength chosen
//          on the validation set from a grid;
// (k-NN on Tanimoto similarity is torch-free: similarity/knn.h.)
// One target at a time; rows with a missing (NaN) target are left out of fitting and scoring.
#include <vector>

#include "common/status.h"
#include "similarity/fingerprint.h"

namespace gs::engine {

double meanTarget(const std::vector<float>& y);  // NaN when no target is present

using Fingerprints = std::vector<const similarity::BitFingerprint*>;

class RidgeRegression {
 public:
  RidgeRegression() = default;
  RidgeRegression(std::vector<double> weights, double offset, double lambda)
      : weights_(std::move(weights)), offset_(offset), lambda_(lambda) {}
  // Fits one model per lambda (one eigendecomposition of the centred X'X, built from the
  // fingerprints' on-bits) and keeps the one with the lowest MAE on the validation rows; with no
  // validation rows the first lambda is used.
  static Result<RidgeRegression> fitSelect(const Fingerprints& x, const std::vector<float>& y,
                                           const Fingerprints& valid_x, const std::vector<float>& valid_y,
                                           const std::vector<double>& lambdas);
  // The same for several targets (a column each); targets present on the same rows share X'X.
  static Result<std::vector<RidgeRegression>> fitSelectEach(const Fingerprints& x,
                                                            const std::vector<std::vector<float>>& ys,
                                                            const Fingerprints& valid_x,
                                                            const std::vector<std::vector<float>>& valid_ys,
                                                            const std::vector<double>& lambdas);
  double predict(const similarity::BitFingerprint& x) const;
  double lambda() const { return lambda_; }

 private:
  std::vector<double> weights_;  // per bit, for centred bits
  double offset_ = 0;            // prediction for the all-zero fingerprint
  double lambda_ = 0;
};

}  // namespace gs::engine
