// Descriptors, labelled data and the scaffold split on real molecules (the xTB gap dataset).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "chem/descriptors.h"
#include "jobs/evaluate_job.h"
#include "jobs/labelled_data.h"
#include "temp_files.h"

namespace gs {
namespace {

const std::string kGapCsv = std::string(GS_SOURCE_DIR) + "/data/xtb_gap_nci5k.csv";

TEST(Descriptors, MurckoScaffoldAndMorganFingerprint) {
  auto scaffold = [](const char* smi) { return chem::murckoScaffold(*chem::parseSmiles(smi).mol); };
  EXPECT_EQ(scaffold("OCCc1ccccc1"), "c1ccccc1");
  EXPECT_EQ(scaffold("CC(=O)Nc1ccc(O)cc1"), "c1ccccc1");
  EXPECT_EQ(scaffold("c1ccc(Cc2ccncc2)cc1C"), "c1ccc(Cc2ccncc2)cc1");
  EXPECT_EQ(scaffold("CCCCO"), "");  // acyclic
  // Two SMILES of one molecule: the same fingerprint and scaffold.
  const auto a = chem::parseSmiles("OC(=O)c1ccccc1O"), b = chem::parseSmiles("c1cc(O)c(cc1)C(O)=O");
  const auto fa = chem::morganFingerprint(*a.mol), fb = chem::morganFingerprint(*b.mol);
  EXPECT_EQ(fa.words, fb.words);
  EXPECT_EQ(fa.numBits(), 2048);
  EXPECT_GT(fa.on_bits, 5);
  EXPECT_DOUBLE_EQ(similarity::tanimoto(fa, fb), 1.0);
  const auto c = chem::parseSmiles("CCCCCCCC");
  EXPECT_LT(similarity::tanimoto(fa, chem::morganFingerprint(*c.mol)), 0.2);
}

TEST(LabelledData, ScaffoldSplitOfTheGapDataKeepsEveryScaffoldInOneSubset) {
  jobs::LabelledDataOptions o;
  o.input = kGapCsv;
  o.targets = {"gap_ev"};
  o.scaffolds = true;
  auto d = jobs::readLabelled(o);
  ASSERT_TRUE(d.isOk()) << d.status().toString();
  // Rows whose calculation failed have an empty gap: skipped as having no target.
  EXPECT_GT(d->rows.size(), 4500u);
  EXPECT_GT(d->skipped["no_target"], 0);
  ASSERT_EQ(d->scaffolds.size(), d->rows.size());
  data::SplitOptions s;
  s.kind = data::SplitKind::Scaffold;
  s.seed = 1;
  auto split = jobs::splitLabelled(d.value(), s);
  ASSERT_TRUE(split.isOk());
  std::map<std::string, std::set<data::Subset>> where;
  std::map<data::Subset, int> count;
  for (size_t i = 0; i < d->rows.size(); ++i) {
    where[d->scaffolds[i]].insert(split.value()[i]);
    ++count[split.value()[i]];
  }
  for (const auto& [scaffold, subsets] : where) EXPECT_EQ(subsets.size(), 1u) << scaffold;
  EXPECT_GT(where.size(), 500u);  // the NCI set is diverse (943 scaffolds)
  EXPECT_NEAR(count[data::Subset::Test] / double(d->rows.size()), 0.1, 0.02);
  // The split file lists every usable row once.
  const auto path = std::filesystem::temp_directory_path() / ("gs_split_" + std::to_string(::getpid()) + ".csv");
  ASSERT_TRUE(jobs::writeSplitFile(path.string(), d.value(), split.value()).isOk());
  std::ifstream in(path);
  std::string line;
  size_t lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, d->rows.size() + 1);
  // ... and reading it back gives the same subsets, whatever the split options then say.
  data::SplitOptions from_file;
  from_file.file = path.string();
  auto again = jobs::splitLabelled(d.value(), from_file);
  ASSERT_TRUE(again.isOk()) << again.status().toString();
  EXPECT_EQ(again.value(), split.value());
  // A split of other molecules (ids differ) or of fewer rows is refused by name.
  auto& rows = d.value().rows;  // edited in place and restored (rows cannot be copied)
  const auto id7 = rows[7].id;
  const int64_t row7 = rows[7].row;
  rows[7].id = "not-in-the-file";
  auto refused = jobs::splitLabelled(d.value(), from_file);
  ASSERT_FALSE(refused.isOk());
  EXPECT_NE(refused.status().message().find("another file"), std::string::npos) << refused.status().message();
  rows[7].id = id7;
  rows[7].row = rows.back().row + 100;
  refused = jobs::splitLabelled(d.value(), from_file);
  ASSERT_FALSE(refused.isOk());
  EXPECT_NE(refused.status().message().find("no subset for input row"), std::string::npos);
  rows[7].row = row7;
  std::filesystem::remove(path);
  from_file.file = path.string();
  EXPECT_NE(jobs::splitLabelled(d.value(), from_file).status().message().find("cannot be opened"), std::string::npos);
}

TEST(Evaluate, BaselinesOnTheGapDataBeatTheMeanPredictor) {
  jobs::EvaluateJobOptions o;
  o.input = kGapCsv;
  o.targets = {"gap_ev"};
  o.split.seed = 1;
  auto r = jobs::runEvaluate(o);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  ASSERT_EQ(r->methods.size(), 3u);  // no model given
  const double mean = r->methods[0].test_mae[0], ridge = r->methods[1].test_mae[0], knn = r->methods[2].test_mae[0];
  EXPECT_LT(ridge, 0.8 * mean);
  EXPECT_LT(knn, 0.8 * mean);
  int64_t binned = 0;
  for (const auto& b : r->by_size) binned += b.count;
  EXPECT_EQ(binned, r->test);
  EXPECT_NE(jobs::formatReport(r.value()).find("5-NN Tanimoto"), std::string::npos);
}

}  // namespace
}  // namespace gs

