// The prediction codec (predict/prediction_json.h): what the server writes, the app reads back.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "predict/prediction_json.h"

namespace gs {
namespace {

const std::vector<std::string> kOutputs{"gap_ev", "logp_xtb"};

predict::PredictedRow fullRow() {
  predict::PredictedRow row;
  row.id = "mol \"7\"";
  row.input = "C[C@H](O)c1ccccc1";
  row.canonical = "C[C@H](O)c1ccccc1";
  row.values = {3.14159274f, -0.000123456791f};
  predict::TrustRow t;
  t.lower = {2.5123456789, -std::numeric_limits<double>::infinity()};
  t.upper = {3.75, 1.5e-7};
  t.sigma = {0.2, std::nan("")};
  t.band = predict::DomainBand::Borderline;
  t.output_band = {predict::DomainBand::Out, predict::DomainBand::Borderline};
  t.reasons = {"radius-2 environment never in training at atom C3", "similarité 0.31 < 0.35"};
  t.nn_similarity = 0.3125;
  t.spread = {0.05, 0.125};
  t.distance = 0.6875;
  t.latent = 1.75;
  t.neighbour_error = {0.25, 0.375};
  row.trust = t;
  return row;
}

predict::DecodedPrediction decode(const std::string& text) {
  auto json = JsonValue::parse(text);
  EXPECT_TRUE(json.isOk()) << text;
  auto d = predict::readPredictionJson(json.value(), kOutputs);
  EXPECT_TRUE(d.isOk()) << d.status().toString() << " in " << text;
  return d.isOk() ? d.value() : predict::DecodedPrediction{};
}

void expectNear(double a, double b) {
  if (std::isnan(a)) {
    EXPECT_TRUE(std::isnan(b));
  } else if (std::isinf(a)) {
    EXPECT_EQ(a, b);
  } else {
    EXPECT_NEAR(a, b, 1e-8 * std::max(1.0, std::abs(a)));
  }
}

TEST(PredictionJson, EveryFieldSurvivesARoundTrip) {
  const predict::PredictedRow row = fullRow();
  const std::string text = predict::predictionJson(kOutputs, row, 3);
  const auto d = decode(text);
  EXPECT_EQ(d.duplicate_of, 3);
  EXPECT_EQ(d.row.id, row.id);
  EXPECT_EQ(d.row.input, row.input);
  EXPECT_EQ(d.row.canonical, row.canonical);
  EXPECT_TRUE(d.row.status.isOk());
  EXPECT_EQ(d.row.values, row.values) << "float values are written with enough digits to come back exactly";
  ASSERT_TRUE(d.row.trust.has_value());
  const auto& a = *row.trust;
  const auto& b = *d.row.trust;
  ASSERT_EQ(b.lower.size(), 2u);
  ASSERT_EQ(b.upper.size(), 2u);
  ASSERT_EQ(b.sigma.size(), 2u);
  for (size_t j = 0; j < 2; ++j) {
    expectNear(a.lower[j], b.lower[j]);
    expectNear(a.upper[j], b.upper[j]);
    expectNear(a.sigma[j], b.sigma[j]);
  }
  EXPECT_EQ(b.band, a.band);
  EXPECT_EQ(b.output_band, a.output_band);
  EXPECT_EQ(b.reasons, a.reasons);
  EXPECT_DOUBLE_EQ(b.nn_similarity, a.nn_similarity);
  EXPECT_EQ(b.spread, a.spread) << "σ's terms come back";
  EXPECT_DOUBLE_EQ(b.distance, a.distance);
  EXPECT_DOUBLE_EQ(b.latent, a.latent);
  EXPECT_EQ(b.neighbour_error, a.neighbour_error);
  EXPECT_EQ(predict::predictionJson(kOutputs, d.row, d.duplicate_of), text)
      << "writing what was read gives the same text";
}

TEST(PredictionJson, EveryStatusAndBandComesBack) {
  for (int c = 1; c <= static_cast<int>(StatusCode::Crashed); ++c) {
    predict::PredictedRow row;
    row.status = Status(static_cast<StatusCode>(c), "why " + std::to_string(c));
    row.values = {1.0f, 2.0f};  // not written for a failed row
    const auto d = decode(predict::predictionJson(kOutputs, row));
    EXPECT_EQ(d.row.status.code(), row.status.code()) << statusCodeName(row.status.code());
    EXPECT_EQ(d.row.status.message(), row.status.message());
    EXPECT_TRUE(d.row.values.empty());
    EXPECT_FALSE(d.row.trust.has_value());
    EXPECT_EQ(d.duplicate_of, -1);
  }
  for (auto band : {predict::DomainBand::In, predict::DomainBand::Borderline, predict::DomainBand::Out}) {
    predict::PredictedRow row = fullRow();
    row.trust->band = band;
    EXPECT_EQ(decode(predict::predictionJson(kOutputs, row)).row.trust->band, band);
  }
  predict::PredictedRow plain = fullRow();
  plain.trust.reset();
  EXPECT_FALSE(decode(predict::predictionJson(kOutputs, plain)).row.trust.has_value());
}

TEST(PredictionJson, AMalformedResultIsRefusedNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"id":"a"})", "'status'"},
      {R"({"status":"ok","values":[1,2]})", "'values'"},
      {R"({"status":"ok","values":{"gap_ev":"3.1"}})", "'values.gap_ev'"},
      {R"({"status":"ok","values":{},"trust":{"lower":{},"upper":{},"sigma":{},"domain":"far"}})", "'trust.domain'"},
      {R"({"status":"ok","values":{},"trust":{"lower":{},"upper":7,"sigma":{},"domain":"in"}})", "'upper'"},
      {R"({"status":"ok","values":{},"trust":{"lower":{},"upper":{},"sigma":{},"output_domain":{"gap_ev":"near"},"domain":"in"}})",
       "'trust.output_domain.gap_ev'"},
      {R"({"status":"ok","values":{},"trust":{"lower":{},"upper":{},"sigma":{},"domain":"in","sigma_terms":[]}})",
       "'trust.sigma_terms'"},
      {R"({"status":"ok","values":{},"trust":{"lower":{},"upper":{},"sigma":{},"domain":"in","sigma_terms":{"spread":{},"neighbour_error":{"gap_ev":"x"}}}})",
       "'neighbour_error.gap_ev'"},
      {R"([1,2])", "object"},
  };
  for (const auto& [text, field] : cases) {
    auto json = JsonValue::parse(text);
    ASSERT_TRUE(json.isOk()) << text;
    auto d = predict::readPredictionJson(json.value(), kOutputs);
    ASSERT_FALSE(d.isOk()) << text;
    EXPECT_NE(d.status().message().find(field), std::string::npos) << d.status().message();
  }
  // A missing output reads as NaN (the server predicts what its model has).
  auto json = JsonValue::parse(R"({"status":"ok","values":{"gap_ev":1.5}})");
  auto d = predict::readPredictionJson(json.value(), kOutputs);
  ASSERT_TRUE(d.isOk());
  EXPECT_FLOAT_EQ(d->row.values[0], 1.5f);
  EXPECT_TRUE(std::isnan(d->row.values[1]));
}

}  // namespace
}  // namespace gs
