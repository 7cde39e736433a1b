#include "similarity/butina.h"

#include <algorithm>
#include <numeric>

namespace gs::similarity {

namespace {

// Every molecule's neighbours at Tanimoto >= similarity. Molecules are visited sorted by bit count,
// so that the bound min/max of two counts cuts the inner loop.
GS_POPCOUNT_CLONES std::vector<std::vector<size_t>> neighbourLists(const std::vector<BitFingerprint>& fps,
                                                                   double similarity) {
  const size_t n = fps.size();
  std::vector<size_t> by_bits(n);
  std::iota(by_bits.begin(), by_bits.end(), 0);
  std::stable_sort(by_bits.begin(), by_bits.end(), [&](size_t a, size_t b) { return fps[a].on_bits < fps[b].on_bits; });
  std::vector<std::vector<size_t>> neighbours(n);
  for (size_t x = 0; x < n; ++x) {
    const auto& a = fps[by_bits[x]];
    for (size_t y = x + 1; y < n; ++y) {
      const auto& b = fps[by_bits[y]];
      if (b.on_bits > 0 && double(a.on_bits) < similarity * double(b.on_bits)) break;
      if (tanimoto(a, b) >= similarity) {
        neighbours[by_bits[x]].push_back(by_bits[y]);
        neighbours[by_bits[y]].push_back(by_bits[x]);
      }
    }
  }
  return neighbours;
}

}  // namespace

std::vector<int> butinaClusters(const std::vector<BitFingerprint>& fps, double similarity) {
  const size_t n = fps.size();
  const auto neighbours = neighbourLists(fps, similarity);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return neighbours[a].size() > neighbours[b].size(); });
  std::vector<int> cluster(n, -1);
  int next = 0;
  for (size_t c : order) {
    if (cluster[c] >= 0) continue;
    cluster[c] = next;
    for (size_t m : neighbours[c])
      if (cluster[m] < 0) cluster[m] = next;
    ++next;
  }
  return cluster;
}

}  // namespace gs::similarity
