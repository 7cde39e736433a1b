// Corrupt and mismatched checkpoints: each gives a specific error naming the problem, never a
// crash. Also run under AddressSanitizer (scripts/test.sh).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/model_fixture.h"
#include "model/checkpoint.h"
#include "model/format/safetensors.h"

namespace gs {
namespace {
namespace fs = std::filesystem;

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class CorruptCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gs_corrupt_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::copy_file(test::fixtureDir() + "/postln/config.json", dir_ / "config.json");
    auto file = model::readSafetensors(test::fixtureDir() + "/postln/model.safetensors");
    ASSERT_TRUE(file.isOk());
    tensors_ = file->tensors;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string weights() const { return (dir_ / "model.safetensors").string(); }
  void write(const std::string& bytes) const { std::ofstream(weights(), std::ios::binary) << bytes; }
  void writeTensors(const model::TensorList& t) const { ASSERT_TRUE(model::writeSafetensors(weights(), t).isOk()); }
  std::string loadError() const {
    auto m = model::loadModel(dir_.string());
    EXPECT_FALSE(m.isOk());
    return m.isOk() ? "" : m.status().message();
  }
  model::TensorList& tensors() { return tensors_; }

  fs::path dir_;
  model::TensorList tensors_;
};

TEST_F(CorruptCheckpoint, IntactCopyLoads) {
  writeTensors(tensors());
  auto m = model::loadModel(dir_.string());
  EXPECT_TRUE(m.isOk()) << m.status().toString();
}

TEST_F(CorruptCheckpoint, TruncatedFile) {
  const std::string bytes = readBytes(test::fixtureDir() + "/postln/model.safetensors");
  write(bytes.substr(0, bytes.size() / 2));
  EXPECT_NE(loadError().find("truncated"), std::string::npos) << loadError();
}

TEST_F(CorruptCheckpoint, HeaderPointsPastTheEnd) {
  std::string bytes = readBytes(test::fixtureDir() + "/postln/model.safetensors");
  bytes[5] = '\x7f';  // header length ~ 2^47
  write(bytes);
  EXPECT_NE(loadError().find("header length"), std::string::npos) << loadError();
  write(bytes.substr(0, 6));
  EXPECT_NE(loadError().find("8-byte header"), std::string::npos) << loadError();
}

TEST_F(CorruptCheckpoint, HeaderIsNotJson) {
  std::string bytes = readBytes(test::fixtureDir() + "/postln/model.safetensors");
  bytes[8] = '[';
  bytes[9] = '[';
  write(bytes);
  EXPECT_NE(loadError().find("JSON"), std::string::npos) << loadError();
}

TEST_F(CorruptCheckpoint, UnknownDtypeInHeader) {
  std::string bytes = readBytes(test::fixtureDir() + "/postln/model.safetensors");
  const auto at = bytes.find("\"F32\"");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 5, "\"Q32\"");
  write(bytes);
  EXPECT_NE(loadError().find("unsupported dtype 'Q32'"), std::string::npos) << loadError();
}

TEST_F(CorruptCheckpoint, IntegerWeights) {
  auto t = tensors();
  t[3].second = t[3].second.to(torch::kLong);
  writeTensors(t);
  const std::string e = loadError();
  EXPECT_NE(e.find("'" + t[3].first + "'"), std::string::npos) << e;
  EXPECT_NE(e.find("floating-point"), std::string::npos) << e;
}

TEST_F(CorruptCheckpoint, OneWrongShape) {
  auto t = tensors();
  for (auto& [name, tensor] : t)
    if (name == "encoder.graph_encoder.layers.1.fc1.weight") tensor = torch::zeros({47, 32});
  writeTensors(t);
  const std::string e = loadError();
  EXPECT_NE(e.find("'encoder.graph_encoder.layers.1.fc1.weight' has shape [47, 32]"), std::string::npos) << e;
  EXPECT_NE(e.find("[48, 32]"), std::string::npos) << e;
}

TEST_F(CorruptCheckpoint, MissingKey) {
  auto t = tensors();
  t.erase(std::remove_if(t.begin(), t.end(), [](const auto& p) { return p.first == "encoder.layer_norm.bias"; }),
          t.end());
  writeTensors(t);
  const std::string e = loadError();
  EXPECT_NE(e.find("lacks 1 weight"), std::string::npos) << e;
  EXPECT_NE(e.find("'encoder.layer_norm.bias'"), std::string::npos) << e;
}

