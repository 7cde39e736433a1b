#include "engine/baselines.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace gs::engine {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Dense [n, bits] float64 matrix of the rows with a present target, and those targets.
void denseRows(const std::vector<const similarity::BitFingerprint*>& x, const std::vector<float>& y, torch::Tensor& xs,
               torch::Tensor& ys) {
  std::vector<size_t> keep;
  for (size_t i = 0; i < x.size(); ++i)
    if (i < y.size() && std::isfinite(y[i]) && x[i] && !x[i]->words.empty()) keep.push_back(i);
  const int64_t bits = keep.empty() ? 0 : x[keep.front()]->numBits();
  xs = torch::zeros({static_cast<int64_t>(keep.size()), bits}, torch::kDouble);
  ys = torch::empty({static_cast<int64_t>(keep.size())}, torch::kDouble);
  auto xa = xs.accessor<double, 2>();
  auto ya = ys.accessor<double, 1>();
  for (size_t r = 0; r < keep.size(); ++r) {
    const auto& fp = *x[keep[r]];
    for (int b = 0; b < std::min<int>(fp.numBits(), static_cast<int>(bits)); ++b)
      if (fp.test(b)) xa[static_cast<int64_t>(r)][b] = 1.0;
    ya[static_cast<int64_t>(r)] = y[keep[r]];
  }
}

}  // namespace

double meanTarget(const std::vector<float>& y) {
  double sum = 0;
  int64_t n = 0;
  for (float v : y)
    if (std::isfinite(v)) sum += v, ++n;
  return n ? sum / double(n) : kNaN;
}

Result<RidgeRegression> RidgeRegression::fitSelect(const std::vector<const similarity::BitFingerprint*>& x,
                                                   const std::vector<float>& y,
                                                   const std::vector<const similarity::BitFingerprint*>& valid_x,
                                                   const std::vector<float>& valid_y,
                                                   const std::vector<double>& lambdas) {
  if (lambdas.empty()) return Status(StatusCode::InvalidArgument, "ridge: no regularisation strength to try");
  torch::NoGradGuard no_grad;
  torch::Tensor xs, ys;
  denseRows(x, y, xs, ys);
  if (xs.size(0) == 0) return Status(StatusCode::InvalidArgument, "ridge: no training rows with a target");
  const auto x_mean = xs.mean(0);
  const double y_mean = ys.mean().item<double>();
  const auto xc = xs - x_mean;
  const auto gram = xc.t().mm(xc);
  const auto rhs = xc.t().mv(ys - y_mean);
  const auto eye = torch::eye(gram.size(0), torch::kDouble);
  torch::Tensor vx, vy;
  denseRows(valid_x, valid_y, vx, vy);
  RidgeRegression best;
  double best_mae = std::numeric_limits<double>::infinity();
  for (double lambda : lambdas) {
    const auto w = torch::linalg_solve(gram + lambda * eye, rhs.unsqueeze(1)).squeeze(1);
    double mae = 0;
    if (vx.size(0) > 0 && vx.size(1) == xs.size(1))
      mae = ((vx - x_mean).mv(w) + y_mean - vy).abs().mean().item<double>();
    if (mae < best_mae) {
      best_mae = mae;
      best.lambda_ = lambda;
      best.offset_ = y_mean - x_mean.dot(w).item<double>();
      auto wc = w.contiguous();
      best.weights_.assign(wc.data_ptr<double>(), wc.data_ptr<double>() + wc.numel());
    }
    if (vx.size(0) == 0) break;
  }
  return best;
}

double RidgeRegression::predict(const similarity::BitFingerprint& x) const {
  double out = offset_;
  const int bits = std::min<int>(x.numBits(), static_cast<int>(weights_.size()));
  for (int b = 0; b < bits; ++b)
    if (x.test(b)) out += weights_[static_cast<size_t>(b)];
  return out;
}

}  // namespace gs::engine
