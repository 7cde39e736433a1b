#include "data/split.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <unordered_map>

#include "common/named_enum.h"

namespace gs::data {

namespace {
constexpr NameTable<SplitKind, 2> kSplitKinds = {{SplitKind::Random, "random"}, {SplitKind::Scaffold, "scaffold"}};
constexpr NameTable<Subset, 3> kSubsets = {{Subset::Train, "train"}, {Subset::Valid, "valid"}, {Subset::Test, "test"}};
}  // namespace

const char* splitKindName(SplitKind kind) { return nameIn(kSplitKinds, kind); }
Result<SplitKind> parseSplitKind(const std::string& name) { return parseIn(kSplitKinds, name, "split"); }
const char* subsetName(Subset subset) { return nameIn(kSubsets, subset); }

Result<std::vector<Subset>> splitDataset(size_t n, const SplitOptions& o, const std::vector<std::string>& scaffolds) {
  if (!(o.valid_fraction >= 0 && o.test_fraction >= 0 && o.valid_fraction + o.test_fraction < 1))
    return Status(StatusCode::InvalidArgument, "validation and test fractions must be >= 0 and sum to less than 1");
  const auto n_test = static_cast<size_t>(std::llround(o.test_fraction * double(n)));
  const auto n_valid = static_cast<size_t>(std::llround(o.valid_fraction * double(n)));
  std::vector<Subset> out(n, Subset::Train);
  std::mt19937_64 rng(o.seed);
  if (o.kind == SplitKind::Random) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t k = 0; k < n; ++k) out[order[k]] = k < n_test ? Subset::Test : k < n_test + n_valid ? Subset::Valid : Subset::Train;
    return out;
  }
  if (scaffolds.size() != n) return Status(StatusCode::InvalidArgument, "the scaffold split needs one scaffold per molecule");
  // Groups in order of first appearance, so the result does not depend on hash order.
  std::unordered_map<std::string, size_t> group_of;
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < n; ++i) {
    auto [it, fresh] = group_of.emplace(scaffolds[i], groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  std::vector<size_t> big, small;
  for (size_t g = 0; g < groups.size(); ++g)
    (groups[g].size() * 2 > n_valid || groups[g].size() * 2 > n_test ? big : small).push_back(g);
  std::shuffle(big.begin(), big.end(), rng);
  std::shuffle(small.begin(), small.end(), rng);
  const size_t n_train = n - n_valid - n_test;
  size_t in_train = 0, in_valid = 0;
  for (const auto* list : {&big, &small}) {
    for (size_t g : *list) {
      const size_t size = groups[g].size();
      Subset s = Subset::Test;
      if (in_train + size <= n_train) {
        s = Subset::Train;
        in_train += size;
      } else if (in_valid + size <= n_valid) {
        s = Subset::Valid;
        in_valid += size;
      }
      for (size_t i : groups[g]) out[i] = s;
    }
  }
  return out;
}

}  // namespace gs::data
