#include "similarity/knn.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace gs::similarity {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

std::vector<double> knnPredict(const std::vector<const BitFingerprint*>& train_x, const std::vector<float>& train_y,
                               const std::vector<const BitFingerprint*>& query, int k) {
  std::vector<size_t> usable;
  for (size_t i = 0; i < train_x.size(); ++i)
    if (i < train_y.size() && std::isfinite(train_y[i]) && train_x[i]) usable.push_back(i);
  std::vector<double> out(query.size(), kNaN);
  if (usable.empty() || k <= 0) return out;
  const size_t kk = std::min<size_t>(static_cast<size_t>(k), usable.size());
  std::vector<std::pair<double, size_t>> sims(usable.size());
  for (size_t q = 0; q < query.size(); ++q) {
    if (!query[q]) continue;
    for (size_t j = 0; j < usable.size(); ++j) sims[j] = {-tanimoto(*query[q], *train_x[usable[j]]), usable[j]};
    std::partial_sort(sims.begin(), sims.begin() + static_cast<std::ptrdiff_t>(kk), sims.end());
    double sum = 0;
    for (size_t j = 0; j < kk; ++j) sum += train_y[sims[j].second];
    out[q] = sum / double(kk);
  }
  return out;
}

}  // namespace gs::similarity
