// The precision table (tensor/precision.h): each row is consistent with itself, and the questions
// the engine asks of a precision (availability, training, dtypes) follow its row.
#include <gtest/gtest.h>

#include <set>

#include "tensor/precision.h"
#include "tensor/precision_dtype.h"

namespace gs {
namespace {

using tensor::NumberFormat;

TEST(PrecisionTable, NamesParseBackAndTheErrorListsEveryName) {
  std::set<std::string> names;
  for (const auto& t : tensor::precisionTable()) {
    EXPECT_TRUE(names.insert(t.name).second) << "duplicate name " << t.name;
    auto parsed = tensor::parsePrecision(t.name);
    ASSERT_TRUE(parsed.isOk()) << t.name;
    EXPECT_EQ(parsed.value(), t.precision);
    EXPECT_STREQ(tensor::precisionName(t.precision), t.name);
    EXPECT_EQ(&tensor::traits(t.precision), &t);
    EXPECT_STRNE(t.summary, "");
  }
  auto bad = tensor::parsePrecision("fp8");
  ASSERT_FALSE(bad.isOk());
  for (const auto& n : names) EXPECT_NE(bad.status().message().find(n), std::string::npos) << n;
}

TEST(PrecisionTable, SixteenBitRowsHaveSixteenBitFormatsAndDtypes) {
  for (const auto& t : tensor::precisionTable()) {
    const bool half = t.products == NumberFormat::BFloat16 || t.products == NumberFormat::Float16;
    EXPECT_EQ(t.sixteen_bit, half) << t.name;
    EXPECT_EQ(c10::elementSize(tensor::productType(t.precision)), t.sixteen_bit                      ? 2u
                                                                  : t.products == NumberFormat::Int8 ? 1u
                                                                                                     : 4u)
        << t.name;
    if (t.weights == NumberFormat::Int8) {
      EXPECT_EQ(tensor::weightType(t.precision), c10::ScalarType::Float) << t.name;
    }
    EXPECT_LE(t.mean_abs_vs_fp32, t.max_abs_vs_fp32) << t.name;
    EXPECT_EQ(t.precision == tensor::Precision::FP32, t.max_abs_vs_fp32 == 0.0) << "only the reference is exact";
  }
}

TEST(PrecisionTable, TrainingFollowsTheRows) {
  const std::string choices = tensor::precisionChoices(true);
  for (const auto& t : tensor::precisionTable()) {
    const Status cpu = tensor::trainingPrecisionAvailable(t.precision, "cpu");
    EXPECT_EQ(choices.find(t.name) != std::string::npos, t.trains) << t.name;
    if (!t.trains || !t.trains_on_cpu) {
      ASSERT_FALSE(cpu.isOk()) << t.name << " must not train on the CPU";
      EXPECT_NE(cpu.message().find(t.training_note), std::string::npos) << cpu.message();
    } else {
      EXPECT_EQ(cpu.isOk(), tensor::precisionAvailable(t.precision, "cpu").isOk()) << t.name;
    }
    if (!t.trains) {
      EXPECT_FALSE(t.loss_scaling) << t.name;
    }
  }
  EXPECT_TRUE(tensor::trainingPrecisionAvailable(tensor::Precision::FP32, "cpu").isOk());
}

TEST(PrecisionTable, CpuOnlyRowsAreRefusedElsewhereWithTheirNote) {
  for (const auto& t : tensor::precisionTable()) {
    if (!t.cpu_only) continue;
    const Status s = tensor::precisionAvailable(t.precision, "cuda");
    ASSERT_FALSE(s.isOk()) << t.name;
    // Without CUDA the device itself is refused first; with it, the row's note says why.
    EXPECT_TRUE(s.message().find(t.device_note) != std::string::npos || s.message().find("CUDA") != std::string::npos)
        << s.message();
  }
}

}  // namespace
}  // namespace gs
