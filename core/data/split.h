#pragma once
// Seeded train / validation / calibration / test splits of a labelled dataset. The calibration fold
// is used for nothing but the trust data's conformal scores and domain thresholds (predict/trust.h).
//   Random:   a seeded shuffle; the first round(test_fraction * n) molecules are the test set, the
//             next round(valid_fraction * n) the validation set, the next round(calib_fraction * n)
//             the calibration fold, the rest training.
//   Scaffold: Bemis–Murcko scaffold groups never straddle two sets, so the test molecules have
//             scaffolds the model never saw (a harder, more honest estimate for new chemistry).
//             Groups larger than half the validation or test size go first (so big groups land in
//             training), the rest follow in a seeded random order; each goes to training while it
//             fits. The held-out groups are then dealt in a seeded random order to validation,
//             calibration and test, each to the subset furthest below its size, so the three are
//             exchangeable: calibration on one says what to expect on the others.
//   Cluster:  the same with Butina clusters of Morgan fingerprints at Tanimoto >= cluster_similarity
//             (similarity/butina.h) as groups: test molecules are unlike any training cluster.
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace gs::data {

enum class SplitKind { Random, Scaffold, Cluster };
const char* splitKindName(SplitKind kind);
Result<SplitKind> parseSplitKind(const std::string& name);

struct SplitOptions {
  SplitKind kind = SplitKind::Random;
  double valid_fraction = 0.1;
  double test_fraction = 0.1;
  double calib_fraction = 0.1;
  double cluster_similarity = 0.65;
  uint64_t seed = 0;
  // A split file written by an earlier run (`train` writes split.csv: row,id,subset): every usable
  // row takes the subset the file gives it, checked by row number and id; the options above then
  // only describe it. "" = compute the split.
  std::string file;
};
// The options as one JSON object (stored with trust data, printed by evaluate).
std::string splitJson(const SplitOptions& options);

enum class Subset : uint8_t { Train = 0, Valid = 1, Test = 2, Calib = 3 };
const char* subsetName(Subset subset);
Result<Subset> parseSubset(const std::string& name);

// One subset per molecule. `groups` (one key per molecule: the scaffold, "" = acyclic, or the
// cluster) is needed by the scaffold and cluster splits and ignored by the random one.
Result<std::vector<Subset>> splitDataset(size_t n, const SplitOptions& options,
                                         const std::vector<std::string>& groups = {});

}  // namespace gs::data
