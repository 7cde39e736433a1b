#include "predict/trust.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "common/named_enum.h"

namespace gs::predict {
namespace {

constexpr NameTable<DomainBand, 3> kBands = {
    {DomainBand::In, "in"}, {DomainBand::Borderline, "borderline"}, {DomainBand::Out, "out"}};

constexpr const char* kSymbols[] = {
    "*",  "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si", "P",  "S",
    "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As",
    "Se", "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd", "In", "Sn",
    "Sb", "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho",
    "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W",  "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po",
    "At", "Rn", "Fr", "Ra", "Ac", "Th", "Pa", "U",  "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md",
    "No", "Lr", "Rf", "Db", "Sg", "Bh", "Hs", "Mt", "Ds", "Rg", "Cn", "Nh", "Fl", "Mc", "Lv", "Ts", "Og"};

std::string fixed(double v, int digits = 2) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(digits);
  o << v;
  return o.str();
}

bool contains(const std::vector<uint32_t>& sorted, uint32_t v) {
  return std::binary_search(sorted.begin(), sorted.end(), v);
}

void raise(DomainBand& band, DomainBand to) { band = std::max(band, to); }

// Atoms whose environment of one radius is not in `seen`, listed as "C3, N7"; they join `atoms`.
std::string unseenAtoms(const chem::DomainFeatures& f, const std::vector<uint32_t>& env,
                        const std::vector<uint32_t>& seen, std::vector<int>& atoms) {
  std::string list;
  for (size_t a = 0; a < env.size(); ++a) {
    if (env[a] == 0 || contains(seen, env[a])) continue;
    if (!list.empty()) list += ", ";
    // Numbered from 1 in the SMILES' atom order, as the app's atom tables and depictions number them.
    list += elementSymbol(a < f.atomic_numbers.size() ? f.atomic_numbers[a] : 0) + std::to_string(a + 1);
    atoms.push_back(static_cast<int>(a));
  }
  return list;
}

}  // namespace

const char* domainBandName(DomainBand band) { return nameIn(kBands, band); }

Result<DomainBand> parseDomainBand(const std::string& name) { return parseIn(kBands, name, "domain band"); }

std::string elementSymbol(int z) {
  if (z >= 0 && z < static_cast<int>(std::size(kSymbols))) return kSymbols[z];
  return "Z" + std::to_string(z);
}

double sigmaFromWeights(const std::array<double, 4>& w, const SigmaTerms& t) {
  return w[0] * t.spread + w[1] * t.distance + w[2] * t.latent + w[3] * t.neighbour_error;
}

void fadeNeighbourError(const bundle::SigmaModel& s, double distance, std::vector<double>& r) {
  if (!(s.residual_fade_similarity > 0) || s.residual_prior.size() != r.size()) return;
  const double w = std::clamp((1.0 - distance) / s.residual_fade_similarity, 0.0, 1.0);
  for (size_t j = 0; j < r.size(); ++j) r[j] = w * r[j] + (1.0 - w) * s.residual_prior[j];
}

double sigmaOfMolecule(const bundle::SigmaModel& s, int j, const SigmaTerms& t) {
  const auto k = static_cast<size_t>(j);
  const auto at = [k](const std::vector<double>& w) { return k < w.size() ? w[k] : 0.0; };
  return sigmaFromWeights({at(s.ensemble_weight), at(s.distance_weight), at(s.latent_weight), at(s.residual_weight)}, t);
}

double ensembleSpread(const std::vector<std::vector<float>>& values, int j) {
  if (values.size() < 2) return 0.0;
  double mean = 0;
  for (const auto& m : values) mean += m[static_cast<size_t>(j)];
  mean /= double(values.size());
  double ss = 0;
  for (const auto& m : values) ss += (m[static_cast<size_t>(j)] - mean) * (m[static_cast<size_t>(j)] - mean);
  return std::sqrt(ss / double(values.size() - 1));
}

