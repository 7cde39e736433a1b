#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "data/batch_planner.h"

namespace gs {
namespace {

std::vector<int> randomSizes(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> s(n);
  for (int& x : s) x = 1 + static_cast<int>(rng() % 60);
  return s;
}

TEST(BatchPlanner, EveryIndexExactlyOnceAndCapRespected) {
  const auto sizes = randomSizes(1000, 1);
  data::PlanOptions opt;
  opt.max_batch_size = 32;
  opt.window = 256;
  const auto batches = data::planBatches(sizes, opt);
  std::vector<int> seen(sizes.size(), 0);
  for (const auto& b : batches) {
    EXPECT_LE(b.size(), 32u);
    for (int i : b) ++seen[i];
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
}

TEST(BatchPlanner, BatchesStayInsideTheirWindow) {
  const auto sizes = randomSizes(1000, 2);
  data::PlanOptions opt;
  opt.window = 100;
  for (const auto& b : data::planBatches(sizes, opt)) {
    const int w = b.front() / 100;
    for (int i : b) EXPECT_EQ(i / 100, w);
  }
}

TEST(BatchPlanner, BucketingReducesPadding) {
  const auto sizes = randomSizes(2000, 3);
  data::PlanOptions plain;
  plain.bucketing = false;
  plain.max_padded_nodes = plain.max_attention_cells = 0;  // batches of the setting alone, for equal counts
  data::PlanOptions bucketed = plain;
  bucketed.bucketing = true;
  const auto a = data::planBatches(sizes, plain);
  const auto b = data::planBatches(sizes, bucketed);
  EXPECT_EQ(a.size(), b.size());
  EXPECT_LT(data::paddedNodes(b, sizes), data::paddedNodes(a, sizes) * 0.7);
  // Without bucketing, batches are consecutive input rows.
  int next = 0;
  for (const auto& batch : a)
    for (int i : batch) EXPECT_EQ(i, next++);
}

TEST(BatchPlanner, PaddedNodeBudget) {
  const auto sizes = randomSizes(500, 4);
  data::PlanOptions opt;
  opt.max_batch_size = 1000;
  opt.max_padded_nodes = 300;
  for (const auto& b : data::planBatches(sizes, opt)) {
    int mx = 0;
    for (int i : b) mx = std::max(mx, sizes[i]);
    EXPECT_LE(static_cast<int64_t>(b.size()) * mx, 300);
  }
}

// Sizes with a heavy tail, like a vendor library: mostly 10-40 atoms, a few of 100-400.
std::vector<int> tailedSizes(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> s(n);
  for (int& x : s) x = rng() % 20 == 0 ? 100 + static_cast<int>(rng() % 300) : 10 + static_cast<int>(rng() % 30);
  return s;
}

TEST(BatchPlanner, TokenBudgetsHoldAtEveryBatchSetting) {
  const auto sizes = tailedSizes(3000, 7);
  for (bool bucketing : {true, false})
    for (int cap : {8, 32, 128, 256, 4096}) {
      data::PlanOptions opt;  // the default budgets
      opt.max_batch_size = cap;
      opt.bucketing = bucketing;
      std::vector<int> seen(sizes.size(), 0);
      int next = 0;
      for (const auto& b : data::planBatches(sizes, opt)) {
        ASSERT_FALSE(b.empty());
        EXPECT_LE(static_cast<int>(b.size()), cap);
        int mx = 0;
        for (int i : b) mx = std::max(mx, sizes[i]), ++seen[i];
        // Over a budget only as a batch of one (a molecule that alone is over it).
        if (b.size() > 1)
          EXPECT_TRUE(data::withinTokenBudget(static_cast<int64_t>(b.size()), mx, opt)) << cap << " " << mx;
        const int64_t n = mx;
        if (b.size() > 1) EXPECT_LE(static_cast<int64_t>(b.size()) * n * n, opt.max_attention_cells);
        if (!bucketing)
          for (int i : b) EXPECT_EQ(i, next++);  // consecutive input rows, in input order
      }
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    }
}

TEST(BatchPlanner, LargeMoleculesGetSmallerBatchesSmallOnesTheWholeSetting) {
  data::PlanOptions opt;
  opt.max_batch_size = 256;
  const std::vector<int> small(512, 12), large(64, 200);
  const auto cut = data::planBatches(small, opt);  // 1024 / 12 = 85 node slots; 85 * 12^2 cells is within 32768
  ASSERT_EQ(cut.size(), 7u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(cut[i].size(), 85u);
  const auto big = data::planBatches(large, opt);
  for (const auto& b : big) EXPECT_EQ(b.size(), 1u);  // 200^2 = 40000 > 32768 cells: alone
  opt.max_padded_nodes = 0;
  opt.max_attention_cells = 0;  // no budgets: the setting alone
  EXPECT_EQ(data::planBatches(small, opt).front().size(), 256u);
}

TEST(BatchPlanner, EmptyInput) { EXPECT_TRUE(data::planBatches({}, {}).empty()); }

}  // namespace
}  // namespace gs
