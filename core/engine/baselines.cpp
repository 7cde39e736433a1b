#include "engine/baselines.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace gs::engine {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<int> onBits(const similarity::BitFingerprint& fp) {
  std::vector<int> out;
  out.reserve(static_cast<size_t>(fp.on_bits));
  for (size_t w = 0; w < fp.words.size(); ++w)
    for (uint64_t word = fp.words[w]; word; word &= word - 1)
      out.push_back(static_cast<int>(w * 64) + __builtin_ctzll(word));
  return out;
}

// The rows with a present target, as on-bit lists (Morgan fingerprints have ~2 % of bits set).
struct SparseRows {
  std::vector<size_t> index;  // into the caller's rows
  std::vector<std::vector<int>> bits;
  int num_bits = 0;
};

SparseRows sparseRows(const std::vector<const similarity::BitFingerprint*>& x, const std::vector<float>& y) {
  SparseRows r;
  for (size_t i = 0; i < x.size(); ++i)
    if (i < y.size() && std::isfinite(y[i]) && x[i] && !x[i]->words.empty()) {
      r.num_bits = r.num_bits ? r.num_bits : x[i]->numBits();
      if (x[i]->numBits() != r.num_bits) continue;
      r.index.push_back(i);
      r.bits.push_back(onBits(*x[i]));
    }
  return r;
}

// The centred X'X of the rows, eigendecomposed once: every strength λ then costs one product.
struct RidgeSystem {
  torch::Tensor mean, values, vectors;  // bit means; eigenvalues and eigenvectors of the centred X'X
};

RidgeSystem ridgeSystem(const SparseRows& rows) {
  const int64_t bits = rows.num_bits, n = static_cast<int64_t>(rows.bits.size());
  auto gram = torch::zeros({bits, bits}, torch::kDouble);
  auto counts = torch::zeros({bits}, torch::kDouble);
  auto g = gram.accessor<double, 2>();
  auto c = counts.accessor<double, 1>();
  for (const auto& on : rows.bits)
    for (int a : on) {
      c[a] += 1;
      for (int b : on) g[a][b] += 1;
    }
  RidgeSystem s;
  s.mean = counts / double(n);
  gram -= double(n) * torch::outer(s.mean, s.mean);
  auto [values, vectors] = torch::linalg_eigh(gram);
  s.values = values.clamp_min(0);
  s.vectors = vectors;
  return s;
}

double sparseDot(const std::vector<double>& w, const std::vector<int>& bits) {
  double out = 0;
  for (int b : bits) out += w[static_cast<size_t>(b)];
  return out;
}

// Ridge for one target on rows that `system` was built from; the strength with the lowest
// validation MAE (the first when there are no validation rows).
RidgeRegression solveTarget(const RidgeSystem& system, const SparseRows& rows, const std::vector<float>& y,
                            const SparseRows& valid, const std::vector<float>& valid_y,
                            const std::vector<double>& lambdas) {
  auto ys = torch::empty({static_cast<int64_t>(rows.index.size())}, torch::kDouble);
  for (size_t r = 0; r < rows.index.size(); ++r) ys[static_cast<int64_t>(r)] = double(y[rows.index[r]]);
  const double y_mean = ys.mean().item<double>();
  auto xty = torch::zeros({rows.num_bits}, torch::kDouble);  // X'(y - ȳ); the centring of X cancels
  auto xa = xty.accessor<double, 1>();
  for (size_t r = 0; r < rows.bits.size(); ++r)
    for (int b : rows.bits[r]) xa[b] += double(y[rows.index[r]]) - y_mean;
  const auto projected = system.vectors.t().mv(xty);
  RidgeRegression best;
  double best_mae = std::numeric_limits<double>::infinity();
  for (double lambda : lambdas) {
    const auto w = system.vectors.mv(projected / (system.values + lambda)).contiguous();
    std::vector<double> weights(w.data_ptr<double>(), w.data_ptr<double>() + w.numel());
    const double offset = y_mean - system.mean.dot(w).item<double>();
    double mae = 0;
    for (size_t r = 0; r < valid.bits.size(); ++r)
      mae += std::fabs(offset + sparseDot(weights, valid.bits[r]) - double(valid_y[valid.index[r]]));
    if (mae < best_mae) {
      best_mae = mae;
      best = RidgeRegression(std::move(weights), offset, lambda);
    }
    if (valid.bits.empty()) break;
  }
  return best;
}

}  // namespace

double meanTarget(const std::vector<float>& y) {
  double sum = 0;
  int64_t n = 0;
  for (float v : y)
    if (std::isfinite(v)) sum += v, ++n;
  return n ? sum / double(n) : kNaN;
}

Result<std::vector<RidgeRegression>> RidgeRegression::fitSelectEach(const Fingerprints& x,
                                                                    const std::vector<std::vector<float>>& ys,
                                                                    const Fingerprints& valid_x,
                                                                    const std::vector<std::vector<float>>& valid_ys,
                                                                    const std::vector<double>& lambdas) {
  if (lambdas.empty()) return Status(StatusCode::InvalidArgument, "ridge: no regularisation strength to try");
  if (valid_ys.size() != ys.size()) return Status(StatusCode::InvalidArgument, "ridge: one validation column per target");
  torch::NoGradGuard no_grad;
  std::vector<RidgeRegression> out;
  std::vector<size_t> system_rows;  // the rows the last system was built from
  RidgeSystem system;
  for (size_t j = 0; j < ys.size(); ++j) {
    const SparseRows rows = sparseRows(x, ys[j]);
    if (rows.index.empty()) return Status(StatusCode::InvalidArgument, "ridge: no training rows with a target");
    if (rows.index != system_rows || !system.vectors.defined()) {
      system = ridgeSystem(rows);
      system_rows = rows.index;
    }
    out.push_back(solveTarget(system, rows, ys[j], sparseRows(valid_x, valid_ys[j]), valid_ys[j], lambdas));
  }
  return out;
}

Result<RidgeRegression> RidgeRegression::fitSelect(const Fingerprints& x, const std::vector<float>& y,
                                                   const Fingerprints& valid_x, const std::vector<float>& valid_y,
                                                   const std::vector<double>& lambdas) {
  auto each = fitSelectEach(x, {y}, valid_x, {valid_y}, lambdas);
  if (!each.isOk()) return each.status();
  return std::move(each.value()[0]);
}

double RidgeRegression::predict(const similarity::BitFingerprint& x) const {
  double out = offset_;
  const int bits = std::min<int>(x.numBits(), static_cast<int>(weights_.size()));
  for (int b = 0; b < bits; ++b)
    if (x.test(b)) out += weights_[static_cast<size_t>(b)];
  return out;
}

}  // namespace gs::engine
