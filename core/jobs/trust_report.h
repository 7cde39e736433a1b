#pragma once
// How well a model's trust data does on labelled molecules it never saw (evaluate's test split):
// coverage and mean half-width of its intervals at 80 % and 90 % next to the constant-width
// conformal baseline calibrated on the same calibration fold, how σ ranks errors (Spearman,
// AUROC, retention), miscalibration area, and the error inside vs outside the domain.
#include <cstdint>
#include <string>
#include <vector>

#include "predict/prediction_table.h"
#include "predict/trust.h"

namespace gs::jobs {

struct IntervalScores {
  double coverage = 0, half_width = 0;  // share of molecules inside; mean half-width (target units)
};

struct TrustMetrics {
  std::string target;
  int64_t molecules = 0, calibration = 0;
  IntervalScores model80, model90, constant80, constant90;
  double spearman = 0, spearman_spread = 0, spearman_distance = 0;  // σ, its terms, vs |error|
  double spearman_latent = 0;  // NaN without a latent reference
  double spearman_neighbour = 0;  // r_j(x), the nearest training molecules' mean |error|
  double auroc = 0, auroc_threshold = 0;  // σ for |error| > threshold (the constant 90 % half-width)
  double retention = 0;                   // MAE of the most confident half ÷ MAE of all
  double miscalibration_area = 0;         // Gaussian reading σ_g = half-width(90 %) / 1.645
  // The output's own domain band (TrustRow::output_band; before version 5 the molecule's band).
  double mae_in = 0, mae_borderline = 0, mae_out = 0, mae_outside = 0;  // per band; outside = borderline + out
  int64_t in = 0, borderline = 0, out = 0;
  // The molecule's band (TrustRow::band, from all outputs): molecules out and MAE out ÷ MAE in.
  int64_t molecule_out = 0;
  double molecule_out_ratio = 0;
};

// `rows` are the model's predictions (with trust) of the molecules, `labels[i][j]` their targets
// (NaN = missing). One entry per output; empty when no row has trust.
std::vector<TrustMetrics> trustMetrics(const predict::TrustAssessor& assessor,
                                       const std::vector<const predict::PredictedRow*>& rows,
                                       const std::vector<std::vector<float>>& labels,
                                       const std::vector<std::string>& targets);

// Markdown table: metric | model intervals | constant-width baseline.
std::string formatTrustMetrics(const std::vector<TrustMetrics>& metrics);

}  // namespace gs::jobs