TEST_F(CorruptCheckpoint, ExtraKey) {
  auto t = tensors();
  t.emplace_back("encoder.graph_encoder.layers.3.fc1.weight", torch::zeros({48, 32}));
  writeTensors(t);
  const std::string e = loadError();
  EXPECT_NE(e.find("does not use"), std::string::npos) << e;
  EXPECT_NE(e.find("'encoder.graph_encoder.layers.3.fc1.weight'"), std::string::npos) << e;
}

TEST_F(CorruptCheckpoint, NaNWeights) {
  auto t = tensors();
  t[5].second = t[5].second.clone();
  t[5].second.view(-1)[0] = std::numeric_limits<float>::quiet_NaN();
  writeTensors(t);
  const std::string e = loadError();
  EXPECT_NE(e.find("'" + t[5].first + "' contains NaN"), std::string::npos) << e;
}

TEST_F(CorruptCheckpoint, OverlappingAndHoleyOffsets) {
  std::string bytes = readBytes(test::fixtureDir() + "/postln/model.safetensors");
  const auto at = bytes.find("\"data_offsets\":[0,");
  if (at == std::string::npos) GTEST_SKIP() << "fixture header layout differs";
  bytes[at + 16] = '4';  // first tensor now starts at byte 4: a hole before it, wrong size
  write(bytes);
  EXPECT_FALSE(loadError().empty());
}

TEST_F(CorruptCheckpoint, EmptyDirectory) {
  fs::remove(dir_ / "config.json");
  const std::string e = loadError();
  EXPECT_NE(e.find("holds no checkpoint"), std::string::npos) << e;
}

TEST_F(CorruptCheckpoint, MissingConfigForPytorchBin) {
  fs::copy_file(test::fixtureDir() + "/postln/pytorch_model.bin", dir_ / "pytorch_model.bin");
  fs::remove(dir_ / "config.json");
  const std::string e = loadError();
  EXPECT_NE(e.find("no config.json"), std::string::npos) << e;
}

TEST_F(CorruptCheckpoint, ConfigThatDoesNotMatchTheWeights) {
  writeTensors(tensors());
  std::ofstream(dir_ / "config.json") << R"({"num_hidden_layers": 3, "embedding_dim": 64, "num_attention_heads": 4,
                                           "ffn_embedding_dim": 48, "num_classes": 2})";
  const std::string e = loadError();
  EXPECT_NE(e.find("has shape"), std::string::npos) << e;
}

TEST_F(CorruptCheckpoint, TruncatedPytorchZip) {
  const std::string bytes = readBytes(test::fixtureDir() + "/postln/pytorch_model.bin");
  std::ofstream(dir_ / "pytorch_model.bin", std::ios::binary) << bytes.substr(0, bytes.size() - 300);
  const std::string e = loadError();
  EXPECT_NE(e.find("PyTorch checkpoint"), std::string::npos) << e;
}

TEST_F(CorruptCheckpoint, LegacyPickleFormat) {
  std::ofstream(dir_ / "model.pt", std::ios::binary) << std::string("\x80\x02\x8a\x0a", 4) << "garbage";
  const std::string e = loadError();
  EXPECT_NE(e.find("legacy"), std::string::npos) << e;
}

TEST_F(CorruptCheckpoint, NotAModelAtAll) {
  std::ofstream(dir_ / "model.pt", std::ios::binary) << "just some text, not a zip archive";
  EXPECT_NE(loadError().find("zip"), std::string::npos) << loadError();
}

TEST(CheckpointFiles, ModelSavedByUsReloadsWithConfigAndMetadata) {
  const bundle::GraphormerConfig c = test::tinyConfig(2, 16, 24, 2, 2);
  model::Graphormer m(c);
  m->initializeWeights(3);
  bundle::ModelMetadata md;
  md.target_names = {"gap", "homo"};
  md.target_units = {"eV", "eV"};
  md.target_mean = {1.5, -2.0};
  md.target_std = {0.5, 2.0};
  md.convention = graph::Convention::HuggingFace;
  const auto dir = fs::temp_directory_path() / "gs_saved_model";
  fs::create_directories(dir);
  ASSERT_TRUE(model::saveModel((dir / "model.safetensors").string(), *m, md).isOk());
  auto loaded = model::loadModel(dir.string());
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  EXPECT_EQ(loaded->config.toJson(), c.toJson());
  EXPECT_EQ(loaded->metadata.target_names, md.target_names);
  EXPECT_EQ(loaded->metadata.target_std, md.target_std);
  EXPECT_EQ(loaded->metadata.convention, graph::Convention::HuggingFace);
  for (const auto& p : m->named_parameters())
    EXPECT_TRUE(p.value().equal(loaded->model->named_parameters()[p.key()])) << p.key();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gs
