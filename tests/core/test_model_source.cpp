// bundle::resolveModel: what every command and the app load for a ModelSource, torch-free.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "bundle/lora_spec.h"
#include "bundle/model_source.h"
#include "bundle/safetensors_header.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

// A safetensors file with no tensors and the given JSON header.
void writeHeaderOnly(const fs::path& path, const std::string& header) {
  std::ofstream out(path, std::ios::binary);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
  out << header;
}

std::string adapterHeader(const std::string& base_path) {
  return R"({"__metadata__":{"graphormer_adapter":"{\"rank\":2,\"alpha\":4,\"base_path\":\")" + base_path + R"(\"}"}})";
}

class ModelSource : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("gs_source_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "model");
    writeHeaderOnly(dir / "model/model.safetensors", "{}");
    std::ofstream(dir / "model/config.json") << "{}";
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string p(const std::string& name) const { return (dir / name).string(); }
  fs::path dir;
};

TEST_F(ModelSource, ADirectoryResolvesToItsWeightsAndConfig) {
  auto r = bundle::resolveModel({p("model"), ""});
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  EXPECT_EQ(r->weights, p("model/model.safetensors"));
  EXPECT_EQ(r->config, p("model/config.json"));
  EXPECT_TRUE(r->adapter.empty());
  EXPECT_FALSE(r->bundled_default);
  EXPECT_EQ(r->files(), (std::vector<std::string>{p("model/model.safetensors"), p("model/config.json")}));
  // The weights file itself gives the same files.
  auto f = bundle::resolveModel({p("model/model.safetensors"), ""});
  ASSERT_TRUE(f.isOk());
  EXPECT_EQ(f->files(), r->files());
}

TEST_F(ModelSource, AnEmptyPathIsTheBundledDefaultModel) {
  auto r = bundle::resolveModel({});
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  EXPECT_TRUE(r->bundled_default);
  EXPECT_TRUE(fs::exists(r->weights));
  EXPECT_EQ(fs::path(r->weights).filename(), "model.safetensors");
}

TEST_F(ModelSource, AnAdapterFindsItsRecordedBase) {
  fs::create_directories(dir / "run");
  writeHeaderOnly(dir / "run/adapter.safetensors", adapterHeader(p("model")));
  for (const std::string& path : {p("run"), p("run/adapter.safetensors")}) {
    auto r = bundle::resolveModel({path, ""});
    ASSERT_TRUE(r.isOk()) << path << ": " << r.status().toString();
    EXPECT_EQ(r->weights, p("model/model.safetensors")) << path;
    EXPECT_EQ(r->adapter, p("run/adapter.safetensors")) << path;
    EXPECT_EQ(r->files().size(), 3u);
  }
  auto spec = bundle::readAdapterSpec(p("run/adapter.safetensors"));
  ASSERT_TRUE(spec.isOk());
  EXPECT_EQ(spec->rank, 2);
  EXPECT_DOUBLE_EQ(spec->alpha, 4.0);
  // An explicit adapter on an explicit base.
  auto e = bundle::resolveModel({p("model"), p("run/adapter.safetensors")});
  ASSERT_TRUE(e.isOk());
  EXPECT_EQ(e->adapter, p("run/adapter.safetensors"));
  EXPECT_EQ(bundle::ModelSource({p("model"), "a"}), bundle::ModelSource({p("model"), "a"}));
  EXPECT_NE(bundle::ModelSource({p("model"), "a"}), bundle::ModelSource({p("model"), ""}));
}

TEST_F(ModelSource, ProblemsAreNamed) {
  auto missing = bundle::resolveModel({p("nope"), ""});
  ASSERT_FALSE(missing.isOk());
  EXPECT_NE(missing.status().message().find("does not exist"), std::string::npos);
  fs::create_directories(dir / "empty");
  auto empty = bundle::resolveModel({p("empty"), ""});
  ASSERT_FALSE(empty.isOk());
  EXPECT_NE(empty.status().message().find("holds no checkpoint"), std::string::npos);
  fs::create_directories(dir / "two");
  writeHeaderOnly(dir / "two/a.pt", "{}");
  writeHeaderOnly(dir / "two/b.pt", "{}");
  auto two = bundle::resolveModel({p("two"), ""});
  ASSERT_FALSE(two.isOk());
  EXPECT_NE(two.status().message().find("several checkpoints"), std::string::npos);
  fs::create_directories(dir / "orphan");
  writeHeaderOnly(dir / "orphan/adapter.safetensors", adapterHeader(p("gone")));
  auto orphan = bundle::resolveModel({p("orphan"), ""});
  ASSERT_FALSE(orphan.isOk());
  EXPECT_NE(orphan.status().message().find("is not there"), std::string::npos) << orphan.status().message();
  // A truncated header: its length points past the end of the file.
  { std::ofstream(dir / "bad.safetensors", std::ios::binary) << std::string("\xff\x00\x00\x00\x00\x00\x00\x00{}", 10); }
  auto bad = bundle::readSafetensorsHeader(p("bad.safetensors"));
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("truncated"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(bundle::readAdapterSpec(p("model/model.safetensors")).isOk());  // a model is no adapter
}

}  // namespace
}  // namespace gs
