#pragma once
// How far to trust one prediction: the interval, σ and the applicability domain, from a model's
// trust data (bundle/trust_file.h). LibTorch- and RDKit-free: the Predictor supplies the ensemble's
// predictions and the molecule's DomainFeatures; the training job builds the trust data here too.
//
// Domain bands (every reason that applies is listed; the band is the worst of them):
//   out         an element never in training; more than one fragment (salt, mixture); more heavy
//               atoms than any training molecule; two or more atoms whose radius-1 environment
//               never occurs in training; nearest-neighbour similarity below the calibration
//               fold's 1st percentile together with an atom environment never seen
//   borderline  one atom whose radius-1 environment never occurs in training; nearest-neighbour
//               similarity below the calibration fold's 10th percentile (or below the 1st with
//               every atom environment known: small molecules have low Tanimoto to anything)
//   in          otherwise; atoms whose radius-2 environment is new are still listed (a reason
//               that does not lower the band: most new molecules have one)
// With an uncertainty rule the molecule's σ, averaged over outputs, can raise the band as well.
// Each output has its own band too (trust files from version 5): the molecule's structural band
// (the rules above), raised by that output's σ alone — a molecule can be in the domain of its
// log P and out of the domain of its gap. On held-out clusters this separates each property's
// errors (out/in MAE ≥ 2) where the averaged σ did not (docs/TRUST.md).
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bundle/trust_file.h"
#include "chem/domain.h"
#include "common/stats.h"
#include "similarity/fingerprint_index.h"

namespace gs::predict {

enum class DomainBand { In, Borderline, Out };
const char* domainBandName(DomainBand band);
Result<DomainBand> parseDomainBand(const std::string& name);

struct NeighbourInfo {
  int64_t index = 0;  // in the reference set
  double similarity = 0;
  std::string id, smiles;
  std::vector<float> label, prediction;  // per output; NaN = missing
};

// The terms σ is made of, for one molecule and output.
struct SigmaTerms {
  double spread = 0, distance = 0, latent = 0, neighbour_error = 0;
};

struct TrustRow {
  std::vector<double> sigma, lower, upper;  // per output, target units; ±inf when unbounded
  std::vector<double> spread;               // per output: the ensemble's standard deviation
  double distance = 0;                      // d(x): 1 − mean Tanimoto of the k nearest
  double latent = 0;                        // l(x): embedding distance to the training sample, 1 = calibration median
  std::vector<double> neighbour_error;      // per output, r_j(x): mean |error| of the nearest training molecules
  DomainBand band = DomainBand::In;
  std::vector<DomainBand> output_band;  // per output: the structural band raised by that output's σ
  std::vector<std::string> reasons;
  double nn_similarity = 0;               // to the most similar training molecule
  std::vector<int> unseen_atoms;          // atoms (parsed-molecule indices) in an environment never seen
  std::vector<NeighbourInfo> neighbours;  // most similar first
  DomainBand outputBand(int j) const {  // output j's band (the molecule's where there is none per output)
    const auto k = static_cast<size_t>(j);
    return k < output_band.size() ? output_band[k] : band;
  }
  SigmaTerms terms(int j) const {         // σ's terms of output j (after assess)
    const auto k = static_cast<size_t>(j);
    return {spread[k], distance, latent, neighbour_error.empty() ? 0.0 : neighbour_error[k]};
  }
};

inline constexpr int kShownNeighbours = 5;

class TrustAssessor {
 public:
  explicit TrustAssessor(bundle::TrustData data);
  const bundle::TrustData& data() const { return data_; }
  int outputs() const { return data_.outputs; }

  // One molecule: `values[m][j]` is ensemble member m's prediction of output j in target units,
  // member 0 the model itself (the prediction shown).
  // `embedding`: the model's embedding of the molecule (Prediction::embedding), needed when the
  // trust data has a latent reference (else l(x) is taken as its calibration median, 1).
  TrustRow assess(const chem::DomainFeatures& features, const std::vector<std::vector<float>>& values,
                  double confidence, const std::vector<float>& embedding = {}) const;
  bool usesEmbeddings() const { return data_.latent.dim > 0; }
  // l(x) before dividing by the calibration median: mean Euclidean distance to the k nearest
  // reference embeddings (k = the σ neighbours); NaN when the embedding does not fit the reference.
  double rawLatentDistance(const std::vector<float>& embedding) const;
  // The band, reasons and neighbours only; returns d(x).
  double assessDomain(const chem::DomainFeatures& features, TrustRow& row) const;
  void addUncertaintyReason(TrustRow& row) const;  // the band the molecule's σ gives, with its reason
  // 1 − mean Tanimoto of the k nearest training molecules, and those neighbours (at least as many
  // as r_j(x) averages over).
  double distance(const chem::DomainFeatures& features, std::vector<similarity::Neighbour>* nearest = nullptr) const;
  // r_j(x) per output: the mean |label − prediction| of the model on the nearest training molecules
  // (`nearest` from distance(), most similar first; the first residual_neighbours with a label for
  // j). Regions of chemistry the model fits badly stay badly fitted on new molecules: on held-out
  // clusters this ranks errors better than the ensemble spread or d(x) (docs/TRUST.md).
  std::vector<double> neighbourError(const std::vector<similarity::Neighbour>& nearest) const;
  // The interval half-width of output j at `confidence` for a molecule of difficulty σ whose
  // nearest training molecule has similarity `nn_similarity` (NaN: the pooled calibration).
  double halfWidth(int j, double sigma, double confidence, double nn_similarity = kPooled) const {
    return quantile(j, confidence, nn_similarity) * (sigma + data_.sigma.beta[static_cast<size_t>(j)]);
  }
  // The constant-width baseline's half-width: the conformal quantile of the plain residuals.
  double constantHalfWidth(int j, double confidence) const {
    return residuals_[static_cast<size_t>(j)].quantile(confidence);
  }
  // The multiplier of (σ + β) for output j at `confidence` (+inf when the calibration set is too
  // small), from the calibration bin of `nn_similarity` where the trust data has bins.
  double quantile(int j, double confidence, double nn_similarity = kPooled) const;
  // The calibration bin of a nearest-neighbour similarity (0 = least similar); -1 without bins.
  int scoreBin(double nn_similarity) const;
  static constexpr double kPooled = std::numeric_limits<double>::quiet_NaN();