namespace gs {
namespace {

// The bundled default model (resources/models/accurate, see its MODEL.md) against the baselines
// on its own held-out test molecules: the cluster split it was trained with, read from its
// split.csv, so the test molecules belong to Butina clusters the model never saw. Every property
// must beat the 5 nearest training molecules, and the gap by a wide margin. The first 16,000 of
// the 55,000 rows (about 1,600 test molecules; baselines fitted on that part's training rows)
// keep the test to a minute; `graphormer-cli evaluate` on the whole file gives the card's figures.
TEST(DefaultModel, BeatsFiveNearestNeighboursOnEveryPropertyOfItsHeldOutClusters) {
  const std::string dir = std::string(GS_SOURCE_DIR) + "/resources/models/accurate";
  const testing_files::TempDir tmp("gs_props_head_");
  jobs::EvaluateJobOptions o;
  o.input = testing_files::csvSlice(std::string(GS_SOURCE_DIR) + "/data/xtb_props_brics55k.csv.gz", tmp.path,
                                    "head.csv", 0, 16000);
  o.with_model = true;
  o.predictor.model = bundle::ModelSource{dir, ""};
  o.split.kind = data::SplitKind::Cluster;
  o.split.seed = 1;
  o.split.file = dir + "/split.csv";
  o.ridge_lambdas = {10, 100};  // the choice is not what this test is about
  auto r = jobs::runEvaluate(o);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  ASSERT_EQ(r->methods.size(), 4u);
  ASSERT_EQ(r->methods[2].method, "knn");
  ASSERT_EQ(r->methods[3].method, "model");
  ASSERT_GE(r->targets.size(), 8u);
  EXPECT_EQ(r->targets[0], "gap_ev");
  EXPECT_GT(r->test, 1200);
  EXPECT_TRUE(r->note.empty()) << r->note;  // the trust data was built on this very split
  for (size_t j = 0; j < r->targets.size(); ++j) {
    const double model = r->methods[3].test_mae[j], knn = r->methods[2].test_mae[j];
    std::printf("[ figure ] %s: model test MAE %.4f, 5-NN %.4f (%.2fx)\n", r->targets[j].c_str(), model, knn,
                model / knn);
    EXPECT_LT(model, knn) << r->targets[j];
  }
  EXPECT_LE(r->methods[3].test_mae[0], 0.6 * r->methods[2].test_mae[0]) << "gap: at most 0.6x the 5-NN error";
}

}  // namespace
}  // namespace gs

#include "engine/attribution.h"
#include "model/checkpoint.h"

namespace gs {
namespace {

// Integrated gradients on the bundled model: completeness at 64 steps on 50 NCI molecules.
TEST(DefaultModel, IntegratedGradientsAreCompleteAt64Steps) {
  auto model = model::loadModel(std::string(GS_SOURCE_DIR) + "/resources/models/accurate");
  ASSERT_TRUE(model.isOk()) << model.status().toString();
  std::ifstream in("/usr/share/RDKit/Data/NCI/first_5K.smi");
  std::vector<graph::Featurized> graphs;
  std::string line;
  while (graphs.size() < 50 && std::getline(in, line)) {
    data::RawRecord r;
    r.text = line.substr(0, line.find_first_of(" \t"));
    auto row = chem::featurizeRecord(r);
    if (row.features) graphs.push_back(std::move(*row.features));
  }
  std::vector<const graph::Featurized*> mols;
  for (const auto& g : graphs) mols.push_back(&g);
  using Baseline = engine::AttributionOptions::Baseline;
  for (Baseline baseline : {Baseline::MeanAtom, Baseline::Carbon}) {
    engine::AttributionOptions o;
    o.steps = 64;
    o.baseline = baseline;
    auto a = engine::attribute(model.value(), mols, o);
    ASSERT_TRUE(a.isOk()) << a.status().toString();
    std::vector<double> gaps;
    for (const auto& r : a.value()) {
      ASSERT_TRUE(r.status.isOk());
      const double span = std::abs(r.prediction - r.baseline_prediction);
      if (span > 0.01) {  // eV
        gaps.push_back(std::abs(r.completeness_gap) / span);
      } else {
        EXPECT_LT(std::abs(r.completeness_gap), 1e-3);
      }
    }
    std::sort(gaps.begin(), gaps.end());
    ASSERT_GT(gaps.size(), 25u) << "most of the 50 molecules move the prediction by more than 0.01 eV";
    std::printf(
        "[ figure ] default model, %s baseline, 64 steps: completeness gap median %.4f %%, worst %.3f %% over %zu molecules\n",
        engine::baselineName(baseline), 100 * gaps[gaps.size() / 2], 100 * gaps.back(), gaps.size());
    EXPECT_LT(gaps.back(), 0.01) << engine::baselineName(baseline);
  }
}

}  // namespace
}  // namespace gs
