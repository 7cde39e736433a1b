#pragma once
// Nearest neighbours by Tanimoto similarity among many reference fingerprints (a training set):
// the k-NN baseline and the applicability domain's "most similar training molecules". Exact
// top-k with BitBound pruning (Swamidass & Baldi 2007): Tanimoto(a, b) <= min(|a|, |b|) /
// max(|a|, |b|), so references are kept sorted by bit count and a query scans outward from its own
// count, stopping on each side once that bound falls below the k-th best similarity found.
// Immutable after construction; queries are thread-safe.
#include <cstdint>
#include <vector>

#include "similarity/fingerprint.h"

namespace gs::similarity {

struct Neighbour {
  int64_t index = 0;  // position in the references given to the index
  double similarity = 0;
};

class FingerprintIndex {
 public:
  FingerprintIndex() = default;
  explicit FingerprintIndex(std::vector<BitFingerprint> references);

  int64_t size() const { return static_cast<int64_t>(fingerprints_.size()); }
  // The k most similar references, most similar first; ties: lower index first. Fewer when the
  // index holds fewer. References of another length than the query have similarity 0.
  std::vector<Neighbour> nearest(const BitFingerprint& query, int k) const;

 private:
  std::vector<BitFingerprint> fingerprints_;  // sorted by on_bits
  std::vector<int64_t> original_;             // their positions as given
};

}  // namespace gs::similarity