TrustAssessor::TrustAssessor(bundle::TrustData data) : data_(std::move(data)), index_(data_.reference.fingerprints) {
  const auto outs = static_cast<size_t>(std::max(data_.outputs, 0));
  data_.sigma.latent_weight.resize(outs, 0.0);
  data_.sigma.residual_weight.resize(outs, 0.0);
  const auto& ref = data_.reference;
  mean_reference_error_.assign(outs, 0.0);
  for (size_t j = 0; j < outs; ++j) {
    double sum = 0;
    int64_t n = 0;
    for (size_t i = j; i < ref.labels.size() && i < ref.predictions.size(); i += outs)
      if (const double e = std::fabs(double(ref.labels[i]) - double(ref.predictions[i])); std::isfinite(e)) sum += e, ++n;
    mean_reference_error_[j] = n ? sum / double(n) : 0.0;
  }
  auto conformal = [](const std::vector<double>& s) {
    auto c = stats::ConformalScores::fromScores(s);
    return c.isOk() ? std::move(c.value()) : stats::ConformalScores();
  };
  for (const auto& s : data_.calibration_scores) scores_.push_back(conformal(s));
  for (const auto& s : data_.calibration_residuals) residuals_.push_back(conformal(s));
  for (const auto& bins : data_.binned_scores) {
    binned_.emplace_back();
    for (const auto& s : bins) binned_.back().push_back(conformal(s));
  }
}

int similarityBin(const std::vector<double>& edges, double nn_similarity) {
  if (edges.empty() || !std::isfinite(nn_similarity)) return -1;
  return static_cast<int>(std::upper_bound(edges.begin(), edges.end(), nn_similarity) - edges.begin());
}

int TrustAssessor::scoreBin(double nn_similarity) const { return similarityBin(data_.score_bin_edges, nn_similarity); }

double TrustAssessor::quantile(int j, double confidence, double nn_similarity) const {
  const auto k = static_cast<size_t>(j);
  const int bin = scoreBin(nn_similarity);
  if (bin >= 0 && k < binned_.size() && static_cast<size_t>(bin) < binned_[k].size())
    return binned_[k][static_cast<size_t>(bin)].quantile(confidence);
  return scores_[k].quantile(confidence);
}

double TrustAssessor::distance(const chem::DomainFeatures& f, std::vector<similarity::Neighbour>* nearest) const {
  const int k = std::max({data_.sigma.neighbours, kShownNeighbours, data_.sigma.residual_neighbours});
  auto found = index_.nearest(f.fingerprint, k);
  double sum = 0;
  const size_t used = std::min<size_t>(found.size(), static_cast<size_t>(data_.sigma.neighbours));
  for (size_t i = 0; i < used; ++i) sum += found[i].similarity;
  if (nearest) *nearest = std::move(found);
  return used ? 1.0 - sum / double(used) : 1.0;
}

std::vector<double> TrustAssessor::neighbourError(const std::vector<similarity::Neighbour>& nearest) const {
  const auto outs = static_cast<size_t>(data_.outputs);
  const auto& ref = data_.reference;
  std::vector<double> out(outs, 0.0);
  for (size_t j = 0; j < outs; ++j) {
    double sum = 0;
    int n = 0;
    for (size_t i = 0; i < nearest.size() && n < data_.sigma.residual_neighbours; ++i) {
      const size_t at = static_cast<size_t>(nearest[i].index) * outs + j;
      if (at >= ref.labels.size() || at >= ref.predictions.size()) continue;
      const double e = std::fabs(double(ref.labels[at]) - double(ref.predictions[at]));
      if (std::isfinite(e)) sum += e, ++n;
    }
    out[j] = n ? sum / n : mean_reference_error_[j];
  }
  return out;
}

