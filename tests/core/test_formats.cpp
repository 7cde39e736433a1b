// Small formats our checkpoint and run-record code relies on: JSON, SHA-256, the restricted
// unpickler, safetensors round trips.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/json_value.h"
#include "common/json_writer.h"
#include "common/sha256.h"
#include "model/format/safetensors.h"
#include "model/format/unpickler.h"

namespace gs {
namespace {

// Text written by JsonWriter reads back as the same text: UTF-8 passes through unchanged (it was
// once escaped byte by byte, so "é" came back as "Ã©"); bytes that are not well-formed UTF-8
// become U+FFFD and the output is still valid JSON.
TEST(Json, WrittenStringsReadBackAsTheSameText) {
  const std::string good[] = {"plain", "Paracétamol", "α(0) /au", "日本語", "emoji \xF0\x9F\x98\x80", "q\"b\\n\n\x01"};
  for (const std::string& text : good) {
    auto v = JsonValue::parse("\"" + JsonWriter::escape(text) + "\"");
    ASSERT_TRUE(v.isOk()) << text;
    EXPECT_EQ(v->asString(), text);
  }
  const std::string replacement = "\xEF\xBF\xBD";
  const std::pair<std::string, std::string> bad[] = {
      {"a\xFF"
       "b",
       "a" + replacement + "b"},                                                    // never in UTF-8
      {"a\xC3", "a" + replacement},                                                 // cut short
      {"\xC0\xAF", replacement + replacement},                                      // overlong
      {"\xED\xA0\x80", replacement + replacement + replacement},                    // a surrogate
      {"\xF4\x90\x80\x80", replacement + replacement + replacement + replacement},  // above U+10FFFF
  };
  for (const auto& [text, expected] : bad) {
    auto v = JsonValue::parse("\"" + JsonWriter::escape(text) + "\"");
    ASSERT_TRUE(v.isOk()) << JsonWriter::escape(text);
    EXPECT_EQ(v->asString(), expected);
  }
}

TEST(Json, ParsesNestedValuesAndRejectsMalformedText) {
  auto v = JsonValue::parse(R"( {"a": [1, 2.5, -3e2], "b": {"c": "x\u00e9\n"}, "t": true, "n": null} )");
  ASSERT_TRUE(v.isOk()) << v.status().toString();
  EXPECT_EQ(v->find("a")->items()[2].asNumber(), -300);
  EXPECT_TRUE(v->find("a")->items()[0].isInteger());
  EXPECT_FALSE(v->find("a")->items()[1].isInteger());
  EXPECT_EQ(v->find("b")->find("c")->asString(), "x\xc3\xa9\n");
  EXPECT_TRUE(v->find("t")->asBool());
  EXPECT_TRUE(v->find("n")->isNull());
  for (const char* bad : {"", "{", "[1,]", "{\"a\":1,\"a\":2}", "01", "\"\\x\"", "[1] 2", "nul", "\"\\ud800\""})
    EXPECT_FALSE(JsonValue::parse(bad).isOk()) << bad;
  EXPECT_FALSE(JsonValue::parse(std::string(1000, '[')).isOk()) << "depth must be bounded";
}

TEST(Sha256, KnownVectors) {
  Sha256 empty;
  EXPECT_EQ(empty.hexDigest(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 abc;
  abc.update("abc", 3);
  EXPECT_EQ(abc.hexDigest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 two_blocks;
  const std::string m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  two_blocks.update(m.data(), m.size());
  EXPECT_EQ(two_blocks.hexDigest(), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

model::StorageLoader noStorage() {
  return [](const std::string&, c10::ScalarType, int64_t) -> Result<torch::Tensor> {
    return Status(StatusCode::Internal, "no storage expected");
  };
}

TEST(Unpickler, NeverCallsUnknownGlobals) {
  const auto marker = std::filesystem::temp_directory_path() / "gs_unpickler_marker";
  std::filesystem::remove(marker);
  // protocol 2: os.system("touch <marker>") as pickle would encode it
  const std::string cmd = "touch " + marker.string();
  std::string p =
      "\x80\x02"
      "cos\nsystem\n"
      "X";
  for (int i = 0; i < 4; ++i) p += static_cast<char>((cmd.size() >> (8 * i)) & 0xff);
  p += cmd +
       "\x85"
       "R.";
  auto v = model::unpickle(p, noStorage());
  ASSERT_TRUE(v.isOk()) << v.status().toString();
  EXPECT_EQ(v.value()->kind, model::PyValue::Kind::Object);
  EXPECT_EQ(v.value()->type->text, "os.system");
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(Unpickler, RejectsUnsupportedAndTruncatedInput) {
  EXPECT_FALSE(model::unpickle(std::string("\x80\x02}q\x00", 5), noStorage()).isOk()) << "no STOP";
  auto inst = model::unpickle("(ios\nsystem\n.", noStorage());
  ASSERT_FALSE(inst.isOk());
  EXPECT_NE(inst.status().message().find("unsupported opcode"), std::string::npos);
  EXPECT_FALSE(model::unpickle("h\x05.", noStorage()).isOk()) << "GET of unknown memo";
  EXPECT_FALSE(model::unpickle("X\xff\xff\xff\x7f"
                               "abc.",
                               noStorage())
                   .isOk())
      << "string past the end";
  EXPECT_FALSE(model::unpickle("\x80\x02"
                               "cos\nsystem\nK\x01R.",
                               noStorage())
                   .isOk())
      << "REDUCE without a tuple";
  EXPECT_FALSE(model::unpickle("a.", noStorage()).isOk()) << "APPEND on empty stack";
}

TEST(Unpickler, ReadsOrderedDictsWithMetadataAndTensors) {
  // OrderedDict([("w", _rebuild_tensor_v2(storage, 1, (2,), (1,), False, OrderedDict()))]) + _metadata
  static const char kPickle[] =
      "\x80\x02"
      "ccollections\nOrderedDict\nq\x00)Rq\x01(X\x01\x00\x00\x00w"
      "ctorch._utils\n_rebuild_tensor_v2\n"
      "((X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x00"
      "0X\x03\x00\x00\x00"
      "cpuK\x03tQ"
      "K\x01K\x02\x85K\x01\x85\x89h\x00)Rtq\x02Ru"
      "}X\x09\x00\x00\x00_metadata}sb.";
  const std::string p(kPickle, sizeof(kPickle) - 1);
  auto loader = [](const std::string& key, c10::ScalarType dtype, int64_t numel) -> Result<torch::Tensor> {
    EXPECT_EQ(key, "0");
    EXPECT_EQ(dtype, c10::ScalarType::Float);
    return torch::arange(numel, torch::kFloat);
  };
  auto v = model::unpickle(p, loader);
  ASSERT_TRUE(v.isOk()) << v.status().toString();
  ASSERT_EQ(v.value()->kind, model::PyValue::Kind::Dict);
  auto w = v.value()->get("w");
  ASSERT_TRUE(w && w->kind == model::PyValue::Kind::Tensor);
  EXPECT_TRUE(w->tensor.equal(torch::tensor({1.f, 2.f})));
}

TEST(Safetensors, RoundTripKeepsDtypesShapesAndMetadata) {
  const auto path = (std::filesystem::temp_directory_path() / "gs_roundtrip.safetensors").string();
  model::TensorList t{{"a", torch::randn({3, 4})},
                      {"b", torch::arange(5, torch::kLong)},
                      {"c", torch::randn({2}).to(torch::kBFloat16)},
                      {"empty", torch::zeros({0, 3})}};
  ASSERT_TRUE(model::writeSafetensors(path, t, {{"format", "pt"}}).isOk());
  auto back = model::readSafetensors(path);
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  ASSERT_EQ(back->tensors.size(), t.size());
  std::map<std::string, torch::Tensor> m(back->tensors.begin(), back->tensors.end());
  for (const auto& [name, tensor] : t) {
    EXPECT_EQ(m[name].scalar_type(), tensor.scalar_type()) << name;
    EXPECT_TRUE(m[name].equal(tensor)) << name;
  }
  EXPECT_EQ(back->metadata.at("format"), "pt");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gs
