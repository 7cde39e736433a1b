#pragma once
// A model's trust data (model directory: trust.safetensors beside the weights), without LibTorch
// or RDKit: what prediction intervals and the applicability domain need at run time.
//   - sigma: the difficulty model σ_j(x) = a_j · sd_j(x) + b_j · d(x) + c_j · l(x), where sd_j is
//     the spread of the ensemble (the model and its snapshots), d = 1 − mean Tanimoto of the k
//     nearest training molecules, and l the mean Euclidean distance of the molecule's embedding
//     (the graph token the head reads) to its k nearest among a sample of the training molecules'
//     embeddings, divided by its median on the calibration fold; a_j, b_j, c_j chosen on the
//     validation fold; β_j added before dividing. Version 1 files have no latent term (c = 0).
//   - calibration: per output, the sorted normalized scores |y − ŷ| / (σ + β) and the sorted
//     absolute residuals |y − ŷ| (constant-width baseline) of the calibration fold, which was used
//     for nothing else; any confidence level is chosen at run time (common/stats.h).
//   - domain: training elements, radius-1/2 Morgan environments, largest molecule, similarity
//     thresholds chosen on the calibration fold.
//   - reference: the training molecules (fingerprint, id, SMILES, label, the model's prediction).
// The file is a safetensors file (readable by any safetensors library): arrays as tensors, the
// rest as JSON in __metadata__, with the SHA-256 of the data section and of the weights it was
// built for, so a corrupt, truncated or mismatched file is refused by name.
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "similarity/fingerprint.h"

namespace gs::bundle {

inline constexpr const char* kTrustFile = "trust.safetensors";
inline constexpr int kTrustVersion = 6;  // 1 (no latent term), 2 (dense fingerprints), 3 (no neighbour-error term),
                                         // 4 (one calibration bin, one band per molecule), 5 (r(x) not faded) still read

struct SigmaModel {
  std::vector<double> ensemble_weight, distance_weight, beta;  // a_j, b_j, β_j per output
  std::vector<double> latent_weight;                           // c_j per output (empty or 0 without a latent reference)
  std::vector<double> residual_weight;                         // e_j per output (version 4; empty or 0 before)
  double distance_share = 0;  // λ chosen on the validation fold (0 = ensemble only, 1 = distance only)
  int neighbours = 5;         // k of d(x)
  int residual_neighbours = 20;  // k of r_j(x): the nearest training molecules whose errors are averaged
  // Version 6: r_j(x) fades toward residual_prior[j] (the validation fold's mean |error|) as the
  // mean similarity of the nearest training molecules, 1 − d(x), falls below
  // residual_fade_similarity (its validation median); 0 / empty before: no fade.
  double residual_fade_similarity = 0;
  std::vector<double> residual_prior;
};

struct DomainRules {
  std::vector<int> elements;             // atomic numbers seen in training, ascending
  std::vector<uint32_t> env_r1, env_r2;  // Morgan environment ids seen in training, ascending
  int max_heavy_atoms = 0;
  double similarity_borderline = 0;  // nearest-neighbour Tanimoto below this: borderline
  double similarity_out = 0;         // ... below this: out
  // The model's own uncertainty (version 3): a molecule's score is the mean over outputs of
  // σ_j / sigma_median[j] (the calibration fold's median σ); above uncertainty_borderline
  // (the fold's 80th percentile) it is borderline, above uncertainty_out (95th) out. Empty/0: off.
  std::vector<double> sigma_median;
  double uncertainty_borderline = 0, uncertainty_out = 0;
  // Per output (version 5): output j of a molecule is borderline when its σ_j is above
  // output_sigma_borderline[j] (the calibration fold's 80th percentile of σ_j), out above
  // output_sigma_out[j] (95th), and at least as far out as the molecule's structure puts it.
  // Empty: each output takes the molecule's band.
  std::vector<double> output_sigma_borderline, output_sigma_out;
};

struct ReferenceSet {
  std::vector<similarity::BitFingerprint> fingerprints;
  std::vector<std::string> ids, smiles;
  std::vector<float> labels, predictions;  // row-major [molecules × outputs]; NaN = missing
  int64_t size() const { return static_cast<int64_t>(fingerprints.size()); }
};

// Embeddings of a seeded sample of the training molecules, for the latent distance l(x).
struct LatentReference {
  int dim = 0;                    // 0: none (a version-1 file, or a model that gives no embedding)
  std::vector<float> embeddings;  // row-major [molecules × dim]
  double scale = 1;               // median raw latent distance of the calibration fold
  int64_t size() const { return dim ? static_cast<int64_t>(embeddings.size()) / dim : 0; }
};

struct TrustData {
  std::string model_sha256, adapter_sha256;  // the weights this was built for
  int outputs = 0;
  std::vector<std::string> members;  // snapshot model directories, relative to the model directory
  std::vector<std::string> member_sha256;
  SigmaModel sigma;
  std::vector<std::vector<double>> calibration_scores;     // per output, sorted
  std::vector<std::vector<double>> calibration_residuals;  // per output, sorted
  // Calibration by similarity (version 5): the calibration molecules are split at these
  // nearest-neighbour similarities (ascending) and each bin keeps its own sorted scores
  // [output][bin]; a molecule's interval takes the quantile of its bin, so molecules far from the
  // training set are not calibrated with the residuals of close ones. Empty edges, or an output
  // without bins: the pooled calibration_scores.
  std::vector<double> score_bin_edges;
  std::vector<std::vector<std::vector<double>>> binned_scores;
  DomainRules domain;
  ReferenceSet reference;
  LatentReference latent;
  std::string split_json;  // the split options of the training run (evaluate reproduces them)
  // After `calibrate --series`: what the conformal scores were recalibrated on (JSON: file, its
  // SHA-256, molecules per output); empty when they come from the training run's calibration fold.
  std::string series;
  int64_t train_rows = 0, valid_rows = 0, calibration_rows = 0, test_rows = 0;
};

// Atomic. Fails on inconsistent sizes.
Status writeTrust(const std::string& path, const TrustData& trust);
// Every error names the file ("trust file '<path>': ...").
Result<TrustData> readTrust(const std::string& path);

}  // namespace gs::bundle