double TrustAssessor::assessDomain(const chem::DomainFeatures& f, TrustRow& row) const {
  const auto& d = data_.domain;
  std::vector<similarity::Neighbour> nearest;
  const double dist = distance(f, &nearest);
  row.neighbour_error = neighbourError(nearest);
  row.nn_similarity = nearest.empty() ? 0.0 : nearest[0].similarity;
  std::string unseen;
  for (int z : f.elements)
    if (!std::binary_search(d.elements.begin(), d.elements.end(), z))
      unseen += (unseen.empty() ? "" : ", ") + elementSymbol(z);
  auto add = [&](DomainBand band, std::string reason) {
    raise(row.band, band);
    row.reasons.push_back(std::move(reason));
  };
  if (!unseen.empty()) add(DomainBand::Out, "element never in training: " + unseen);
  if (f.fragments > 1)
    add(DomainBand::Out, std::to_string(f.fragments) + " fragments (salt or mixture; see --strip-salts)");
  if (f.heavy_atoms > d.max_heavy_atoms)
    add(DomainBand::Out, std::to_string(f.heavy_atoms) + " heavy atoms, more than any training molecule (" +
                             std::to_string(d.max_heavy_atoms) + ")");
  // With the uncertainty rule (trust files from version 3) new atom environments and low similarity
  // make a molecule borderline at most: on held-out clusters they separated errors weakly (1.1-1.4x)
  // and marked most drug-like molecules out; σ, which already sees them, decides "out".
  const DomainBand strong = d.sigma_median.empty() ? DomainBand::Out : DomainBand::Borderline;
  const size_t known = row.unseen_atoms.size();
  if (auto r1 = unseenAtoms(f, f.env_r1, d.env_r1, row.unseen_atoms); !r1.empty())
    add(row.unseen_atoms.size() - known >= 2 ? strong : DomainBand::Borderline,
        "radius-1 environment never in training at atom " + r1);
  if (auto r2 = unseenAtoms(f, f.env_r2, d.env_r2, row.unseen_atoms); !r2.empty())
    add(DomainBand::In, "radius-2 environment never in training at atom " + r2);
  // Very low similarity means "out" only together with a new atom environment: a small molecule
  // made of known environments (benzene, methanol) has few bits and low Tanimoto to anything.
  const std::string sim = "nearest training molecule similarity " + fixed(row.nn_similarity);
  if (row.nn_similarity < d.similarity_out)
    add(row.unseen_atoms.empty() ? DomainBand::Borderline : strong,
        sim + " < " + fixed(d.similarity_out) + (row.unseen_atoms.empty() ? " (every atom environment is known)" : ""));
  else if (row.nn_similarity < d.similarity_borderline)
    add(DomainBand::Borderline, sim + " < " + fixed(d.similarity_borderline));
  std::sort(row.unseen_atoms.begin(), row.unseen_atoms.end());
  row.unseen_atoms.erase(std::unique(row.unseen_atoms.begin(), row.unseen_atoms.end()), row.unseen_atoms.end());
  const auto outs = static_cast<size_t>(data_.outputs);
  const auto& ref = data_.reference;
  for (size_t i = 0; i < nearest.size() && i < static_cast<size_t>(kShownNeighbours); ++i) {
    const auto at = static_cast<size_t>(nearest[i].index);
    NeighbourInfo n{nearest[i].index, nearest[i].similarity, ref.ids[at], ref.smiles[at], {}, {}};
    n.label.assign(ref.labels.begin() + static_cast<std::ptrdiff_t>(at * outs),
                   ref.labels.begin() + static_cast<std::ptrdiff_t>((at + 1) * outs));
    n.prediction.assign(ref.predictions.begin() + static_cast<std::ptrdiff_t>(at * outs),
                        ref.predictions.begin() + static_cast<std::ptrdiff_t>((at + 1) * outs));
    row.neighbours.push_back(std::move(n));
  }
  return dist;
}

double TrustAssessor::rawLatentDistance(const std::vector<float>& e) const {
  const auto& ref = data_.latent;
  if (ref.dim == 0 || e.size() != static_cast<size_t>(ref.dim)) return std::nan("");
  const size_t k = std::min<size_t>(static_cast<size_t>(std::max(data_.sigma.neighbours, 1)),
                                    static_cast<size_t>(ref.size()));
  std::vector<float> nearest(k, std::numeric_limits<float>::infinity());  // squared, ascending
  const float* row = ref.embeddings.data();
  for (int64_t i = 0; i < ref.size(); ++i, row += ref.dim) {
    float d2 = 0;
    for (int c = 0; c < ref.dim; ++c) d2 += (row[c] - e[c]) * (row[c] - e[c]);
    if (d2 >= nearest.back()) continue;
    nearest.back() = d2;
    std::sort(nearest.begin(), nearest.end());
  }
  double sum = 0;
  for (float d2 : nearest) sum += std::sqrt(double(d2));
  return k ? sum / double(k) : std::nan("");
}

