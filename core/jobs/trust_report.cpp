#include "jobs/trust_report.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <sstream>

#include "common/stats.h"

namespace gs::jobs {
namespace {

struct Sample {
  double error = 0, sigma = 0;
  predict::SigmaTerms terms;
  predict::DomainBand band = predict::DomainBand::In;           // the output's
  predict::DomainBand molecule_band = predict::DomainBand::In;  // the molecule's
  double nn_similarity = predict::TrustAssessor::kPooled;
};

std::string fixed3(double v) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(3);
  o << v;
  return o.str();
}

double mean(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

IntervalScores scores(const std::vector<Sample>& s, const std::function<double(const Sample&)>& half) {
  IntervalScores out;
  for (const auto& x : s) {
    const double h = half(x);
    out.coverage += x.error <= h ? 1 : 0;
    out.half_width += h;
  }
  out.coverage /= double(s.size());
  out.half_width /= double(s.size());
  return out;
}

// Two-sided standard normal quantile: z with P(|Z| <= z) = p, by bisection on erf.
double normalHalfQuantile(double p) {
  double lo = 0, hi = 10;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (std::erf(mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Mean |observed − expected| coverage of Gaussian intervals ±z_p σ_g over p = 0.01 ... 0.99.
double miscalibrationArea(const std::vector<Sample>& s, const std::vector<double>& sigma_g) {
  double area = 0;
  for (int k = 1; k <= 99; ++k) {
    const double p = k / 100.0, z = normalHalfQuantile(p);
    double inside = 0;
    for (size_t i = 0; i < s.size(); ++i) inside += s[i].error <= z * sigma_g[i] ? 1 : 0;
    area += std::fabs(inside / double(s.size()) - p);
  }
  return area / 99.0;
}

TrustMetrics outputMetrics(const predict::TrustAssessor& a, const std::vector<Sample>& s, int j) {
  TrustMetrics m;
  m.molecules = static_cast<int64_t>(s.size());
  m.model80 = scores(s, [&](const Sample& x) { return a.halfWidth(j, x.sigma, 0.8, x.nn_similarity); });
  m.model90 = scores(s, [&](const Sample& x) { return a.halfWidth(j, x.sigma, 0.9, x.nn_similarity); });
  const double c80 = a.constantHalfWidth(j, 0.8), c90 = a.constantHalfWidth(j, 0.9);
  m.constant80 = scores(s, [&](const Sample&) { return c80; });
  m.constant90 = scores(s, [&](const Sample&) { return c90; });
  std::vector<double> err, sigma, spread, dist, latent, neighbour, sigma_g;
  std::vector<bool> large;
  for (const auto& x : s) {
    err.push_back(x.error);
    sigma.push_back(x.sigma);
    spread.push_back(x.terms.spread);
    dist.push_back(x.terms.distance);
    latent.push_back(x.terms.latent);
    neighbour.push_back(x.terms.neighbour_error);
    large.push_back(x.error > c90);
    sigma_g.push_back(a.halfWidth(j, x.sigma, 0.9, x.nn_similarity) / 1.6448536);
  }
  m.spearman = stats::spearman(sigma, err);
  m.spearman_spread = stats::spearman(spread, err);
  m.spearman_distance = stats::spearman(dist, err);
  m.spearman_latent = a.usesEmbeddings() ? stats::spearman(latent, err) : std::nan("");
  m.spearman_neighbour = stats::spearman(neighbour, err);
  m.auroc_threshold = c90;
  m.auroc = stats::auroc(sigma, large);
  std::vector<size_t> order(s.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return sigma[x] < sigma[y]; });
  std::vector<double> confident;
  for (size_t i = 0; i < order.size() / 2; ++i) confident.push_back(err[order[i]]);
  m.retention = mean(confident) / mean(err);
  m.miscalibration_area = miscalibrationArea(s, sigma_g);
  std::vector<double> band[3], outside, molecule_in, molecule_out;
  for (const auto& x : s) {
    band[static_cast<int>(x.band)].push_back(x.error);
    if (x.band != predict::DomainBand::In) outside.push_back(x.error);
    if (x.molecule_band == predict::DomainBand::In) molecule_in.push_back(x.error);
    if (x.molecule_band == predict::DomainBand::Out) molecule_out.push_back(x.error);
  }
  m.molecule_out = static_cast<int64_t>(molecule_out.size());
  m.molecule_out_ratio = mean(molecule_out) / mean(molecule_in);
  m.in = static_cast<int64_t>(band[0].size());
  m.borderline = static_cast<int64_t>(band[1].size());
  m.out = static_cast<int64_t>(band[2].size());
  m.mae_in = mean(band[0]);
  m.mae_borderline = mean(band[1]);
  m.mae_out = mean(band[2]);
  m.mae_outside = mean(outside);
  return m;
}

}  // namespace

std::vector<TrustMetrics> trustMetrics(const predict::TrustAssessor& a,
                                       const std::vector<const predict::PredictedRow*>& rows,
                                       const std::vector<std::vector<float>>& labels,
                                       const std::vector<std::string>& targets) {
  std::vector<TrustMetrics> out;
  for (int j = 0; j < a.outputs(); ++j) {
    std::vector<Sample> s;
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto* r = rows[i];
      const float y = labels[i][static_cast<size_t>(j)];
      if (!r->trust || !r->status.isOk() || std::isnan(y)) continue;
      const auto& t = *r->trust;
      const auto k = static_cast<size_t>(j);
      s.push_back({std::fabs(y - r->values[k]), t.sigma[k], t.terms(j), t.outputBand(j),
                   t.band, t.nn_similarity});
    }
    if (s.empty()) continue;
    TrustMetrics m = outputMetrics(a, s, j);
    m.target = j < static_cast<int>(targets.size()) ? targets[static_cast<size_t>(j)] : "output_" + std::to_string(j);
    m.calibration = static_cast<int64_t>(a.data().calibration_scores[static_cast<size_t>(j)].size());
    out.push_back(m);
  }
  return out;
}

std::string formatTrustMetrics(const std::vector<TrustMetrics>& metrics) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(3);
  for (const auto& m : metrics) {
    o << "\n### Trust on the test split: " << m.target << " (" << m.molecules << " test molecules, " << m.calibration
      << " calibration molecules)\n\n| | normalized conformal (σ) | constant-width conformal |\n|---|---:|---:|\n"
      << "| coverage at 80 % | " << m.model80.coverage << " | " << m.constant80.coverage << " |\n"
      << "| coverage at 90 % | " << m.model90.coverage << " | " << m.constant90.coverage << " |\n"
      << "| mean half-width at 80 % | " << m.model80.half_width << " | " << m.constant80.half_width << " |\n"
      << "| mean half-width at 90 % | " << m.model90.half_width << " | " << m.constant90.half_width << " |\n"
      << "| Spearman(σ, \\|error\\|) | " << m.spearman << " | — |\n"
      << "| AUROC of σ for \\|error\\| > " << m.auroc_threshold << " | " << m.auroc << " | — |\n"
      << "| MAE of the most confident half ÷ MAE | " << m.retention << " | 1 |\n"
      << "| miscalibration area | " << m.miscalibration_area << " | — |\n\n"
      << "σ's terms alone: Spearman(ensemble spread, |error|) " << m.spearman_spread << ", Spearman(distance, |error|) "
      << m.spearman_distance
      << (std::isnan(m.spearman_latent) ? "" : ", Spearman(latent distance, |error|) ")
      << (std::isnan(m.spearman_latent) ? "" : fixed3(m.spearman_latent))
      << ", Spearman(training neighbours' error, |error|) " << m.spearman_neighbour << ".\n"
      << "\n| domain band of " << m.target << " | test molecules | MAE | MAE ÷ MAE in |\n|---|---:|---:|---:|\n"
      << "| in | " << m.in << " | " << m.mae_in << " | 1 |\n"
      << "| borderline | " << m.borderline << " | " << m.mae_borderline << " | " << m.mae_borderline / m.mae_in
      << " |\n"
      << "| out | " << m.out << " | " << m.mae_out << " | " << m.mae_out / m.mae_in << " |\n"
      << "| outside (borderline + out) | " << m.borderline + m.out << " | " << m.mae_outside << " | "
      << m.mae_outside / m.mae_in << " |\n\n"
      << "The molecule's band (all outputs): " << m.molecule_out << " out, MAE out ÷ MAE in " << m.molecule_out_ratio
      << ".\n";
  }
  return o.str();
}

}  // namespace gs::jobs
