// Seeded random and scaffold splits.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "data/split.h"

namespace gs::data {
namespace {

std::map<Subset, int> counts(const std::vector<Subset>& s) {
  std::map<Subset, int> c;
  for (auto x : s) ++c[x];
  return c;
}

TEST(Split, RandomSplitHasTheRequestedSizesAndDependsOnlyOnTheSeed) {
  SplitOptions o;
  o.seed = 3;
  auto a = splitDataset(1000, o);
  ASSERT_TRUE(a.isOk());
  auto c = counts(a.value());
  EXPECT_EQ(c[Subset::Test], 100);
  EXPECT_EQ(c[Subset::Valid], 100);
  EXPECT_EQ(c[Subset::Calib], 100);
  EXPECT_EQ(c[Subset::Train], 700);
  EXPECT_EQ(splitDataset(1000, o).value(), a.value());
  // The calibration fold comes out of training only: validation and test are those of a split
  // without one.
  SplitOptions none = o;
  none.calib_fraction = 0;
  const auto b = splitDataset(1000, none).value();
  for (size_t i = 0; i < b.size(); ++i) {
    if (a.value()[i] == Subset::Calib)
      EXPECT_EQ(b[i], Subset::Train);
    else
      EXPECT_EQ(a.value()[i], b[i]);
  }
  o.seed = 4;
  EXPECT_NE(splitDataset(1000, o).value(), a.value());
}

TEST(Split, ScaffoldGroupsNeverStraddleTwoSubsets) {
  // 60 scaffolds with 1..60 members (1,830 molecules) plus 200 acyclic molecules (one group).
  std::vector<std::string> scaffolds;
  for (int g = 1; g <= 60; ++g)
    for (int i = 0; i < g; ++i) scaffolds.push_back("scaffold" + std::to_string(g));
  for (int i = 0; i < 200; ++i) scaffolds.push_back("");
  SplitOptions o;
  o.kind = SplitKind::Scaffold;
  o.seed = 7;
  auto split = splitDataset(scaffolds.size(), o, scaffolds);
  ASSERT_TRUE(split.isOk()) << split.status().toString();
  std::map<std::string, std::set<Subset>> where;
  for (size_t i = 0; i < scaffolds.size(); ++i) where[scaffolds[i]].insert(split.value()[i]);
  for (const auto& [scaffold, subsets] : where) EXPECT_EQ(subsets.size(), 1u) << "'" << scaffold << "'";
  // The big acyclic group goes to training; every subset is populated and near its target size.
  EXPECT_EQ(*where[""].begin(), Subset::Train);
  auto c = counts(split.value());
  const double n = double(scaffolds.size());
  EXPECT_NEAR(c[Subset::Valid] / n, 0.1, 0.03);
  EXPECT_NEAR(c[Subset::Calib] / n, 0.1, 0.03);
  EXPECT_NEAR(c[Subset::Test] / n, 0.1, 0.03);
  EXPECT_EQ(splitDataset(scaffolds.size(), o, scaffolds).value(), split.value());
  o.seed = 8;
  EXPECT_NE(splitDataset(scaffolds.size(), o, scaffolds).value(), split.value());
}

TEST(Split, HeldOutGroupsAreDealtAlikeToValidationCalibrationAndTest) {
  // Held-out groups of every size: the three held-out subsets get the same mix of group sizes, so
  // calibration stands for test (a test fold made of the last, leftover groups would not).
  std::vector<std::string> keys;
  for (int g = 0; g < 3000; ++g)
    for (int i = 0; i <= g % 7; ++i) keys.push_back("g" + std::to_string(g));
  SplitOptions o;
  o.kind = SplitKind::Cluster;
  o.seed = 5;
  auto split = splitDataset(keys.size(), o, keys);
  ASSERT_TRUE(split.isOk());
  std::map<Subset, std::map<std::string, int>> groups;
  for (size_t i = 0; i < keys.size(); ++i) ++groups[split.value()[i]][keys[i]];
  std::map<Subset, double> mean_size;
  for (auto& [subset, g] : groups) {
    double sum = 0;
    for (auto& [k, size] : g) sum += size;
    mean_size[subset] = sum / double(g.size());
  }
  EXPECT_NEAR(mean_size[Subset::Calib], mean_size[Subset::Test], 0.4);
  EXPECT_NEAR(mean_size[Subset::Valid], mean_size[Subset::Test], 0.4);
}

TEST(Split, BadArgumentsAreRefused) {
  SplitOptions o;
  o.valid_fraction = 0.6;
  o.test_fraction = 0.5;
  EXPECT_FALSE(splitDataset(10, o).isOk());
  o = {};
  o.kind = SplitKind::Scaffold;
  EXPECT_FALSE(splitDataset(10, o, {"a"}).isOk());  // one scaffold per molecule needed
  EXPECT_FALSE(parseSplitKind("stratified").isOk());
  EXPECT_EQ(parseSplitKind("cluster").value(), SplitKind::Cluster);
  o = {};
  o.calib_fraction = 0.85;
  EXPECT_FALSE(splitDataset(10, o).isOk());
  EXPECT_EQ(parseSplitKind("scaffold").value(), SplitKind::Scaffold);
}

}  // namespace
}  // namespace gs::data
