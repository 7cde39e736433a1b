#include "similarity/fingerprint_index.h"

#include <algorithm>
#include <numeric>

namespace gs::similarity {
namespace {

// Better: more similar, then lower index.
bool better(const Neighbour& a, const Neighbour& b) {
  return a.similarity != b.similarity ? a.similarity > b.similarity : a.index < b.index;
}

double bound(int a, int b) {
  if (a == 0 && b == 0) return 1.0;
  return double(std::min(a, b)) / double(std::max(a, b));
}

}  // namespace

FingerprintIndex::FingerprintIndex(std::vector<BitFingerprint> references) {
  std::vector<int64_t> order(references.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return references[a].on_bits < references[b].on_bits; });
  fingerprints_.reserve(references.size());
  for (int64_t i : order) fingerprints_.push_back(std::move(references[i]));
  original_ = std::move(order);
}

GS_POPCOUNT_CLONES std::vector<Neighbour> FingerprintIndex::nearest(const BitFingerprint& query, int k) const {
  std::vector<Neighbour> best;  // a heap whose top is the worst kept
  if (k <= 0 || fingerprints_.empty()) return best;
  const size_t keep = std::min<size_t>(static_cast<size_t>(k), fingerprints_.size());
  auto offer = [&](size_t j) {
    const Neighbour n{original_[j], tanimoto(query, fingerprints_[j])};
    if (best.size() < keep) {
      best.push_back(n);
      std::push_heap(best.begin(), best.end(), better);
    } else if (better(n, best.front())) {
      std::pop_heap(best.begin(), best.end(), better);
      best.back() = n;
      std::push_heap(best.begin(), best.end(), better);
    }
  };
  // Pruning is safe only when a reference below the k-th best can never enter: strictly lower bound.
  auto hopeless = [&](size_t j) {
    return best.size() == keep && bound(query.on_bits, fingerprints_[j].on_bits) < best.front().similarity;
  };
  const auto start =
      static_cast<size_t>(std::lower_bound(fingerprints_.begin(), fingerprints_.end(), query.on_bits,
                                           [](const BitFingerprint& f, int bits) { return f.on_bits < bits; }) -
                          fingerprints_.begin());
  size_t up = start, down = start;  // up scans [start, n), down scans [0, start)
  bool up_open = true, down_open = true;
  while (up_open || down_open) {
    up_open = up_open && up < fingerprints_.size() && !hopeless(up);
    if (up_open) offer(up++);
    down_open = down_open && down > 0 && !hopeless(down - 1);
    if (down_open) offer(--down);
  }
  std::sort(best.begin(), best.end(), better);
  return best;
}

}  // namespace gs::similarity
