// Predictions are a property of the molecule, not of how its SMILES happens to number the atoms.
#include <gtest/gtest.h>

#include "chem/featurize.h"
#include "core/fixture.h"
#include "engine/inference_session.h"
#include "model/checkpoint.h"
#include "tensor/collate.h"

namespace gs {
namespace {

TEST(AtomOrder, RandomSmilesOfOneMoleculeGiveTheSamePrediction) {
  auto model = model::loadModel(test::fixtureDir() + "/postln");
  ASSERT_TRUE(model.isOk()) << model.status().toString();
  auto session = engine::InferenceSession::create(std::move(model.value()), {});
  ASSERT_TRUE(session.isOk());
  auto& s = *session.value();
  int checked = 0;
  for (const auto& row : test::loadFeatureFixture()) {
    const std::string smiles = row["smiles"].get<std::string>();
    data::RawRecord record;
    record.text = smiles;
    auto reference = chem::featurizeRecord(record);
    ASSERT_TRUE(reference.features) << smiles;
    const auto expected = s.predict({&*reference.features});
    for (unsigned seed = 1; seed <= 4; ++seed) {
      const std::string shuffled = chem::randomSmiles(*chem::parseSmiles(smiles).mol, seed);
      record.text = shuffled;
      auto variant = chem::featurizeRecord(record);
      ASSERT_TRUE(variant.features) << shuffled;
      ASSERT_EQ(variant.canonical, reference.canonical) << shuffled;
      const auto got = s.predict({&*variant.features});
      for (int c = 0; c < s.numOutputs(); ++c)
        EXPECT_NEAR(got[0].values[c], expected[0].values[c], 1e-4) << smiles << " as " << shuffled;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 64 * 4);
}

}  // namespace
}  // namespace gs
