// The prediction pipeline (predict/predictor.h): options as plain data, predictors sharing one
// loaded model across threads without changing it, and the one read -> featurize -> predict loop.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "data/smi_reader.h"
#include "jobs/bench_report.h"
#include "model/checkpoint.h"
#include "model/linear.h"
#include "model/loader.h"
#include "predict/predictor.h"

namespace gs {
namespace {

const std::string kDefaultModel = std::string(GS_SOURCE_DIR) + "/resources/models/accurate";

std::vector<data::RawRecord> records(int n) {
  std::ifstream in(std::string(GS_SOURCE_DIR) + "/data/xtb_gap_nci5k.csv");
  data::ReaderOptions ro;
  auto reader = data::makeReader(data::FileFormat::Csv, in, ro);
  std::vector<data::RawRecord> out;
  data::RawRecord r;
  while (static_cast<int>(out.size()) < n && reader->next(r)) out.push_back(r);
  return out;
}

predict::PredictorOptions nonDefaultOptions() {
  predict::PredictorOptions o;
  o.model = {"/models/run7", "/models/run7/adapter.safetensors"};
  o.session.device = "cuda:1";
  o.session.precision = tensor::Precision::BF16;
  o.session.threads = 3;
  o.session.plan.max_batch_size = 48;
  o.session.plan.bucketing = false;
  o.session.plan.window = 256;
  o.session.plan.max_padded_nodes = 9000;
  o.session.memory_budget_bytes = int64_t{3} << 30;
  o.session.convention = graph::Convention::HuggingFace;
  o.session.spatial_pos_max = 20;
  o.parse.max_atoms = 99;
  o.atom_order = chem::AtomOrder::AsWritten;
  o.trust = false;
  o.confidence = 0.8;
  o.strip_salts = true;
  return o;
}

TEST(PredictorOptions, RoundTripThroughJsonAndCompareEqual) {
  for (const auto& o : {predict::PredictorOptions{}, nonDefaultOptions()}) {
    const std::string json = predict::toJson(o);
    auto back = predict::predictorOptionsFromJson(json);
    ASSERT_TRUE(back.isOk()) << back.status().toString() << "\n" << json;
    EXPECT_TRUE(back.value() == o) << json;
    EXPECT_EQ(predict::toJson(back.value()), json);
  }
  EXPECT_FALSE(predict::PredictorOptions{} == nonDefaultOptions());
}

TEST(PredictorOptions, EveryFieldTakesPartInEquality) {
  const predict::PredictorOptions base;
  std::vector<std::function<void(predict::PredictorOptions&)>> changes{
      [](auto& o) { o.model.path = "x"; },
      [](auto& o) { o.model.adapter = "a"; },
      [](auto& o) { o.session.device = "cuda"; },
      [](auto& o) { o.session.precision = tensor::Precision::INT8; },
      [](auto& o) { o.session.threads = 2; },
      [](auto& o) { o.session.plan.max_batch_size = 7; },
      [](auto& o) { o.session.plan.bucketing = false; },
      [](auto& o) { o.session.plan.window = 9; },
      [](auto& o) { o.session.plan.max_padded_nodes = 5; },
      [](auto& o) { o.session.memory_budget_bytes = 1; },
      [](auto& o) { o.session.convention = graph::Convention::Official; },
      [](auto& o) { o.session.spatial_pos_max = 1024; },
      [](auto& o) { o.parse.max_atoms = 3; },
      [](auto& o) { o.atom_order = chem::AtomOrder::AsWritten; },
      [](auto& o) { o.trust = false; },
      [](auto& o) { o.confidence = 0.95; },
      [](auto& o) { o.strip_salts = true; }};
  for (size_t i = 0; i < changes.size(); ++i) {
    predict::PredictorOptions o = base;
    changes[i](o);
    EXPECT_TRUE(o != base) << "change " << i;
    auto back = predict::predictorOptionsFromJson(predict::toJson(o));
    ASSERT_TRUE(back.isOk());
    EXPECT_TRUE(back.value() == o) << "change " << i << ": " << predict::toJson(o);
  }
}

TEST(PredictorOptions, JsonErrorsNameTheKey) {
  auto unknown = predict::predictorOptionsFromJson(R"({"batchsize": 8})");
  ASSERT_FALSE(unknown.isOk());
  EXPECT_NE(unknown.status().message().find("batchsize"), std::string::npos);
  auto type = predict::predictorOptionsFromJson(R"({"threads": "four"})");
  ASSERT_FALSE(type.isOk());
  EXPECT_NE(type.status().message().find("threads"), std::string::npos);
  auto range = predict::predictorOptionsFromJson(R"({"batch_size": 0})");
  ASSERT_FALSE(range.isOk());
  auto precision = predict::predictorOptionsFromJson(R"({"precision": "fp8"})");
  ASSERT_FALSE(precision.isOk());
  EXPECT_NE(precision.status().message().find("fp8"), std::string::npos);
  EXPECT_FALSE(predict::predictorOptionsFromJson("[1, 2]").isOk());
  EXPECT_FALSE(predict::predictorOptionsFromJson("{").isOk());
}

TEST(PredictorOptions, MemoryBudgetRuleIsTheSameEverywhere) {
  engine::SessionOptions s;
  predict::setMemoryBudget(s, 64, std::nullopt);
  EXPECT_EQ(s.memory_budget_bytes, int64_t{64} << 20);
  EXPECT_EQ(s.plan.max_batch_size, predict::kBudgetBatchCap);
  predict::setMemoryBudget(s, 64, 16);
  EXPECT_EQ(s.plan.max_batch_size, 16);
  predict::setMemoryBudget(s, 0, 8);
  EXPECT_EQ(s.memory_budget_bytes, 0);
  EXPECT_EQ(s.plan.max_batch_size, 16);  // no budget: the batch size is left alone
}

// What must not change in a shared model: every parameter and buffer (values, dtype, device),
// training mode and int8 packing.
struct ModelSnapshot {
  std::vector<torch::Tensor> tensors;
  bool training = false;
  int packed = 0;
  explicit ModelSnapshot(model::GraphormerImpl& m) {
    for (const auto& p : m.parameters()) tensors.push_back(p.detach().clone());
    for (const auto& b : m.buffers()) tensors.push_back(b.detach().clone());
    training = m.is_training();
    for (auto& l : m.linears()) packed += l->isInt8() ? 1 : 0;
  }
  void expectSame(model::GraphormerImpl& m) const {
    const ModelSnapshot now(m);
    ASSERT_EQ(now.tensors.size(), tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
      EXPECT_EQ(now.tensors[i].scalar_type(), tensors[i].scalar_type());
      EXPECT_EQ(now.tensors[i].device(), tensors[i].device());
      EXPECT_TRUE(torch::equal(now.tensors[i], tensors[i])) << "tensor " << i;
    }
    EXPECT_EQ(now.training, training);
    EXPECT_EQ(now.packed, packed);
  }
};

std::vector<predict::PredictorOptions> mixedOptions() {
  std::vector<predict::PredictorOptions> out(4);
  out[1].session.precision = tensor::Precision::BF16;
  out[2].session.precision = tensor::Precision::INT8;
  out[3].session.plan.max_batch_size = 8;
  return out;
}

TEST(Predictor, PredictorsOnOneModelFromManyThreadsAgreeWithOneAloneAndLeaveTheModelUnchanged) {
  auto loaded = model::openModel(bundle::ModelSource{kDefaultModel, ""});
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  auto shared = std::make_shared<const model::LoadedModel>(std::move(loaded.value()));
  const ModelSnapshot before(*shared->model.ptr());
  const auto input = records(96);
  auto options = mixedOptions();
  std::string int8_error;
  if (!tensor::precisionAvailable(tensor::Precision::INT8, "cpu").isOk()) options.erase(options.begin() + 2);

  // Each configuration alone, one after the other.
  std::vector<std::vector<predict::PredictedRow>> alone;
  for (const auto& o : options) {
    auto p = predict::Predictor::open(shared, o);
    ASSERT_TRUE(p.isOk()) << p.status().toString();
    alone.push_back(p.value()->predict(input));
  }
  before.expectSame(*shared->model.ptr());

  // The same configurations at once, each twice, one thread per predictor (opened on its thread).
  std::vector<std::vector<predict::PredictedRow>> together(options.size() * 2);
  std::vector<std::string> errors(together.size());
  std::vector<std::thread> threads;
  for (size_t t = 0; t < together.size(); ++t)
    threads.emplace_back([&, t] {
      auto p = predict::Predictor::open(shared, options[t % options.size()]);
      if (!p.isOk()) return void(errors[t] = p.status().toString());
      together[t] = p.value()->predict(input);
    });
  for (auto& t : threads) t.join();
  for (size_t t = 0; t < together.size(); ++t) {
    ASSERT_TRUE(errors[t].empty()) << errors[t];
    const auto& ref = alone[t % options.size()];
    ASSERT_EQ(together[t].size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      ASSERT_EQ(together[t][i].status.code(), ref[i].status.code()) << "row " << i;
      ASSERT_EQ(together[t][i].values.size(), ref[i].values.size());
      for (size_t j = 0; j < ref[i].values.size(); ++j)
        EXPECT_NEAR(together[t][i].values[j], ref[i].values[j], 1e-5) << "thread " << t << " row " << i;
    }
  }
  before.expectSame(*shared->model.ptr());
  // INT8 and BF16 run a module of their own (sharing the loaded tensors, adding their int8 or
  // 16-bit copies); FP32 runs the loaded module.
  for (const auto& o : options) {
    auto p = predict::Predictor::open(shared, o);
    ASSERT_TRUE(p.isOk());
    EXPECT_EQ(p.value()->session().usesLoadedModule(), o.session.precision == tensor::Precision::FP32);
  }
  // Not a no-op: the predictions differ between precisions and are finite.
  size_t ok = 0;
  for (const auto& r : alone[0]) ok += r.status.isOk() && std::isfinite(r.values[0]) ? 1 : 0;
  EXPECT_GT(ok, 90u);
  EXPECT_NE(alone[0][0].values[0], alone[1][0].values[0]);
}

TEST(Predictor, SwitchingPrecisionKeepsTheSharedModelAsItWas) {
  if (!tensor::precisionAvailable(tensor::Precision::INT8, "cpu").isOk()) GTEST_SKIP() << "no int8 engine";
  auto loaded = model::openModel(bundle::ModelSource{kDefaultModel, ""});
  ASSERT_TRUE(loaded.isOk());
  auto shared = std::make_shared<const model::LoadedModel>(std::move(loaded.value()));
  const ModelSnapshot before(*shared->model.ptr());
  auto p = predict::Predictor::open(shared, {});
  ASSERT_TRUE(p.isOk());
  const auto input = records(16);
  const auto fp32 = p.value()->predict(input);
  ASSERT_TRUE(p.value()->session().setPrecision(tensor::Precision::INT8).isOk());
  EXPECT_FALSE(p.value()->session().usesLoadedModule());
  const auto int8 = p.value()->predict(input);
  before.expectSame(*shared->model.ptr());
  ASSERT_TRUE(p.value()->session().setPrecision(tensor::Precision::FP32).isOk());
  EXPECT_TRUE(p.value()->session().usesLoadedModule());
  const auto again = p.value()->predict(input);
  for (size_t i = 0; i < fp32.size(); ++i) {
    ASSERT_TRUE(fp32[i].status.isOk());
    EXPECT_EQ(again[i].values, fp32[i].values);  // the same module, shapes and thread count
    EXPECT_NEAR(int8[i].values[0], fp32[i].values[0], 0.5);
  }
}

TEST(Predictor, StreamKeepsOneRowPerInputRowInOrderAndCancelsTheRest) {
  auto p = predict::Predictor::open(predict::PredictorOptions{{kDefaultModel, ""}, {}, {}, chem::AtomOrder::Canonical});
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  auto input = records(20);
  input[3].text = "C1CC";  // unclosed ring
  input[3].kind = data::RecordKind::Smiles;
  predict::VectorReader source(input);
  std::vector<predict::PredictedRow> out;
  int chunks = 0;
  engine::RunCallbacks callbacks;
  callbacks.cancelled = [&] { return chunks >= 2; };
  auto summary = predict::predictStream(
      *p.value(), source,
      [&](const std::vector<predict::PredictedRow>& rows) {
        ++chunks;
        out.insert(out.end(), rows.begin(), rows.end());
        return Status::ok();
      },
      callbacks, /*chunk_rows=*/6);
  ASSERT_TRUE(summary.isOk()) << summary.status().toString();
  EXPECT_TRUE(summary->cancelled);
  ASSERT_EQ(out.size(), input.size());
  EXPECT_EQ(summary->rows, static_cast<int64_t>(input.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].row, input[i].row);
    EXPECT_EQ(out[i].input, input[i].text);
    if (i == 3)
      EXPECT_EQ(out[i].status.code(), StatusCode::SyntaxError) << out[i].status.toString();
    else if (i < 12)
      EXPECT_TRUE(out[i].status.isOk()) << i << " " << out[i].status.toString();
    else
      EXPECT_EQ(out[i].status.code(), StatusCode::Cancelled) << i;
  }
  EXPECT_EQ(summary->by_status["cancelled"], 8);
  // A sink error stops the stream and is returned.
  predict::VectorReader again(input);
  auto failed = predict::predictStream(*p.value(), again, [](const std::vector<predict::PredictedRow>&) {
    return Status(StatusCode::IoError, "disk full");
  });
  ASSERT_FALSE(failed.isOk());
  EXPECT_EQ(failed.status().message(), "disk full");
}

TEST(Predictor, RunRecordDescribesTheModelAndSettings) {
  predict::PredictorOptions o;
  o.model = {kDefaultModel, ""};
  o.session.plan.max_batch_size = 12;
  auto p = predict::Predictor::open(o);
  ASSERT_TRUE(p.isOk());
  const auto r = p.value()->runRecord();
  EXPECT_EQ(r.batch_size, 12);
  EXPECT_EQ(r.precision, "fp32");
  EXPECT_EQ(r.model_sha256.size(), 64u);
  // The default model predicts several properties, each with its unit; gap_ev first.
  const std::vector<std::string> properties{"gap_ev",        "homo_ev",          "lumo_ev",
                                            "dipole_debye",  "polarizability_bohr3", "dg_water_kcal",
                                            "dg_octanol_kcal", "logp_xtb"};
  EXPECT_EQ(r.output_names, properties);
  EXPECT_EQ(r.outputs, static_cast<int>(properties.size()));
  ASSERT_EQ(r.output_units.size(), properties.size());
  EXPECT_EQ(r.output_units[0], "eV");
  EXPECT_EQ(r.output_units[3], "D");
  EXPECT_EQ(p.value()->header().front(), "row");
  // Every value first (read across), then each output's interval, σ and band.
  std::vector<std::string> header{"row", "id", "smiles", "canonical_smiles", "status"};
  header.insert(header.end(), properties.begin(), properties.end());
  for (const auto& name : properties)
    for (const char* suffix : {"_lower", "_upper", "_sigma", "_domain"}) header.push_back(name + suffix);
  for (const char* column : {"domain", "domain_reasons", "nn_similarity", "message"}) header.push_back(column);
  EXPECT_EQ(p.value()->header(), header);
  EXPECT_EQ(r.confidence, 0.9);
  EXPECT_FALSE(r.strip_salts);
}

// The SMILES of the mirror image: every tetrahedral mark inverted (@ <-> @@).
std::string mirrored(const std::string& smiles) {
  std::string out;
  for (size_t i = 0; i < smiles.size(); ++i) {
    if (smiles[i] != '@') {
      out += smiles[i];
      continue;
    }
    const bool twice = i + 1 < smiles.size() && smiles[i + 1] == '@';
    out += twice ? "@" : "@@";
    i += twice ? 1 : 0;
  }
  return out;
}

std::vector<predict::PredictedRow> predictSmiles(predict::Predictor& p, const std::vector<std::string>& smiles) {
  std::vector<data::RawRecord> records(smiles.size());
  for (size_t i = 0; i < smiles.size(); ++i) {
    records[i].row = static_cast<int64_t>(i) + 1;
    records[i].text = smiles[i];
  }
  return p.predict(records);
}

TEST(Predictor, EnantiomersGetTheSamePredictionWhenTheTargetsAreMirrorInvariant) {
  // L-alanine, (S)-nicotine, (1R,2S)-ephedrine (two stereocentres), L-threonine, and an achiral
  // molecule; each followed by its mirror image, the chiral ones in a different batch position.
  const std::vector<std::string> chiral{"N[C@@H](C)C(=O)O", "CN1CCC[C@H]1c1cccnc1", "C[C@H](NC)[C@@H](O)c1ccccc1",
                                        "C[C@@H](O)[C@H](N)C(=O)O"};
  std::vector<std::string> input = chiral;
  input.push_back("c1ccccc1O");
  for (auto it = chiral.rbegin(); it != chiral.rend(); ++it) input.push_back(mirrored(*it));
  ASSERT_EQ(mirrored("C[C@H](N)[C@@H](O)C"), "C[C@@H](N)[C@H](O)C");
  auto loaded = model::openModel(bundle::ModelSource{kDefaultModel, ""});
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  ASSERT_TRUE(loaded->metadata.mirrorInvariant()) << "the bundled model declares a mirror-invariant target";
  auto invariant = std::make_shared<const model::LoadedModel>(loaded.value());
  auto plain_model = std::make_shared<model::LoadedModel>(loaded.value());
  plain_model->metadata.mirror_invariant = false;
  auto averaged = predict::Predictor::open(invariant, {});
  auto plain = predict::Predictor::open(plain_model, {});
  ASSERT_TRUE(averaged.isOk() && plain.isOk());
  const auto a = predictSmiles(*averaged.value(), input);
  const auto b = predictSmiles(*plain.value(), input);
  const size_t n = chiral.size();
  double largest_plain_gap = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& left = a[i];
    const auto& right = a[input.size() - 1 - i];
    ASSERT_TRUE(left.status.isOk() && right.status.isOk()) << chiral[i];
    EXPECT_NEAR(left.values[0], right.values[0], 1e-4) << chiral[i] << " and its mirror image";
    // The average of what the model says for the two.
    const double mean = 0.5 * (b[i].values[0] + b[input.size() - 1 - i].values[0]);
    EXPECT_NEAR(left.values[0], mean, 1e-4) << chiral[i];
    largest_plain_gap =
        std::max(largest_plain_gap, std::abs(double(b[i].values[0]) - b[input.size() - 1 - i].values[0]));
    ASSERT_TRUE(left.trust && right.trust);
    EXPECT_NEAR(left.trust->lower[0], right.trust->lower[0], 1e-4) << chiral[i];
    EXPECT_NEAR(left.trust->upper[0], right.trust->upper[0], 1e-4) << chiral[i];
  }
  EXPECT_GT(largest_plain_gap, 1e-3) << "the model alone tells these enantiomers apart (else this test proves nothing)";
  EXPECT_NEAR(a[n].values[0], b[n].values[0], 1e-5) << "an achiral molecule is predicted once, as before";
  EXPECT_TRUE(averaged.value()->runRecord().mirror_averaged);
  EXPECT_FALSE(plain.value()->runRecord().mirror_averaged);
}

