#pragma once
// Statistics the trust measures need, LibTorch- and RDKit-free: ranks and Spearman correlation,
// AUROC, and split-conformal quantiles (finite-sample, any confidence chosen at run time).
//
// Split conformal (normalized): on n calibration molecules that were used for nothing else,
// s_i = |y_i - ŷ_i| / (σ_i + β). For confidence 1 - ε, k = ⌈(n + 1)(1 - ε)⌉ and q = the k-th
// smallest score (unbounded when k > n); the interval ŷ ± q (σ + β) then covers a new exchangeable
// molecule with probability in [1 - ε, 1 - ε + 1/(n + 1)).
#include <cstdint>
#include <vector>

#include "common/status.h"

namespace gs::stats {

double median(std::vector<double> values);  // NaN for none
// The p-quantile (0..1, linear interpolation) of the finite values; NaN for none.
double percentile(std::vector<double> values, double p);
// Per output j, the median of label - prediction over the molecules labelled for j (NaN labels and
// predictions skipped); 0 where fewer than `min_count` remain, so a small fold changes nothing.
std::vector<double> medianResiduals(const std::vector<std::vector<float>>& predictions,
                                    const std::vector<std::vector<float>>& labels, int outputs, int64_t min_count);
// Average ranks (1-based; ties share the mean of their ranks).
std::vector<double> ranks(const std::vector<double>& values);
// Spearman's rank correlation; NaN when fewer than two values or one side is constant.
double spearman(const std::vector<double>& a, const std::vector<double>& b);
// Area under the ROC curve of `score` for `positive` (ties count one half); NaN without both classes.
double auroc(const std::vector<double>& score, const std::vector<bool>& positive);

class ConformalScores {
 public:
  ConformalScores() = default;
  // Scores must be finite and >= 0; they are kept sorted.
  static Result<ConformalScores> fromScores(std::vector<double> scores);
  int64_t size() const { return static_cast<int64_t>(sorted_.size()); }
  const std::vector<double>& sorted() const { return sorted_; }
  // The multiplier q for `confidence` in (0, 1); +infinity when the set is too small for it
  // (n < confidence / (1 - confidence), e.g. 9 molecules for 90 %).
  double quantile(double confidence) const;
  // Conformal p-value of a new score: (1 + #{s_i >= score}) / (n + 1).
  double pValue(double score) const;
  // The smallest calibration set that gives a bounded interval at `confidence`.
  static int64_t minimumSize(double confidence);

 private:
  std::vector<double> sorted_;
};

}  // namespace gs::stats
