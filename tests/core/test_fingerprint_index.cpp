// similarity/fingerprint_index.h: exact top-k Tanimoto with BitBound pruning agrees with a brute
// force scan (similarities, order, ties by index) on fingerprints of many densities.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "similarity/butina.h"
#include "similarity/fingerprint_index.h"
#include "similarity/knn.h"

namespace gs {
namespace {

similarity::BitFingerprint randomFingerprint(std::mt19937_64& rng, double density) {
  similarity::BitFingerprint f;
  f.words.assign(32, 0);  // 2,048 bits
  for (int b = 0; b < 2048; ++b)
    if (double(rng() >> 11) / 9007199254740992.0 < density) {
      f.words[b / 64] |= uint64_t{1} << (b % 64);
      ++f.on_bits;
    }
  return f;
}

std::vector<similarity::Neighbour> bruteForce(const std::vector<similarity::BitFingerprint>& refs,
                                              const similarity::BitFingerprint& q, int k) {
  std::vector<similarity::Neighbour> all;
  for (size_t i = 0; i < refs.size(); ++i) all.push_back({static_cast<int64_t>(i), similarity::tanimoto(q, refs[i])});
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.similarity > b.similarity; });
  all.resize(std::min<size_t>(all.size(), static_cast<size_t>(k)));
  return all;
}

TEST(FingerprintIndex, TopKAgreesWithBruteForceIncludingTies) {
  std::mt19937_64 rng(5);
  std::vector<similarity::BitFingerprint> refs;
  for (int i = 0; i < 1500; ++i) refs.push_back(randomFingerprint(rng, 0.005 + 0.05 * double(i % 10) / 10.0));
  for (int i = 0; i < 40; ++i) refs.push_back(refs[static_cast<size_t>(i * 7)]);  // exact duplicates: ties
  refs.push_back(similarity::BitFingerprint{std::vector<uint64_t>(32, 0), 0});    // an empty one
  const similarity::FingerprintIndex index(refs);
  ASSERT_EQ(index.size(), static_cast<int64_t>(refs.size()));
  std::vector<similarity::BitFingerprint> queries;
  for (int i = 0; i < 30; ++i) queries.push_back(randomFingerprint(rng, 0.002 + 0.06 * double(i) / 30.0));
  for (int i = 0; i < 10; ++i) queries.push_back(refs[static_cast<size_t>(i * 7)]);  // has a duplicate
  queries.push_back(similarity::BitFingerprint{std::vector<uint64_t>(32, 0), 0});
  for (int k : {1, 5, 20}) {
    for (size_t q = 0; q < queries.size(); ++q) {
      const auto got = index.nearest(queries[q], k), want = bruteForce(refs, queries[q], k);
      ASSERT_EQ(got.size(), want.size());
      for (size_t j = 0; j < want.size(); ++j) {
        EXPECT_EQ(got[j].index, want[j].index) << "query " << q << " k " << k << " rank " << j;
        EXPECT_DOUBLE_EQ(got[j].similarity, want[j].similarity);
      }
    }
  }
  EXPECT_EQ(index.nearest(queries[0], 0).size(), 0u);
  EXPECT_EQ(similarity::FingerprintIndex().nearest(queries[0], 3).size(), 0u);
}

