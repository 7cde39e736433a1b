#pragma once
// Butina clustering (Butina 1999; as RDKit's ML.Cluster.Butina) of bit fingerprints: molecules
// with the most neighbours at Tanimoto >= `similarity` become centroids in turn and take their
// still unassigned neighbours. Deterministic (ties: lower index first). O(n²) similarities with
// BitBound pruning: fine for 10⁴–10⁵ molecules, not for screening libraries.
#include <vector>

#include "similarity/fingerprint.h"

namespace gs::similarity {

// The cluster of every fingerprint, numbered 0, 1, ... in the order centroids were chosen.
std::vector<int> butinaClusters(const std::vector<BitFingerprint>& fingerprints, double similarity);

}  // namespace gs::similarity
