#pragma once
// Nearest neighbours by Tanimoto similarity on bit fingerprints, torch- and RDKit-free: the k-NN
// baseline of `evaluate` and the neighbour search of the applicability domain.
#include <vector>

#include "similarity/fingerprint.h"

namespace gs::similarity {

// Mean target of the k nearest training fingerprints by Tanimoto (ties: lower index first);
// training rows with a missing target are skipped. NaN when no training target is present.
std::vector<double> knnPredict(const std::vector<const BitFingerprint*>& train_x, const std::vector<float>& train_y,
                               const std::vector<const BitFingerprint*>& query, int k);
// The same for several targets (train_ys[t][row]); targets present on the same rows share one
// neighbour search per query.
std::vector<std::vector<double>> knnPredictEach(const std::vector<const BitFingerprint*>& train_x,
                                                const std::vector<std::vector<float>>& train_ys,
                                                const std::vector<const BitFingerprint*>& query, int k);

}  // namespace gs::similarity