 private:
  void addOutputBands(TrustRow& row, DomainBand structural) const;
  bundle::TrustData data_;
  similarity::FingerprintIndex index_;
  std::vector<stats::ConformalScores> scores_, residuals_;
  std::vector<std::vector<stats::ConformalScores>> binned_;  // [output][bin]; empty: pooled
  std::vector<double> mean_reference_error_;  // per output: r_j(x) when no neighbour has a label
};

// The calibration bin of a nearest-neighbour similarity among ascending `edges` (0 = below the
// first edge); -1 without edges or for NaN.
int similarityBin(const std::vector<double>& edges, double nn_similarity);
// Standard deviation (n − 1) of the members' predictions of output j; 0 for one member.
double ensembleSpread(const std::vector<std::vector<float>>& values, int j);
// a · spread + b · d + c · l + e · r for weights {a, b, c, e}: the one formula of σ.
double sigmaFromWeights(const std::array<double, 4>& weights, const SigmaTerms& terms);
// r_j(x) averages the training neighbours' own (fitted) errors, which says less the farther those
// neighbours are: on held-out clusters the error ran 1.0x r at neighbour similarity 0.6-0.7 and
// 1.2-1.6x r at 0.25-0.35. With w = min(1, (1 − d(x)) / s.residual_fade_similarity), r_j becomes
// w · r_j + (1 − w) · residual_prior[j], the validation fold's mean |error|. No-op without a fade.
void fadeNeighbourError(const bundle::SigmaModel& s, double distance, std::vector<double>& r);
// σ of output j: a_j · spread + b_j · d(x) + c_j · l(x) + e_j · r_j(x).
double sigmaOfMolecule(const bundle::SigmaModel& sigma, int j, const SigmaTerms& terms);
// The domain's uncertainty score of a molecule's σ per output: mean of σ_j / the calibration
// median of σ_j (NaN when the trust data has no uncertainty rule).
double uncertaintyScore(const bundle::DomainRules& rules, const std::vector<double>& sigma);


// What building trust data needs for the validation or calibration fold, one entry per molecule.
struct TrustFold {
  std::vector<std::vector<float>> labels;               // [molecule][output]; NaN = missing
  std::vector<std::vector<std::vector<float>>> values;  // [molecule][member][output]
  std::vector<double> distance;                         // d(x)
  std::vector<double> nn_similarity;                    // nearest training molecule
  std::vector<double> latent;                           // l(x); empty without a latent reference
  std::vector<std::vector<double>> neighbour_error;     // [molecule][output] r_j(x)
  SigmaTerms terms(size_t molecule, int j) const;       // the molecule's σ terms for output j
};

// How one mix of σ's terms did on the validation fold: mean 90 % interval width, Spearman(σ, |error|).
struct MixScore {
  double width = 0, spearman = 0;
};
// Mixes whose mean 90 % width on the validation fold is within this fraction of the narrowest
// compete on how well σ ranks the errors: widths are nearly flat over many mixes, the ranking is not.
inline constexpr double kMixWidthTolerance = 0.01;
// The index of the mix to use: of those within `tolerance` of the narrowest finite width, the
// highest Spearman (NaN counts as lowest; the first on ties); -1 when no width is finite.
int pickMix(const std::vector<MixScore>& mixes, double tolerance = kMixWidthTolerance);

// Chooses σ's weights on `valid` (r(x) faded first with the fold's median similarity and mean
// |error|; then the mix of spread, distance, latent distance and neighbour error that pickMix
// takes, scaled so that median σ = median |error|, β = 5 % of median σ), then fills the
// calibration scores (pooled, and per similarity bin where the fold is large enough), residuals
// and similarity thresholds from `calibration`. `trust` must hold the outputs, reference set and
// domain sets already.
Status fitTrust(bundle::TrustData& trust, const TrustFold& valid, const TrustFold& calibration);
// `calibrate --series`: replaces each output's conformal scores and residuals with those of a
// labelled series of the user's own chemistry, keeping σ's weights, the reference set and the
// domain's thresholds. A recalibrated output's scores are pooled (its similarity bins are dropped:
// the series is one population). An output with fewer than `min_labelled` labels in the series
// keeps the training run's scores. Returns each output's labelled count in the series.
inline constexpr int kSeriesMinimum = 20;
std::vector<int> recalibrateOnSeries(bundle::TrustData& trust, const TrustFold& series,
                                     int min_labelled = kSeriesMinimum);
// The uncertainty rule's medians and thresholds, the molecule's and each output's, from the
// calibration fold (after σ's weights; fitTrust calls it).
void fitUncertaintyBand(bundle::TrustData& trust, const TrustFold& calibration);

// Adds one training molecule to the reference set and the domain's element, environment and size
// sets; call finishDomain once after the last.
void addReference(bundle::TrustData& trust, const chem::DomainFeatures& features, const std::string& id,
                  const std::string& smiles, const std::vector<float>& labels, const std::vector<float>& prediction);
void finishDomain(bundle::DomainRules& domain);

// The element symbol of atomic number z ("Z123" beyond the table).
std::string elementSymbol(int z);

}  // namespace gs::predict
