#include "data/split.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>
#include <unordered_map>

#include "common/json_writer.h"
#include "common/named_enum.h"

namespace gs::data {

namespace {
constexpr NameTable<SplitKind, 3> kSplitKinds = {
    {SplitKind::Random, "random"}, {SplitKind::Scaffold, "scaffold"}, {SplitKind::Cluster, "cluster"}};
constexpr NameTable<Subset, 4> kSubsets = {
    {Subset::Train, "train"}, {Subset::Valid, "valid"}, {Subset::Test, "test"}, {Subset::Calib, "calibration"}};

// Groups in order of first appearance, so the result does not depend on hash order.
std::vector<std::vector<size_t>> groupsOf(const std::vector<std::string>& keys) {
  std::unordered_map<std::string, size_t> group_of;
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [it, fresh] = group_of.emplace(keys[i], groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

}  // namespace

std::string splitJson(const SplitOptions& o) {
  std::ostringstream out;
  JsonWriter w(out);
  w.beginObject()
      .field("split", splitKindName(o.kind))
      .field("seed", static_cast<int64_t>(o.seed))
      .field("valid_fraction", o.valid_fraction)
      .field("test_fraction", o.test_fraction)
      .field("calib_fraction", o.calib_fraction)
      .field("cluster_similarity", o.cluster_similarity)
      .endObject();
  return out.str();
}

const char* splitKindName(SplitKind kind) { return nameIn(kSplitKinds, kind); }
Result<SplitKind> parseSplitKind(const std::string& name) { return parseIn(kSplitKinds, name, "split"); }
const char* subsetName(Subset subset) { return nameIn(kSubsets, subset); }
Result<Subset> parseSubset(const std::string& name) { return parseIn(kSubsets, name, "subset"); }

Result<std::vector<Subset>> splitDataset(size_t n, const SplitOptions& o, const std::vector<std::string>& keys) {
  if (!(o.valid_fraction >= 0 && o.test_fraction >= 0 && o.calib_fraction >= 0 &&
        o.valid_fraction + o.test_fraction + o.calib_fraction < 1))
    return Status(StatusCode::InvalidArgument,
                  "validation, calibration and test fractions must be >= 0 and sum to less than 1");
  const auto count = [n](double f) { return static_cast<size_t>(std::llround(f * double(n))); };
  const size_t n_test = count(o.test_fraction), n_valid = count(o.valid_fraction), n_calib = count(o.calib_fraction);
  std::vector<Subset> out(n, Subset::Train);
  std::mt19937_64 rng(o.seed);
  if (o.kind == SplitKind::Random) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t k = 0; k < n; ++k)
      out[order[k]] = k < n_test                       ? Subset::Test
                      : k < n_test + n_valid           ? Subset::Valid
                      : k < n_test + n_valid + n_calib ? Subset::Calib
                                                       : Subset::Train;
    return out;
  }
  if (keys.size() != n)
    return Status(StatusCode::InvalidArgument,
                  std::string("the ") + splitKindName(o.kind) + " split needs one group per molecule");
  const auto groups = groupsOf(keys);
  std::vector<size_t> big, small;
  for (size_t g = 0; g < groups.size(); ++g)
    (groups[g].size() * 2 > n_valid || groups[g].size() * 2 > n_test ? big : small).push_back(g);
  std::shuffle(big.begin(), big.end(), rng);
  std::shuffle(small.begin(), small.end(), rng);
  // Training takes groups while they fit (big ones first); the held-out groups are then dealt in a
  // seeded random order to validation, calibration and test, each to the subset furthest below its
  // share, so that the three are exchangeable (calibration stands for test, as conformal needs).
  const size_t n_train = n - n_valid - n_test - n_calib;
  size_t in_train = 0;
  std::vector<size_t> held_out;
  for (const auto* list : {&big, &small})
    for (size_t g : *list) {
      if (in_train + groups[g].size() <= n_train) {
        in_train += groups[g].size();
        continue;
      }
      held_out.push_back(g);
    }
  std::shuffle(held_out.begin(), held_out.end(), rng);
  const Subset subsets[3] = {Subset::Valid, Subset::Calib, Subset::Test};
  const double want[3] = {double(n_valid), double(n_calib), double(n_test)};
  double filled[3] = {0, 0, 0};
  for (size_t g : held_out) {
    size_t best = 3;
    for (size_t c = 0; c < 3; ++c)
      if (want[c] > 0 && (best == 3 || filled[c] / want[c] < filled[best] / want[best])) best = c;
    if (best == 3) best = 2;
    filled[best] += double(groups[g].size());
    for (size_t i : groups[g]) out[i] = subsets[best];
  }
  return out;
}

}  // namespace gs::data
