#include "similarity/knn.h"

#include "similarity/fingerprint_index.h"

#include <cmath>
#include <limits>

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
  std::vector<BitFingerprint> references;
  references.reserve(usable.size());
  for (size_t i : usable) references.push_back(*train_x[i]);
  const FingerprintIndex index(std::move(references));
  for (size_t q = 0; q < query.size(); ++q) {
    if (!query[q]) continue;
    const auto nearest = index.nearest(*query[q], k);
    double sum = 0;
    for (const auto& n : nearest) sum += train_y[usable[static_cast<size_t>(n.index)]];
    out[q] = sum / double(nearest.size());
  }
  return out;
}

}  // namespace gs::similarity
