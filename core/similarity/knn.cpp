#include "similarity/knn.h"

#include "similarity/fingerprint_index.h"

#include <cmath>
#include <limits>

namespace gs::similarity {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

std::vector<std::vector<double>> knnPredictEach(const std::vector<const BitFingerprint*>& train_x,
                                                const std::vector<std::vector<float>>& train_ys,
                                                const std::vector<const BitFingerprint*>& query, int k) {
  std::vector<std::vector<double>> out(train_ys.size(), std::vector<double>(query.size(), kNaN));
  std::vector<std::vector<size_t>> usable(train_ys.size());  // per target: training rows with its label
  for (size_t t = 0; t < train_ys.size(); ++t)
    for (size_t i = 0; i < train_x.size(); ++i)
      if (i < train_ys[t].size() && std::isfinite(train_ys[t][i]) && train_x[i]) usable[t].push_back(i);
  std::vector<bool> done(train_ys.size(), false);
  for (size_t j = 0; j < train_ys.size(); ++j) {
    if (done[j]) continue;
    std::vector<size_t> group;  // the targets labelled on exactly these rows share one search
    for (size_t t = j; t < train_ys.size(); ++t)
      if (!done[t] && usable[t] == usable[j]) group.push_back(t), done[t] = true;
    if (usable[j].empty() || k <= 0) continue;
    std::vector<BitFingerprint> references;
    references.reserve(usable[j].size());
    for (size_t i : usable[j]) references.push_back(*train_x[i]);
    const FingerprintIndex index(std::move(references));
    for (size_t q = 0; q < query.size(); ++q) {
      if (!query[q]) continue;
      const auto nearest = index.nearest(*query[q], k);
      for (size_t t : group) {
        double sum = 0;
        for (const auto& n : nearest) sum += train_ys[t][usable[j][static_cast<size_t>(n.index)]];
        out[t][q] = sum / double(nearest.size());
      }
    }
  }
  return out;
}

std::vector<double> knnPredict(const std::vector<const BitFingerprint*>& train_x, const std::vector<float>& train_y,
                               const std::vector<const BitFingerprint*>& query, int k) {
  return knnPredictEach(train_x, {train_y}, query, k)[0];
}

}  // namespace gs::similarity
