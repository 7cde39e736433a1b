// A short training run on RDKit's TPSA data (NCI first_5k.tpsa.csv) must learn: its validation MAE
// is well under the mean predictor's.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "chem/featurize.h"
#include "engine/trainer.h"

namespace gs {
namespace {

TEST(TrainTpsa, ShortRunBeatsTheMeanPredictorClearly) {
  std::ifstream in("/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv");
  if (!in) GTEST_SKIP() << "RDKit's NCI TPSA data is not installed";
  std::vector<chem::MoleculeRow> rows;
  std::vector<float> tpsa;
  std::string line;
  while (rows.size() < 900 && std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto comma = line.rfind(',');
    data::RawRecord r;
    r.text = line.substr(0, comma);
    auto row = chem::featurizeRecord(r);
    if (!row.features || row.features->numNodes() > 60) continue;
    rows.push_back(std::move(row));
    tpsa.push_back(std::stof(line.substr(comma + 1)));
  }
  ASSERT_EQ(rows.size(), 900u);
  std::vector<engine::TrainExample> train, valid;
  for (size_t i = 0; i < rows.size(); ++i) (i % 6 == 5 ? valid : train).push_back({&*rows[i].features, {tpsa[i]}});

  model::LoadedModel m;
  m.config.num_hidden_layers = 3;
  m.config.embedding_dim = 32;
  m.config.ffn_embedding_dim = 64;
  m.config.num_attention_heads = 4;
  m.config.dropout = 0.0;
  m.config.attention_dropout = 0.0;
  m.config.activation_dropout = 0.0;
  m.model = model::Graphormer(m.config);
  m.model->initializeWeights(7);
  engine::TrainOptions o;
  o.epochs = 10;
  o.batch_size = 32;
  o.learning_rate = 1e-3;
  o.seed = 7;
  engine::Trainer trainer(std::move(m), o);
  auto summary = trainer.fit(train, valid);
  ASSERT_TRUE(summary.isOk()) << summary.status().toString();

  double mean = 0;
  for (const auto& e : train) mean += e.targets[0];
  mean /= double(train.size());
  double baseline = 0;
  for (const auto& e : valid) baseline += std::abs(e.targets[0] - mean);
  baseline /= double(valid.size());
  const double mae = trainer.evaluate(valid)[0];
  std::printf("[ measured ] TPSA validation MAE %.2f vs mean predictor %.2f (ratio %.3f), best epoch %d\n", mae,
              baseline, mae / baseline, summary->best_epoch);
  EXPECT_LT(mae / baseline, 0.5);
}

}  // namespace
}  // namespace gs
