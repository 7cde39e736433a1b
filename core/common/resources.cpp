#include "common/resources.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/json_value.h"

#ifndef GS_SOURCE_RESOURCES_DIR
#define GS_SOURCE_RESOURCES_DIR ""
#endif

namespace gs {
namespace fs = std::filesystem;

namespace {
constexpr const char* kIndex = "models.json";
}

std::string bundledModelsDir() {
  std::error_code ec;
  std::vector<fs::path> candidates;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share/graphormer-studio/models");
  if (*GS_SOURCE_RESOURCES_DIR) candidates.push_back(fs::path(GS_SOURCE_RESOURCES_DIR) / "models");
  for (const auto& dir : candidates)
    if (fs::exists(dir / kIndex, ec)) return dir.string();
  return "";
}

std::vector<BundledModel> bundledModels() {
  std::vector<BundledModel> models;
  const std::string dir = bundledModelsDir();
  if (dir.empty()) return models;
  std::ifstream in(fs::path(dir) / kIndex);
  std::stringstream text;
  text << in.rdbuf();
  auto json = JsonValue::parse(text.str());
  const JsonValue* list = json.isOk() ? json->find("models") : nullptr;
  if (!list || !list->isArray()) return models;
  std::error_code ec;
  for (const auto& item : list->items()) {
    const JsonValue* name = item.find("name");
    const JsonValue* summary = item.find("summary");
    const JsonValue* is_default = item.find("default");
    if (!name || !name->isString() || name->asString().empty()) continue;
    BundledModel m;
    m.name = name->asString();
    m.summary = summary && summary->isString() ? summary->asString() : "";
    m.is_default = is_default && is_default->isBool() && is_default->asBool();
    m.path = (fs::path(dir) / m.name).string();
    if (fs::exists(fs::path(m.path) / "model.safetensors", ec)) models.push_back(m);
  }
  return models;
}

std::string bundledModelPath(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return "";
  for (const auto& m : bundledModels())
    if (m.name == name) return m.path;
  return "";
}

std::string defaultModelPath() {
  if (const char* env = std::getenv("GRAPHORMER_DEFAULT_MODEL"); env && *env) {
    const std::string named = bundledModelPath(env);
    return named.empty() ? env : named;
  }
  const auto models = bundledModels();
  for (const auto& m : models)
    if (m.is_default) return m.path;
  return models.empty() ? "" : models.front().path;
}

}  // namespace gs