TEST(BenchReport, TableCsvAndJsonCarryEveryMode) {
  engine::ModeResult ok;
  ok.mode = {tensor::Precision::BF16, 0.5, 64, {}};
  ok.molecules = 10;
  ok.ms_per_molecule = 1.5;
  ok.peak_tensor_bytes = 3 << 20;
  engine::ModeResult off;
  off.mode = {tensor::Precision::INT8, 0.0, 32, {}};
  off.status = Status(StatusCode::InvalidArgument, "no int8 engine");
  ok.output_mean_abs_delta = {0.0125, 3.5};
  ok.output_max_abs_delta = {0.5, 7.0};
  const std::vector<engine::ModeResult> results{ok, off};
  std::string text = jobs::formatComparison(results);
  EXPECT_NE(text.find(ok.mode.label()), std::string::npos);
  EXPECT_NE(text.find("no int8 engine"), std::string::npos);
  EXPECT_EQ(text.find("per output"), std::string::npos);  // no names given: one table
  // With the outputs named, each one's mean |d| in its unit, a line per mode that ran.
  text = jobs::formatComparison(results, {"gap_ev (eV)", "dipole_debye (D)"});
  EXPECT_NE(text.find("mean |d| per output (in its unit):  gap_ev (eV)  dipole_debye (D)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("1.25e-02   3.50e+00"), std::string::npos) << text;
  const auto dir = std::filesystem::temp_directory_path() / ("gs_report_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(jobs::writeComparisonJson((dir / "r.json").string(), results).isOk());
  ASSERT_TRUE(jobs::writeComparisonCsv((dir / "r.csv").string(), results).isOk());
  std::ifstream json(dir / "r.json"), csv(dir / "r.csv");
  std::stringstream js, cs;
  js << json.rdbuf();
  cs << csv.rdbuf();
  for (const char* key : {"\"mode\"", "\"precision\"", "\"checkpoint_ratio\"", "\"batch_size\"", "\"ms_per_molecule\"",
                          "\"peak_tensor_bytes\"", "\"max_abs_delta\"", "\"message\"",
                          "\"output_mean_abs_delta\":[0.0125,3.5]", "\"output_max_abs_delta\":[0.5,7]"})
    EXPECT_NE(js.str().find(key), std::string::npos) << key;
  EXPECT_NE(js.str().find("no int8 engine"), std::string::npos);
  int lines = 0;
  for (std::string line; std::getline(cs, line);) ++lines;
  EXPECT_EQ(lines, 3);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gs