TEST(FingerprintIndex, KnnPredictionIsTheMeanOfTheNearestLabelledNeighbours) {
  std::mt19937_64 rng(9);
  std::vector<similarity::BitFingerprint> refs;
  for (int i = 0; i < 50; ++i) refs.push_back(randomFingerprint(rng, 0.03));
  std::vector<const similarity::BitFingerprint*> train;
  std::vector<float> y;
  for (size_t i = 0; i < refs.size(); ++i) {
    train.push_back(&refs[i]);
    y.push_back(i == 3 ? std::nanf("") : float(i));  // a missing label is skipped
  }
  const auto q = refs[3];
  const auto got = similarity::knnPredict(train, y, {&q, nullptr}, 2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(std::isnan(got[1]));
  std::vector<similarity::BitFingerprint> labelled;
  std::vector<int> label_of;
  for (size_t i = 0; i < refs.size(); ++i)
    if (i != 3) labelled.push_back(refs[i]), label_of.push_back(static_cast<int>(i));
  const auto nn = bruteForce(labelled, q, 2);
  EXPECT_DOUBLE_EQ(got[0], (label_of[nn[0].index] + label_of[nn[1].index]) / 2.0);
}

// Several targets at once: each the same as alone, whether it shares its labelled rows with
// another target (one search) or has rows of its own (a missing label, a search of its own).
TEST(FingerprintIndex, KnnForSeveralTargetsEqualsEachTargetAlone) {
  std::mt19937_64 rng(11);
  std::vector<similarity::BitFingerprint> refs, queries;
  for (int i = 0; i < 80; ++i) refs.push_back(randomFingerprint(rng, 0.04));
  for (int i = 0; i < 20; ++i) queries.push_back(randomFingerprint(rng, 0.04));
  std::vector<const similarity::BitFingerprint*> train, query;
  for (const auto& r : refs) train.push_back(&r);
  for (const auto& q : queries) query.push_back(&q);
  std::vector<std::vector<float>> ys(3);
  for (size_t i = 0; i < refs.size(); ++i) {
    ys[0].push_back(float(i));
    ys[1].push_back(i % 7 == 0 ? std::nanf("") : float(i * i));  // its own labelled rows
    ys[2].push_back(float(100 - i));                             // the same rows as target 0
  }
  const auto each = similarity::knnPredictEach(train, ys, query, 3);
  ASSERT_EQ(each.size(), 3u);
  for (size_t t = 0; t < ys.size(); ++t) EXPECT_EQ(each[t], similarity::knnPredict(train, ys[t], query, 3)) << t;
  EXPECT_NE(each[0], each[2]);
}

// Butina: each molecule joins the first centroid (most neighbours first) within the threshold;
// members of a cluster are within the threshold of its centroid, and centroids are not of each other.
TEST(Butina, ClustersAreTightAroundCentroidsThatAreApart) {
  std::mt19937_64 rng(9);
  std::vector<similarity::BitFingerprint> fps;
  for (int c = 0; c < 4; ++c) {
    const auto centre = randomFingerprint(rng, 0.03);
    for (int m = 0; m < 5 + 3 * c; ++m) {
      auto f = centre;  // flip a few bits
      for (int k = 0; k < 3; ++k) {
        const int b = static_cast<int>(rng() % 2048);
        f.words[b / 64] ^= uint64_t{1} << (b % 64);
      }
      f.on_bits = 0;
      for (auto w : f.words) f.on_bits += __builtin_popcountll(w);
      fps.push_back(f);
    }
  }
  const auto cluster = similarity::butinaClusters(fps, 0.65);
  ASSERT_EQ(cluster.size(), fps.size());
  // The planted groups come back exactly (random centres are far apart at 3 % density).
  size_t at = 0;
  for (int c = 0; c < 4; ++c)
    for (int m = 0; m < 5 + 3 * c; ++m, ++at) EXPECT_EQ(cluster[at], cluster[at - static_cast<size_t>(m)]) << at;
  EXPECT_EQ(*std::max_element(cluster.begin(), cluster.end()), 3);
  EXPECT_EQ(cluster.back(), 0);  // the largest group has the most neighbours: first centroid
  EXPECT_EQ(similarity::butinaClusters(fps, 0.65), cluster);
  EXPECT_EQ(*std::max_element(cluster.begin(), cluster.end()), 3);
  const auto singletons = similarity::butinaClusters(fps, 1.01);
  EXPECT_EQ(*std::max_element(singletons.begin(), singletons.end()), static_cast<int>(fps.size()) - 1);
}

}  // namespace
}  // namespace gs
