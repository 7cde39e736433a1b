#pragma once
// Seeded train / validation / test splits of a labelled dataset.
//   Random:   a seeded shuffle; the first round(test_fraction * n) molecules are the test set, the
//             next round(valid_fraction * n) the validation set, the rest training.
//   Scaffold: Bemis–Murcko scaffold groups never straddle two sets, so the test molecules have
//             scaffolds the model never saw (a harder, more honest estimate for new chemistry).
//             "Balanced" assignment: groups larger than half the validation or test size go first
//             (so big groups land in training), the rest follow in a seeded random order; each
//             group goes to training while it fits, then validation, then test.
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace gs::data {

enum class SplitKind { Random, Scaffold };
const char* splitKindName(SplitKind kind);
Result<SplitKind> parseSplitKind(const std::string& name);

struct SplitOptions {
  SplitKind kind = SplitKind::Random;
  double valid_fraction = 0.1;
  double test_fraction = 0.1;
  uint64_t seed = 0;
};

enum class Subset : uint8_t { Train = 0, Valid = 1, Test = 2 };
const char* subsetName(Subset subset);

// One subset per molecule. `scaffolds` (one key per molecule; "" = acyclic, one group) is needed
// for the scaffold split and ignored by the random one.
Result<std::vector<Subset>> splitDataset(size_t n, const SplitOptions& options,
                                         const std::vector<std::string>& scaffolds = {});

}  // namespace gs::data
