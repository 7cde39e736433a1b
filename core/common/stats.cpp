#include "common/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace gs::stats {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

double percentile(std::vector<double> v, double p) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const double pos = p * double(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - double(lo)) * (v[hi] - v[lo]);
}

double median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2) return upper;
  return 0.5 * (upper + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)));
}

std::vector<double> medianResiduals(const std::vector<std::vector<float>>& predictions,
                                    const std::vector<std::vector<float>>& labels, int outputs, int64_t min_count) {
  std::vector<double> offsets(static_cast<size_t>(std::max(outputs, 0)), 0.0);
  for (size_t j = 0; j < offsets.size(); ++j) {
    std::vector<double> residuals;
    for (size_t i = 0; i < predictions.size() && i < labels.size(); ++i) {
      if (j >= predictions[i].size() || j >= labels[i].size()) continue;
      const double r = double(labels[i][j]) - double(predictions[i][j]);
      if (std::isfinite(r)) residuals.push_back(r);
    }
    if (static_cast<int64_t>(residuals.size()) >= std::max<int64_t>(min_count, 1)) offsets[j] = median(residuals);
  }
  return offsets;
}

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> out(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double rank = 0.5 * double(i + j) + 1.0;
    for (size_t t = i; t <= j; ++t) out[order[t]] = rank;
    i = j + 1;
  }
  return out;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return kNaN;
  const auto ra = ranks(a), rb = ranks(b);
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / double(ra.size());
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / double(rb.size());
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : kNaN;
}

double auroc(const std::vector<double>& score, const std::vector<bool>& positive) {
  if (score.size() != positive.size()) return kNaN;
  const auto r = ranks(score);
  double rank_sum = 0;
  int64_t pos = 0;
  for (size_t i = 0; i < r.size(); ++i)
    if (positive[i]) rank_sum += r[i], ++pos;
  const int64_t neg = static_cast<int64_t>(r.size()) - pos;
  if (pos == 0 || neg == 0) return kNaN;
  return (rank_sum - double(pos) * double(pos + 1) / 2.0) / (double(pos) * double(neg));
}

Result<ConformalScores> ConformalScores::fromScores(std::vector<double> scores) {
  for (double s : scores)
    if (!std::isfinite(s) || s < 0)
      return Status(StatusCode::InvalidArgument, "conformal scores must be finite and >= 0");
  std::sort(scores.begin(), scores.end());
  ConformalScores out;
  out.sorted_ = std::move(scores);
  return out;
}

double ConformalScores::quantile(double confidence) const {
  if (!(confidence > 0 && confidence < 1)) return kNaN;
  const double n = double(sorted_.size());
  // A small allowance keeps (n + 1)(1 - ε) that is an integer in exact arithmetic from rounding up.
  const auto k = static_cast<int64_t>(std::ceil((n + 1) * confidence - 1e-9));
  if (k > size() || k < 1) return k < 1 ? 0.0 : std::numeric_limits<double>::infinity();
  return sorted_[static_cast<size_t>(k - 1)];
}

double ConformalScores::pValue(double score) const {
  const auto at_least = sorted_.end() - std::lower_bound(sorted_.begin(), sorted_.end(), score);
  return (1.0 + double(at_least)) / (double(sorted_.size()) + 1.0);
}

int64_t ConformalScores::minimumSize(double confidence) {
  if (!(confidence > 0 && confidence < 1)) return -1;
  int64_t n = 0;
  while (std::ceil((double(n) + 1) * confidence - 1e-9) > double(n)) ++n;
  return n;
}

}  // namespace gs::stats
