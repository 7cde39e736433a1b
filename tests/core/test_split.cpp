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
  EXPECT_EQ(c[Subset::Train], 800);
  EXPECT_EQ(splitDataset(1000, o).value(), a.value());
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
  EXPECT_NEAR(c[Subset::Test] / n, 0.1, 0.03);
  EXPECT_EQ(splitDataset(scaffolds.size(), o, scaffolds).value(), split.value());
  o.seed = 8;
  EXPECT_NE(splitDataset(scaffolds.size(), o, scaffolds).value(), split.value());
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
  EXPECT_EQ(parseSplitKind("scaffold").value(), SplitKind::Scaffold);
}

}  // namespace
}  // namespace gs::data