TrustRow TrustAssessor::assess(const chem::DomainFeatures& f, const std::vector<std::vector<float>>& values,
                               double confidence, const std::vector<float>& embedding) const {
  TrustRow row;
  const double d = assessDomain(f, row);
  const DomainBand structural = row.band;
  row.distance = d;
  fadeNeighbourError(data_.sigma, d, row.neighbour_error);
  const double raw = rawLatentDistance(embedding);
  row.latent = std::isfinite(raw) ? raw / data_.latent.scale : 1.0;
  const auto& s = data_.sigma;
  for (int j = 0; j < data_.outputs; ++j) {
    row.spread.push_back(ensembleSpread(values, j));
    const double sigma = sigmaOfMolecule(s, j, row.terms(j));
    const double half = halfWidth(j, sigma, confidence, row.nn_similarity);
    const double y = values.empty() ? 0.0 : values[0][static_cast<size_t>(j)];
    row.sigma.push_back(sigma);
    row.lower.push_back(y - half);
    row.upper.push_back(y + half);
  }
  addUncertaintyReason(row);
  addOutputBands(row, structural);
  return row;
}

void TrustAssessor::addOutputBands(TrustRow& row, DomainBand structural) const {
  const auto& d = data_.domain;
  row.output_band.assign(row.sigma.size(), row.band);
  if (d.output_sigma_out.size() != row.sigma.size()) return;  // before version 5: the molecule's band
  for (size_t j = 0; j < row.sigma.size(); ++j) {
    DomainBand b = structural;
    if (row.sigma[j] > d.output_sigma_out[j]) raise(b, DomainBand::Out);
    else if (row.sigma[j] > d.output_sigma_borderline[j]) raise(b, DomainBand::Borderline);
    row.output_band[j] = b;
  }
}

double uncertaintyScore(const bundle::DomainRules& d, const std::vector<double>& sigma) {
  const auto& median = d.sigma_median;
  if (median.empty() || median.size() != sigma.size()) return std::nan("");
  double sum = 0;
  for (size_t j = 0; j < sigma.size(); ++j) sum += median[j] > 0 ? sigma[j] / median[j] : 1.0;
  return sum / double(sigma.size());
}

void TrustAssessor::addUncertaintyReason(TrustRow& row) const {
  const auto& d = data_.domain;
  const double score = uncertaintyScore(d, row.sigma);
  if (!std::isfinite(score) || score <= d.uncertainty_borderline) return;
  const bool out = score > d.uncertainty_out;
  raise(row.band, out ? DomainBand::Out : DomainBand::Borderline);
  row.reasons.push_back("the model is unsure: σ " + fixed(score) + "x its median on the calibration molecules, above " +
                        (out ? "95 % of them (" + fixed(d.uncertainty_out) + "x)"
                             : "80 % of them (" + fixed(d.uncertainty_borderline) + "x)"));
}

void addReference(bundle::TrustData& t, const chem::DomainFeatures& f, const std::string& id, const std::string& smiles,
                  const std::vector<float>& labels, const std::vector<float>& prediction) {
  auto& ref = t.reference;
  ref.fingerprints.push_back(f.fingerprint);
  ref.ids.push_back(id);
  ref.smiles.push_back(smiles);
  ref.labels.insert(ref.labels.end(), labels.begin(), labels.end());
  ref.predictions.insert(ref.predictions.end(), prediction.begin(), prediction.end());
  auto& d = t.domain;
  d.elements.insert(d.elements.end(), f.elements.begin(), f.elements.end());
  for (auto e : f.env_r1)
    if (e) d.env_r1.push_back(e);
  for (auto e : f.env_r2)
    if (e) d.env_r2.push_back(e);
  d.max_heavy_atoms = std::max(d.max_heavy_atoms, f.heavy_atoms);
  // Keep the sets small while adding (training sets of 10^5+ molecules).
  if (d.env_r2.size() > 4 * (1u << 20)) finishDomain(d);
}

void finishDomain(bundle::DomainRules& d) {
  auto unique = [](auto& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  unique(d.elements);
  unique(d.env_r1);
  unique(d.env_r2);
}

}  // namespace gs::predict
