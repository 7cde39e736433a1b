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

class RidgeRegression {
 public:
  // Fits one model per lambda (sharing X'X) and keeps the one with the lowest MAE on the
  // validation rows; with no validation rows the first lambda is used.
  static Result<RidgeRegression> fitSelect(const std::vector<const similarity::BitFingerprint*>& x,
                                           const std::vector<float>& y,
                                           const std::vector<const similarity::BitFingerprint*>& valid_x,
                                           const std::vector<float>& valid_y, const std::vector<double>& lambdas);
  double predict(const similarity::BitFingerprint& x) const;
  double lambda() const { return lambda_; }

 private:
  std::vector<double> weights_;  // per bit, for centred bits
  double offset_ = 0;            // prediction for the all-zero fingerprint
  double lambda_ = 0;
};

}  // namespace gs::engine
